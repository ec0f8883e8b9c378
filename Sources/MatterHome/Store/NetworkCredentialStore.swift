import FoundationEssentials
public import MatterNetworkCredentials
import MatterCrypto
#if canImport(Glibc)
import Glibc
#endif

/// The hub's Thread operational datasets and Wi-Fi credentials, in owner-only files beside the
/// private keys rather than in the SQLite database:
///
/// ```
/// <state>/network/            mode 0700
///   thread-datasets.json      mode 0600: every dataset as its TLVs (hex), which one is preferred
///   wifi.json                 mode 0600: Wi-Fi SSIDs and passphrases by entry ID ("default": the home's)
///   .lock                     flock'd around every read-modify-write
/// ```
///
/// They are secrets like the keys in `keys/` (a Thread network key opens the whole mesh), so they
/// follow the keys' rule: their own 0600 files, written atomically and durably
/// (`SecureFiles.writeAtomically`), never in the database that tools open read-only and that is
/// copied for diagnostics. Several processes may share the directory: each change holds an
/// exclusive `flock` on `.lock` while it reads, changes and rewrites a file.
public final class NetworkCredentialStore: Sendable {
    public let stateDirectory: String
    /// `<state>/network`.
    public var directory: String { stateDirectory + "/network" }
    public var threadDatasetsPath: String { directory + "/" + Self.threadFile }
    public var wifiPath: String { directory + "/" + Self.wifiFile }

    static let threadFile = "thread-datasets.json"
    static let wifiFile = "wifi.json"
    private let clock: @Sendable () -> Date

    public init(stateDirectory: String, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.stateDirectory = stateDirectory.count > 1 && stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory
        self.clock = clock
    }

    // MARK: Thread datasets

    /// Every stored dataset, oldest first.
    public func threadDatasets() throws(StoreError) -> [StoredThreadDataset] {
        try withLock(create: false) { () throws(StoreError) in try loadThread().stored() } ?? []
    }

    /// The dataset Thread devices are commissioned with: the one marked preferred.
    public func preferredThreadDataset() throws(StoreError) -> StoredThreadDataset? {
        try threadDatasets().first(where: \.isPreferred)
    }

    /// Adds `dataset` (it must be complete: `ThreadDataset.checkComplete`), keyed by its extended
    /// PAN ID. One with the same extended PAN ID is replaced, unless the stored one has a newer
    /// active timestamp (a stale export must not undo a network's update). The first dataset,
    /// or any with `prefer`, becomes the preferred one.
    /// `label` (an API entry ID, unique among the datasets) names it.
    @discardableResult
    public func addThreadDataset(_ dataset: ThreadDataset, prefer: Bool = false, label: String? = nil) throws(StoreError) -> ThreadDatasetAddition {
        if let label { try Self.checkEntryID(label) }
        do throws(ThreadDatasetError) { try dataset.checkComplete() } catch { throw .invalidNetworkCredentials(error.message) }
        let tlvs: [UInt8]
        do throws(ThreadDatasetError) { tlvs = try dataset.encoded() } catch { throw .invalidNetworkCredentials(error.message) }
        let id = Self.hex(dataset.extendedPANID ?? [])
        return try withLock(create: true) { () throws(StoreError) -> ThreadDatasetAddition in
            var file = try loadThread()
            var replaced = false
            if let i = file.datasets.firstIndex(where: { $0.id == id }) {
                let old = try file.datasets[i].decoded(path: threadDatasetsPath)
                if let a = old.activeTimestamp, let b = dataset.activeTimestamp, (a.seconds, a.ticks) > (b.seconds, b.ticks) {
                    throw .invalidNetworkCredentials(
                        "the stored dataset for extended PAN ID \(id) has a newer active timestamp (\(a.seconds)) than this one "
                            + "(\(b.seconds)); remove the stored one first if you really mean to go back")
                }
                file.datasets[i].tlvs = Self.hex(tlvs)
                replaced = true
            } else {
                file.datasets.append(ThreadFile.Entry(id: id, tlvs: Self.hex(tlvs), addedAt: clock()))
            }
            if let label {
                for i in file.datasets.indices where file.datasets[i].label == label { file.datasets[i].label = nil }
                file.datasets[file.datasets.firstIndex { $0.id == id }!].label = label
            }
            if prefer || file.preferred == nil { file.preferred = id }
            try save(file)
            let stored = try file.stored().first { $0.id == id }!
            return ThreadDatasetAddition(dataset: stored, replaced: replaced)
        }!
    }

