import CNet
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests (avahi-publish, matterctl in a lab host, Python peers), started with
/// `posix_spawn` rather than `Foundation.Process`: the child gets an empty signal mask and default
/// signal handlers (Dispatch worker threads block SIGTERM, and a child inheriting that mask ignores
/// SIGTERM), and its own process group so `stop()` also reaches its children.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let arguments: [String]
    private let captured = CapturedOutput()
    private let exitStatus = Mutex<Int32?>(nil)
    private let reader: Thread

    /// Starts `arguments[0]` (looked up in PATH) with stdout and stderr captured together.
    public init(_ arguments: [String], environment: [String: String]? = nil) throws {
        self.arguments = arguments
        var fds: [Int32] = [0, 0]
        // Close-on-exec, so that no child another test spawns meanwhile holds the pipe open.
        let piped = cnet_pipe_cloexec(&fds)
        guard piped == 0 else { throw ChildProcessError("pipe failed: errno \(-piped)") }
        let readEnd = fds[0], writeEnd = fds[1]

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        _ = cnet_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let rc = withCStringArray(arguments) { argv in
            withCStringArray(env) { envp in
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            }
        }
        close(writeEnd)
        guard rc == 0 else {
            close(readEnd)
            throw ChildProcessError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
        let captured = self.captured
        reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                captured.bytes.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            close(readEnd)
            captured.finished.withLock { $0 = true }
        }
        reader.start()
        ChildProcess.register(pid)
    }

    /// Live children, so a test process that ends early (a failed #require, a crash in another
    /// test) still ends every child it started, by process group.
    private static let live = Mutex<Set<pid_t>>([])
    private static let registered = Mutex(false)

    private static func register(_ pid: pid_t) {
        live.withLock { _ = $0.insert(pid) }
        let first = registered.withLock { done -> Bool in defer { done = true }; return !done }
        if first { atexit { ChildProcess.killRemaining() } }
    }

    private static func killRemaining() {
        for pid in live.withLock({ $0 }) { kill(-pid, SIGKILL) }
    }

    /// Everything the child wrote so far (stdout and stderr).
    public var text: String { captured.bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Complete lines written so far.
    public var lines: [String] {
        let t = text
        var parts = t.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if !t.hasSuffix("\n") { parts.removeLast() }
        return parts.filter { !$0.isEmpty }
    }

    /// Waits until a line satisfies `predicate`; nil after `timeout` seconds or when the child
    /// exits without one.
    public func waitForLine(timeout: Double, where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            if let line = lines.first(where: predicate) { return line }
            if ContinuousClock.now >= deadline || hasExited { return lines.first(where: predicate) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether the output pipe has reached end of file.
    public var isDrained: Bool { captured.finished.withLock { $0 } }

    /// Whether the child has exited (reaps it if so).
    public var hasExited: Bool { poll() != nil }

    /// Waits for the child to exit by itself; its exit status (128+signal if killed), or nil on
    /// timeout.
    public func wait(timeout: Double) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let s = poll() { return s }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return poll()
    }

    /// Blocks until the child exits (for synchronous paths: lab bring-up, atexit); then gives the
    /// reader up to 5 s to drain the output (a daemon the child left running may hold the pipe).
    public func waitBlocking() -> Int32 {
        let code = exitStatus.withLock { known -> Int32 in
            if let known { return known }
            var status: Int32 = 0
            var r: pid_t
            repeat { r = waitpid(pid, &status, 0) } while r < 0 && errno == EINTR
            let code: Int32 = r < 0 ? -1 : (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            known = code
            ChildProcess.live.withLock { _ = $0.remove(pid) }
            return code
        }
        for _ in 0..<500 where !captured.finished.withLock({ $0 }) { usleep(10_000) }
        return code
    }

    /// SIGTERM to the child's process group, then SIGKILL after `grace` seconds.
    /// Nothing is sent once the child has exited: what it started on purpose (`scripts/lab avahi
    /// start` leaves avahi-daemon running in its group) must survive it.
    public func stop(grace: Double = 2) async {
        guard poll() == nil else { return }
        kill(-pid, SIGTERM)
        if await wait(timeout: grace) == nil {
            kill(-pid, SIGKILL)
            _ = await wait(timeout: 5)
        }
    }

    /// Synchronous last-resort kill of the process group (for deinit/atexit paths).
    public func kill9() {
        guard poll() == nil else { return }
        kill(-pid, SIGKILL)
        // Bounded: a child stuck in uninterruptible sleep must not hang the caller.
        for _ in 0..<500 where poll() == nil { usleep(10_000) }
    }

    private func poll() -> Int32? {
        exitStatus.withLock { known in
            if let known { return known }
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r < 0 && errno == ECHILD { known = -1; ChildProcess.live.withLock { _ = $0.remove(pid) }; return -1 }
            guard r == pid else { return nil }
            ChildProcess.live.withLock { _ = $0.remove(pid) }
            let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            known = code
            return code
        }
    }

    deinit { kill9() }
}

/// What the reader thread collected from the child's output pipe.
private final class CapturedOutput: Sendable {
    let bytes = Mutex<[UInt8]>([])
    let finished = Mutex(false)
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

private func withCStringArray<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
