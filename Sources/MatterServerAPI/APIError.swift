/// The error codes of the Matter Server API (python-matter-server `common/errors.py`).
///
/// A closed set on purpose: the 8.1.2 client looks each code up in a table of exactly these, and
/// any other code ends its listen loop. Codes 0-11 answer every command; the OHF extensions
/// (100, 101) answer only commands of schema 12 and later, which that client never sends.
public enum ErrorCode: Int, Hashable, Sendable, CaseIterable {
    case unknownError = 0
    case nodeCommissionFailed = 1
    case nodeInterviewFailed = 2
    /// The node is missing or not available (device_command, read/write_attribute, ...).
    case nodeNotReady = 3
    case nodeNotResolving = 4
    /// An unknown node for get_node, remove_node, ping_node, get_node_ip_addresses.
    case nodeNotExists = 5
    case versionMismatch = 6
    case sdkStackError = 7
    /// Arguments missing or of the wrong type; an invalid path.
    case invalidArguments = 8
    /// An unknown command name.
    case invalidCommand = 9
    case updateCheckError = 10
    case updateError = 11
    /// An ICD command the node cannot take from this fabric (matterjs-server's IcdMultiAdmin).
    case icdMultiAdmin = 100
    /// `initiate_ota_upload` / `POST /ota-upload/<id>` refused: no slot, an unknown, used or
    /// expired id, or an image that does not check out.
    case otaUploadError = 101

    /// The class name the Python client raises for this code.
    public var name: String {
        switch self {
        case .unknownError: return "UnknownError"
        case .nodeCommissionFailed: return "NodeCommissionFailed"
        case .nodeInterviewFailed: return "NodeInterviewFailed"
        case .nodeNotReady: return "NodeNotReady"
        case .nodeNotResolving: return "NodeNotResolving"
        case .nodeNotExists: return "NodeNotExists"
        case .versionMismatch: return "VersionMismatch"
        case .sdkStackError: return "SDKStackError"
        case .invalidArguments: return "InvalidArguments"
        case .invalidCommand: return "InvalidCommand"
        case .updateCheckError: return "UpdateCheckError"
        case .updateError: return "UpdateError"
        case .icdMultiAdmin: return "IcdMultiAdmin"
        case .otaUploadError: return "OtaUploadError"
        }
    }
}

/// An error answer to a command: the code the client maps to an exception, and a readable message
/// that says what failed and what to do (Home Assistant shows it to the user).
public struct APIError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var details: String

    public init(_ code: ErrorCode, _ details: String) {
        self.code = code
        self.details = details
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(details)" }

    /// Error 9 with the details the python server writes.
    public static func invalidCommand(_ name: String) -> APIError {
        APIError(.invalidCommand, "Invalid command: \(name)")
    }

    public static func invalidArguments(_ details: String) -> APIError {
        APIError(.invalidArguments, details)
    }
}
