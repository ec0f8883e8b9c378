import FoundationEssentials
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
    /// neither a fabric nor devices: the CA's keys are written as key files, the hub gets a new
    /// operational key and a NOC for the controller node ID from the fabric's own CA, and each
    /// device is recorded with its last known attributes. A crash leaves nothing (stray key files
    /// are removed by the next attempt) or everything.
    public func takeOverFabric(_ takeover: FabricTakeover) throws(StoreError) -> HubFabric {
        try write { db throws(StoreError) in
            if try loadFabric(db) != nil { throw .fabricExists("a fabric") }
            let count = try db.queryOne("SELECT count(*) FROM nodes") { $0.int64(0) } ?? 0
            guard count == 0 else { throw .fabricExists("\(count) devices") }
            guard takeover.controllerNodeID.isOperational,
                  !takeover.nodes.contains(where: { $0.nodeID == takeover.controllerNodeID }) else {
                throw .nodeIDInUse("\(takeover.controllerNodeID) (the controller's, also a device's)")
            }
            try removeOrphanKeyFiles()
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
    }
}
