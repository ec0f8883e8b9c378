import FoundationEssentials
import MatterDiscovery
import MatterPlatform

/// `matterctl discover`: finds Matter devices, commissioners and Thread border routers through
/// the system's avahi-daemon.
enum DiscoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "discover",
        abstract: "Find Matter devices, commissioners and border routers (DNS-SD)",
        discussion: """
            Browses DNS-SD through the system's avahi-daemon and prints what it finds:
              commissionable   devices ready to be commissioned (_matterc._udp, the default)
              operational      commissioned nodes (_matter._tcp)
              commissioners    commissioners (_matterd._udp)
              border-routers   Thread border routers (_meshcop._udp)
              all              all four
            Filters on commissionable devices fall back to matching TXT values for devices that publish \
            no subtypes.
            """,
        arguments: [.init("kind", help: "commissionable (default), operational, commissioners, border-routers or all",
                          arity: .optional)],
        options: [
            .value("--discriminator", "D", help: "12-bit long discriminator (_L subtype)"),
            .value("--short-discriminator", "S", help: "4-bit short discriminator (_S subtype, e.g. from a manual code)"),
            .value("--vendor-id", "V", help: "vendor ID (_V subtype)"),
            .value("--device-type", "T", help: "device type (_T subtype)"),
            .flag("--commissioning-mode", help: "only devices with an open commissioning window (_CM subtype)"),
            .value("--instance", "NAME", help: "one instance name"),
            .value("--fabric", "CFID", help: "operational: compressed fabric ID (16 hex digits, _I subtype)"),
            .value("--node-id", "N", help: "operational: one node of that fabric (hex or decimal)"),
            .value("--timeout", "S", help: "seconds to browse (default 3; with --watch: until interrupted)"),
            .flag("--watch", help: "keep running and report changes and removals"),
            .flag("--json", help: "one JSON object per line"),
        ])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let kind = args.positional.first ?? "commissionable"
        guard ["commissionable", "operational", "commissioners", "border-routers", "all"].contains(kind) else {
            throw UsageError("unknown discovery kind '\(kind)'")
        }
        var filters: [CommissionableFilter] = []
        if let d = try args.integer("--discriminator", as: UInt16.self) {
            guard d < 4096 else { throw UsageError("--discriminator must be 0...4095") }
            filters.append(.longDiscriminator(d))
        }
        if let s = try args.integer("--short-discriminator", as: UInt8.self) {
            guard s < 16 else { throw UsageError("--short-discriminator must be 0...15") }
            filters.append(.shortDiscriminator(s))
        }
        if let v = try args.integer("--vendor-id", as: UInt16.self) { filters.append(.vendorID(v)) }
        if let t = try args.integer("--device-type", as: UInt32.self) { filters.append(.deviceType(t)) }
        if args.flag("--commissioning-mode") { filters.append(.commissioningMode) }
        if let n = args.value("--instance") { filters.append(.instanceName(n)) }
        guard filters.count <= 1 else { throw UsageError("give at most one commissionable filter") }
        var fabric: UInt64?
        if let f = args.value("--fabric") {
            guard let v = UInt64(f.hasPrefix("0x") ? String(f.dropFirst(2)) : f, radix: 16) else {
                throw UsageError("--fabric expects a compressed fabric ID in hex")
            }
            fabric = v
        }
        let node = try args.integer("--node-id", as: UInt64.self)
        if node != nil && fabric == nil { throw UsageError("--node-id needs --fabric") }
        let watch = args.flag("--watch")
        let json = args.flag("--json")
        let timeout: Double?
        if let t = args.value("--timeout") {
            guard let v = Double(t), v > 0 else { throw UsageError("--timeout expects seconds > 0") }
            timeout = v
        } else {
            timeout = watch ? nil : 3
        }

        let fabricID = fabric
        let discovery = MatterDiscovery { state in
            switch state {
            case .disconnected: Output.err("avahi-daemon went away; waiting for it to come back")
            case .reconnected: Output.err("avahi-daemon is back; browsing again")
            }
        }
        let filter = filters.first ?? .any
        let printer = DiscoveryPrinter(json: json, watch: watch)
        let (lines, sink) = AsyncThrowingStream.makeStream(of: DiscoveryPrinter.Row.self)
        let kinds = kind == "all" ? ["commissionable", "operational", "commissioners", "border-routers"] : [kind]
        let browse = Task {
            await withTaskGroup(of: Void.self) { group in
                for k in kinds {
                    group.addTask {
                        do {
                            switch k {
                            case "commissionable":
                                for try await e in discovery.commissionableNodes(matching: filter) { sink.yield(.commissionable(e)) }
                            case "operational":
                                for try await e in discovery.operationalNodes(compressedFabricID: fabricID, nodeID: node) { sink.yield(.operational(e)) }
                            case "commissioners":
                                for try await e in discovery.commissioners() { sink.yield(.commissioner(e)) }
                            default:
                                for try await e in discovery.borderRouters() { sink.yield(.borderRouter(e)) }
                            }
                        } catch {
                            sink.finish(throwing: error)
                        }
                    }
                }
            }
        }
        let timer = Task {
            if let timeout { try? await Task.sleep(for: .seconds(timeout)); sink.finish() }
        }
        defer { browse.cancel(); timer.cancel() }
        var latest: [(key: String, row: DiscoveryPrinter.Row)] = []
        do {
            for try await row in lines {
                if watch { printer.print(row); continue }
                let key = DiscoveryPrinter.key(row)
                latest.removeAll { $0.key == key }
                if !DiscoveryPrinter.isRemoval(row) { latest.append((key, row)) }
            }
        } catch let e as DiscoveryError {
            throw CommandFailure(e.message)
        }
        printer.printAll(latest.map(\.row))
        if latest.isEmpty && !watch && !json {
            Output.err("nothing found in \(timeout.map { String(printf: "%g", $0) } ?? "?") s "
                       + "(is the device powered, on this network, and in commissioning mode?)")
        }
        return 0
    }
}