    /// Removes a dataset, by extended PAN ID (hex) or network name. When it was the preferred one,
    /// the oldest remaining becomes preferred.
    public func removeThreadDataset(_ key: String) throws(StoreError) {
        let done: Void? = try withLock(create: false) { () throws(StoreError) in
            var file = try loadThread()
            let id = try Self.find(key, in: file.stored())
            file.datasets.removeAll { $0.id == id }
            if file.preferred == id { file.preferred = file.datasets.first?.id }
            try save(file)
        }
        if done == nil { throw .notFound(kind: .threadDataset, id: key) }
    }

    /// Removes the preferred dataset (the API's `default` entry), if any; the oldest remaining
    /// becomes preferred. The dataset now preferred, or nil when none is left.
    @discardableResult
    public func removePreferredThreadDataset() throws(StoreError) -> StoredThreadDataset? {
        try withLock(create: false) { () throws(StoreError) -> StoredThreadDataset? in
            var file = try loadThread()
            guard let preferred = file.preferred else { return nil }
            file.datasets.removeAll { $0.id == preferred }
            file.preferred = file.datasets.first?.id
            try save(file)
            return try file.stored().first(where: \.isPreferred)
        } ?? nil
    }

    /// Makes a stored dataset (by extended PAN ID or network name) the preferred one.
    public func preferThreadDataset(_ key: String) throws(StoreError) {
        let done: Void? = try withLock(create: false) { () throws(StoreError) in
            var file = try loadThread()
            file.preferred = try Self.find(key, in: file.stored())
            try save(file)
        }
        if done == nil { throw .notFound(kind: .threadDataset, id: key) }
    }

    /// The stored dataset `key` names (its label, extended PAN ID or network name), or nil.
    public func threadDataset(_ key: String) throws(StoreError) -> StoredThreadDataset? {
        let all = try threadDatasets()
        do { let id = try Self.find(key, in: all); return all.first { $0.id == id } } catch {
            if case .notFound = error { return nil }
            throw error
        }
    }

    static func find(_ key: String, in datasets: [StoredThreadDataset]) throws(StoreError) -> String {
        if let d = datasets.first(where: { $0.label == key }) { return d.id }
        if let d = datasets.first(where: { $0.id == key.lowercased() }) { return d.id }
        let named = datasets.filter { $0.dataset.networkName == key }
        if named.count == 1 { return named[0].id }
        if named.count > 1 {
            throw .invalidNetworkCredentials("\(named.count) stored datasets are named \"\(key)\"; give the extended PAN ID instead")
        }
        throw .notFound(kind: .threadDataset, id: key)
    }

    // MARK: Wi-Fi

    /// The entry every caller that names none uses (the Matter Server API's reserved `default`).
    public static let defaultEntry = "default"

    /// Stores Wi-Fi credentials under `id` (replacing that entry).
    public func setWiFiCredentials(_ credentials: WiFiCredentials, id: String = defaultEntry) throws(StoreError) {
        try setWiFiCredentials(ssid: credentials.ssid, passphrase: credentials.passphrase, id: id)
    }

    /// Stores Wi-Fi credentials under `id`. A nil `passphrase` keeps the stored one, and only
    /// for the same SSID (an entry re-saved without its secret): the secret of one network is
    /// never paired with another.
    public func setWiFiCredentials(ssid: [UInt8], passphrase: SecretBytes?, id: String = defaultEntry) throws(StoreError) {
        try Self.checkEntryID(id)
        _ = try withLock(create: true) { () throws(StoreError) in
            var file = try loadWiFi()
            let existing = file.entries.firstIndex { $0.id == id }
            let secret: [UInt8]
            if let passphrase {
                secret = passphrase.bytes
            } else if let i = existing, Self.unhex(file.entries[i].ssid) == ssid, let kept = Self.unhex(file.entries[i].passphrase) {
                secret = kept
            } else {
                throw .invalidNetworkCredentials("""
                    no passphrase was given, and the Wi-Fi entry '\(id)' has none stored for this SSID to keep; \
                    give the passphrase (an open network is set with 'matterctl wifi set SSID --open')
                    """)
            }
            do throws(WiFiCredentialsError) { _ = try WiFiCredentials(ssid: ssid, passphrase: SecretBytes(secret)) } catch {
                throw .invalidNetworkCredentials(error.description)
            }
            let entry = WiFiFile.Entry(id: id, ssid: Self.hex(ssid), passphrase: Self.hex(secret), updatedAt: clock())
            if let existing { file.entries[existing] = entry } else { file.entries.append(entry) }
            try save(file)
        }
    }

