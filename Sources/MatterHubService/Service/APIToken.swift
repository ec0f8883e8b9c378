import Foundation
import MatterCrypto
import MatterTLV

/// The API token clients present (`?token=`): 32 random bytes as hex in `<state>/api-token`,
/// owner-only, never on a command line. Local clients of the same state directory read it from
/// there (the Linux counterpart of a shared keychain group).
public enum APIToken {
    public static func path(_ stateDirectory: String) -> String { stateDirectory + "/api-token" }

    /// The token, created on first use.
    public static func load(stateDirectory: String) throws -> String {
        if let data = FileManager.default.contents(atPath: path(stateDirectory)),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), text.count == 64 {
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
        guard FileManager.default.createFile(atPath: temporary, contents: Data((token + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        guard rename(temporary, file) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file]) }
        return token
    }
}
