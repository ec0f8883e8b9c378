import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCertificates
import MatterCrypto
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// matterjs-server's storage folder (its `--storage-path`), read without changing a byte
/// (docs/design/matterjs-storage.md): one namespace per controller fabric,
/// `server-<fabric id hex>-<vendor id hex>/` (`server/` in older installs), holding the fabric's
/// certificate authority (`certificates`), the fabric itself (`fabrics`) and each commissioned
/// node's last known addresses and attributes (`nodes.peer<N>...`).
public struct MatterjsServerStorage: Sendable {
    public let directory: String
    /// The controller namespaces found (`server-1-fff1`, ...).
    public let servers: [String]

    public static func read(_ directory: String) throws(MigrationError) -> MatterjsServerStorage {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw MigrationError(.notAStorage, "cannot read \(directory)",
                                 hint: "Give matterjs-server's --storage-path folder (Home Assistant's Matter Server app: its /data), readable by you.")
        }
        let servers = names.filter { name in
            (name == "server" || name.hasPrefix("server-"))
                && (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[.type] as? FileAttributeType == .typeDirectory
        }.sorted()
        guard !servers.isEmpty else {
            let legacy = names.contains("chip.json") ? " It holds python-matter-server's chip.json: import it with 'import python-matter-server'." : ""
            throw MigrationError(.notAStorage, "\(directory) has no matterjs-server controller folder (server-<fabric>-<vendor>/)",
                                 hint: "Give matterjs-server's --storage-path folder.\(legacy)")
        }
        return MatterjsServerStorage(directory: directory, servers: servers)
    }

    /// The namespace of the fabric `fabricID` names, or the only one.
    func server(_ fabricID: UInt64?) throws(MigrationError) -> String {
        guard let fabricID else {
            if servers.count == 1 { return servers[0] }
            throw MigrationError(.fabricChoice, "the storage holds \(servers.count) controller fabrics: \(servers.joined(separator: ", "))",
                                 hint: "Choose one with --fabric <fabric ID> (server-<fabric ID in hex>-<vendor>; Home Assistant's app uses 2).")
        }
        let wanted = servers.filter { $0.split(separator: "-").dropFirst().first.flatMap { UInt64($0, radix: 16) } == fabricID }
        if wanted.count == 1 { return wanted[0] }
        if servers == ["server"] { return "server" }  // an older install's one namespace: checked against the fabric read
        throw MigrationError(.fabricChoice, "the storage has no single fabric \(fabricID); it holds \(servers.joined(separator: ", "))",
                             hint: "Choose one of those with --fabric.")
    }
}

