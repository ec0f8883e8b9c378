internal import CNet
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Runs a short read-only system tool (`nft list ruleset`, `iptables-save`) and returns its
/// standard output, or nil when it is not installed, fails, or runs past `timeout`. posix_spawn
/// with a clean signal mask (Foundation.Process would hand the child a Dispatch thread's mask).
enum ReadOnlyCommand {
    static func output(_ candidates: [String], _ arguments: [String], timeout: Double = 5) -> String? {
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else { return nil }
        var fds: [Int32] = [0, 0]
        guard cnet_pipe_cloexec(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = cnet_spawn_close_from(&actions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let words: [String] = [path] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let environment: [String] = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"]
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for p in env { free(p) } }
        let rc = posix_spawn(&pid, path, &actions, &attr, argv, env)
        close(fds[1])
        guard rc == 0 else { close(fds[0]); return nil }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        var pfd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            let p = poll(&pfd, 1, left)
            if p < 0 && errno == EINTR { continue }
            if p <= 0 { kill(pid, SIGKILL); break }
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n > 0 { out += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }
}
