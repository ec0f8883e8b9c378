import MatterCommissioning
import MatterCrypto
import MatterHome
import MatterNetworkCredentials
import MatterServerAPI
import MatterTLV

/// The network credentials of the API (schema 12's named lists): Wi-Fi and Thread entries by ID,
/// `default` being what a client that names none means; secrets are write-only. After each change
/// `server_info_updated` says whether the default entries are set.
extension HubService {
    func setWiFi(ssid: String, credentials: String, entry: String) async throws(APIError) -> JSONValue {
        try takeCredentialWrite("set_wifi_credentials")
        // A blank password keeps the stored one of the same SSID, never pairs it with another.
        let passphrase = credentials.isEmpty ? nil : SecretBytes(Array(credentials.utf8))
        do { try await hub.setWiFiCredentials(ssid: Array(ssid.utf8), passphrase: passphrase, entry: entry) } catch {
            throw APIError(error.code == .invalidNetworkCredentials ? .invalidArguments : .unknownError,
                           "set_wifi_credentials: \(error.message)")
        }
        await publishCredentialFlags()
        return .null
    }

    func setThread(dataset: String, entry: String) async throws(APIError) -> JSONValue {
        guard let tlvs = Base16.decode(dataset.filter { !$0.isWhitespace }) else {
            throw APIError(.invalidArguments, "set_thread_dataset: the dataset must be hex (the operational dataset's TLVs)")
        }
        try takeCredentialWrite("set_thread_dataset")
        do { try await hub.setThreadDataset(tlvs: tlvs, entry: entry) } catch {
            throw APIError(.invalidArguments, "set_thread_dataset: \(error.description)")
        }
        await publishCredentialFlags()
        return .null
    }

    func removeWiFi(entry: String) async throws(APIError) -> JSONValue {
        try takeCredentialWrite("remove_wifi_credentials")
        do { try await hub.removeWiFiCredentials(entry: entry) } catch {
            throw Self.removalError("remove_wifi_credentials", error)
        }
        await publishCredentialFlags()
        return .null
    }

    /// The `default` entry is the preferred dataset; another the hub holds (`matterctl thread
    /// add`, or a named entry) may take its place, and `thread_credentials_set` says whether one did.
    func removeThread(entry: String) async throws(APIError) -> JSONValue {
        try takeCredentialWrite("remove_thread_dataset")
        do { _ = try await hub.removeThreadDataset(entry: entry) } catch {
            throw Self.removalError("remove_thread_dataset", error)
        }
        await publishCredentialFlags()
        return .null
    }

    private static func removalError(_ command: String, _ error: HomeError) -> APIError {
        if case .notFound? = error.underlyingError as? StoreError {
            return APIError(.invalidArguments, "\(command): \(error.message) (get_all_credentials lists the stored entries)")
        }
        return APIError(.unknownError, "\(command): \(error.message)")
    }

    /// `{wifi: [{id, ssid}], thread: [{id, networkName, extPanId}]}`, matterjs-server's shape:
    /// `default` first in both, always present (unset unless server_info says so); each Thread
    /// dataset under its entry ID, or its extended PAN ID when it has none.
    func allCredentials() async throws(APIError) -> JSONValue {
        let wifi: [(id: String, ssid: [UInt8])]
        let thread: [StoredThreadDataset]
        do {
            wifi = try await hub.wifiEntries()
            thread = try await hub.threadDatasets()
        } catch {
            throw APIError(.unknownError, "get_all_credentials: \(error.message)")
        }
        var wifiOut: [JSONValue] = []
        if !wifi.contains(where: { $0.id == NetworkCredentialStore.defaultEntry }) {
            wifiOut.append(.object(["id": .string(NetworkCredentialStore.defaultEntry), "ssid": .string("")]))
        }
        for e in wifi { wifiOut.append(.object(["id": .string(e.id), "ssid": .string(String(decoding: e.ssid, as: UTF8.self))])) }
        func summary(_ id: String, _ d: StoredThreadDataset?) -> JSONValue {
            var o = JSONObject()
            o.append("id", .string(id))
            if let d {
                if let name = d.dataset.networkName { o.append("networkName", .string(name)) }
                o.append("extPanId", .string(d.id.uppercased()))
            }
            return .object(o)
        }
        var threadOut = [summary(NetworkCredentialStore.defaultEntry, thread.first(where: \.isPreferred))]
        for d in thread where d.label != nil || !d.isPreferred { threadOut.append(summary(d.label ?? d.id.uppercased(), d)) }
        return .object(["wifi": .array(wifiOut), "thread": .array(threadOut)])
    }

    /// Says whether the default entries are set (`wifi_credentials_set`, `thread_credentials_set`).
    private func publishCredentialFlags() async {
        let wifi = ((try? await hub.wifiCredentials()) ?? nil) != nil
        let thread = ((try? await hub.preferredThreadDataset()) ?? nil) != nil
        publish(.serverInfoUpdated(updateInfo {
            $0.wifiCredentialsSet = wifi
            $0.threadCredentialsSet = thread
        }))
    }

    /// The commissioning options for `commission_with_code` with named entries: that entry's
    /// credentials in place of the defaults.
    func options(wifiEntry: String?, threadEntry: String?) async throws(APIError) -> CommissioningOptions? {
        guard wifiEntry != nil || threadEntry != nil else { return nil }
        var o = options
        if let wifiEntry {
            let stored: WiFiCredentials?
            do { stored = try await hub.wifiCredentials(entry: wifiEntry) } catch { throw Self.unreadable(error) }
            guard let stored else {
                throw APIError(.invalidArguments, "commission_with_code: no Wi-Fi credentials are stored under '\(wifiEntry)' (get_all_credentials lists them)")
            }
            o.wifiCredentials = stored
        }
        if let threadEntry {
            let stored: ThreadDataset?
            do { stored = try await hub.threadDataset(entry: threadEntry) } catch { throw Self.unreadable(error) }
            guard let stored else {
                throw APIError(.invalidArguments, "commission_with_code: no Thread dataset is stored under '\(threadEntry)' (get_all_credentials lists them)")
            }
            o.threadDataset = stored
        }
        return o
    }

    private static func unreadable(_ error: HomeError) -> APIError {
        APIError(.unknownError, "commission_with_code: the stored network credentials cannot be read: \(error.message)")
    }
}
