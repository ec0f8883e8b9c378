import MatterInteraction
import MatterNetworkCredentials
import MatterTLV

/// Which network a Wi-Fi or Thread device that is not on the operational network yet joins,
/// and on which of its interfaces (Matter Core 5.5 steps 16-17). Wi-Fi is chosen when the
/// device has both and both credentials are given, as the CHIP SDK's AutoCommissioner does.
struct NetworkPlan: Sendable {
    enum Credentials: Sendable {
        case wifi(WiFiCredentials)
        /// The dataset and its TLV bytes (what AddOrUpdateThreadNetwork carries).
        case thread(ThreadDataset, tlvs: [UInt8])
    }

    var endpoint: EndpointID
    var credentials: Credentials
    /// The NetworkID of ConnectNetwork: the SSID, or the extended PAN ID.
    var networkID: [UInt8]
    var scanMaxTimeSeconds: UInt8
    var connectMaxTimeSeconds: UInt8

    var isThread: Bool { if case .thread = credentials { true } else { false } }

    /// How messages name the network (never with its secret).
    var label: String {
        switch credentials {
        case .wifi(let c): "Wi-Fi network \"\(c.ssidText ?? "hex:" + Base16.encode(c.ssid))\""
        case .thread(let d, _):
            "Thread network " + (d.networkName.map { "\"\($0)\" " } ?? "") + "(extended PAN ID \(Base16.encode(networkID)))"
        }
    }

    /// Why no plan could be made for a device that needs one.
    struct Unavailable: Error {
        var reason: String
        var hint: String
    }

    /// The plan for a device off the operational network, or nil when it is on it already.
    static func make(interfaces: NetworkInterfaces, wifi: WiFiCredentials?, thread: ThreadDataset?) throws(Unavailable) -> NetworkPlan? {
        guard !interfaces.isOnOperationalNetwork else { return nil }
        let wifiInterface = interfaces.interface(with: .wiFiNetworkInterface)
        let threadInterface = interfaces.interface(with: .threadNetworkInterface)
        guard wifiInterface != nil || threadInterface != nil else { return nil }
        if let i = wifiInterface, let wifi {
            return NetworkPlan(endpoint: i.endpoint, credentials: .wifi(wifi), networkID: wifi.ssid,
                               scanMaxTimeSeconds: i.scanMaxTimeSeconds ?? 10, connectMaxTimeSeconds: i.connectMaxTimeSeconds ?? 20)
        }
        if let i = threadInterface, let thread {
            let tlvs: [UInt8]
            do throws(ThreadDatasetError) {
                try thread.checkComplete()
                tlvs = try thread.encoded()
            } catch {
                throw Unavailable(reason: "the Thread dataset cannot be used: \(error.message)",
                                  hint: "Give the complete active dataset of the network (export it from the border router).")
            }
            guard let xpan = thread.extendedPANID else {
                throw Unavailable(reason: "the Thread dataset has no extended PAN ID", hint: "Give the complete active dataset.")
            }
            return NetworkPlan(endpoint: i.endpoint, credentials: .thread(thread, tlvs: tlvs), networkID: xpan,
                               scanMaxTimeSeconds: i.scanMaxTimeSeconds ?? 10, connectMaxTimeSeconds: i.connectMaxTimeSeconds ?? 20)
        }
        let needs = [wifiInterface != nil ? "Wi-Fi credentials" : nil, threadInterface != nil ? "a Thread dataset" : nil]
            .compactMap { $0 }.joined(separator: " or ")
        var hints: [String] = []
        if wifiInterface != nil {
            hints.append("give them with 'matterctl commission --wifi SSID' (passphrase on stdin) or store them with 'matterctl wifi set SSID'")
        }
        if threadInterface != nil {
            hints.append("give the dataset with 'matterctl commission --thread-dataset FILE' or store it with 'matterctl thread datasets add'")
        }
        let hint = hints.joined(separator: "; ")
        throw Unavailable(reason: "the device is not on the operational network and needs \(needs) to join it, and none were given",
                          hint: hint.prefix(1).uppercased() + hint.dropFirst() + ", then retry.")
    }

    /// Text from the device, unless it repeats the secret (a device must never echo it).
    func scrub(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "" }
        let secret: [UInt8]
        switch credentials {
        case .wifi(let c): secret = c.passphrase.bytes
        case .thread(let d, _): secret = d.networkKey?.bytes ?? []
        }
        let bytes = Array(text.utf8)
        if !secret.isEmpty, bytes.count >= secret.count,
           (0...(bytes.count - secret.count)).contains(where: { Array(bytes[$0..<($0 + secret.count)]) == secret }) {
            return " (the device's debug text was dropped: it contained the secret)"
        }
        return " (\"\(text)\")"
    }
}
