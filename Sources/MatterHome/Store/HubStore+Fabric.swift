import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCertificates
import MatterCrypto
import MatterTLV

extension HubStore {
    /// Steps of `createFabricIfNeeded` at which crash tests stop the process.
    package static let fabricCreationSteps = [
        "fabric.locked", "fabric.generated", "fabric.key-temporary", "fabric.key-renamed", "fabric.keys-written",
        "fabric.row-inserted",
    ]

    /// The stored fabric, or nil when none has been created.
    public func fabric() throws(StoreError) -> HubFabric? {
        try withDatabase { db throws(StoreError) in try loadFabric(db) }
    }

    /// Returns the hub's fabric, creating it on first use: a random fabric ID, a root key and
    /// RCAC (and ICAC), a random IPK epoch key, and the controller's own key and NOC with a
    /// random operational node ID.
    ///
    /// Creation is atomic across crashes and processes. Under the database write lock: stray
    /// key files of an earlier crashed attempt are removed, each key is written to a temporary
    /// file, fsynced and renamed into `keys/`, and only then is the `fabric` row committed. A
    /// crash leaves no row (its files are cleaned next time) or a complete fabric.
    public func createFabricIfNeeded(_ creation: FabricCreationOptions = FabricCreationOptions()) throws(StoreError) -> HubFabric {
        if let existing = try fabric() { return existing }
        return try write { db throws(StoreError) in
            if let existing = try loadFabric(db) { return existing }  // another process won the race
            step("fabric.locked")
            try removeOrphanKeyFiles()
            let material = try generateFabric(creation, db: db)
            step("fabric.generated")
            return try persistFabric(material, vendorID: creation.vendorID, db)
        }
    }

