/// The outcome of device attestation (Matter Core 6.2.3 and 6.3), one named case per rule, in the
/// manner of the SDK's `AttestationVerificationResult`. The commissioning flow shows `message` and
/// `remedy` to the user; `rawValue` is a stable code for logs and `--json`.
public enum AttestationVerificationResult: String, Sendable, Hashable, CaseIterable {
    case success

    // MARK: Inputs and the attestation response
    case invalidArgument
    case attestationElementsMalformed
    case attestationNonceMismatch
    case attestationSignatureInvalidFormat
    case attestationSignatureInvalid

    // MARK: PAA and trust store
    case paaNotFound
    case paaFormatInvalid
    case paaSignatureInvalid
    case paaNotValidAtDACIssuance
    case testPAARejected

    // MARK: PAI
    case paiMissing
    case paiFormatInvalid
    case paiVendorIdMismatch
    case paiNotIssuedByPAA
    case paiSignatureInvalid
    case paiNotValidAtDACIssuance
    case paiRevoked

    // MARK: DAC
    case dacFormatInvalid
    case dacVendorIdMismatch
    case dacProductIdMismatch
    case dacNotYetValid
    case dacExpired
    case dacNotIssuedByPAI
    case dacSignatureInvalid
    case dacRevoked
    case paiAndDacRevoked

    // MARK: Certification declaration
    case cdFormatInvalid
    case cdNoKeyId
    case cdSignerNotFound
    case cdSignatureInvalid
    case cdFormatVersionUnsupported
    case cdCertificationTypeInvalid
    case cdVendorIdMismatch
    case cdProductIdNotInList
    case cdDACOriginMismatch
    case cdPAANotAuthorized
    case cdTestKeyNotAllowedForCertificationType
    case testCDSigningKeyRejected
    case certificationTypeTestRejected

    /// True only for `.success`.
    public var isSuccess: Bool { self == .success }

    /// What failed, in words a user can follow.
    public var message: String {
        switch self {
        case .success: return "device attestation succeeded"
        case .invalidArgument: return "the attestation response is empty or larger than Matter allows (900 bytes)"
        case .attestationElementsMalformed: return "the device's attestation elements are not valid Matter TLV"
        case .attestationNonceMismatch: return "the device did not echo the attestation nonce the commissioner sent"
        case .attestationSignatureInvalidFormat: return "the attestation signature is not a 64-byte P-256 signature"
        case .attestationSignatureInvalid: return "the attestation signature does not verify with the DAC's public key"
        case .paaNotFound: return "no trusted PAA in the trust store issued the device's PAI"
        case .paaFormatInvalid: return "the PAA certificate does not follow the Matter PAA profile"
        case .paaSignatureInvalid: return "the PAA certificate's self-signature does not verify"
        case .paaNotValidAtDACIssuance: return "the PAA was not valid when the DAC was issued"
        case .testPAARejected: return "the device chains to a development/test PAA"
        case .paiMissing: return "the device sent no PAI certificate"
        case .paiFormatInvalid: return "the PAI certificate does not follow the Matter PAI profile"
        case .paiVendorIdMismatch: return "the PAI's vendor ID differs from the PAA's vendor ID"
        case .paiNotIssuedByPAA: return "the PAI's issuer is not the PAA's subject"
        case .paiSignatureInvalid: return "the PAI's signature does not verify with the PAA's public key"
        case .paiNotValidAtDACIssuance: return "the PAI was not valid when the DAC was issued"
        case .paiRevoked: return "the PAI certificate is revoked"
        case .dacFormatInvalid: return "the DAC certificate does not follow the Matter DAC profile"
        case .dacVendorIdMismatch: return "the DAC's vendor ID differs from the PAI's vendor ID"
        case .dacProductIdMismatch: return "the DAC has no product ID, or it differs from the PAI's product ID"
        case .dacNotYetValid: return "the DAC is not valid yet"
        case .dacExpired: return "the DAC has expired"
        case .dacNotIssuedByPAI: return "the DAC's issuer is not the PAI's subject"
        case .dacSignatureInvalid: return "the DAC's signature does not verify with the PAI's public key"
        case .dacRevoked: return "the DAC certificate is revoked"
        case .paiAndDacRevoked: return "both the PAI and the DAC certificates are revoked"
        case .cdFormatInvalid: return "the certification declaration is not a valid Matter CMS/TLV structure"
        case .cdNoKeyId: return "the certification declaration does not name its signing key"
        case .cdSignerNotFound: return "the certification declaration is signed by a key that is not a CSA CD signing key"
        case .cdSignatureInvalid: return "the certification declaration's signature does not verify"
        case .cdFormatVersionUnsupported: return "the certification declaration's format_version is not 1"
        case .cdCertificationTypeInvalid: return "the certification declaration's certification_type is reserved"
        case .cdVendorIdMismatch: return "the certification declaration's vendor ID differs from the device's"
        case .cdProductIdNotInList: return "the device's product ID is not in the certification declaration"
        case .cdDACOriginMismatch: return "the DAC/PAI vendor or product IDs differ from the certification declaration's dac_origin fields"
        case .cdPAANotAuthorized: return "the certification declaration's authorized PAA list does not include the device's PAA"
        case .cdTestKeyNotAllowedForCertificationType: return "a certification declaration signed with the test key claims an official certification"
        case .testCDSigningKeyRejected: return "the certification declaration is signed with the CSA test signing key"
        case .certificationTypeTestRejected: return "the certification declaration is for development and test only"
        }
    }

    /// What the user can do about it.
    public var remedy: String {
        switch self {
        case .success:
            return "nothing to do"
        case .testPAARejected, .testCDSigningKeyRejected, .certificationTypeTestRejected:
            return "this is a development device; commission it only if you trust it, with test devices allowed (--allow-test-devices)"
        case .paaNotFound:
            return "the manufacturer's PAA is not trusted: run 'matterctl attestation trust-store update' (the DCL's PAAs), "
                + "or 'matterctl attestation trust-store add FILE' with the PAA the manufacturer publishes"
        case .dacExpired, .dacNotYetValid:
            return "check this hub's clock; if it is right, the device's certificate is out of date: contact the manufacturer"
        case .paiRevoked, .dacRevoked, .paiAndDacRevoked:
            return "the manufacturer has withdrawn this device's certificate: do not commission it; contact the manufacturer"
        case .attestationNonceMismatch, .attestationSignatureInvalid, .attestationSignatureInvalidFormat,
             .attestationElementsMalformed, .invalidArgument:
            return "retry commissioning; if it fails again the device may be counterfeit or faulty"
        default:
            return "the device is not a certified Matter device or its credentials are faulty: do not commission it; contact the manufacturer"
        }
    }
}

extension AttestationVerificationResult: CustomStringConvertible {
    public var description: String { "\(rawValue): \(message)" }
}
