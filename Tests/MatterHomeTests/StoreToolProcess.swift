import CNet
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A running matterhub-store-tool whose stdout the test reads line by line and which it can
/// SIGKILL. Spawned with posix_spawn and a clean signal mask (platform.md).
final class StoreToolProcess {
    static var executable: String { ProcessRunner.productsDirectory.appendingPathComponent("matterhub-store-tool").path }

    let pid: pid_t
    private let stdoutFD: Int32
    private var buffer: [UInt8] = []
    private var reaped: Int32?

    init(_ arguments: [String]) throws {
        var out: [Int32] = [0, 0]
        let piped = cnet_pipe_cloexec(&out)
        guard piped == 0 else { throw ProcessRunner.SpawnError.pipe(-piped) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = [Self.executable] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, Self.executable, &actions, &attr, &cArgs, nil)
        close(out[1])
        guard rc == 0 else {
            close(out[0])
            throw ProcessRunner.SpawnError.spawn(rc)
        }
        pid = child
        stdoutFD = out[0]
    }

    deinit {
        if reaped == nil { kill() }
        close(stdoutFD)
    }

    /// The next stdout line, or nil at end of output or after `timeout` seconds.
    func readLine(timeout: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Int32(remaining * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads lines until one starts with `prefix`; returns it, or nil.
    func waitForLine(startingWith prefix: String, timeout: Double = 20) -> String? {
        while let line = readLine(timeout: timeout) {
            if line.hasPrefix(prefix) { return line }
        }
        return nil
    }

    /// SIGKILLs the process and reaps it (so it is not a zombie that still "runs").
    func kill() {
        guard reaped == nil else { return }
        _ = Glibc.kill(pid, SIGKILL)
        _ = wait()
    }

    /// Waits for exit; the exit code, or 128 + signal. A tool still running after `timeout`
    /// seconds is killed (137), so a tool that hangs fails its test instead of hanging the run.
    @discardableResult
    func wait(timeout: Double = 60) -> Int32 {
        if let reaped { return reaped }
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if ContinuousClock.now >= deadline {
                _ = Glibc.kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        reaped = code
        return code
    }
}

/// A fresh temporary state directory path (not yet created), removed by `cleanup`.
struct TemporaryStateDirectory {
    let parent: String
    var path: String { parent + "/state" }

    init() {
        var template = Array((NSTemporaryDirectory() + "/matterhub-store-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        parent = made.map { String(cString: $0) } ?? NSTemporaryDirectory() + "/matterhub-store-\(UUID().uuidString)"
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: parent) }
}
