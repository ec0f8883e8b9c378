import FoundationEssentials
import MatterCertificates
import MatterCrypto
import MatterServerAPI
import MatterTLV

/// python-matter-server's storage folder (`--storage-path`) as it lies on disk, read without
/// changing a byte (docs/design/import-formats.md section 1): `chip.json`, the CHIP SDK's key
/// value store with the controller's certificate authorities, and one `<compressed fabric
/// id>.json` per fabric with its nodes (and a `.json.backup` of the version before).
public struct PythonMatterServerStorage: Sendable {
    /// One fabric administered from the storage: a `caList` entry.
    public struct Fabric: Sendable, CustomStringConvertible {
        /// The certificate authority's index (`ExampleOpCredsCAKey<index in hex>`).
        public var caIndex: Int
        public var fabricID: FabricID
        public var vendorID: UInt16
        public var compressedFabricID: CompressedFabricID
        /// The node file's name, when one exists (`<compressed fabric id>.json`, else its backup).
        public var nodeFile: String?

        public var description: String {
            "fabric \(fabricID.rawValue) (vendor 0x\(String(vendorID, radix: 16, uppercase: true)), CA \(caIndex), "
                + (nodeFile.map { "nodes in \($0)" } ?? "no node file") + ")"
        }
    }

    public let directory: String
    /// The `sdk-config` values, decoded from base64.
    let sdk: [String: [UInt8]]
    public let fabrics: [Fabric]

    /// The epoch key every python-matter-server controller gives devices in AddNOC (the CHIP SDK's
    /// `DefaultIpkValue`, "temporary ipk 01"; python-matter-server never sets another).
    public static let defaultIPKEpochKey: [UInt8] = Array("temporary ipk 01".utf8)
    /// The controller node ID python-matter-server always runs as (`FabricAdmin.NewController`),
    /// which every device's ACL grants Administer.
    public static let controllerNodeID = NodeID(112_233)
    /// `interview_version` of every python-matter-server release from 5.5.0 to 8.1.2 (0 marks a
    /// node it could not load and re-interviews).
    public static let knownInterviewVersions: Set<UInt64> = [0, 6]

    /// Reads `chip.json` and finds each fabric's node file.
    public static func read(_ directory: String) throws(MigrationError) -> PythonMatterServerStorage {
        let chip = try readJSON(directory + "/chip.json", what: "chip.json")
        guard let sdkConfig = chip["sdk-config"]?.objectValue, let caList = chip["repl-config"]?["caList"]?.objectValue else {
            throw MigrationError(.notAStorage, "\(directory)/chip.json has no 'sdk-config' and 'repl-config.caList'",
                                 hint: "Give python-matter-server's --storage-path folder (Home Assistant OS: the add-on's /data; Docker: the folder mounted at /data; plain: ~/.matter_server).")
        }
        var sdk: [String: [UInt8]] = [:]
        for member in sdkConfig {
            guard let text = member.value.string, let bytes = Base64.decode(text) else {
                throw MigrationError(.notAStorage, "chip.json's sdk-config value '\(member.key)' is not base64",
                                     hint: "The file is damaged; use python-matter-server's own copy of it.")
            }
            sdk[member.key] = bytes
        }
        var fabrics: [Fabric] = []
        for ca in caList.sorted(by: { $0.key < $1.key }) {
            guard let caIndex = Int(ca.key), let admins = ca.value.array else {
                throw MigrationError(.notAStorage, "chip.json's caList entry '\(ca.key)' is not an index with a list",
                                     hint: "The file is damaged; use python-matter-server's own copy of it.")
            }
            for admin in admins {
                guard let fabricID = admin["fabricId"]?.uint64, let vendor = admin["vendorId"]?.uint64, vendor <= 0xFFFF,
                      FabricID(fabricID).isValid else {
                    throw MigrationError(.notAStorage, "chip.json's caList entry '\(ca.key)' has an invalid fabricId or vendorId",
                                         hint: "The file is damaged; use python-matter-server's own copy of it.")
                }
                let root = try rootCertificate(sdk, caIndex: caIndex)
                let cfid: CompressedFabricID
                do { cfid = try CompressedFabricID(rootPublicKey: root.publicKey, fabricID: FabricID(fabricID)) } catch {
                    throw MigrationError(.corruptFabric, "CA \(caIndex)'s root certificate has no valid P-256 key",
                                         hint: "The storage is damaged; it cannot be moved.")
                }
                let name = String(cfid.rawValue)
                let nodeFile = [name + ".json", name + ".json.backup"].first {
                    FileManager.default.fileExists(atPath: directory + "/" + $0)
                }
                fabrics.append(Fabric(caIndex: caIndex, fabricID: FabricID(fabricID), vendorID: UInt16(vendor),
                                      compressedFabricID: cfid, nodeFile: nodeFile))
            }
        }
        guard !fabrics.isEmpty else {
            throw MigrationError(.notAStorage, "chip.json lists no fabric", hint: "python-matter-server never started on this storage; there is nothing to move.")
        }
        return PythonMatterServerStorage(directory: directory, sdk: sdk, fabrics: fabrics)
    }

