import MatterCrypto
import MatterTLV

/// The compressed fabric identifier (Matter Core 4.3.2.2): 64 bits that name a fabric in
/// operational discovery, derived from the root public key and the fabric ID.
public struct CompressedFabricID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `HKDF-SHA256(IKM = root public key without its 0x04 prefix (64 bytes),
    /// salt = fabric ID as 8 big-endian bytes, info = "CompressedFabric", L = 8)`.
    /// - Throws: `invalidPublicKey` unless `rootPublicKey` is an uncompressed P-256 point on the curve.
    public init(rootPublicKey: [UInt8], fabricID: FabricID) throws(CertificateError) {
        guard rootPublicKey.count == 65, rootPublicKey[0] == 0x04,
              (try? P256PublicKey(x962Representation: rootPublicKey)) != nil
        else { throw .invalidPublicKey }
        let salt = (0..<8).map { UInt8(truncatingIfNeeded: fabricID.rawValue >> (56 - 8 * $0)) }
        let out: [UInt8]
        do {
            out = try HKDF.deriveKey(inputKeyMaterial: Array(rootPublicKey.dropFirst()), salt: salt,
                                     info: Array("CompressedFabric".utf8), outputByteCount: 8)
        } catch {
            throw .crypto("HKDF for the compressed fabric ID failed")
        }
        rawValue = out.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The 8 bytes, big-endian.
    public var bytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: rawValue >> (56 - 8 * $0)) } }

    /// Writes the 8 bytes at the start of `buffer`.
    /// - Throws: `invalidArgument` when the buffer holds fewer than 8 bytes.
    public func write(into buffer: inout [UInt8]) throws(CertificateError) {
        guard buffer.count >= 8 else { throw .invalidArgument("buffer of \(buffer.count) bytes is too small for a compressed fabric ID") }
        buffer.replaceSubrange(0..<8, with: bytes)
    }

    /// 16 uppercase hex digits, as in DNS-SD names.
    public var description: String { hex64(rawValue) }
}

/// A node on a fabric as named in operational discovery (Matter Core 4.3.2.1): the DNS-SD
/// instance name `<compressed fabric ID>-<node ID>`, each 16 uppercase hex digits.
public struct OperationalPeerName: Hashable, Sendable, CustomStringConvertible {
    public let compressedFabricID: CompressedFabricID
    public let nodeID: NodeID

    public init(compressedFabricID: CompressedFabricID, nodeID: NodeID) {
        self.compressedFabricID = compressedFabricID
        self.nodeID = nodeID
    }

    /// Parses an instance name. Only the part before the first '.' is read; it must be exactly
    /// 16 hex digits, '-', 16 hex digits (lowercase is accepted, as DNS is case-insensitive).
    public init(instanceName: String) throws(CertificateError) {
        let label = Array(instanceName.utf8.prefix { $0 != UInt8(ascii: ".") })
        guard label.count == 33, label[16] == UInt8(ascii: "-") else {
            throw .invalidArgument("instance name '\(instanceName)' is not <16 hex>-<16 hex>")
        }
        guard let fabric = Self.parseHex(label[0..<16]), let node = Self.parseHex(label[17..<33]) else {
            throw .invalidArgument("instance name '\(instanceName)' has a non-hex character")
        }
        self.init(compressedFabricID: CompressedFabricID(rawValue: fabric), nodeID: NodeID(node))
    }

    private static func parseHex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var v: UInt64 = 0
        for c in digits {
            let n: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): n = c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): n = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): n = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            v = v << 4 | UInt64(n)
        }
        return v
    }

    /// The instance name, e.g. `87E1B004E235A130-0000000000000001`.
    public var instanceName: String { "\(compressedFabricID)-\(hex64(nodeID.rawValue))" }
    public var description: String { instanceName }
}

extension OperationalIdentity {
    /// The compressed fabric ID of this identity's fabric.
    public func compressedFabricID() throws(CertificateError) -> CompressedFabricID {
        try CompressedFabricID(rootPublicKey: rootPublicKey, fabricID: fabricID)
    }

    /// The DNS-SD instance name under which this node is advertised.
    public func operationalName() throws(CertificateError) -> OperationalPeerName {
        OperationalPeerName(compressedFabricID: try compressedFabricID(), nodeID: nodeID)
    }
}
