#if canImport(Glibc)
import Glibc
#endif
import MatterHome
import Synchronization
import MatterPlatform

/// The one writer of a state directory: `hub serve` holds an advisory lock on `<state>/hub.lock`
/// (with its PID in the file) while it runs. The kernel drops the lock when the process ends,
/// however it ends.
public final class HubLock: Sendable {
    public struct HeldElsewhere: Error, CustomStringConvertible {
        public let pid: Int32?
        public let path: String
        public var description: String {
            "another hub (PID \(pid.map(String.init) ?? "unknown")) serves this state directory (\(path)); stop it first, or use another --state"
        }
    }

    private let fd: Mutex<Int32>
    public let path: String

    /// Takes the lock, or throws `HeldElsewhere` naming the process that has it.
    public init(stateDirectory: String) throws {
        path = stateDirectory + "/hub.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw fileError(.fileWriteNoPermission, path: path, errno: errno)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let text = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).trimmingWhitespaceAndNewlines()
            throw HeldElsewhere(pid: Int32(text), path: stateDirectory)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBufferPointer { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = Mutex(fd)
    }

    /// Gives the directory up (the hub stopped); later calls do nothing.
    public func release() {
        fd.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    deinit { release() }

    /// The PID of the hub serving `stateDirectory`, or nil when none does.
    public static func holder(of stateDirectory: String) -> Int32? {
        LocalHub.holder(of: stateDirectory)
    }
}