    /// The fabric to move: the only one, or the one whose fabric ID is `fabricID`.
    public func fabric(_ fabricID: UInt64?) throws(MigrationError) -> Fabric {
        let list = fabrics.map(\.description).joined(separator: "; ")
        guard let fabricID else {
            if fabrics.count == 1 { return fabrics[0] }
            throw MigrationError(.fabricChoice, "the storage holds \(fabrics.count) fabrics: \(list)",
                                 hint: "Choose one with --fabric <fabric ID> (the one Home Assistant's add-on uses is 2, python-matter-server's default 1).")
        }
        let matching = fabrics.filter { $0.fabricID.rawValue == fabricID }
        guard let first = matching.first else {
            throw MigrationError(.fabricChoice, "the storage has no fabric \(fabricID); it holds \(list)", hint: "Choose one of those with --fabric.")
        }
        guard matching.count == 1 else {
            throw MigrationError(.fabricChoice, "fabric \(fabricID) is there \(matching.count) times: \(list)",
                                 hint: "Move the storage with python-matter-server's own tools first; MatterHub cannot tell which one the devices use.")
        }
        return first
    }

    // MARK: The certificate authority

    /// The fabric's CA: the root and intermediate key pairs (97 bytes: the 65-byte public key,
    /// then the 32-byte private scalar) and their DER certificates.
    public func authority(of fabric: Fabric) throws(MigrationError) -> FabricCertificateAuthority {
        let suffix = String(fabric.caIndex, radix: 16)
        let rootKey = try keyPair("ExampleOpCredsCAKey" + suffix, role: "root")
        let rootCert = try value("ExampleCARootCert" + suffix, role: "root certificate")
        let icaKey = try sdk["ExampleOpCredsICAKey" + suffix].map { _ throws(MigrationError) in
            try keyPair("ExampleOpCredsICAKey" + suffix, role: "intermediate")
        }
        let icaCert = sdk["ExampleCAIntermediateCert" + suffix]
        guard icaKey != nil, icaCert != nil else {
            throw MigrationError(.unknownVersion, "CA \(fabric.caIndex) has no stored intermediate certificate and key",
                                 hint: "This storage comes from a python-matter-server older than 5.5 (its SDK did not keep them); start python-matter-server 8.1.2 on it once, stop it, and import again.")
        }
        do {
            return try FabricCertificateAuthority(fabricID: fabric.fabricID, rootKey: rootKey, rootCertificate: rootCert,
                                                  intermediateKey: icaKey, intermediateCertificate: icaCert)
        } catch {
            throw MigrationError(.corruptFabric, "CA \(fabric.caIndex)'s keys and certificates do not agree (\(error))",
                                 hint: "The storage is damaged; it cannot be moved.")
        }
    }

