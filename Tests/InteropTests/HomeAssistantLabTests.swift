import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real Home Assistant core (2026.2.3 from PyPI, in .peers/homeassistant: scripts/peers makes it
/// where a Python 3.13 exists) with its own Matter integration against `matterctl hub serve`,
/// driven through Home Assistant's REST and WebSocket API by `scripts/ha-check.py`: onboarding,
/// the Matter config flow, commissioning by QR code and by PIN only, the light's services and
/// their timing, the device's own button, a hub restart, a Home Assistant restart, device removal
/// without a ghost, and no Matter warning or error in its log (the checks are listed there).
///
/// Our virtual light runs on h26, its stdin a FIFO this test holds open (a line "press" presses
/// its button); a virtual plug, Home Assistant and the hub (which ha-check.py starts and restarts
/// itself) on h27. With .peers/pms-server the same light calls are also timed through
/// python-matter-server 8.1.2 (`--compare-pms`), so both medians come from one run.
///
/// PIN-only commissioning tries every device in commissioning mode on the shared link, so
/// scripts/test runs this suite in a pass of its own (no other suite's devices are up then).
/// Skipped where .peers/homeassistant does not exist, except under CI=true when a Python 3.13
/// exists: then scripts/peers should have made it, and the test fails.
@Suite(.serialized, .enabled(if: Lab.isAvailable, "lab integration tests need root (network namespaces): run scripts/test as root"))
struct HomeAssistantLabTests {
    static let lightHost = 26
    /// The hub, Home Assistant and the plug.
    static let hubHost = 27
    /// Passcodes and discriminators no other suite uses.
    static let lightPasscode = "47115001", lightDiscriminator = "2851"
    static let plugPasscode = "47115002", plugDiscriminator = "2952"

    static var python: String { Lab.repositoryRoot.appendingPathComponent(".peers/homeassistant/bin/python").path }
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: python) }
    /// CI=true and a working Python 3.13, looked for as scripts/peers looks for it.
    static var mustRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" && (try? ProcessRunner.run("/bin/sh", ["-c", """
            for c in python3.13 /root/.pyenv/versions/3.13.*/bin/python3.13 /usr/local/bin/python3.13; do
              "$c" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 13) else 1)' >/dev/null 2>&1 && exit 0
            done
            exit 1
            """]))?.status == 0
    }

    /// Starts `matterctl virtual-device` on `host` with its stdin from `stdin` (a file or FIFO),
    /// waits until it is ready; the process and its QR code.
    static func startDevice(_ lab: Lab, on host: Int, _ arguments: [String], stdin: String = "/dev/null") async throws
        -> (process: ChildProcess, qr: String) {
        let device = try lab.spawn(on: host, ["/bin/sh", "-c", "exec \"$@\" < \"$0\"", stdin, Lab.matterctl, "virtual-device"] + arguments)
        let ready = await device.waitForLine(timeout: 30) { $0.contains("virtual-device: ready") }
        try #require(ready != nil, "the virtual device did not start: \(device.text)")
        let qr = try #require(device.lines.first { $0.hasPrefix("QR code: ") }?.dropFirst(9)).description
        return (device, qr)
    }

    @Test(.enabled(if: installed || mustRun, "Home Assistant 2026.2.3 needs a Python 3.13 (scripts/peers makes .peers/homeassistant where one exists)"))
    func homeAssistantRunsItsMatterIntegrationAgainstTheHub() async throws {
        try #require(Self.installed, "a Python 3.13 exists but .peers/homeassistant does not: run scripts/peers (scripts/test does)")
        let lab = try Lab.shared()
        let base = HubLab.newDirectory(lab, "home-assistant")
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)

        // The light's stdin: a FIFO whose write end this process holds open for the whole test (so
        // the device never reads end of file, and ha-check.py can write "press" lines to it).
        let fifo = "\(base)/light.fifo"
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo \(fifo): errno \(errno)")
        let holder = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(holder >= 0, "open \(fifo): errno \(errno)")
        defer { close(holder) }

        let light = try await Self.startDevice(lab, on: Self.lightHost, [
            "--kind", "light", "--passcode", Self.lightPasscode, "--discriminator", Self.lightDiscriminator,
            "--port", "5540", "--state", "\(base)/light"], stdin: fifo)
        defer { light.process.kill9() }
        let plug = try await Self.startDevice(lab, on: Self.hubHost, [
            "--kind", "plug", "--passcode", Self.plugPasscode, "--discriminator", Self.plugDiscriminator,
            "--port", "5541", "--state", "\(base)/plug"])
        defer { plug.process.kill9() }

        var arguments = [Self.python, Lab.repositoryRoot.appendingPathComponent("scripts/ha-check.py").path,
                         "--matterctl", Lab.matterctl, "--hub-state", "\(base)/hub", "--hub-port", "5580",
                         "--paa-store", try CircuitMatterCommissioningTests.paaStore(lab), "--config", "\(base)/ha",
                         "--light-code", light.qr, "--light-fifo", fifo,
                         "--plug-pin", Self.plugPasscode, "--plug-address", lab.hosts[Self.hubHost].ipv6,
                         "--timeout", "540"]
        let pms = Lab.repositoryRoot.appendingPathComponent(".peers/pms-server/bin/python").path
        if FileManager.default.isExecutableFile(atPath: pms) {
            arguments += ["--compare-pms", "--pms-work", "\(base)/pms"]
        }
        let (status, output) = try await lab.run(on: Self.hubHost, arguments, timeout: 600)
        print(output)
        #expect(status == 0, "\(output)\nlight:\n\(light.process.text)\nplug:\n\(plug.process.text)")
        #expect(output.contains("ha-check: ") && output.contains(" passed, 0 failed"), "\(output)")
        await light.process.stop()
        await plug.process.stop()
    }
}
