import MatterClusters
import MatterInteraction

/// What each NetworkCommissioningStatus (Matter Core 11.9.5.1) means for the user, and what
/// they can do about it: the reason and hint of the `CommissioningError` of a network step.
extension Clusters.NetworkCommissioning.Status {
    /// The error code tools act on.
    var commissioningCode: CommissioningError.Code {
        switch self {
        case .authFailure: .wrongNetworkCredentials
        case .networkNotFound: .networkNotFound
        default: .networkCommissioningFailed
        }
    }

    /// The status in words.
    var meaning: String {
        switch rawValue {
        case 0: "success"
        case 1: "a value was out of range (an SSID of more than 32 bytes, a passphrase of more than 64, a dataset it cannot use)"
        case 2: "the device holds as many networks as it can (MaxNetworks)"
        case 3: "the device has no network with that ID configured"
        case 4: "the network is already configured under that ID"
        case 5: "the device cannot find the network"
        case 6: "the network cannot be used under the device's regulatory configuration (country, indoor/outdoor)"
        case 7: "the device could not authenticate: the credentials are wrong"
        case 8: "the network's security mode is not supported by the device"
        case 9: "the connection failed"
        case 10: "the device could not set up IPv6 on the network"
        case 11: "the device could not bind its operational port on the network"
        case 12: "an unknown error"
        default: "a status the Matter specification does not define"
        }
    }

    /// What to try, for a Wi-Fi or Thread network.
    func remedy(thread: Bool) -> String {
        let kind = thread ? "Thread" : "Wi-Fi"
        switch rawValue {
        case 1: return thread
            ? "Check the Thread dataset (export the complete active dataset from the border router) and retry."
            : "Check the SSID (at most 32 bytes) and the passphrase (8-63 characters or 64 hex digits) and retry."
        case 2, 4: return "Factory-reset the device to clear the networks it remembers, then retry."
        case 3: return "Retry commissioning; if it keeps failing, reset the device."
        case 5: return thread
            ? "Check that a Thread border router of this network is powered and near the device, or move the device closer, and retry."
            : "Check the SSID, that the access point is on and broadcasting on 2.4 GHz if the device needs it, and that the device is in range; retry."
        case 6: return "Set the right country for the hub's commissioning (CommissioningOptions.countryCode) and retry."
        case 7: return thread
            ? "The Thread network key does not match the network: export the current active dataset from the border router and retry."
            : "The Wi-Fi passphrase is wrong: store the right one ('matterctl wifi set SSID') or give it again, and retry."
        case 8: return "Switch the access point to WPA2/WPA3-Personal (or a mode the device supports) and retry."
        case 9, 12: return "Check the \(kind) network's health and retry; restart the device if it keeps failing."
        case 10, 11: return "Check that the \(kind) network carries IPv6 (link-local at least) and retry."
        default: return "Retry; if it keeps failing, reset the device."
        }
    }
}
