/// Why the virtual device could not start or keep its state.
public struct VirtualDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code: `invalid-configuration`, `transport`, `state`, `credentials`, `advertising`.
    public let code: String
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "virtual device: \(message)" }

    static func configuration(_ m: String) -> Self { Self("invalid-configuration", m) }
    static func state(_ m: String) -> Self { Self("state", m) }
    static func credentials(_ m: String) -> Self { Self("credentials", m) }
}
