import MatterCommissioning
import MatterServerAPI

/// The hub's error envelope back into the `HomeError` the hub raised: `matterhub_error` is the
/// code, `details` the message, `commissioning` the failed step.
enum RemoteErrors {
    static func homeError(_ o: JSONObject) -> HomeError {
        let details = o["details"]?.string ?? "the hub gave no details"
        if let name = o["matterhub_error"]?.string, let code = HomeError.Code(rawValue: name) {
            return HomeError(code, details, commissioningError: o["commissioning"].flatMap(commissioningError))
        }
        // A plain OHF error (e.g. 9 for a command this hub does not know).
        let code = o["error_code"].flatMap(Int.read).flatMap(ErrorCode.init(rawValue:))
        return HomeError(.hubUnavailable, "the hub answered \(code?.name ?? "an error"): \(details)")
    }

    /// `{"step", "device", "code", "reason", "hint"}` as `CommissioningError`.
    static func commissioningError(_ json: JSONValue) -> CommissioningError? {
        guard let stepName = json["step"]?.string, let step = CommissioningStep(rawValue: stepName) else { return nil }
        return CommissioningError(step: step, device: json["device"]?.string ?? "the device",
                                  code: CommissioningError.Code(rawValue: json["code"]?.string ?? "protocol-error"),
                                  reason: json["reason"]?.string ?? "", hint: json["hint"]?.string ?? "")
    }
}
