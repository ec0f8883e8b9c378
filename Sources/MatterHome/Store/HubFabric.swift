import FoundationEssentials
import MatterCertificates
import MatterCrypto
import MatterTLV

/// The hub's fabric, loaded from the store: its certificate authority (root key and RCAC, and an
/// ICAC when there is one), the IPK epoch key, and the controller's own operational identity.
///
/// Its `description` shows identifiers only; keys and the IPK are `<redacted>`.
public struct HubFabric: Sendable, CustomStringConvertible {
    public let fabricID: FabricID
    /// The vendor ID the hub administers the fabric as (AdminVendorId in AddNOC).
    public let vendorID: UInt16
    /// Issues NOCs; restored from the stored root (and ICAC) keys and certificates.
    public let certificateAuthority: FabricCertificateAuthority
    /// The 16-byte IPK epoch key (group key set 0) given to devices in AddNOC.
    public let ipkEpochKey: SecretBytes
    /// The controller's own operational node ID (the subject of `controllerNOC`).
    public let controllerNodeID: NodeID
    /// The controller's operational private key (CASE initiator identity).
    public let controllerKey: P256PrivateKey
    /// The controller's NOC, decoded, and in both encodings.
    public let controllerNOC: MatterCertificate
    public let controllerNOCTLV: [UInt8]
    public let controllerNOCDER: [UInt8]
    public let createdAt: Date

    public var rootCertificate: IssuedCertificate { certificateAuthority.root }
    public var intermediateCertificate: IssuedCertificate? { certificateAuthority.intermediate }

    /// The compressed fabric ID (operational DNS-SD instance names).
    public func compressedFabricID() throws(CertificateError) -> CompressedFabricID {
        try CompressedFabricID(rootPublicKey: certificateAuthority.root.certificate.publicKey, fabricID: fabricID)
    }

    public var description: String {
        "HubFabric(fabricID: \(fabricID), vendorID: 0x\(String(vendorID, radix: 16, uppercase: true)), "
            + "controllerNodeID: \(controllerNodeID), intermediate: \(intermediateCertificate != nil), keys: <redacted>)"
    }
}

/// Choices for a new fabric.
public struct FabricCreationOptions: Sendable {
    /// The hub's admin vendor ID (0xFFF1 is a test vendor).
    public var vendorID: UInt16 = 0xFFF1
    /// Issue NOCs from an ICAC (as the SDK's controllers do) rather than from the root.
    public var useIntermediate: Bool = true
    /// Validity of the RCAC, ICAC and the controller's NOC, in days; nil means no expiry.
    public var validityDays: Int? = nil

    public init(vendorID: UInt16 = 0xFFF1, useIntermediate: Bool = true, validityDays: Int? = nil) {
        self.vendorID = vendorID
        self.useIntermediate = useIntermediate
        self.validityDays = validityDays
    }
}
