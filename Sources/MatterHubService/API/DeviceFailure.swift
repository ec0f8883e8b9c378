import MatterHome
import MatterInteraction
import MatterServerAPI

extension APIError {
    /// A device interaction that failed, with the OHF code a client can act on and the cause in
    /// the details: the node did not answer (4, NodeNotResolving: timeout, unreachable, session
    /// closed), the node answered with a failure status (7, SDKStackError, the IM status and any
    /// cluster status named), the node sent something this hub cannot read (7). `what` says what
    /// was being done ("LockDoor on node 5").
    static func device(_ error: any Error, _ what: String) -> APIError {
        switch error {
        case let e as InteractionError:
            switch e {
            case .exchangeFailed(let failure):
                return APIError(.nodeNotResolving, "\(what): the node did not answer (\(failure.kind): \(failure))")
            case .status(let status, let clusterStatus, _):
                return APIError(.sdkStackError, "\(what): the node answered \(status)"
                                + (clusterStatus.map { ", cluster status \($0)" } ?? "") + ": \(status.message)")
            case .malformed, .invalidValue, .unexpectedMessage:
                return APIError(.sdkStackError, "\(what): the node's answer is not valid: \(e)")
            }
        case let e as ValueCodingError:
            return APIError(.sdkStackError, "\(what): the node's answer does not fit the command's response: \(e)")
        case let e as HomeError:
            return APIError(ErrorCode(e.code), "\(what): \(e.message)")
        default:
            return APIError(.unknownError, "\(what): \(error)")
        }
    }
}