    /// Writes a fabric's key files (each fsynced and renamed into `keys/`) and then its row,
    /// inside the caller's write transaction; the fabric as loaded.
    func persistFabric(_ material: FabricMaterial, vendorID: UInt16, _ db: SQLiteDatabase) throws(StoreError) -> HubFabric {
        let suffix = String(material.fabricID.rawValue, radix: 16, uppercase: true)
        let rootFile = "root-\(suffix).der"
        let icacFile = material.authority.intermediateKey == nil ? nil : "icac-\(suffix).der"
        let controllerFile = "controller-\(suffix)-\(material.controllerNodeID).der"
        var files: [(String, P256PrivateKey)] = [(rootFile, material.authority.rootKey)]
        if let icacFile, let key = material.authority.intermediateKey { files.append((icacFile, key)) }
        files.append((controllerFile, material.controllerKey))
        for (name, key) in files {
            try SecureFiles.writeAtomically(key.pkcs8DERRepresentation.bytes, directory: keysDirectory, name: name,
                                            afterTemporaryWrite: { step("fabric.key-temporary") })
            step("fabric.key-renamed")
        }
        step("fabric.keys-written")

        let ca = material.authority
        try db.run("""
            INSERT INTO fabric (id, fabric_id, vendor_id, rcac_tlv, rcac_der, icac_tlv, icac_der, root_key_file,
                icac_key_file, ipk_epoch_key, controller_node_id, controller_noc_tlv, controller_noc_der,
                controller_key_file, created_at)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [
                .id(material.fabricID.rawValue), .integer(Int64(vendorID)), .blob(ca.root.tlv), .blob(ca.root.der),
                ca.intermediate.map { .blob($0.tlv) } ?? .null, ca.intermediate.map { .blob($0.der) } ?? .null,
                .text(rootFile), icacFile.map { .text($0) } ?? .null, .blob(material.ipk.bytes),
                .id(material.controllerNodeID.rawValue), .blob(material.controllerNOC.tlv), .blob(material.controllerNOC.der),
                .text(controllerFile), .date(material.createdAt),
            ])
        step("fabric.row-inserted")
        return HubFabric(fabricID: material.fabricID, vendorID: vendorID, certificateAuthority: ca,
                         ipkEpochKey: material.ipk, controllerNodeID: material.controllerNodeID,
                         controllerKey: material.controllerKey, controllerNOC: material.controllerNOC.certificate,
                         controllerNOCTLV: material.controllerNOC.tlv, controllerNOCDER: material.controllerNOC.der,
                         createdAt: Date(timeIntervalSince1970: material.createdAt.timeIntervalSince1970.rounded(.down)))
    }

    struct FabricMaterial {
        let fabricID: FabricID
        let authority: FabricCertificateAuthority
        let ipk: SecretBytes
        let controllerNodeID: NodeID
        let controllerKey: P256PrivateKey
        let controllerNOC: IssuedCertificate
        let createdAt: Date
    }

    private func generateFabric(_ creation: FabricCreationOptions, db: SQLiteDatabase) throws(StoreError) -> FabricMaterial {
        let createdAt = now
        // Back-date a little so a peer whose clock is slightly behind still accepts the chain.
        let start = MatterEpochTime(unixSeconds: Int64(createdAt.timeIntervalSince1970) - 3600) ?? MatterEpochTime(1)
        let validity = creation.validityDays.map { CertificateValidity(from: start, days: $0) } ?? .noExpiry(from: start)
        var fabricID = FabricID(0)
        while !fabricID.isValid { fabricID = FabricID(Self.randomUInt64()) }
        let controllerNodeID = try freeNodeID(db)
        do {
            let authority = try FabricCertificateAuthority.create(
                fabricID: fabricID, rcacID: Self.randomUInt64(), icacID: creation.useIntermediate ? Self.randomUInt64() : nil,
                validity: validity)
            let controllerKey = P256PrivateKey()
            let noc = try authority.issueNOC(publicKey: controllerKey.publicKey.x962Representation, nodeID: controllerNodeID,
                                             validity: validity)
            return FabricMaterial(fabricID: fabricID, authority: authority, ipk: SecretBytes(SecureRandom.bytes(16)),
                                  controllerNodeID: controllerNodeID, controllerKey: controllerKey, controllerNOC: noc,
                                  createdAt: createdAt)
        } catch {
            throw .fabricCreation(error.description)
        }
    }

    /// With the write lock held and no fabric row, every key file is left over from a crashed
    /// creation: remove them (and their temporaries).
    func removeOrphanKeyFiles() throws(StoreError) {
        var removed = false
        for name in SecureFiles.entries(keysDirectory) where Self.isKeyFileName(name) {
            if unlink(keysDirectory + "/" + name) != 0 && errno != ENOENT {
                throw .io(operation: "removing stray key file", path: keysDirectory + "/" + name, errno: errno)
            }
            removed = true
        }
        if removed { try SecureFiles.syncDirectory(keysDirectory) }
    }

    /// Files this store writes under keys/: `<name>.der` and their `.<name>.der.tmp` temporaries.
    static func isKeyFileName(_ name: String) -> Bool {
        let base = name.hasPrefix(SecureFiles.temporaryPrefix) && name.hasSuffix(SecureFiles.temporarySuffix)
            ? String(name.dropFirst(SecureFiles.temporaryPrefix.count).dropLast(SecureFiles.temporarySuffix.count)) : name
        return base.hasSuffix(".der") && ["root-", "icac-", "controller-"].contains(where: base.hasPrefix)
    }

    func loadFabric(_ db: SQLiteDatabase) throws(StoreError) -> HubFabric? {
        let row = try db.queryOne("""
            SELECT fabric_id, vendor_id, rcac_tlv, icac_tlv, root_key_file, icac_key_file, ipk_epoch_key,
                   controller_node_id, controller_noc_tlv, controller_key_file, created_at
            FROM fabric WHERE id = 1
            """) { s in
            (fabricID: FabricID(s.uint64(0)), vendorID: s.uint16(1), rcac: s.blob(2), icac: s.optionalBlob(3),
             rootFile: s.text(4), icacFile: s.optionalText(5), ipk: SecretBytes(s.blob(6)), nodeID: NodeID(s.uint64(7)),
             noc: s.blob(8), controllerFile: s.text(9), createdAt: s.date(10))
        }
        guard let row else { return nil }
        let rootKey = try loadKey(row.rootFile, role: "root")
        let icacKey = try row.icacFile.map { name throws(StoreError) in try loadKey(name, role: "ICAC") }
        let controllerKey = try loadKey(row.controllerFile, role: "controller")
        do {
            let ca = try FabricCertificateAuthority(fabricID: row.fabricID, rootKey: rootKey, rootCertificate: row.rcac,
                                                    intermediateKey: icacKey, intermediateCertificate: row.icac)
            let noc = try MatterCertificate(anyEncoding: row.noc)
            let identity = try MatterCertificateValidator.validateChain(noc: noc, icac: ca.intermediate?.certificate,
                                                                       rcac: ca.root.certificate, now: nil)
            guard identity.nodeID == row.nodeID, noc.publicKey == controllerKey.publicKey.x962Representation else {
                throw StoreError.corruptFabric("the controller's NOC does not match its node ID or key file")
            }
            return HubFabric(fabricID: row.fabricID, vendorID: row.vendorID, certificateAuthority: ca, ipkEpochKey: row.ipk,
                             controllerNodeID: row.nodeID, controllerKey: controllerKey,
                             controllerNOC: noc, controllerNOCTLV: noc.tlvEncoded, controllerNOCDER: try noc.derEncoded(),
                             createdAt: row.createdAt)
        } catch let error as StoreError {
            throw error
        } catch let error as CertificateError {
            throw .corruptFabric("stored certificates or keys do not agree (\(error.code))")
        } catch {
            throw .corruptFabric("stored certificates or keys do not agree")
        }
    }

    /// Reads one key file; errors name the file and role, never its contents.
    private func loadKey(_ name: String, role: String) throws(StoreError) -> P256PrivateKey {
        guard !name.contains("/"), Self.isKeyFileName(name) else { throw .corruptFabric("the \(role) key file name is invalid") }
        let path = keysDirectory + "/" + name
        let bytes: [UInt8]
        do {
            bytes = try SecureFiles.read(path)
        } catch {
            throw .corruptFabric("the \(role) key file keys/\(name) cannot be read: \(error.description)")
        }
        do {
            return try P256PrivateKey(derRepresentation: bytes)
        } catch {
            throw .corruptFabric("the \(role) key file keys/\(name) is not a PKCS#8 P-256 private key")
        }
    }

    static func randomUInt64() -> UInt64 {
        SecureRandom.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
