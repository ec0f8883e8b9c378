import MatterTLV

/// Revoked attestation certificates in the SDK's revocation-set JSON form (Matter Core 6.2.4,
/// as `TestDACRevocationDelegateImpl` reads it): a list of entries, each naming the issuer of
/// the revoked certificates (its DN and subject key identifier), their serial numbers, and the
/// CRL signer certificate (and its delegator, for indirect CRLs).
///
/// The type is `Decodable` so that a caller with Foundation can decode the file with
/// `JSONDecoder().decode(RevocationSet.self, from: data)`; this module reads no files.
public struct RevocationSet: Sendable, Hashable, Decodable {
    public struct Entry: Sendable, Hashable, Decodable {
        public var type: String
        /// The issuer's subject key identifier (a revoked certificate's authority key identifier).
        public var issuerSubjectKeyID: [UInt8]
        /// The issuer's DER-encoded Name (a revoked certificate's issuer field).
        public var issuerName: [UInt8]
        /// Serial numbers, as unsigned big-endian magnitudes without leading zero bytes.
        public var revokedSerialNumbers: [[UInt8]]
        public var crlSignerCertificate: [UInt8]?
        public var crlSignerDelegator: [UInt8]?

        public init(issuerSubjectKeyID: [UInt8], issuerName: [UInt8], revokedSerialNumbers: [[UInt8]],
                    crlSignerCertificate: [UInt8]?, crlSignerDelegator: [UInt8]? = nil) {
            self.type = "revocation_set"
            self.issuerSubjectKeyID = issuerSubjectKeyID
            self.issuerName = issuerName
            self.revokedSerialNumbers = revokedSerialNumbers.map(RevocationSet.magnitude)
            self.crlSignerCertificate = crlSignerCertificate
            self.crlSignerDelegator = crlSignerDelegator
        }

        enum CodingKeys: String, CodingKey {
            case type
            case issuerSubjectKeyID = "issuer_subject_key_id"
            case issuerName = "issuer_name"
            case revokedSerialNumbers = "revoked_serial_numbers"
            case crlSignerCertificate = "crl_signer_cert"
            case crlSignerDelegator = "crl_signer_delegator"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decode(String.self, forKey: .type)
            func hex(_ s: String, _ key: CodingKeys) throws -> [UInt8] {
                guard let b = Base16.decode(s) else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not hex")
                }
                return b
            }
            func base64(_ s: String, _ key: CodingKeys) throws -> [UInt8] {
                guard let b = AttestationPEM.base64Decode(Array(s.utf8)) else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not base64")
                }
                return b
            }
            issuerSubjectKeyID = try hex(c.decode(String.self, forKey: .issuerSubjectKeyID), .issuerSubjectKeyID)
            issuerName = try base64(c.decode(String.self, forKey: .issuerName), .issuerName)
            revokedSerialNumbers = try c.decode([String].self, forKey: .revokedSerialNumbers).map {
                RevocationSet.magnitude(try hex($0, .revokedSerialNumbers))
            }
            crlSignerCertificate = try c.decodeIfPresent(String.self, forKey: .crlSignerCertificate)
                .map { try base64($0, .crlSignerCertificate) }
            crlSignerDelegator = try c.decodeIfPresent(String.self, forKey: .crlSignerDelegator)
                .map { try base64($0, .crlSignerDelegator) }
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    public init(from decoder: any Decoder) throws {
        entries = try [Entry](from: decoder)
    }

    /// Whether `certificate` is revoked (Matter Core 6.2.4.2): an entry whose issuer name and
    /// key identifier are the certificate's issuer and authority key identifier, whose CRL
    /// signer (or its delegator) is that issuer, and which lists the certificate's serial number.
    public func isRevoked(_ certificate: X509Certificate) -> Bool {
        guard let akid = certificate.authorityKeyIdentifier?.keyIdentifier else { return false }
        let serial = Self.magnitude(certificate.serialNumber)
        for entry in entries where entry.type == "revocation_set" {
            guard entry.issuerName == certificate.issuer.encoded, entry.issuerSubjectKeyID == akid else { continue }
            // The CRL must come from the issuer itself, or from a delegate whose delegator is it.
            guard let signerDER = entry.crlSignerDelegator ?? entry.crlSignerCertificate,
                  let signer = try? X509Certificate(derEncoded: signerDER),
                  signer.subject.encoded == entry.issuerName, signer.subjectKeyIdentifier == akid
            else { continue }
            if entry.revokedSerialNumbers.contains(serial) { return true }
        }
        return false
    }

    /// Strips leading zero bytes (a DER INTEGER may carry one before a high bit).
    static func magnitude(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }

}
