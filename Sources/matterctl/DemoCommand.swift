import MatterPlatform
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `matterctl demo`: runs scripts/demo from the source tree this binary was built from.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "demo",
        abstract: "Commission a virtual device end to end, name it, toggle it (scripts/demo)",
        discussion: """
            Starts a virtual Matter light, commissions it onto the hub's fabric, names it, reads and toggles \
            it, lists the hub's devices and tears everything down. Without a running system avahi-daemon it \
            brings up a private network-namespace lab first (root needed).
            """)

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        // .build/<triple>/<config>/matterctl -> the repository root.
        var root = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("scripts/demo").path) {
            root.deleteLastPathComponent()
        }
        let script = root.appendingPathComponent("scripts/demo").path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw CommandFailure("scripts/demo not found next to this matterctl; run it from the MatterHub source tree")
        }
        let argv0 = strdup("/bin/bash"), argv1 = strdup(script)
        var cargs: [UnsafeMutablePointer<CChar>?] = [argv0, argv1, nil]
        execv("/bin/bash", &cargs)
        throw CommandFailure("cannot run \(script): \(errnoText(errno))")
    }
}
