import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterPlatform

/// The hub serving a state directory, seen from a client: `hub serve` holds an advisory lock on
/// `<state>/hub.lock` (its PID in the file) and listens on the owner-only `<state>/hub.sock`.
public enum LocalHub {
    public static func socketPath(_ stateDirectory: String) -> String { stateDirectory + "/hub.sock" }
    public static func lockPath(_ stateDirectory: String) -> String { stateDirectory + "/hub.lock" }

    /// The PID of the hub serving `stateDirectory`, or nil when none does (nobody holds the lock).
    public static func holder(of stateDirectory: String) -> Int32? {
        let fd = open(lockPath(stateDirectory), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        return Int32(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).trimmingWhitespaceAndNewlines())
    }

    /// A connection to the hub serving `stateDirectory`, nil when no hub runs there. A hub that
    /// holds the lock is given a few seconds to open its socket (it may be starting).
    static func connect(stateDirectory: String, wait: Duration = .seconds(5)) async throws(HomeError) -> RemoteBackend? {
        guard let pid = holder(of: stateDirectory) else { return nil }
        let path = socketPath(stateDirectory)
        let deadline = ContinuousClock.now + wait
        var lastError = HomeError(.hubUnavailable, "no socket at \(path)")
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: path) {
                do { return try await RemoteBackend.connect(url: "unix:" + path, token: nil) } catch { lastError = error }
            }
            guard holder(of: stateDirectory) != nil else { return nil }  // it stopped meanwhile
            try? await Task.sleep(for: .milliseconds(100))
        }
        throw HomeError(.hubUnavailable, "a hub (PID \(pid)) serves \(stateDirectory) but does not answer on \(path): \(lastError.message); "
                        + "wait until it is ready, or stop it")
    }
}
