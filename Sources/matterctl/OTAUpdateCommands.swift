import MatterClusters
import MatterHome
import MatterServerAPI
import MatterTLV

/// `matterctl ota check NODE` and `ota update NODE`: the hub's check_node_update and update_node
/// from the command line (they need a running hub: its node is the OTA provider).
extension OTACommand {
    static func json(_ update: SoftwareUpdate) -> JSON {
        .object([("vendorId", .integer(update.vendorID)), ("productId", .integer(update.productID)),
                 ("softwareVersion", .integer(update.softwareVersion)), ("softwareVersionString", .string(update.softwareVersionString)),
                 ("releaseNotesUrl", JSON.from(update.releaseNotesURL)), ("source", .string(update.source))])
    }

    /// `matterctl ota check NODE`
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "check",
            abstract: "Say whether the hub has newer firmware for a device",
            discussion: """
                Asks the running hub (check_node_update) for the newest image it holds for the device's vendor \
                and product that applies to the version the device runs. Exit 0 with the version when there is \
                one, 2 when the device is up to date.
                """,
            usesHubState: true,
            arguments: [.nodeID],
            options: [.flag("--json", help: "one JSON object on stdout (null: up to date)")],
            examples: ["matterctl ota check 0x1234"])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let node = try parseNodeID(args.positional[0])
            let home = try await HomeCommands.open(args.stateDirectory)
            defer { Task { await home.close() } }
            let update: SoftwareUpdate?
            do { update = try await home.device(node).availableUpdate() } catch { throw CommandFailure(error.description) }
            if args.flag("--json") {
                Output.out(update.map(OTACommand.json)?.text ?? "null")
            } else if let update {
                Output.out("node \(node): version \(update.softwareVersion) (\(update.softwareVersionString)) is available "
                           + "[\(update.source)]; install it with 'matterctl ota update \(node)'")
            } else {
                Output.out("node \(node) is up to date: the hub has no newer image for it")
            }
            return update == nil ? 2 : 0
        }
    }

    /// `matterctl ota update NODE [--version N]`
    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "update",
            abstract: "Install newer firmware on a device through the hub",
            discussion: """
                Asks the running hub to install the version (update_node; default: the one 'ota check' offers). \
                The hub tells the device of its OTA provider, the device downloads the image over BDX, applies it \
                and restarts; this waits until the device runs the new version, showing its progress. Each step \
                is bounded by the hub: a failure names the step, the device keeps its old version, and the \
                update can be tried again at once.
                """,
            usesHubState: true,
            arguments: [.nodeID],
            options: [.value("--version", "N", help: "the SoftwareVersion to install (default: the newest the hub offers)"),
                      .flag("--quiet", help: "no progress on stderr")],
            examples: ["matterctl ota update 0x1234", "matterctl ota update 0x1234 --version 2"])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let node = try parseNodeID(args.positional[0])
            let asked = try args.integer("--version", as: UInt32.self)
            let home = try await HomeCommands.open(args.stateDirectory)
            defer { Task { await home.close() } }
            let clock = ContinuousClock(), started = clock.now
            do {
                let device = try await home.device(node)
                let version: UInt32
                if let asked { version = asked } else {
                    guard let offered = try await device.availableUpdate() else {
                        throw CommandFailure("node \(node) is up to date: the hub has no newer image for it (add one with 'matterctl ota add FILE')")
                    }
                    version = offered.softwareVersion
                }
                Output.err("updating node \(node) to version \(version); this waits until the device runs it")
                let progress = args.flag("--quiet") ? nil : Task { await showProgress(of: device) }
                defer { progress?.cancel() }
                try await device.installUpdate(version: version)
                Output.out("node \(node) runs version \(version) (\(Double(Int((clock.now - started) / .milliseconds(100))) / 10) s)")
            } catch let error as HomeError {
                throw CommandFailure(error.description)
            }
            return 0
        }

        /// The requestor's UpdateState and UpdateStateProgress (0/42/2, 0/42/3) as the hub reports them.
        static func showProgress(of device: Device) async {
            typealias R = Clusters.OtaSoftwareUpdateRequestor
            let path = HubSubscriptionPath(.attribute, endpoint: 0, cluster: R.id.rawValue, id: nil)
            var shown = ""
            var state: R.UpdateStateEnum?
            var percent: UInt64?
            do {
                for try await report in device.subscribe(path) {
                    for v in report.attributes {
                        if v.attribute == R.Attribute.updateState.rawValue {
                            state = (try? v.value.unsigned(as: UInt8.self)).map(R.UpdateStateEnum.init(rawValue:))
                        }
                        if v.attribute == R.Attribute.updateStateProgress.rawValue { percent = try? v.value.unsigned(as: UInt64.self) }
                    }
                    let line = Self.describe(state: state, percent: percent)
                    if line != shown, !line.isEmpty {
                        Output.err("  \(line)")
                        shown = line
                    }
                }
            } catch {}
        }

        /// UpdateStateEnum (Matter Core 11.20.7.4.15) in words; "" at Idle.
        static func describe(state: Clusters.OtaSoftwareUpdateRequestor.UpdateStateEnum?, percent: UInt64?) -> String {
            guard let state, state != .idle, state != .unknown else { return "" }
            if state == .downloading { return "downloading" + (percent.map { " \($0)%" } ?? "") }
            return Clusters.OtaSoftwareUpdateRequestor.UpdateStateEnum.names[state.rawValue] ?? "state \(state.rawValue)"
        }
    }
}
