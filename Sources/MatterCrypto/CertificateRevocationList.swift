internal import COpenSSL

/// An X.509 certificate revocation list (RFC 5280 section 5), parsed by OpenSSL: the form in
/// which PAA and PAI vendors publish revocations at the DCL's distribution points (Matter Core
/// 6.2.4). Only what revocation checking needs is exposed; the DER is kept as received.
public struct CertificateRevocationList: Sendable, Hashable {
    /// One revoked certificate.
    public struct Entry: Sendable, Hashable {
        /// The serial number, an unsigned big-endian magnitude without leading zero bytes.
        public let serialNumber: [UInt8]
        /// True when the entry names another issuer (an indirect CRL's certificateIssuer).
        public let hasCertificateIssuer: Bool
    }

    /// The CRL exactly as received.
    public let derBytes: [UInt8]
    /// The issuer's DER-encoded Name.
    public let issuerName: [UInt8]
    /// thisUpdate, Unix seconds.
    public let thisUpdate: Int64
    /// nextUpdate, Unix seconds, when the CRL has one.
    public let nextUpdate: Int64?
    /// The authority key identifier's keyIdentifier, when the CRL carries one.
    public let authorityKeyIdentifier: [UInt8]?
    public let entries: [Entry]
    /// True when the CRL is signed with ecdsa-with-SHA256 (the only algorithm Matter uses).
    public let isECDSAWithSHA256: Bool

    /// Parses a DER CertificateList; rejects trailing bytes, negative serial numbers and a
    /// malformed authority key identifier.
    /// - Throws: `CryptoError.invalidArgument` naming what is wrong.
    public init(derEncoded der: [UInt8]) throws(CryptoError) {
        guard let crl = der.withUnsafeBufferPointer({ mh_crl_decode($0.baseAddress, $0.count) }) else {
            throw CryptoError(.invalidArgument, "not a DER certificate revocation list (\(der.count) bytes)")
        }
        defer { mh_crl_free(crl) }
        derBytes = der

        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard mh_crl_issuer(crl, &out, &length) == 1, let name = out else {
            throw CryptoError(.invalidArgument, "the CRL's issuer name cannot be encoded")
        }
        issuerName = Array(UnsafeBufferPointer(start: name, count: length))
        mh_free(name)

        var this: Int64 = 0, next: Int64 = 0
        var hasNext: Int32 = 0
        guard mh_crl_times(crl, &this, &next, &hasNext) == 1 else {
            throw CryptoError(.invalidArgument, "the CRL's thisUpdate or nextUpdate is not a valid time")
        }
        thisUpdate = this
        nextUpdate = hasNext == 1 ? next : nil

        out = nil
        switch mh_crl_authority_key_id(crl, &out, &length) {
        case 1:
            guard let id = out else { throw CryptoError.backend("CRL authority key identifier") }
            authorityKeyIdentifier = Array(UnsafeBufferPointer(start: id, count: length))
            mh_free(id)
        case 0:
            authorityKeyIdentifier = nil
        default:
            throw CryptoError(.invalidArgument, "the CRL's authority key identifier extension is malformed")
        }

        let count = mh_crl_revoked_count(crl)
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        var serial = [UInt8](repeating: 0, count: 64)
        for i in 0..<count {
            var n = 0
            var hasIssuer: Int32 = 0
            let ok = serial.withUnsafeMutableBufferPointer {
                mh_crl_revoked_serial(crl, i, $0.baseAddress, $0.count, &n, &hasIssuer)
            }
            guard ok == 1 else { throw CryptoError(.invalidArgument, "revoked entry \(i) has an invalid serial number") }
            entries.append(Entry(serialNumber: Array(serial.prefix(n)), hasCertificateIssuer: hasIssuer == 1))
        }
        self.entries = entries
        isECDSAWithSHA256 = mh_crl_is_ecdsa_sha256(crl) == 1
    }

    /// Whether the CRL's signature verifies with `publicKey` (its issuer's key).
    public func isSignatureValid(publicKey: P256PublicKey) -> Bool {
        guard isECDSAWithSHA256,
              let crl = derBytes.withUnsafeBufferPointer({ mh_crl_decode($0.baseAddress, $0.count) }) else { return false }
        defer { mh_crl_free(crl) }
        return mh_crl_verify(crl, publicKey.handle.pointer) == 1
    }

    /// Whether a direct entry lists `serialNumber` (leading zero bytes are ignored).
    public func lists(serialNumber: [UInt8]) -> Bool {
        let magnitude = Array(serialNumber.drop { $0 == 0 })
        return entries.contains { !$0.hasCertificateIssuer && $0.serialNumber == magnitude }
    }

    /// Issues a v2 CRL signed with `key` (ecdsa-with-SHA256): for tests and the DCL stand-in.
    package static func issue(signedBy key: P256PrivateKey, issuerName: [UInt8], thisUpdate: Int64, nextUpdate: Int64,
                              revokedSerialNumbers: [[UInt8]], authorityKeyIdentifier: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let serials = revokedSerialNumbers.map { s -> [UInt8] in
            let m = Array(s.drop { $0 == 0 })
            return m.isEmpty ? [0] : m
        }
        let lengths = serials.map(\.count)
        let pointers = serials.map { s -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: s.count)
            p.initialize(from: s, count: s.count)
            return p
        }
        defer { pointers.forEach { $0.deallocate() } }
        let constPointers: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
        let ok = issuerName.withUnsafeBufferPointer { name in
            authorityKeyIdentifier.withUnsafeBufferPointer { akid in
                constPointers.withUnsafeBufferPointer { ps in
                    lengths.withUnsafeBufferPointer { ls in
                        mh_crl_issue(key.handle.pointer, name.baseAddress, name.count, thisUpdate, nextUpdate,
                                     ps.baseAddress, ls.baseAddress, serials.count, akid.baseAddress, akid.count, &out, &length)
                    }
                }
            }
        }
        guard ok == 1, let out else { throw CryptoError.backend("CRL signing") }
        defer { mh_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
