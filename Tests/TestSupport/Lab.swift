import Foundation
import Synchronization

/// One host of a network-namespace lab (see scripts/lab).
public struct LabHost: Sendable {
    public let index: Int
    public let namespace: String
    /// `unix:path=...`: the host's D-Bus system bus, where its avahi-daemon is.
    public let dbusAddress: String
    public let interface: String
    public let interfaceIndex: Int
    /// The IPv6 link-local address of `interface`.
    public let ipv6: String
    /// The IPv4 link-local (169.254/16) address of `interface`.
    public let ipv4: String
    /// The mDNS host name, e.g. `mht123-h0.local`.
    public let hostname: String
    public var name: String { "h\(index)" }
}

/// The lab the integration tests share. `scripts/test` brings one up around `swift test` with
/// `scripts/lab run <name> --hosts 32 -- ...`, which sets MATTERHUB_LAB_ENV to its env file. Run
/// on its own as root (`swift test --filter Lab`), the suite brings one up itself through
/// scripts/lab and takes it down at exit. Without root the lab tests are skipped with a message
/// (the `.enabled(if: Lab.isAvailable)` trait) except under CI=true, where they run and fail.
public final class Lab: Sendable {
    public let name: String
    public let directory: String
    public let hosts: [LabHost]

    /// The hosts the lab tests need.
    public static let requiredHosts = 32  // ICDLabTests uses h30 and h31

