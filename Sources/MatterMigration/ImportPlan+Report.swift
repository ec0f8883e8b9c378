import MatterCrypto
import MatterHome
import MatterServerAPI
import MatterTLV

extension ImportPlan {
    /// The plan for tools (`matterctl import --json`), node by node.
    public var json: JSONValue {
        .object([
            "source": .string(source),
            "kind": .string(kind),
            "fabric": .object([
                "fabric_id": .integer(fabric.fabricID.rawValue), "vendor_id": .integer(fabric.vendorID),
                "compressed_fabric_id": .string(Base16.encode(bytes(fabric.compressedFabricID.rawValue)).uppercased()),
                "origin": .string(fabric.origin), "node_file": fabric.nodeFile.map { .string($0) } ?? .null,
                "controller_node_id": .integer(controllerNodeID.rawValue),
            ]),
            "warnings": .array(warnings.map { .string($0) }),
            "nodes": .array(nodes.map { node in
                .object([
                    "node_id": .integer(node.nodeID), "name": .string(node.name), "imported": .bool(node.imported),
                    "vendor_id": .integer(node.vendorID), "product_id": .integer(node.productID),
                    "attributes": .integer(node.attributes),
                    "skipped_attributes": .array(node.skipped.map { .object(["path": .string($0.path), "reason": .string($0.reason)]) }),
                    "problems": .array(node.problems.map { .string($0) }),
                ])
            }),
        ])
    }

    /// The plan for people: the fabric, then a line per node with what does not carry over.
    public var text: [String] {
        var lines = ["\(kind) storage \(source): \(fabric)",
                     "  the hub will operate as node \(controllerNodeID.rawValue) with the fabric's own certificate authority"]
        lines += warnings.map { "  warning: \($0)" }
        for node in nodes {
            let ids = "vendor 0x\(hex16(node.vendorID)), product 0x\(hex16(node.productID))"
            if node.imported {
                lines.append("  node \(node.nodeID) \"\(node.name)\" (\(ids)): \(node.attributes) attribute values")
            } else {
                lines.append("  node \(node.nodeID): NOT carried over")
            }
            lines += node.problems.map { "    problem: \($0)" }
            lines += node.skipped.map { "    skipped \($0.path): \($0.reason)" }
        }
        if nodes.isEmpty { lines.append("  no devices") }
        return lines
    }

    private func hex16(_ v: UInt16) -> String { Base16.encode([UInt8(v >> 8), UInt8(v & 0xFF)]).uppercased() }

    private func bytes(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }
}

extension ImportPlan {
    /// The plan of the storage at `path`, read as `kind` writes it (the fabric `fabricID` names,
    /// or the only one).
    public static func read(_ kind: ImportSourceKind, _ path: String, fabricID: UInt64? = nil) throws(MigrationError) -> ImportPlan {
        switch kind {
        case .pythonMatterServer: try make(try PythonMatterServerStorage.read(path), fabricID: fabricID)
        case .matterjsServer: try make(try MatterjsServerStorage.read(path), fabricID: fabricID)
        }
    }

    /// What a dry run shows, as a short token (the hex of the first 16 bytes of the plan's JSON's
    /// SHA-256): an import confirmed with it goes ahead only when the storage still gives the
    /// same plan (the same fabric and root key, nodes, names and values carried over).
    public var confirmationToken: String {
        Base16.encode(Array(SHA256.hash(JSONWriter.encode(json)).prefix(16)))
    }
}
