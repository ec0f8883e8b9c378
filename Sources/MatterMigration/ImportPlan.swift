import FoundationEssentials
import MatterCertificates
import MatterCrypto
import MatterHome
import MatterInteraction
import MatterServerAPI
import MatterTLV

/// What moving another Matter server's fabric (python-matter-server, matterjs-server) onto
/// MatterHub carries over, node by node, and why anything does not: made without writing anything
/// (`--dry-run` prints it), then applied to a state directory's store (``HubStore/takeOverFabric(_:)``).
public struct ImportPlan: Sendable {
    /// The fabric taken over, as the source names it.
    public struct Fabric: Sendable, CustomStringConvertible {
        public var fabricID: FabricID
        public var vendorID: UInt16
        public var compressedFabricID: CompressedFabricID
        /// Where in the source it was found (its CA index and node file, or its namespace and driver).
        public var origin: String
        /// python-matter-server's node file, when the fabric has one.
        public var nodeFile: String?

        public var description: String {
            "fabric \(fabricID.rawValue) (vendor 0x\(String(vendorID, radix: 16, uppercase: true)), \(origin))"
        }
    }

    /// One attribute value that is not carried over, and why.
    public struct Skipped: Sendable, Hashable {
        public var path: String
        public var reason: String
    }

    public struct Node: Sendable {
        public var nodeID: UInt64
        public var name: String
        public var vendorID: UInt16
        public var productID: UInt16
        /// The attribute values carried over.
        public var attributes: Int
        public var skipped: [Skipped]
        /// Defects of the stored node that were worked around (named, never silent).
        public var problems: [String]
        /// False when the node cannot be moved at all (its ID is not an operational node ID).
        public var imported: Bool
    }

    /// The other server: "python-matter-server" or "matterjs-server".
    public var kind: String
    public var source: String
    public var fabric: Fabric
    public var controllerNodeID: NodeID
    public var warnings: [String]
    public var nodes: [Node]
    /// What ``HubStore/takeOverFabric(_:)`` writes.
    public var takeover: FabricTakeover

    /// Reads `storage`'s fabric (the one `fabricID` names, or the only one) and its nodes.
    public static func make(_ storage: PythonMatterServerStorage, fabricID: UInt64? = nil, now: Date = Date())
        throws(MigrationError) -> ImportPlan {
        let fabric = try storage.fabric(fabricID)
        let authority = try storage.authority(of: fabric)
        var warnings: [String] = []
        if let warning = try storage.checkIPK(of: fabric, root: authority.root.certificate) { warnings.append(warning) }
        var nodes: [Node] = []
        var taken: [TakenOverNode] = []
        if let file = fabric.nodeFile {
            if file.hasSuffix(".backup") { warnings.append("\(file) is used: the node file itself is missing") }
            let json = try PythonMatterServerStorage.readJSON(storage.directory + "/" + file, what: file)
            guard let stored = json["nodes"]?.objectValue else {
                throw MigrationError(.notAStorage, "\(file) has no 'nodes' object",
                                     hint: "The file is damaged; python-matter-server's .json.backup beside it may be whole.")
            }
            for member in stored.sorted(by: { (UInt64($0.key) ?? 0) < (UInt64($1.key) ?? 0) }) {
                let (node, takeover) = try Self.node(key: member.key, member.value, now: now)
                nodes.append(node)
                if let takeover { taken.append(takeover) }
            }
        } else {
            warnings.append("no node file (\(fabric.compressedFabricID.rawValue).json) exists: the fabric has no devices")
        }
        let takeover = FabricTakeover(authority: authority, vendorID: fabric.vendorID,
                                      ipkEpochKey: SecretBytes(PythonMatterServerStorage.defaultIPKEpochKey),
                                      controllerNodeID: PythonMatterServerStorage.controllerNodeID, nodes: taken)
        let summary = Fabric(fabricID: fabric.fabricID, vendorID: fabric.vendorID, compressedFabricID: fabric.compressedFabricID,
                             origin: "CA \(fabric.caIndex), " + (fabric.nodeFile.map { "nodes in \($0)" } ?? "no node file"),
                             nodeFile: fabric.nodeFile)
        return ImportPlan(kind: "python-matter-server", source: storage.directory, fabric: summary,
                          controllerNodeID: PythonMatterServerStorage.controllerNodeID,
                          warnings: warnings, nodes: nodes, takeover: takeover)
    }