    /// The Wi-Fi credentials stored under `id`, or nil.
    public func wifiCredentials(id: String = defaultEntry) throws(StoreError) -> WiFiCredentials? {
        try withLock(create: false) { () throws(StoreError) -> WiFiCredentials? in
            guard let entry = try loadWiFi().entries.first(where: { $0.id == id }) else { return nil }
            return try entry.credentials(path: wifiPath)
        } ?? nil
    }

    /// Every stored Wi-Fi entry's ID and SSID, `default` first (never a passphrase).
    public func wifiEntries() throws(StoreError) -> [(id: String, ssid: [UInt8])] {
        let entries = try withLock(create: false) { () throws(StoreError) in try loadWiFi().entries } ?? []
        var out: [(id: String, ssid: [UInt8])] = []
        for entry in entries { out.append((entry.id, try entry.credentials(path: wifiPath).ssid)) }
        return out.sorted { ($0.id == Self.defaultEntry ? 0 : 1, $0.id) < ($1.id == Self.defaultEntry ? 0 : 1, $1.id) }
    }

    /// Forgets the Wi-Fi entry `id` (the default one: no error when there is none). The file
    /// goes with its last entry.
    public func removeWiFiCredentials(id: String = defaultEntry) throws(StoreError) {
        let removed: Bool? = try withLock(create: false) { () throws(StoreError) -> Bool in
            var file = try loadWiFi()
            guard file.entries.contains(where: { $0.id == id }) else { return false }
            file.entries.removeAll { $0.id == id }
            if file.entries.isEmpty {
                if unlink(wifiPath) != 0 && errno != ENOENT { throw .io(operation: "removing", path: wifiPath, errno: errno) }
                try SecureFiles.syncDirectory(directory)
            } else {
                try save(file)
            }
            return true
        }
        if removed != true && id != Self.defaultEntry { throw .notFound(kind: .wifiCredentials, id: id) }
    }

