import MatterPlatform
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterHome
import MatterHubService
import MatterInteraction
import MatterMigration
import MatterServerAPI

/// `matterctl import python-matter-server DIR`: moves a home onto the hub without touching a device.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract: "Take over another Matter server's fabric and devices (no re-commissioning)",
        discussion: """
            Reads python-matter-server's storage folder (its --storage-path: chip.json with the fabric's \
            certificate authority, and <compressed fabric id>.json with the devices), or matterjs-server's \
            (server-<fabric>-<vendor>/: its wal or file storage, with the certificate authority, the fabric \
            and each device's last known addresses and attributes), without changing a byte of it, and makes the state directory hold the same fabric: the CA's keys and \
            certificates, the IPK the devices were given, every node ID with its last known attributes and \
            its NodeLabel as its name. The hub then operates as node 112233, the node the devices' access \
            control grants (matterjs-server's own controller node ID for its fabrics), with a new key and \
            certificate from the fabric's own CA, so 'matterctl hub serve' reaches every device over CASE. \
            Stop the other server first (it rewrites its files \
            while running) and do not start it again on the same storage while the hub serves the fabric: \
            two controllers with one node ID confuse the devices. Structure values matterjs-server keeps \
            in its own form are not carried over; the hub reads them from each device as it connects.

            --dry-run prints, node by node, what will and will not carry over and why, and writes nothing. \
            A storage with several fabrics needs --fabric (the fabric ID: Home Assistant's add-on uses 2). \
            A state directory that already holds a fabric or devices is refused unless --replace, which \
            moves it aside (<state>.replaced-<time>) first. A node whose data is malformed is imported with \
            what is valid, and the report names what was not.
            """,
        usesHubState: true,
        arguments: [.init("kind", help: "python-matter-server or matterjs-server"),
                    .init("storage", help: "the other server's storage folder")],
        options: [
            .value("--fabric", "ID", help: "the fabric to take when the storage holds several"),
            .flag("--dry-run", help: "print what would carry over; write nothing"),
            .flag("--replace", help: "move a state directory that holds a fabric aside first (kept as a backup)"),
            .flag("--json", help: "one JSON object on stdout"),
        ],
        examples: ["matterctl import python-matter-server ~/.matter_server --dry-run",
                   "matterctl import matterjs-server /addon/data --fabric 2",
                   "matterctl --state /var/lib/matterhub import python-matter-server /srv/matter-server/data --fabric 2"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        let fabricID = try args.integer("--fabric", as: UInt64.self)
        guard let kind = ImportSourceKind(rawValue: args.positional[0]) else {
            throw UsageError("the kind is " + ImportSourceKind.allCases.map(\.rawValue).joined(separator: " or "))
        }
        let plan: ImportPlan
        do { plan = try ImportPlan.read(kind, args.positional[1], fabricID: fabricID) } catch {
            throw CommandFailure("\(error.description) (\(error.code))")
        }
        if args.flag("--dry-run") {
            if json { Output.out(String(decoding: JSONWriter.encode(plan.json), as: UTF8.self)) } else {
                plan.text.forEach(Output.out)
                Output.out("dry run: nothing was written")
            }
            return 0
        }
        let state = args.stateDirectory
        if let pid = HubLock.holder(of: state) {
            throw CommandFailure("a hub (PID \(pid)) serves \(state); stop it first ('matterctl hub serve' must not run during an import), "
                                 + "or, while it holds no devices, move the home in from its dashboard (matterhub/import)")
        }
        var backup: String?
        if try stateHoldsAHome(state) {
            guard args.flag("--replace") else {
                throw CommandFailure("\(state) already holds a fabric or devices; import into a new --state directory, or give --replace (it keeps this one as a backup)")
            }
            let aside = "\(state).replaced-\(Int(Date().timeIntervalSince1970))"
            guard rename(state, aside) == 0 else {
                throw CommandFailure("cannot move \(state) aside to \(aside): \(errnoText(errno))")
            }
            backup = aside
        }
        let start = ContinuousClock.now
        do {
            let store = try HubStore(directory: state)
            _ = try store.takeOverFabric(plan.takeover)
        } catch {
            throw CommandFailure("importing into \(state) failed: \(error.description). \(error.recoverySuggestion)"
                                 + (backup.map { " The state directory before is kept in \($0)." } ?? ""))
        }
        let elapsed = ContinuousClock.now - start
        let imported = plan.nodes.filter(\.imported).count
        if json {
            Output.out(String(decoding: JSONWriter.encode(.object([
                "imported": .integer(imported), "state": .string(state), "backup": backup.map { .string($0) } ?? .null,
                "ms": .double((Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000).rounded()),
                "plan": plan.json,
            ])), as: UTF8.self))
        } else {
            plan.text.forEach(Output.out)
            if let backup { Output.out("The state directory before is kept in \(backup)") }
            Output.out("Imported \(imported) device\(imported == 1 ? "" : "s") into \(state); start 'matterctl hub serve' to reach them. "
                       + "The source folder was not changed: python-matter-server can be started on it again instead of the hub.")
        }
        return 0
    }

    /// Whether the state directory's store holds a fabric or devices (no store: no).
    static func stateHoldsAHome(_ state: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: state + "/" + HubStore.databaseFileName) else { return false }
        do {
            let store = try HubStore(directory: state)
            return try store.fabric() != nil || !store.nodes().isEmpty
        } catch {
            throw CommandFailure("cannot read the state directory \(state): \(error)")
        }
    }
}

