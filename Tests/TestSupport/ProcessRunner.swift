import CNet
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a short-lived command and collects its output (for CLI tests).
///
/// It uses posix_spawn with a clean signal mask rather than Foundation.Process: children
/// started from Dispatch threads would otherwise inherit blocked signals (platform.md), and
/// Foundation's pipe reads trap on EINTR.
public enum ProcessRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// The directory holding the built products (matterctl sits next to the test bundle).
    public static var productsDirectory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        return url
    }

    public static var matterctl: String { productsDirectory.appendingPathComponent("matterctl").path }

    public enum SpawnError: Error { case spawn(Int32), pipe(Int32) }

    /// Runs `executable` with `arguments`; `environment` replaces the environment when given.
    /// A child still running after `timeout` seconds is killed (SIGKILL, status 137) and the
    /// result's stderr says so: a hung child fails its test instead of hanging the whole run.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: String? = nil, timeout: Double = 300) throws -> Result {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0], inPipe: [Int32] = [0, 0]
        // Close-on-exec, so that no child another test spawns meanwhile holds these pipes open.
        for rc in [cnet_pipe_cloexec(&outPipe), cnet_pipe_cloexec(&errPipe), cnet_pipe_cloexec(&inPipe)] where rc < 0 {
            throw SpawnError.pipe(-rc)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        _ = cnet_spawn_close_from(&actions, 3)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        // Its own process group, so that a timeout also reaches whatever it started.
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = [executable] + arguments
        var pid: pid_t = 0
        let rc = withCStrings(argv) { cArgv in
            withCStrings(env) { cEnv in posix_spawn(&pid, executable, &actions, &attr, cArgv, cEnv) }
        }
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        if let stdin { writeAll(inPipe[1], Array(stdin.utf8)) }
        close(inPipe[1])
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw SpawnError.spawn(rc)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var (out, err, status) = collect(pid, outPipe[0], errPipe[0], until: deadline)
        if status == nil {
            kill(-pid, SIGKILL)
            var killed: Int32 = 0
            while waitpid(pid, &killed, 0) < 0 && errno == EINTR {}
            status = killed
            err += Array("\n[ProcessRunner] \(executable) was still running after \(timeout) s: killed\n".utf8)
        }
        close(outPipe[0]); close(errPipe[0])
        let raw = status ?? 0
        let exit = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        return Result(status: exit, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Reads both pipes, with poll so neither can fill up and block the child, until the child
    /// has exited (its wait status) or `deadline` passes (nil). After the exit it takes what is
    /// left in the pipes without waiting for an end of file, which a grandchild holding them
    /// (a daemon the command started) would never send.
    private static func collect(_ pid: pid_t, _ a: Int32, _ b: Int32, until deadline: ContinuousClock.Instant)
        -> (out: [UInt8], err: [UInt8], status: Int32?) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var outputs: [[UInt8]] = [[], []]
        var buffer = [UInt8](repeating: 0, count: 65536)
        func readReady(_ i: Int) {
            let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
            if n > 0 { outputs[i].append(contentsOf: buffer[0..<n]) } else if n == 0 || errno != EINTR { fds[i].fd = -1 }
        }
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) {
                for i in 0..<2 where fds[i].fd >= 0 { _ = fcntl(fds[i].fd, F_SETFL, fcntl(fds[i].fd, F_GETFL) | O_NONBLOCK) }
                // At most a second: a grandchild may keep writing.
                let last = ContinuousClock.now + .seconds(1)
                while fds.contains(where: { $0.fd >= 0 }) && ContinuousClock.now < last {
                    for i in 0..<2 where fds[i].fd >= 0 { readReady(i) }
                }
                return (outputs[0], outputs[1], status)
            }
            if ContinuousClock.now >= deadline { return (outputs[0], outputs[1], nil) }
            // Short polls: the loop also watches for the exit.
            if poll(&fds, 2, 50) > 0 {
                for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 { readReady(i) }
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n } else if errno != EINTR { return }
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        return body(pointers)
    }
}
