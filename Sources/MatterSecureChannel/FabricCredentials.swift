import MatterCertificates
import MatterCrypto

/// A node's operational credentials on one fabric: what CASE needs on either side.
public struct FabricCredentials: Sendable {
    /// This node's local index for the fabric.
    public var fabricIndex: UInt8
    /// Matter TLV encodings.
    public var rcac: [UInt8]
    public var icac: [UInt8]?
    public var noc: [UInt8]
    public var operationalKey: P256PrivateKey
    /// The identity protection key: the operational group key of the IPK epoch key.
    public var ipk: SecretBytes

    public let root: MatterCertificate
    public let identity: OperationalIdentity

    /// Checks the chain (without validity dates: a node may have no clock) and derives the IPK
    /// operational key from the epoch key and the compressed fabric ID.
    public init(fabricIndex: UInt8, rcac: [UInt8], icac: [UInt8]?, noc: [UInt8], operationalKey: P256PrivateKey,
                ipkEpochKey: SecretBytes) throws(SecureChannelError) {
        self.fabricIndex = fabricIndex
        self.rcac = rcac
        self.icac = icac
        self.noc = noc
        self.operationalKey = operationalKey
        do {
            let root = try MatterCertificate(tlvEncoded: rcac)
            let icacCert = try icac.map { bytes throws(CertificateError) in try MatterCertificate(tlvEncoded: bytes) }
            let nocCert = try MatterCertificate(tlvEncoded: noc)
            guard nocCert.publicKey == operationalKey.publicKey.x962Representation else {
                throw SecureChannelError.internalError("the operational key does not match the NOC")
            }
            identity = try MatterCertificateValidator.validateChain(noc: nocCert, icac: icacCert, rcac: root, now: nil)
            self.root = root
            let cfid = try CompressedFabricID(rootPublicKey: root.publicKey, fabricID: identity.fabricID)
            ipk = try MatterGroupKeys.operationalKey(epochKey: ipkEpochKey.bytes, compressedFabricID: cfid.bytes)
        } catch let e as SecureChannelError {
            throw e
        } catch {
            throw .internalError("invalid fabric credentials: \(error)")
        }
    }

    public var fabricID: UInt64 { identity.fabricID.rawValue }
    public var nodeID: UInt64 { identity.nodeID.rawValue }
    public var rootPublicKey: [UInt8] { root.publicKey }
}

/// What lets a CASE session be resumed without new signatures (Matter Core 4.14.2.2).
public struct CASEResumptionRecord: Sendable {
    public var resumptionID: [UInt8]
    public var sharedSecret: SecretBytes
    public var fabricIndex: UInt8
    public var peerNodeID: UInt64
    public var peerCATs: [UInt32]
}

/// Validates a peer's NOC chain against a fabric's root and returns its identity.
enum PeerCredentials {
    static func validate(noc: [UInt8], icac: [UInt8]?, fabric: FabricCredentials,
                         now: MatterEpochTime?) throws(SecureChannelError) -> (identity: OperationalIdentity, publicKey: P256PublicKey) {
        do {
            let nocCert = try MatterCertificate(tlvEncoded: noc)
            let icacCert = try icac.map { bytes throws(CertificateError) in try MatterCertificate(tlvEncoded: bytes) }
            let identity = try MatterCertificateValidator.validateChain(noc: nocCert, icac: icacCert, rcac: fabric.root, now: now)
            guard identity.fabricID == fabric.identity.fabricID else {
                throw SecureChannelError.peerAuthenticationFailed("the peer's fabric ID differs from ours")
            }
            return (identity, try P256PublicKey(x962Representation: nocCert.publicKey))
        } catch let e as SecureChannelError {
            throw e
        } catch {
            throw .peerAuthenticationFailed("its certificate chain is invalid: \(error)")
        }
    }
}