/// `matterctl export python-matter-server DIR`: the way back.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Write a storage another Matter server starts on with the hub's devices",
        discussion: """
            Writes a python-matter-server 8.1.2 storage folder (chip.json with the fabric's certificate \
            authority, <compressed fabric id>.json with every device and its last known attributes) that \
            it serves the same devices from: start it with --storage-path DIR --vendorid V --fabricid F \
            (printed). Only a fabric taken over from python-matter-server can go back (its devices hold \
            python-matter-server's fixed IPK and grant node 112233); any other is refused, saying why. The \
            folder must be new or empty; it is written owner-only (it holds the CA's private keys). Stop \
            the hub before starting python-matter-server on the export.
            """,
        usesHubState: true,
        arguments: [.init("kind", help: "python-matter-server"), .init("directory", help: "the new storage folder")],
        options: [.flag("--json", help: "one JSON object on stdout")],
        examples: ["matterctl export python-matter-server /srv/matter-server/data"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positional[0] == "python-matter-server" else { throw UsageError("the kind is python-matter-server") }
        let state = args.stateDirectory
        let directory = args.positional[1]
        let store: HubStore
        let fabric: HubFabric
        var nodes: [(NodeRecord, [MatterInteraction.ConcreteAttributePath: [UInt8]])] = []
        do {
            store = try HubStore(directory: state)
            guard let f = try store.fabric() else { throw CommandFailure("\(state) holds no fabric: there is nothing to export") }
            fabric = f
            for record in try store.nodes() { nodes.append((record, try store.attributeValues(for: record.nodeID))) }
        } catch let e as StoreError {
            throw CommandFailure("cannot read \(state): \(e.description). \(e.recoverySuggestion)")
        }
        let file: String
        do { file = try PythonMatterServerExport.write(fabric: fabric, nodes: nodes, to: directory) } catch {
            throw CommandFailure("\(error.description) (\(error.code))")
        }
        let start = "python -m matter_server.server --storage-path \(directory) --vendorid \(fabric.vendorID) --fabricid \(fabric.fabricID.rawValue)"
        if args.flag("--json") {
            Output.out(String(decoding: JSONWriter.encode(.object([
                "directory": .string(directory), "node_file": .string(file), "nodes": .integer(nodes.count),
                "vendor_id": .integer(fabric.vendorID), "fabric_id": .integer(fabric.fabricID.rawValue),
            ])), as: UTF8.self))
        } else {
            Output.out("Exported \(nodes.count) device\(nodes.count == 1 ? "" : "s") to \(directory) (chip.json, \(file)).")
            Output.out("Stop the hub, then: \(start)")
        }
        return 0
    }
}
