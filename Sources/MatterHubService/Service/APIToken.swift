import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MatterCrypto
import MatterTLV
import MatterPlatform

/// The API token clients present (`?token=`): 32 random bytes as hex in `<state>/api-token`,
/// owner-only, never on a command line. Local clients of the same state directory read it from
/// there (the Linux counterpart of a shared keychain group).
public enum APIToken {
    public static func path(_ stateDirectory: String) -> String { stateDirectory + "/api-token" }

    /// The token, created on first use.
    public static func load(stateDirectory: String) throws -> String {
        if let data = FileManager.default.contents(atPath: path(stateDirectory)),
           let text = String(data: data, encoding: .utf8)?.trimmingWhitespaceAndNewlines(), text.count == 64 {
            return text
        }
        return try rotate(stateDirectory: stateDirectory)
    }

    /// A new token replaces the old one (clients holding the old one are refused from now on).
    @discardableResult
    public static func rotate(stateDirectory: String) throws -> String {
        let token = Base16.encode(SecureRandom.bytes(32))
        let file = path(stateDirectory)
        let temporary = file + ".new"
        let old = umask(0o077)
        defer { umask(old) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw fileError(.fileWriteNoPermission, path: temporary, errno: errno) }
        let written = FileDescriptorIO.writeAll(fd, Array((token + "\n").utf8)) && fchmod(fd, 0o600) == 0
        let writeErrno = errno
        close(fd)
        guard written else {
            unlink(temporary)
            throw fileError(.fileWriteUnknown, path: temporary, errno: writeErrno)
        }
        guard rename(temporary, file) == 0 else { throw fileError(.fileWriteUnknown, path: file, errno: errno) }
        return token
    }
}