    /// One stored node: what carries over of it, and the node to record (nil when none can be).
    static func node(key: String, _ value: JSONValue, now: Date) throws(MigrationError) -> (Node, TakenOverNode?) {
        var problems: [String] = []
        guard let id = UInt64(key) else {
            return (Node(nodeID: 0, name: key, vendorID: 0, productID: 0, attributes: 0, skipped: [],
                         problems: ["'\(key)' is not a node ID"], imported: false), nil)
        }
        guard let object = value.objectValue else {
            return (Node(nodeID: id, name: "Node \(id)", vendorID: 0, productID: 0, attributes: 0, skipped: [],
                         problems: ["its data is \(value.typeName), not an object"], imported: false), nil)
        }
        if let version = object["interview_version"]?.uint64, !PythonMatterServerStorage.knownInterviewVersions.contains(version) {
            throw MigrationError(.unknownVersion,
                                 "node \(id) was stored by a python-matter-server with interview_version \(version) (MatterHub reads 6: python-matter-server 5.5 to 8.1.2)",
                                 hint: "Import with the python-matter-server release this MatterHub names, or report the version so it can be supported.")
        }
        if let stated = object["node_id"]?.uint64, stated != id { problems.append("its node_id says \(stated); the key \(id) is used") }
        guard NodeID(id).isOperational else {
            return (Node(nodeID: id, name: "Node \(id)", vendorID: 0, productID: 0, attributes: 0, skipped: [],
                         problems: problems + ["\(id) is not an operational node ID"], imported: false), nil)
        }
        var attributes: [ConcreteAttributePath: [UInt8]] = [:]
        var values: [ConcreteAttributePath: JSONValue] = [:]
        var skipped: [Skipped] = []
        if let stored = object["attributes"] {
            if let members = stored.objectValue {
                for member in members {
                    guard let path = Self.path(member.key) else {
                        skipped.append(Skipped(path: member.key, reason: "not an endpoint/cluster/attribute path"))
                        continue
                    }
                    switch Self.tlv(member.value, path: path) {
                    case .value(let bytes):
                        attributes[path] = bytes
                        values[path] = member.value
                    case .skipped(let reason): skipped.append(Skipped(path: member.key, reason: reason))
                    }
                }
            } else {
                problems.append("its attributes are \(stored.typeName), not an object; none carried over")
            }
        } else {
            problems.append("it has no attributes (python-matter-server never interviewed it)")
        }
        func attribute(_ cluster: UInt32, _ attribute: UInt32) -> JSONValue? {
            values[ConcreteAttributePath(EndpointID(0), ClusterID(cluster), AttributeID(attribute))]
        }
        let vendor = attribute(0x28, 2)?.uint64.flatMap { UInt16(exactly: $0) } ?? 0
        let product = attribute(0x28, 4)?.uint64.flatMap { UInt16(exactly: $0) } ?? 0
        let label = [attribute(0x28, 5), attribute(0x28, 3)].compactMap { (v: JSONValue?) -> String? in
            v?.string.map { String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
        }.first { !$0.isEmpty }
        let name = String((label ?? "Node \(id)").prefix(64))
        var commissioned = now
        if let text = object["date_commissioned"]?.string {
            if let date = Self.date(text) { commissioned = date } else { problems.append("date_commissioned '\(text)' is not a date") }
        }
        let node = Node(nodeID: id, name: name, vendorID: vendor, productID: product, attributes: attributes.count,
                        skipped: skipped.sorted { $0.path < $1.path }, problems: problems, imported: true)
        return (node, TakenOverNode(nodeID: NodeID(id), vendorID: vendor, productID: product, name: name,
                                    commissionedAt: commissioned, attributes: attributes))
    }

    /// `"<endpoint>/<cluster>/<attribute>"` in decimal.
    static func path(_ text: String) -> ConcreteAttributePath? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let e = UInt16(parts[0]), let c = UInt32(parts[1]), let a = UInt32(parts[2]) else { return nil }
        return ConcreteAttributePath(EndpointID(e), ClusterID(c), AttributeID(a))
    }

    /// A stored value as TLV: with the attribute's type where MatterHub knows it, else as the
    /// JSON says (python-matter-server writes octet strings as base64 text, which then stays
    /// text until the hub's own subscription reports the value).
    static func tlv(_ value: JSONValue, path: ConcreteAttributePath) -> Conversion {
        if let object = value.objectValue, object["TLVValue"] != nil, object["Reason"] != nil {
            return .skipped("python-matter-server could not decode it (\(object["Reason"]?.string ?? "no reason given"))")
        }
        let type = AttributeSchema.type(cluster: path.cluster.rawValue, attribute: path.attribute.rawValue)
        if let type, let element = try? AttributeValueCoding.tlv(from: value, as: type) { return .value(TLVWriter.encode(element)) }
        do throws(ValueCodingError) { return .value(TLVWriter.encode(try AttributeValueCoding.tlv(from: value, as: .any))) } catch {
            return .skipped(error.description)
        }
    }

    enum Conversion { case value([UInt8]), skipped(String) }

    /// python-matter-server's dates: naive UTC ISO 8601 (`2026-12-04T15:07:15.739569`), or
    /// with `Z` / `+00:00` as matterjs-server writes them.
    package static func date(_ text: String) -> Date? {
        var s = Substring(text)
        if s.hasSuffix("Z") { s = s.dropLast() } else if s.hasSuffix("+00:00") { s = s.dropLast(6) }
        let parts = s.split(separator: "T")
        guard parts.count == 2 else { return nil }
        let day = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].split(separator: ":")
        guard day.count == 3, time.count == 3, let h = Int(time[0]), let m = Int(time[1]),
              let sec = Double(time[2]), (1...12).contains(day[1]), (1...31).contains(day[2]), h < 24, m < 60, sec < 61
        else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        let y = day[1] <= 2 ? day[0] - 1 : day[0]
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (day[1] + (day[1] > 2 ? -3 : 9)) + 2) / 5 + day[2] - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + h * 3600 + m * 60) + sec)
    }
}
