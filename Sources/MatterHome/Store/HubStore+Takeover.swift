import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCertificates
import MatterCrypto
import MatterInteraction
import MatterTLV

/// A fabric another controller made (python-matter-server, matterjs-server), taken over with its
/// devices so that the hub reaches every one of them over CASE without touching them: the
/// fabric's certificate authority (both tiers, with their keys), the IPK epoch key the devices
/// were given, and the node ID their ACLs grant Administer to, which the hub then operates as.
public struct FabricTakeover: Sendable {
    public var authority: FabricCertificateAuthority
    /// The admin vendor ID of the fabric (its Fabrics entry on each device).
    public var vendorID: UInt16
    public var ipkEpochKey: SecretBytes
    /// The controller node ID the devices' ACLs name (python-matter-server's is 112233).
    public var controllerNodeID: NodeID
    public var nodes: [TakenOverNode]

    public init(authority: FabricCertificateAuthority, vendorID: UInt16, ipkEpochKey: SecretBytes, controllerNodeID: NodeID,
                nodes: [TakenOverNode]) {
        self.authority = authority
        self.vendorID = vendorID
        self.ipkEpochKey = ipkEpochKey
        self.controllerNodeID = controllerNodeID
        self.nodes = nodes
    }
}

/// A device of a taken-over fabric, as the other controller last knew it.
public struct TakenOverNode: Sendable {
    public var nodeID: NodeID
    public var vendorID: UInt16
    public var productID: UInt16
    public var name: String
    public var commissionedAt: Date
    /// Last known values (TLV), shown until the hub's own subscription reports.
    public var attributes: [ConcreteAttributePath: [UInt8]]
    /// Last known addresses, tried before `_matter._tcp` answers.
    public var addresses: [NodeAddress]

    public init(nodeID: NodeID, vendorID: UInt16, productID: UInt16, name: String, commissionedAt: Date,
                attributes: [ConcreteAttributePath: [UInt8]], addresses: [NodeAddress] = []) {
        self.nodeID = nodeID
        self.vendorID = vendorID
        self.productID = productID
        self.name = name
        self.commissionedAt = commissionedAt
        self.attributes = attributes
        self.addresses = addresses
    }
}

extension HubStore {
    /// Takes over `takeover`'s fabric and devices, in one transaction, into a store that holds
    /// no devices and no fabric (or, with `replacingUnusedFabric`, a fabric no device was ever
    /// left on: a running hub's, made at its first start): the CA's keys are written as key
    /// files, the hub gets a new operational key and a NOC for the controller node ID from the
    /// fabric's own CA, and each device is recorded with its last known attributes. A crash
    /// leaves nothing (stray key files are removed by the next attempt) or everything; the
    /// replaced fabric's key files are removed only once the new one is committed.
    public func takeOverFabric(_ takeover: FabricTakeover, replacingUnusedFabric: Bool = false) throws(StoreError) -> HubFabric {
        var replacedKeyFiles: [String] = []
        let fabric = try write { db throws(StoreError) in
            let count = try db.queryOne("SELECT count(*) FROM nodes") { $0.int64(0) } ?? 0
            guard count == 0 else { throw .fabricExists("\(count) devices") }
            guard takeover.controllerNodeID.isOperational,
                  !takeover.nodes.contains(where: { $0.nodeID == takeover.controllerNodeID }) else {
                throw .nodeIDInUse("\(takeover.controllerNodeID) (the controller's, also a device's)")
            }
            if let existing = try loadFabric(db) {
                guard replacingUnusedFabric else { throw .fabricExists("a fabric") }
                replacedKeyFiles = try unusedFabricKeyFiles(existing, replacedBy: takeover.authority.fabricID, db)
                try db.run("DELETE FROM fabric")
            } else {
                try removeOrphanKeyFiles()
            }
            let ca = takeover.authority
            let createdAt = now
            // The NOC lives no longer than the certificate that signs it.
            let start = MatterEpochTime(unixSeconds: Int64(createdAt.timeIntervalSince1970) - 3600) ?? MatterEpochTime(1)
            let issuerEnd = ca.issuer.certificate.notAfter
            let validity = issuerEnd.rawValue == 0 ? CertificateValidity.noExpiry(from: start)
                : CertificateValidity(notBefore: start, notAfter: issuerEnd)
            let controllerKey = P256PrivateKey()
            let noc: IssuedCertificate
            do {
                noc = try ca.issueNOC(publicKey: controllerKey.publicKey.x962Representation, nodeID: takeover.controllerNodeID,
                                      validity: validity)
            } catch {
                throw .fabricCreation("issuing the hub's NOC as node \(takeover.controllerNodeID): \(error)")
            }
            let material = FabricMaterial(fabricID: ca.fabricID, authority: ca, ipk: takeover.ipkEpochKey,
                                          controllerNodeID: takeover.controllerNodeID, controllerKey: controllerKey,
                                          controllerNOC: noc, createdAt: createdAt)
            let fabric = try persistFabric(material, vendorID: takeover.vendorID, db)
            for node in takeover.nodes {
                try db.run("""
                    INSERT INTO nodes (node_id, vendor_id, product_id, name, room_id, noc_serial, commissioned_at, session_id)
                    VALUES (?, ?, ?, ?, NULL, ?, ?, NULL)
                    """, [.id(node.nodeID.rawValue), .integer(Int64(node.vendorID)), .integer(Int64(node.productID)),
                          .text(node.name), .blob([]), .date(node.commissionedAt)])
                try Self.insertAddresses(node.addresses, for: node.nodeID, db)
                for (path, value) in node.attributes {
                    try db.run("""
                        INSERT INTO attribute_values (node_id, endpoint, cluster, attribute, value) VALUES (?, ?, ?, ?, ?)
                        """, [.id(node.nodeID.rawValue), .integer(Int64(path.endpoint.rawValue)),
                              .integer(Int64(path.cluster.rawValue)), .integer(Int64(path.attribute.rawValue)), .blob(value)])
                }
            }
            return fabric
        }
        // The fabric they belonged to is gone: a leftover file would only be a stray key.
        for name in replacedKeyFiles { unlink(keysDirectory + "/" + name) }
        if !replacedKeyFiles.isEmpty { try? SecureFiles.syncDirectory(keysDirectory) }
        return fabric
    }

    /// The key files of `existing`, which the takeover may replace only when nothing can depend
    /// on it: no device commissioned or being commissioned, and another fabric ID (the new key
    /// files must not overwrite the old ones before the transaction commits).
    private func unusedFabricKeyFiles(_ existing: HubFabric, replacedBy fabricID: FabricID, _ db: SQLiteDatabase) throws(StoreError) -> [String] {
        for (table, what) in [("pending_nodes", "a device being commissioned"), ("node_reservations", "a node ID reserved for commissioning")] {
            let count = try db.queryOne("SELECT count(*) FROM \(table)") { $0.int64(0) } ?? 0
            guard count == 0 else { throw .fabricExists(what) }
        }
        guard existing.fabricID != fabricID else { throw .fabricExists("a fabric with the same ID, \(fabricID.rawValue)") }
        let files = try db.queryOne("SELECT root_key_file, icac_key_file, controller_key_file FROM fabric WHERE id = 1") { s in
            [s.text(0), s.optionalText(1), s.text(2)].compactMap { $0 }
        }
        return files ?? []
    }
}