extension ImportPlan {
    /// Reads matterjs-server's fabric (the one `fabricID` names, or the only one): its CA, the
    /// fabric entry whose root is that CA's, and every node on it, with last known addresses and
    /// the attribute values MatterHub can take as they are (the rest is read from the device).
    public static func make(_ storage: MatterjsServerStorage, fabricID: UInt64? = nil, now: Date = Date())
        throws(MigrationError) -> ImportPlan {
        let name = try storage.server(fabricID)
        let store = try MatterjsKeyValueStore.read(storage.directory + "/" + name)
        var warnings: [String] = []
        if store.skippedLines > 0 { warnings.append("\(store.skippedLines) WAL lines were not commits and were skipped, as matterjs-server does") }

        // The certificate authority.
        guard let ca = store.contexts["certificates"] ?? store.contexts["credentials"] else {
            throw MigrationError(.corruptFabric, "\(name) has no certificate authority ('certificates')",
                                 hint: "This controller never commissioned a device; there is nothing to move.")
        }
        func keyPair(_ key: String, _ role: String) throws(MigrationError) -> P256PrivateKey? {
            guard let pair = ca[key], !MatterjsValue.isUndefined(pair) else { return nil }
            guard let publicKey = MatterjsValue.bytes(pair["publicKey"]), let privateKey = MatterjsValue.bytes(pair["privateKey"]),
                  let key = try? P256PrivateKey(rawRepresentation: privateKey), key.publicKey.x962Representation == publicKey else {
                throw MigrationError(.corruptFabric, "the \(role) key pair in \(name) is not a matching P-256 key pair",
                                     hint: "The storage is damaged; it cannot be moved.")
            }
            return key
        }
        guard let rootKey = try keyPair("rootKeyPair", "root"), let rootCert = MatterjsValue.bytes(ca["rootCertBytes"]) else {
            throw MigrationError(.notMovable, "\(name) keeps no root key (only an intermediate)",
                                 hint: "MatterHub needs the root key to administer the fabric; this storage cannot be moved.")
        }
        let icaKey = try keyPair("icacKeyPair", "intermediate")
        let icaCert = MatterjsValue.bytes(ca["icacCertBytes"])

        // The fabric whose root is this CA's.
        let entries = store.contexts["fabrics"]?["fabrics"]?.array ?? []
        guard let entry = entries.first(where: { MatterjsValue.bytes($0["rootCert"]) == rootCert }) else {
            throw MigrationError(.corruptFabric, "\(name) has no fabric entry for its certificate authority",
                                 hint: "The storage is damaged, or the controller never started; it cannot be moved.")
        }
        guard let fabric = MatterjsValue.integer(entry["fabricId"]).map(FabricID.init), fabric.isValid,
              let vendor = MatterjsValue.integer(entry["rootVendorId"]), vendor <= 0xFFFF,
              let controller = MatterjsValue.integer(entry["nodeId"]).map(NodeID.init),
              let fabricIndex = MatterjsValue.integer(entry["fabricIndex"]),
              let ipk = MatterjsValue.bytes(entry["identityProtectionKey"]), ipk.count == 16 else {
            throw MigrationError(.corruptFabric, "\(name)'s fabric entry lacks its fabric ID, vendor, node ID or IPK",
                                 hint: "The storage is damaged; it cannot be moved.")
        }
        if let fabricID, fabricID != fabric.rawValue {
            throw MigrationError(.fabricChoice, "\(name) holds fabric \(fabric.rawValue), not \(fabricID)", hint: "Choose --fabric \(fabric.rawValue).")
        }
        let authority: FabricCertificateAuthority
        do {
            authority = try FabricCertificateAuthority(fabricID: fabric, rootKey: rootKey, rootCertificate: rootCert,
                                                       intermediateKey: icaKey, intermediateCertificate: icaCert)
        } catch {
            throw MigrationError(.corruptFabric, "\(name)'s keys and certificates do not agree (\(error))",
                                 hint: "The storage is damaged; it cannot be moved.")
        }
        let cfid: CompressedFabricID
        do { cfid = try CompressedFabricID(rootPublicKey: authority.root.certificate.publicKey, fabricID: fabric) } catch {
            throw MigrationError(.corruptFabric, "\(name)'s root has no valid P-256 key", hint: "The storage is damaged; it cannot be moved.")
        }
        if let global = MatterjsValue.integer(entry["globalId"]), global != cfid.rawValue {
            throw MigrationError(.corruptFabric, "\(name)'s fabric says compressed fabric ID \(global), its root and fabric ID give \(cfid.rawValue)",
                                 hint: "The storage is damaged; it cannot be moved.")
        }

        // The nodes on this fabric.
        var nodes: [Node] = []
        var taken: [TakenOverNode] = []
        for (context, state) in store.contexts where context.hasPrefix("nodes.") && context.hasSuffix(".endpoints.0.commissioning") {
            let peer = String(context.dropFirst(6).dropLast(26))
            guard MatterjsValue.integer(state["peerAddress"]?["fabricIndex"]) == fabricIndex else { continue }
            guard let id = MatterjsValue.integer(state["peerAddress"]?["nodeId"]) else {
                nodes.append(Node(nodeID: 0, name: peer, vendorID: 0, productID: 0, attributes: 0, skipped: [],
                                  problems: ["\(peer) has no node ID"], imported: false))
                continue
            }
            let (node, takeover) = matterjsNode(id: id, peer: peer, state: state, store: store, now: now)
            nodes.append(node)
            if let takeover { taken.append(takeover) }
        }
        nodes.sort { $0.nodeID < $1.nodeID }
        taken.sort { $0.nodeID.rawValue < $1.nodeID.rawValue }
        if nodes.isEmpty { warnings.append("no node is commissioned on this fabric") }
        let summary = Fabric(fabricID: fabric, vendorID: UInt16(vendor), compressedFabricID: cfid,
                             origin: "\(name), \(store.driver) storage", nodeFile: nil)
        return ImportPlan(kind: "matterjs-server", source: storage.directory, fabric: summary, controllerNodeID: controller,
                          warnings: warnings, nodes: nodes,
                          takeover: FabricTakeover(authority: authority, vendorID: UInt16(vendor), ipkEpochKey: SecretBytes(ipk),
                                                   controllerNodeID: controller, nodes: taken))
    }

