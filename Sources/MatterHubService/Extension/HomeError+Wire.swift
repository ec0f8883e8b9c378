import MatterCommissioning
import MatterHome
import MatterServerAPI

extension HubAPIError {
    /// The Home API's error on the wire: its code and message verbatim, the commissioning step
    /// when there is one, and the nearest OHF code.
    init(_ error: HomeError) {
        self.init(code: ErrorCode(error.code), details: error.message, homeError: error.code.rawValue,
                  commissioning: error.commissioningError.map(HubCommissioningFailure.init))
    }
}

extension ErrorCode {
    /// The nearest OHF code of a Home API error.
    init(_ code: HomeError.Code) {
        self = switch code {
        case .deviceNotFound: .nodeNotExists
        case .deviceUnreachable: .nodeNotResolving
        case .commissioningFailed, .invalidPayload, .commissioningSessionActive, .noCommissioningSession, .trustStoreUnavailable:
            .nodeCommissionFailed
        case .duplicateName, .invalidName: .invalidArguments
        default: .unknownError
        }
    }
}

extension HubCommissioningFailure {
    init(_ error: CommissioningError) {
        self.init(step: error.step.rawValue, specNumber: error.step.specNumber, title: error.step.title, device: error.device,
                  code: error.code.rawValue, reason: error.reason, hint: error.hint)
    }
}

extension HubDeviceOutcome {
    init(device: Int, _ result: Result<CommissionedDevice, CommissioningError>) {
        switch result {
        case .success(let r):
            self = .success(device: device, nodeID: r.nodeID.rawValue, vendorID: r.vendorID, productID: r.productID, address: r.address,
                            timings: r.timings.map { Timing(step: $0.step.rawValue, milliseconds: $0.milliseconds) },
                            warnings: r.warnings)
        case .failure(let e):
            self = .failure(device: device, HubCommissioningFailure(e))
        }
    }
}
