import FoundationEssentials
import MatterHome

/// `matterctl doctor`: a network preflight for commissioning (read-only).
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "doctor",
        abstract: "Check this host's network for what makes commissioning fail",
        discussion: """
            Checks, without changing anything: avahi-daemon reachable; IPv6 enabled with a \
            link-local address on each interface that is up; a publish-and-browse self-test \
            through avahi; firewall rules (nftables, iptables) that drop UDP 5353 or 5540; another \
            mDNS responder on UDP 5353; the default route's interface against the interfaces \
            devices were seen on; Thread border routers whose OMR prefix has no route here; the \
            clock. Each finding is ok, warn or fail with what it means and what to do. Exit 1 \
            when any check fails.
            """,
        options: [.value("--timeout", "S", help: "seconds to browse for devices and border routers (default 2)"),
                  .flag("--json", help: "one JSON object on stdout")])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var seconds = 2.0
        if let t = args.value("--timeout") {
            guard let v = Double(t), v > 0 else { throw UsageError("--timeout expects seconds > 0") }
            seconds = v
        }
        let host = HostNetworkFacts.current()
        let discovery = await NetworkDoctor.gatherDiscovery(seconds: seconds)
        let findings = NetworkDoctor.evaluate(host: host, discovery: discovery, now: Date())
        let failed = findings.contains { $0.status == .fail }
        if args.flag("--json") {
            Output.out(JSON.object([
                ("ok", .bool(!failed)),
                ("findings", .array(findings.map { f in
                    .object([("check", .string(f.check)), ("status", .string(f.status.rawValue)), ("summary", .string(f.summary)),
                             ("meaning", .string(f.meaning)), ("action", .string(f.action))])
                })),
            ]).text)
        } else {
            for f in findings {
                Output.out("[\(f.status.rawValue)] ".padding(to: 7) + "\(f.check): \(f.summary)")
                if !f.meaning.isEmpty { Output.out("       \(f.meaning)") }
                if !f.action.isEmpty { Output.out("       What to do: \(f.action)") }
            }
        }
        return failed ? 1 : 0
    }
}
