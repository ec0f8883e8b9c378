/// Why a value could not be converted between JSON and TLV. `path` names where in the value
/// (`"payload.level"`, `"[2].1"`).
public struct ValueCodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
