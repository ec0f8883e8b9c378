/// A concrete attribute path, written `"endpoint/cluster/attribute"` in decimal with no padding
/// (`"1/6/0"` is OnOff.OnOff on endpoint 1). Home Assistant matches these keys literally.
public struct AttributePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var attribute: UInt32

    public init(endpoint: UInt16, cluster: UInt32, attribute: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    /// Parses the canonical form; nil for anything else (padding, signs, extra parts, overflow).
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 3, let e = canonicalDecimal(parts[0]), let c = canonicalDecimal(parts[1]),
              let a = canonicalDecimal(parts[2]), let e16 = UInt16(exactly: e), let c32 = UInt32(exactly: c),
              let a32 = UInt32(exactly: a) else { return nil }
        self.init(endpoint: e16, cluster: c32, attribute: a32)
    }

    public var description: String { "\(endpoint)/\(cluster)/\(attribute)" }

    public static func < (l: AttributePath, r: AttributePath) -> Bool {
        (l.endpoint, l.cluster, l.attribute) < (r.endpoint, r.cluster, r.attribute)
    }
}

/// An attribute path for `read_attribute`: any part that is not a number (e.g. `*`) is a wildcard.
public struct AttributePathPattern: Hashable, Sendable, CustomStringConvertible {
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var attribute: UInt32?

    public init(endpoint: UInt16?, cluster: UInt32?, attribute: UInt32?) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    /// Parses `"E/C/A"`; nil when it does not have three parts or a number is out of range.
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        func part<T: FixedWidthInteger>(_ p: Substring.UTF8View.SubSequence, _: T.Type) -> T?? {
            guard let n = decimal(p) else { return .some(nil) }  // not a number: wildcard
            guard let v = T(exactly: n) else { return nil }      // a number out of range: invalid
            return .some(v)
        }
        guard let e = part(parts[0], UInt16.self), let c = part(parts[1], UInt32.self),
              let a = part(parts[2], UInt32.self) else { return nil }
        self.init(endpoint: e, cluster: c, attribute: a)
    }

    public var description: String {
        "\(endpoint.map(String.init) ?? "*")/\(cluster.map(String.init) ?? "*")/\(attribute.map(String.init) ?? "*")"
    }

    /// The concrete path when no part is a wildcard.
    public var concrete: AttributePath? {
        guard let endpoint, let cluster, let attribute else { return nil }
        return AttributePath(endpoint: endpoint, cluster: cluster, attribute: attribute)
    }

    public func matches(_ path: AttributePath) -> Bool {
        (endpoint == nil || endpoint == path.endpoint) && (cluster == nil || cluster == path.cluster)
            && (attribute == nil || attribute == path.attribute)
    }
}

/// Digits only (any number of them, leading zeros allowed), as UInt64; nil otherwise or on overflow.
private func decimal(_ digits: Substring.UTF8View.SubSequence) -> UInt64? {
    guard !digits.isEmpty, digits.count <= 20 else { return nil }
    var v: UInt64 = 0
    for d in digits {
        guard d >= 0x30, d <= 0x39 else { return nil }
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (s, o2) = m.addingReportingOverflow(UInt64(d - 0x30))
        if o1 || o2 { return nil }
        v = s
    }
    return v
}

/// Digits with no leading zero (except "0" itself).
private func canonicalDecimal(_ digits: Substring.UTF8View.SubSequence) -> UInt64? {
    if digits.count > 1, digits.first == 0x30 { return nil }
    return decimal(digits)
}