    /// Checks the IPK the SDK stored for this fabric (keyset 0 of its fabric-table entry, the
    /// operational key derived from the epoch key) against python-matter-server's fixed epoch
    /// key. Returns a warning when no keyset is stored (the fixed key is then assumed).
    public func checkIPK(of fabric: Fabric, root: MatterCertificate) throws(MigrationError) -> String? {
        let cfidBytes = (0..<8).map { UInt8(truncatingIfNeeded: fabric.compressedFabricID.rawValue >> (56 - 8 * $0)) }
        guard let expected = try? MatterGroupKeys.operationalKey(epochKey: Self.defaultIPKEpochKey, compressedFabricID: cfidBytes)
        else { return "the IPK could not be derived" }
        for index in fabricIndexes(of: fabric, root: root) {
            guard let keyset = sdk["f/\(index)/k/0"] else { continue }
            guard let element = try? TLVDecoder.decode(keyset), let slots = element[context: 3]?.members,
                  let key = try? slots.first?[context: 6]?.bytes() else {
                throw MigrationError(.corruptFabric, "the IPK keyset f/\(index)/k/0 cannot be read",
                                     hint: "The storage is damaged; it cannot be moved.")
            }
            guard SecretBytes(key) == expected else {
                throw MigrationError(.notMovable, "the fabric's devices were given an IPK other than python-matter-server's",
                                     hint: "This storage was changed by another controller; MatterHub cannot know the key the devices hold, so they would refuse it.")
            }
            return nil
        }
        return "no IPK keyset is stored for this fabric; python-matter-server's fixed IPK is assumed"
    }

    /// The SDK's fabric-table indexes (`f/<index>/...`) whose root and NOC name this fabric.
    func fabricIndexes(of fabric: Fabric, root: MatterCertificate) -> [String] {
        var indexes: [String] = []
        for key in sdk.keys where key.hasPrefix("f/") && key.hasSuffix("/r") {
            let index = String(key.dropFirst(2).dropLast(2))
            guard let rcac = sdk[key].flatMap({ try? MatterCertificate(anyEncoding: $0) }), rcac.publicKey == root.publicKey
            else { continue }
            if let noc = sdk["f/\(index)/n"].flatMap({ try? MatterCertificate(anyEncoding: $0) }),
               noc.subject.fabricID != fabric.fabricID { continue }
            indexes.append(index)
        }
        return indexes.sorted()
    }

    func keyPair(_ key: String, role: String) throws(MigrationError) -> P256PrivateKey {
        let bytes = try value(key, role: "\(role) key")
        guard bytes.count == 97, bytes[0] == 0x04 else {
            throw MigrationError(.corruptFabric, "the \(role) key \(key) is \(bytes.count) bytes, not a 97-byte P-256 key pair",
                                 hint: "The storage is damaged; it cannot be moved.")
        }
        do {
            let key = try P256PrivateKey(rawRepresentation: Array(bytes[65...]))
            guard key.publicKey.x962Representation == Array(bytes[..<65]) else { throw CryptoError(.invalidKey, "mismatch") }
            return key
        } catch {
            throw MigrationError(.corruptFabric, "the \(role) key \(key)'s private half does not match its public half",
                                 hint: "The storage is damaged; it cannot be moved.")
        }
    }

    func value(_ key: String, role: String) throws(MigrationError) -> [UInt8] {
        guard let bytes = sdk[key] else {
            throw MigrationError(.corruptFabric, "chip.json has no \(role) (\(key))", hint: "The storage is incomplete; it cannot be moved.")
        }
        return bytes
    }

    static func rootCertificate(_ sdk: [String: [UInt8]], caIndex: Int) throws(MigrationError) -> MatterCertificate {
        let key = "ExampleCARootCert" + String(caIndex, radix: 16)
        guard let bytes = sdk[key], let cert = try? MatterCertificate(anyEncoding: bytes) else {
            throw MigrationError(.corruptFabric, "chip.json has no readable root certificate \(key)",
                                 hint: "The storage is incomplete; it cannot be moved.")
        }
        return cert
    }

    // MARK: Files

    static func readJSON(_ path: String, what: String) throws(MigrationError) -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MigrationError(.notAStorage, "cannot read \(path)",
                                 hint: "Give python-matter-server's --storage-path folder, readable by you (stop python-matter-server first).")
        }
        do { return try JSONParser.parse([UInt8](data), maxDepth: 128) } catch {
            throw MigrationError(.notAStorage, "\(what) is not JSON (\(error))",
                                 hint: "Stop python-matter-server cleanly (it rewrites the file while running) and try again.")
        }
    }
}