    /// One node: its addresses, and the attribute values that are plain (numbers, booleans,
    /// strings, bytes and lists of them); structures are stored in matter.js's own form (field
    /// names, bitmaps as objects) and are left to the hub's first read of the device.
    static func matterjsNode(id: UInt64, peer: String, state: [String: JSONValue], store: MatterjsKeyValueStore, now: Date)
        -> (Node, TakenOverNode?) {
        guard NodeID(id).isOperational else {
            return (Node(nodeID: id, name: "Node \(id)", vendorID: 0, productID: 0, attributes: 0, skipped: [],
                         problems: ["\(id) is not an operational node ID"], imported: false), nil)
        }
        var problems: [String] = []
        var addresses: [NodeAddress] = []
        for address in state["addresses"]?.array ?? [] {
            guard let ip = address["ip"]?.string, let port = MatterjsValue.integer(address["port"]).flatMap({ UInt16(exactly: $0) }) else {
                problems.append("an address without ip and port")
                continue
            }
            let parts = ip.split(separator: "%", maxSplits: 1)
            let index = parts.count == 2 ? if_nametoindex(String(parts[1])) : 0
            addresses.append(NodeAddress(host: String(parts[0]), port: port, interfaceIndex: index == 0 ? nil : index))
        }
        var attributes: [ConcreteAttributePath: [UInt8]] = [:]
        var skipped: [Skipped] = []
        var strings: [ConcreteAttributePath: String] = [:]
        var numbers: [ConcreteAttributePath: UInt64] = [:]
        let prefix = "nodes.\(peer).endpoints."
        for (context, values) in store.contexts where context.hasPrefix(prefix) {
            let parts = context.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 2, let endpoint = UInt16(parts[0]), let cluster = UInt32(parts[1]) else { continue }
            for (key, value) in values where key != "__version__" {
                let label = "\(endpoint)/\(cluster)/\(key)"
                guard let attribute = UInt32(key) else { skipped.append(Skipped(path: label, reason: "not an attribute ID")); continue }
                let path = ConcreteAttributePath(EndpointID(endpoint), ClusterID(cluster), AttributeID(attribute))
                guard let element = plainElement(value) else {
                    if !MatterjsValue.isUndefined(value) {
                        skipped.append(Skipped(path: label, reason: "a structure in matter.js's own form; the hub reads it from the device"))
                    }
                    continue
                }
                attributes[path] = TLVWriter.encode(element)
                if case .utf8(let s) = element.value { strings[path] = s }
                if case .unsigned(let n) = element.value { numbers[path] = n }
            }
        }
        func basic(_ attribute: UInt32) -> ConcreteAttributePath { ConcreteAttributePath(EndpointID(0), ClusterID(0x28), AttributeID(attribute)) }
        let vendor = numbers[basic(2)].flatMap { UInt16(exactly: $0) } ?? 0
        let product = numbers[basic(4)].flatMap { UInt16(exactly: $0) } ?? 0
        let name = String(([strings[basic(5)], strings[basic(3)]].compactMap { $0 }.first { !$0.isEmpty } ?? "Node \(id)").prefix(64))
        var commissioned = now
        if let ms = state["commissionedAt"]?.uint64 { commissioned = Date(timeIntervalSince1970: Double(ms) / 1000) }
        let node = Node(nodeID: id, name: name, vendorID: vendor, productID: product, attributes: attributes.count,
                        skipped: skipped.sorted { $0.path < $1.path }, problems: problems, imported: true)
        return (node, TakenOverNode(nodeID: NodeID(id), vendorID: vendor, productID: product, name: name, commissionedAt: commissioned,
                                    attributes: attributes, addresses: addresses))
    }

    /// The TLV of a plain stored value (nil for structures, maps and bitmaps-as-objects).
    static func plainElement(_ value: JSONValue) -> TLVElement? {
        if let special = MatterjsValue.special(value) {
            switch special.kind {
            case "BigInt": return MatterjsValue.integer(value).map { TLVElement(.unsigned($0)) }
            case "Uint8Array": return MatterjsValue.bytes(value).map { .bytes($0) }
            default: return nil
            }
        }
        switch value {
        case .object: return nil
        case .array(let items):
            var members: [TLVElement] = []
            for item in items {
                guard let element = plainElement(item) else { return nil }
                members.append(element)
            }
            return .array(members)
        default:
            return try? AttributeValueCoding.tlv(from: value, as: .any)
        }
    }
}