    /// The repository root (from this file's path).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/Lab.swift
        return url
    }()

    /// `scripts/lab`.
    /// A peer's Python: scripts/peers makes each peer's venv under `.peers/`.
    public static func peerPython(_ venv: String) -> String {
        repositoryRoot.appendingPathComponent(".peers/\(venv)/bin/python").path
    }

    /// A peer's Python, or nil (said) where its venv is missing: scripts/peers makes
    /// matter-python-client's (`ohf-client-mpc`) only where a Python 3.12 exists (a stock Debian 12
    /// has 3.11), and the suites that need it skip there.
    public static func installedPeerPython(_ venv: String) -> String? {
        let python = peerPython(venv)
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("skipped: \(python) is missing (scripts/peers installs it; matter-python-client needs Python 3.12)")
            return nil
        }
        return python
    }

    /// matter-python-client 1.6.1's Python (see ``installedPeerPython(_:)``).
    public static func matterPythonClient() -> String? { installedPeerPython("ohf-client-mpc") }

    public static var script: String { repositoryRoot.appendingPathComponent("scripts/lab").path }

    /// The matterctl built with the tests.
    public static var matterctl: String { ProcessRunner.matterctl }

    /// Whether lab tests should run: a lab was handed over, or we are root and can make one, or
    /// CI=true (then a lab that cannot come up fails the tests instead of skipping them).
    public static let isAvailable: Bool = {
        let env = ProcessInfo.processInfo.environment
        return env["MATTERHUB_LAB_ENV"] != nil || getuid() == 0 || env["CI"] == "true"
    }()

    private static let cache = Mutex<Result<Lab, LabError>?>(nil)
    private static let ownedLab = Mutex<String?>(nil)

    /// The shared lab, brought up on first use when none was handed over.
    public static func shared() throws -> Lab {
        try cache.withLock { cached in
            if let cached { return try cached.get() }
            let result: Result<Lab, LabError>
            do throws(LabError) { result = .success(try Lab.open()) } catch { result = .failure(error) }
            cached = result
            return try result.get()
        }
    }

    private static func open() throws(LabError) -> Lab {
        if let path = ProcessInfo.processInfo.environment["MATTERHUB_LAB_ENV"] {
            let lab = try Lab(envFile: path)
            guard lab.hosts.count >= requiredHosts else {
                throw LabError("the lab in \(path) has \(lab.hosts.count) hosts; the tests need \(requiredHosts)")
            }
            return lab
        }
        guard getuid() == 0 else {
            throw LabError("cannot bring up the lab: not root (network namespaces need root)")
        }
        let name = "mht\(getpid())"
        let (status, output) = runSynchronously([script, "up", name, "--hosts", String(requiredHosts)])
        guard status == 0, let path = output.split(separator: "\n").first.map(String.init) else {
            throw LabError("scripts/lab up \(name) failed (\(status)): \(output)")
        }
        ownedLab.withLock { $0 = name }
        atexit { Lab.takeDownOwnedLab() }
        return try Lab(envFile: path)
    }

    private static func takeDownOwnedLab() {
        guard let name = ownedLab.withLock({ n -> String? in defer { n = nil }; return n }) else { return }
        _ = runSynchronously([script, "down", name])
    }

    /// Parses a scripts/lab env file.
    public init(envFile path: String) throws(LabError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw LabError("cannot read lab env file \(path)")
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        guard let name = values["LAB_NAME"], let dir = values["LAB_DIR"],
              let count = values["LAB_HOSTS"].flatMap(Int.init) else {
            throw LabError("lab env file \(path) lacks LAB_NAME/LAB_DIR/LAB_HOSTS")
        }
        var hosts: [LabHost] = []
        for i in 0..<count {
            func v(_ key: String) throws(LabError) -> String {
                guard let s = values["LAB_H\(i)_\(key)"] else { throw LabError("lab env file lacks LAB_H\(i)_\(key)") }
                return s
            }
            hosts.append(LabHost(index: i, namespace: try v("NS"), dbusAddress: try v("DBUS"),
                                 interface: try v("IF"), interfaceIndex: Int(try v("IFINDEX")) ?? 0,
                                 ipv6: try v("IPV6"), ipv4: try v("IPV4"), hostname: try v("HOSTNAME")))
        }
        self.name = name
        directory = dir
        self.hosts = hosts
    }

    /// Starts `arguments` inside `host` (its namespace, with its D-Bus address).
    public func spawn(on host: Int, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess([Lab.script, "exec", name, "h\(host)"] + arguments)
    }

    /// Runs `arguments` inside `host` to completion; exit status and output.
    public func run(on host: Int, _ arguments: [String], timeout: Double = 30) async throws -> (Int32, String) {
        let p = try spawn(on: host, arguments)
        guard let status = await p.wait(timeout: timeout) else {
            await p.stop()
            throw LabError("timed out: \(arguments.joined(separator: " "))")
        }
        // The pipe is close-on-exec, so only the child's own descendants can hold it open; the
        // reader thread may lag on a loaded machine (0.5 s was seen to cut off a whole output).
        for _ in 0..<500 where !p.isDrained { try? await Task.sleep(for: .milliseconds(10)) }
        return (status, p.text)
    }

    /// Browses `service` from `host`'s avahi until a resolved (`=`) line satisfies `predicate`,
    /// streaming (no `-t`): a snapshot browse waits for every resolver, and one stale instance a
    /// killed peer left in the cache can hold it past any timeout. The fields are avahi-browse's
    /// `-p` fields; nil after `timeout`, with everything the browse printed.
    public func browseUntilResolved(on host: Int, _ service: String, timeout: Double,
                                    where predicate: ([Substring]) -> Bool) async throws -> (found: [Substring]?, output: String) {
        let browse = try spawn(on: host, ["avahi-browse", "-pr", service])
        defer { browse.kill9() }
        let line = await browse.waitForLine(timeout: timeout) { line in
            let fields = line.split(separator: ";", omittingEmptySubsequences: false)
            return fields.first == "=" && predicate(fields)
        }
        return (line.map { $0.split(separator: ";", omittingEmptySubsequences: false) }, browse.text)
    }

    /// What `host`'s avahi browse of `service` (resolving) printed within `seconds`: the view for
    /// a check that something is absent, without waiting on a stale instance's resolver.
    public func browse(on host: Int, _ service: String, for seconds: Double) async throws -> String {
        let browse = try spawn(on: host, ["avahi-browse", "-pr", service])
        defer { browse.kill9() }
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return browse.text
    }

    /// `scripts/lab avahi <name> h<host> stop|start|restart`.
    public func avahi(on host: Int, _ action: String) async throws {
        let p = try ChildProcess([Lab.script, "avahi", name, "h\(host)", action])
        guard let status = await p.wait(timeout: 30), status == 0 else {
            throw LabError("scripts/lab avahi \(action) on h\(host) failed: \(p.text)")
        }
    }
}

public struct LabError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs a short command to completion without an async context (lab bring-up, atexit).
func runSynchronously(_ arguments: [String]) -> (Int32, String) {
    guard let p = try? ChildProcess(arguments) else { return (-1, "cannot start \(arguments[0])") }
    let code = p.waitBlocking()
    return (code, p.text)
}
