import MatterDiscovery
import MatterHome
import MatterNetworkCredentials
import MatterPlatform

/// `matterctl thread border-routers`: the Thread border routers (`_meshcop._udp`) on the
/// network, their TXT decoded, and whether this host has a route to each one's OMR prefix.
struct BorderRoutersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "border-routers",
        abstract: "Thread border routers on the network, and whether their mesh is routed here",
        discussion: """
            Browses _meshcop._udp through the system's avahi-daemon and prints each border agent: \
            network name, extended PAN ID, vendor and model, Thread version, the state bitmap \
            decoded (connection mode, Thread interface status, availability, backbone router \
            active/primary, Thread role), the active timestamp, the off-mesh-routable (OMR) prefix \
            when it advertises one, and whether this host's IPv6 routing table has a route to it \
            (without one, Thread devices are seen but cannot be reached).
            """,
        options: [.value("--timeout", "S", help: "seconds to browse (default 3)"),
                  .flag("--json", help: "one JSON object per line")])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var timeout = 3.0
        if let t = args.value("--timeout") {
            guard let v = Double(t), v > 0 else { throw UsageError("--timeout expects seconds > 0") }
            timeout = v
        }
        let routers = try await browse(timeout: timeout)
        let routes = HostRoutes.current()
        let json = args.flag("--json")
        for r in routers {
            let fields = describe(r, routes: routes)
            if json {
                Output.out(JSON.object(fields).text)
            } else {
                Output.out(fields.map { "\($0.0)=\($0.1.plain)" }.joined(separator: " "))
            }
        }
        if routers.isEmpty && !json { Output.err("no Thread border routers found in \(String(printf: "%g", timeout)) s") }
        return 0
    }

    /// Every border router seen within `timeout`, latest view of each.
    static func browse(timeout: Double) async throws -> [BorderRouter] {
        do { return try await MatterDiscovery().borderRouterSnapshot(within: .milliseconds(Int(timeout * 1000))) } catch {
            throw CommandFailure(error.message)
        }
    }

    static func describe(_ r: BorderRouter, routes: HostRoutes) -> [(String, JSON)] {
        let t = r.txt
        var f: [(String, JSON)] = [
            ("instance", .string(r.service.name)), ("host", .string(r.service.host)), ("port", .uint(UInt64(r.service.port))),
            ("addresses", .array(r.service.addresses.map { .string($0.description) })),
            ("networkName", JSON.from(t.networkName)), ("extPanId", JSON.from(t.extendedPANID?.hexString)),
            ("vendorName", JSON.from(t.vendorName)), ("modelName", JSON.from(t.modelName)),
            ("threadVersion", JSON.from(t.threadVersion)),
        ]
        if let sb = t.stateBitmap {
            f.append(("stateBitmap", .object([
                ("raw", .uint(UInt64(sb.rawValue))), ("connectionMode", .string(sb.connectionModeName)),
                ("threadInterfaceStatus", .string(sb.threadInterfaceStatusName)),
                ("availability", .string(sb.availabilityName)),
                ("backboneRouterActive", .bool(sb.isBackboneRouterActive)),
                ("backboneRouterPrimary", .bool(sb.isBackboneRouterPrimary)),
                ("threadRole", .string(sb.threadRoleName)),
            ])))
        } else {
            f.append(("stateBitmap", .null))
        }
        f.append(("activeTimestamp", ThreadDatasetView.timestamp(t.activeTimestamp.map(ThreadTimestamp.init(wireValue:)))))
        if let omr = t.omrPrefix, let bits = omr.first {
            let prefix = Array(omr.dropFirst()) + [UInt8](repeating: 0, count: 16 - (omr.count - 1))
            f.append(("omrPrefix", .string(IPv6Text.prefix(prefix, length: Int(bits)))))
            if let route = routes.route(to: prefix, length: Int(bits)) {
                let direct = route.nextHop.allSatisfy { $0 == 0 }
                f.append(("omrRouted", .bool(true)))
                f.append(("omrRoute", .object([
                    ("prefix", .string(IPv6Text.prefix(route.destination, length: route.prefixLength))),
                    ("via", direct ? .null : .string(IPv6Text.address(route.nextHop))),
                    ("interface", .string(route.interface)),
                ])))
            } else {
                f.append(("omrRouted", .bool(false)))
                f.append(("omrRoute", .null))
            }
        } else {
            f.append(("omrPrefix", .null))
            f.append(("omrRouted", .null))
            f.append(("omrRoute", .null))
        }
        if !t.issues.isEmpty { f.append(("issues", .array(t.issues.map { .string($0.description) }))) }
        return f
    }
}
