/// A UTC calendar time as carried in X.509 validity (UTCTime or GeneralizedTime, always 'Z',
/// whole seconds, RFC 5280 4.1.2.5). A date type of our own, so that codecs need no Foundation.
public struct ASN1Time: Hashable, Sendable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// Validates every field, including the day of the month.
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) throws(CertificateError) {
        guard (0...9999).contains(year), (1...12).contains(month),
              (1...Self.daysInMonth(year: year, month: month)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { throw .derInvalidValue("time \(year)-\(month)-\(day) \(hour):\(minute):\(second) is not a valid date") }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// RFC 5280's "no well-defined expiration date", 99991231235959Z.
    public static let noWellDefinedExpiration = try! ASN1Time(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)

    public static func < (a: ASN1Time, b: ASN1Time) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether RFC 5280 requires UTCTime (years 1950 through 2049) rather than GeneralizedTime.
    public var usesUTCTime: Bool { (1950...2049).contains(year) }

    /// ISO 8601 text, e.g. `2020-10-15T14:23:43Z`.
    public var iso8601: String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }
}

// MARK: - Seconds since an epoch

extension ASN1Time {
    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian; H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Int64 {
        Int64(Self.daysFromCivil(year, month, day)) * 86400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The calendar time of a number of seconds since 1970-01-01T00:00:00Z (years 0...9999).
    public init(unixSeconds: Int64) throws(CertificateError) {
        let days = unixSeconds >= 0 ? unixSeconds / 86400 : (unixSeconds - 86399) / 86400
        let secs = Int(unixSeconds - days * 86400)
        let z = Int(days) + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        try self.init(year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60)
    }
}

// MARK: - DER forms

extension ASN1Time {
    /// Parses a UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) element in the
    /// strict DER/RFC 5280 form: seconds present, no fraction, 'Z' only. Either form is accepted
    /// for any year; the Matter conversion's byte-exact round trip enforces RFC 5280's choice.
    public init(derNode node: DERNode) throws(CertificateError) {
        let text = Array(node.value)
        let isUTC: Bool
        switch node.tag {
        case .utcTime: isUTC = true
        case .generalizedTime: isUTC = false
        default: throw .derUnexpectedElement(expected: "UTCTime or GeneralizedTime", found: node.tag.description)
        }
        let digitCount = isUTC ? 12 : 14
        guard text.count == digitCount + 1, text.last == UInt8(ascii: "Z"),
              text.dropLast().allSatisfy({ (0x30...0x39).contains($0) })
        else { throw .derInvalidValue("malformed \(node.tag) '\(String(decoding: text, as: UTF8.self))'") }
        let digits = text.dropLast().map { Int($0 - 0x30) }
        func number(_ at: Int, _ n: Int) -> Int { digits[at..<at + n].reduce(0) { $0 * 10 + $1 } }
        var i = 0
        var year: Int
        if isUTC {
            let yy = number(0, 2)
            year = yy >= 50 ? 1900 + yy : 2000 + yy
            i = 2
        } else {
            year = number(0, 4)
            i = 4
        }
        try self.init(year: year, month: number(i, 2), day: number(i + 2, 2), hour: number(i + 4, 2),
                      minute: number(i + 6, 2), second: number(i + 8, 2))
    }

    /// The DER element, choosing UTCTime or GeneralizedTime as RFC 5280 requires.
    public var derEncoded: [UInt8] {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        let rest = pad(month, 2) + pad(day, 2) + pad(hour, 2) + pad(minute, 2) + pad(second, 2) + "Z"
        if usesUTCTime {
            return DERWriter.element(.utcTime, Array((pad(year % 100, 2) + rest).utf8))
        }
        return DERWriter.element(.generalizedTime, Array((pad(year, 4) + rest).utf8))
    }
}