    /// An entry ID: 1 to 64 bytes, printable, no control characters (it is shown and logged).
    static func checkEntryID(_ id: String) throws(StoreError) {
        guard (1...64).contains(id.utf8.count), !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidNetworkCredentials("a credential entry's id must be 1 to 64 characters without control characters")
        }
    }

    // MARK: Files

    struct ThreadFile: Codable {
        struct Entry: Codable {
            var id: String
            var tlvs: String
            var addedAt: Date
            /// The API entry ID it was stored under (absent in files written before there were any).
            var label: String?

            func decoded(path: String) throws(StoreError) -> ThreadDataset {
                guard let bytes = NetworkCredentialStore.unhex(tlvs) else {
                    throw .corruptNetworkCredentials(path: path, why: "dataset \(id) is not hex")
                }
                do throws(ThreadDatasetError) { return try ThreadDataset(tlvs: bytes) } catch {
                    throw .corruptNetworkCredentials(path: path, why: "dataset \(id): \(error.message)")
                }
            }
        }
        var version = 1
        var preferred: String?
        var datasets: [Entry] = []
        var path = ""

        enum CodingKeys: String, CodingKey { case version, preferred, datasets }

        func stored() throws(StoreError) -> [StoredThreadDataset] {
            var out: [StoredThreadDataset] = []
            for e in datasets {
                out.append(StoredThreadDataset(id: e.id, dataset: try e.decoded(path: path), addedAt: e.addedAt,
                                               isPreferred: e.id == preferred, label: e.label))
            }
            return out
        }
    }

    /// `wifi.json`: version 2 keeps entries by ID; version 1 (one set, no version field) is read
    /// as the `default` entry and rewritten as version 2 by the next change.
    struct WiFiFile: Codable {
        struct Entry: Codable {
            var id: String
            var ssid: String
            var passphrase: String
            var updatedAt: Date

            func credentials(path: String) throws(StoreError) -> WiFiCredentials {
                guard let ssid = NetworkCredentialStore.unhex(ssid), let pass = NetworkCredentialStore.unhex(passphrase) else {
                    throw .corruptNetworkCredentials(path: path, why: "entry '\(id)' is not hex")
                }
                do throws(WiFiCredentialsError) { return try WiFiCredentials(ssid: ssid, passphrase: SecretBytes(pass)) } catch {
                    throw .corruptNetworkCredentials(path: path, why: "entry '\(id)': \(error.description)")
                }
            }
        }
        var version = 2
        var entries: [Entry] = []
    }

    /// What version 1 held: the home's one set.
    private struct WiFiFileV1: Codable {
        var ssid: String
        var passphrase: String
        var updatedAt: Date
    }

    private func loadWiFi() throws(StoreError) -> WiFiFile {
        let path = wifiPath
        guard let bytes = try Self.readIfPresent(path) else { return WiFiFile() }
        if let file = try? Self.decoder.decode(WiFiFile.self, from: Data(bytes)), file.version == 2 { return file }
        if let old = try? Self.decoder.decode(WiFiFileV1.self, from: Data(bytes)) {
            return WiFiFile(entries: [WiFiFile.Entry(id: Self.defaultEntry, ssid: old.ssid, passphrase: old.passphrase, updatedAt: old.updatedAt)])
        }
        throw .corruptNetworkCredentials(path: path, why: "not the JSON MatterHub writes")
    }

    private func save(_ file: WiFiFile) throws(StoreError) {
        let data: Data
        do { data = try Self.encoder.encode(file) } catch { throw .invalidNetworkCredentials("cannot encode the Wi-Fi credentials") }
        try SecureFiles.writeAtomically([UInt8](data), directory: directory, name: Self.wifiFile)
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return e
    }

    private static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }

    private func loadThread() throws(StoreError) -> ThreadFile {
        let path = threadDatasetsPath
        guard let bytes = try Self.readIfPresent(path) else { return ThreadFile(path: path) }
        guard var file = try? Self.decoder.decode(ThreadFile.self, from: Data(bytes)), file.version == 1 else {
            throw .corruptNetworkCredentials(path: path, why: "not the JSON MatterHub writes (version 1)")
        }
        file.path = path
        return file
    }

    private func save(_ file: ThreadFile) throws(StoreError) {
        let data: Data
        do { data = try Self.encoder.encode(file) } catch { throw .invalidNetworkCredentials("cannot encode the datasets") }
        try SecureFiles.writeAtomically([UInt8](data), directory: directory, name: Self.threadFile)
    }

    /// Runs `body` holding the exclusive lock. Without `create`, a missing directory means there
    /// is nothing stored: `body` is not run and the result is nil.
    private func withLock<T>(create: Bool, _ body: () throws(StoreError) -> T) throws(StoreError) -> T? {
        var info = stat()
        if !create && stat(directory, &info) != 0 { return nil }
        if create {
            try SecureFiles.ensureDirectory(stateDirectory)
            try SecureFiles.ensureDirectory(directory)
        }
        let lockPath = directory + "/.lock"
        let fd = SecureFiles.withPrivateUmask { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, SecureFiles.fileMode) }
        guard fd >= 0 else { throw .io(operation: "opening", path: lockPath, errno: errno) }
        defer { close(fd) }
        var rc: Int32
        repeat { rc = flock(fd, LOCK_EX) } while rc != 0 && errno == EINTR
        guard rc == 0 else { throw .io(operation: "locking", path: lockPath, errno: errno) }
        return try body()
    }

    /// The file's bytes, or nil when it does not exist. A file others can read is tightened to 0600.
    private static func readIfPresent(_ path: String) throws(StoreError) -> [UInt8]? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .io(operation: "inspecting", path: path, errno: errno)
        }
        if info.st_mode & 0o077 != 0 { try SecureFiles.setMode(path, SecureFiles.fileMode) }
        return try SecureFiles.read(path)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    static func unhex(_ text: String) -> [UInt8]? {
        let u = Array(text.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: u.count, by: 2) {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

/// A dataset in the hub's store.
public struct StoredThreadDataset: Sendable, Hashable {
    /// Its extended PAN ID in hex, the key it is stored under.
    public let id: String
    public let dataset: ThreadDataset
    public let addedAt: Date
    /// Whether Thread devices are commissioned with it.
    public let isPreferred: Bool
    /// The API entry ID it was stored under (`set_thread_dataset` with an `id`), if any.
    public var label: String? = nil
}

/// The outcome of `NetworkCredentialStore.addThreadDataset`.
public struct ThreadDatasetAddition: Sendable, Hashable {
    public let dataset: StoredThreadDataset
    /// Whether a dataset with the same extended PAN ID was replaced.
    public let replaced: Bool
}
