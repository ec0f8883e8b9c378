import MatterCommissioning
import MatterDiscovery

/// What the Home API reports when it cannot do what was asked, with what the user can do.
public struct HomeError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case storeNotWritable
        case hubUnavailable
        case commissioningSessionActive
        case noCommissioningSession
        case invalidPayload
        case commissioningFailed
        case deviceNotFound
        case roomNotFound
        case deviceUnreachable
        case deviceRefused
        /// A Thread dataset or Wi-Fi credentials that are malformed or cannot be stored.
        case invalidNetworkCredentials
    }

    public let code: Code
    public let message: String
    /// The commissioning step that failed, for `commissioningFailed`.
    public let commissioningError: CommissioningError?

    public init(_ code: Code, _ message: String, commissioningError: CommissioningError? = nil) {
        self.code = code
        self.message = message
        self.commissioningError = commissioningError
    }

    public var description: String { message }
}
