import MatterCommissioning
public import MatterCrypto
public import MatterNetworkCredentials

/// The network credentials the hub hands to Thread and Wi-Fi devices during commissioning: the
/// preferred Thread operational dataset and the home's Wi-Fi credentials, kept owner-only in
/// `<state>/network` (see `NetworkCredentialStore`). The WebSocket API's `set_thread_dataset`
/// and `set_wifi_credentials` call `setThreadDataset` and `setWiFiCredentials`.
extension Hub {
    /// The store of the hub's network credentials.
    public nonisolated var networkCredentials: NetworkCredentialStore { NetworkCredentialStore(stateDirectory: stateDirectory) }

    /// Stores `dataset` and makes it the preferred one (what `set_thread_dataset` does).
    @discardableResult
    public func setThreadDataset(_ dataset: ThreadDataset) throws(HomeError) -> StoredThreadDataset {
        try Self.mapping { () throws(StoreError) in try networkCredentials.addThreadDataset(dataset, prefer: true).dataset }
    }

    /// Decodes `tlvs` (the dataset as TLV bytes) and stores it: as the preferred one under the
    /// `default` entry, else under the entry ID `entry` (preferred only when it is the first).
    @discardableResult
    public func setThreadDataset(tlvs: [UInt8], entry: String = NetworkCredentialStore.defaultEntry) throws(HomeError) -> StoredThreadDataset {
        let dataset: ThreadDataset
        do throws(ThreadDatasetError) { dataset = try ThreadDataset(tlvs: tlvs) } catch {
            throw HomeError(.invalidNetworkCredentials, "the Thread dataset is malformed: \(error.message)", underlying: error)
        }
        guard entry != NetworkCredentialStore.defaultEntry else { return try setThreadDataset(dataset) }
        return try Self.mapping { () throws(StoreError) in try networkCredentials.addThreadDataset(dataset, label: entry).dataset }
    }

    /// The dataset of entry `entry` (`default`: the preferred one; else its entry ID, extended
    /// PAN ID or network name), or nil.
    public func threadDataset(entry: String) throws(HomeError) -> ThreadDataset? {
        guard entry != NetworkCredentialStore.defaultEntry else { return try preferredThreadDataset() }
        return try Self.mapping { () throws(StoreError) in try networkCredentials.threadDataset(entry)?.dataset }
    }

    /// Every stored dataset, oldest first.
    public func threadDatasets() throws(HomeError) -> [StoredThreadDataset] {
        try Self.mapping { () throws(StoreError) in try networkCredentials.threadDatasets() }
    }

    /// Removes entry `entry` (`default`: the preferred dataset, the oldest other taking its
    /// place). Whether a dataset is preferred afterwards.
    public func removeThreadDataset(entry: String) throws(HomeError) -> Bool {
        guard entry != NetworkCredentialStore.defaultEntry else { return try removePreferredThreadDataset() }
        return try Self.mapping { () throws(StoreError) in
            try networkCredentials.removeThreadDataset(entry)
            return try networkCredentials.preferredThreadDataset() != nil
        }
    }

    /// The dataset Thread devices are commissioned with, or nil when none is stored.
    public func preferredThreadDataset() throws(HomeError) -> ThreadDataset? {
        try Self.mapping { () throws(StoreError) in try networkCredentials.preferredThreadDataset()?.dataset }
    }

    /// Stores the home's Wi-Fi credentials (what `set_wifi_credentials` does).
    public func setWiFiCredentials(_ credentials: WiFiCredentials) throws(HomeError) {
        try Self.mapping { () throws(StoreError) in try networkCredentials.setWiFiCredentials(credentials) }
    }

    /// Stores Wi-Fi credentials under entry `entry`; a nil passphrase keeps the stored one for the
    /// same SSID (what `set_wifi_credentials` with a blank password does).
    public func setWiFiCredentials(ssid: [UInt8], passphrase: SecretBytes?, entry: String) throws(HomeError) {
        try Self.mapping { () throws(StoreError) in try networkCredentials.setWiFiCredentials(ssid: ssid, passphrase: passphrase, id: entry) }
    }

    /// The Wi-Fi credentials of entry `entry`, or nil.
    public func wifiCredentials(entry: String) throws(HomeError) -> WiFiCredentials? {
        try Self.mapping { () throws(StoreError) in try networkCredentials.wifiCredentials(id: entry) }
    }

    /// Every Wi-Fi entry's ID and SSID, `default` first.
    public func wifiEntries() throws(HomeError) -> [(id: String, ssid: [UInt8])] {
        try Self.mapping { () throws(StoreError) in try networkCredentials.wifiEntries() }
    }

    /// Forgets entry `entry`'s Wi-Fi credentials (what `remove_wifi_credentials` does).
    public func removeWiFiCredentials(entry: String = NetworkCredentialStore.defaultEntry) throws(HomeError) {
        try Self.mapping { () throws(StoreError) in try networkCredentials.removeWiFiCredentials(id: entry) }
    }

    /// Forgets the preferred Thread dataset (what `remove_thread_dataset` does); the oldest other
    /// one becomes preferred. Whether one is preferred now.
    public func removePreferredThreadDataset() throws(HomeError) -> Bool {
        try Self.mapping { () throws(StoreError) in try networkCredentials.removePreferredThreadDataset() != nil }
    }

    /// The home's Wi-Fi credentials, or nil when none are stored.
    public func wifiCredentials() throws(HomeError) -> WiFiCredentials? {
        try Self.mapping { () throws(StoreError) in try networkCredentials.wifiCredentials() }
    }

    /// `options` with the stored Wi-Fi credentials and preferred Thread dataset where it has
    /// none (unless the caller chose a network: `usesStoredNetworkCredentials` off). The flow
    /// uses them only for a Wi-Fi or Thread device that is not on the operational network yet.
    func withStoredNetworkCredentials(_ options: CommissioningOptions) throws(HomeError) -> CommissioningOptions {
        guard options.usesStoredNetworkCredentials else { return options }
        var o = options
        if o.wifiCredentials == nil { o.wifiCredentials = try wifiCredentials() }
        if o.threadDataset == nil { o.threadDataset = try preferredThreadDataset() }
        return o
    }

    private static func mapping<T>(_ body: () throws(StoreError) -> T) throws(HomeError) -> T {
        do { return try body() } catch {
            switch error {
            case .invalidNetworkCredentials: throw HomeError(.invalidNetworkCredentials, error.description, underlying: error)
            default: throw HomeError(HomeError.code(of: error), "\(error.description). \(error.recoverySuggestion)", underlying: error)
            }
        }
    }
}
