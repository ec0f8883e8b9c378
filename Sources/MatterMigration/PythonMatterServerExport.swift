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

/// The way back: a storage folder python-matter-server 8.1.2 starts on and serves the hub's
/// devices from (docs/design/import-formats.md section 3): `chip.json` with the fabric's CA
/// (index 1: the 97-byte key pairs and the DER certificates) and its `caList` entry, and the node
/// file with each device's last known attributes in python-matter-server's encoding.
///
/// Only a fabric python-matter-server can serve can go back: its devices hold the fixed IPK
/// python-matter-server always gives, they grant Administer to node 112233 (the only node it runs
/// as), and its CA has an intermediate with the IDs python-matter-server accepts (RCAC 1, ICAC 2).
/// A fabric taken over from python-matter-server is such a fabric; one MatterHub made is not.
public enum PythonMatterServerExport {
    /// Writes the storage into `directory` (created; it must be empty or absent). Returns the
    /// node file's name.
    @discardableResult
    public static func write(fabric: HubFabric, nodes: [(NodeRecord, [ConcreteAttributePath: [UInt8]])], to directory: String,
                             now: Date = Date()) throws(MigrationError) -> String {
        try checkMovable(fabric)
        let fm = FileManager.default
        if let existing = try? fm.contentsOfDirectory(atPath: directory), !existing.isEmpty {
            throw MigrationError(.targetNotEmpty, "\(directory) is not empty",
                                 hint: "Give a new or empty folder; python-matter-server's --storage-path is then that folder.")
        }
        guard (try? fm.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil else {
            throw MigrationError(.writeFailed, "cannot create \(directory)", hint: "Check the path and its permissions.")
        }
        guard let intermediate = fabric.intermediateCertificate, let icaKey = fabric.certificateAuthority.intermediateKey else {
            throw notMovable("the fabric has no intermediate CA")
        }
        let root = fabric.rootCertificate
        func keyPair(_ key: P256PrivateKey) -> String {
            Base64.encode(key.publicKey.x962Representation + key.rawRepresentation.bytes)
        }
        let chip: JSONValue = .object([
            "sdk-config": .object([
                "ExampleOpCredsCAKey1": .string(keyPair(fabric.certificateAuthority.rootKey)),
                "ExampleCARootCert1": .string(Base64.encode(root.der)),
                "ExampleOpCredsICAKey1": .string(keyPair(icaKey)),
                "ExampleCAIntermediateCert1": .string(Base64.encode(intermediate.der)),
            ]),
            "repl-config": .object(["caList": .object(["1": .array([.object([
                "fabricId": .integer(fabric.fabricID.rawValue), "vendorId": .integer(fabric.vendorID)])])])]),
        ])
        let cfid: CompressedFabricID
        do { cfid = try fabric.compressedFabricID() } catch { throw notMovable("its compressed fabric ID cannot be computed") }
        var stored = JSONObject()
        for (record, values) in nodes.sorted(by: { $0.0.nodeID.rawValue < $1.0.nodeID.rawValue }) {
            stored.append(String(record.nodeID.rawValue), node(record, values, now: now))
        }
        let nodeFile: JSONValue = .object([
            "vendor_info": .object([:]),
            "last_node_id": .integer(nodes.map(\.0.nodeID.rawValue).max() ?? 0),
            "nodes": .object(stored),
        ])
        let name = "\(cfid.rawValue).json"
        try save(chip, to: directory + "/chip.json")
        try save(nodeFile, to: directory + "/" + name)
        return name
    }

    /// Why `fabric` cannot be served by python-matter-server, or nothing.
    public static func checkMovable(_ fabric: HubFabric) throws(MigrationError) {
        guard fabric.ipkEpochKey.bytes == PythonMatterServerStorage.defaultIPKEpochKey else {
            throw notMovable("its devices hold an IPK python-matter-server cannot be given (it always uses its fixed one)")
        }
        guard fabric.controllerNodeID == PythonMatterServerStorage.controllerNodeID else {
            throw notMovable("its devices grant the hub as node \(fabric.controllerNodeID.rawValue); python-matter-server always runs as node 112233")
        }
        guard let icac = fabric.intermediateCertificate,
              fabric.rootCertificate.certificate.subject.integer(.matterRCACID) == 1,
              icac.certificate.subject.integer(.matterICACID) == 2 else {
            throw notMovable("its CA is not one python-matter-server accepts (an intermediate, root ID 1, intermediate ID 2)")
        }
    }

    static func notMovable(_ why: String) -> MigrationError {
        MigrationError(.notMovable, "python-matter-server cannot serve this fabric: \(why)",
                       hint: "Only a fabric taken over from python-matter-server (matterctl import) can go back to it; for this one, keep the hub, or re-commission the devices with python-matter-server.")
    }

    /// A node as python-matter-server 8.1.2 stores it (exactly its eight `MatterNodeData` keys).
    static func node(_ record: NodeRecord, _ values: [ConcreteAttributePath: [UInt8]], now: Date) -> JSONValue {
        var attributes = JSONObject()
        var isBridge = false
        for (path, bytes) in values.sorted(by: { $0.key < $1.key }) {
            guard let element = try? TLVDecoder.decode(bytes), let json = try? AttributeValueCoding.json(from: element) else { continue }
            attributes.append("\(path.endpoint.rawValue)/\(path.cluster.rawValue)/\(path.attribute.rawValue)", json)
            // An Aggregator (device type 0x000E) makes a bridge.
            if path.cluster.rawValue == 0x1D, path.attribute.rawValue == 0,
               json.array?.contains(where: { $0["0"]?.uint64 == 0x0E }) == true { isBridge = true }
        }
        return .object([
            "node_id": .integer(record.nodeID.rawValue),
            "date_commissioned": .string(isoDate(record.commissionedAt)),
            "last_interview": .string(isoDate(now)),
            "interview_version": .integer(6),
            "available": .bool(false),
            "is_bridge": .bool(isBridge),
            "attributes": .object(attributes),
            "attribute_subscriptions": .array([]),
        ])
    }

    /// Naive UTC, as python-matter-server writes `datetime.utcnow()` (`2026-12-04T15:07:15.000000`).
    static func isoDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).000000"
    }

    /// Writes through a temporary file and a rename, owner-only (the key pairs are in it).
    static func save(_ json: JSONValue, to path: String) throws(MigrationError) {
        let temporary = path + ".tmp"
        let bytes = JSONWriter.encode(json)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw MigrationError(.writeFailed, "cannot create \(temporary)", hint: "Check the folder's permissions.") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw MigrationError(.writeFailed, "writing \(path) failed", hint: "Check that the disk has space.")
        }
    }
}
