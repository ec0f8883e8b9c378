import Foundation
import MatterCrypto
import MatterNetworkCredentials
import Testing
import TestSupport
@testable import MatterHome

@Suite struct NetworkCredentialStoreTests {
    static func tempState() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("netcred-\(UInt64.random(in: 0...UInt64.max))").path
        return dir
    }

    static func dataset(seed: UInt64, name: String? = nil, seconds: UInt64 = 1) throws -> ThreadDataset {
        var random = GeneratorRandomSource(SeededRandom(seed: seed))
        var d = try ThreadDataset.generate(networkName: name, random: &random)
        d.activeTimestamp = ThreadTimestamp(seconds: seconds)
        return d
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    @Test func addListPreferRemove() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        #expect(try store.threadDatasets().isEmpty, "nothing stored, and nothing created by reading")
        #expect(!FileManager.default.fileExists(atPath: state))

        let a = try Self.dataset(seed: 1, name: "Alpha"), b = try Self.dataset(seed: 2, name: "Beta")
        let first = try store.addThreadDataset(a)
        #expect(first.dataset.isPreferred && !first.replaced, "the first dataset is preferred")
        try store.addThreadDataset(b)
        var all = try store.threadDatasets()
        #expect(all.map(\.dataset) == [a, b])
        #expect(all.map(\.isPreferred) == [true, false])
        #expect(all[1].id == Hex.encode(b.extendedPANID!))

        try store.preferThreadDataset("Beta")
        #expect(try store.preferredThreadDataset()?.dataset == b)
        try store.preferThreadDataset(Hex.encode(a.extendedPANID!).uppercased())
        #expect(try store.preferredThreadDataset()?.dataset == a)

        try store.removeThreadDataset("Alpha")
        all = try store.threadDatasets()
        #expect(all.map(\.dataset) == [b] && all[0].isPreferred, "removing the preferred one prefers the next")
        #expect(throws: StoreError.notFound(kind: .threadDataset, id: "Gamma")) { try store.removeThreadDataset("Gamma") }
        #expect(throws: StoreError.notFound(kind: .threadDataset, id: "Gamma")) { try store.preferThreadDataset("Gamma") }

        #expect(Self.mode(store.directory) == 0o700)
        #expect(Self.mode(store.threadDatasetsPath) == 0o600)
        let text = try String(contentsOfFile: store.threadDatasetsPath, encoding: .utf8)
        #expect(text.contains(Hex.encode(try b.encoded())), "the dataset is kept as its TLVs")
    }

    /// `remove_thread_dataset` (the API's default entry): the preferred dataset goes, the oldest
    /// other one takes its place, and with none left nothing is preferred.
    @Test func removingThePreferredDatasetPrefersTheOldestOther() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        #expect(try store.removePreferredThreadDataset() == nil, "nothing stored: nothing to remove, no error")
        let a = try Self.dataset(seed: 11, name: "Alpha"), b = try Self.dataset(seed: 12, name: "Beta"), c = try Self.dataset(seed: 13)
        try store.addThreadDataset(a)
        try store.addThreadDataset(b)
        try store.addThreadDataset(c, prefer: true)
        #expect(try store.removePreferredThreadDataset()?.dataset == a)
        #expect(try store.threadDatasets().map(\.dataset) == [a, b])
        #expect(try store.removePreferredThreadDataset()?.dataset == b)
        #expect(try store.removePreferredThreadDataset() == nil)
        #expect(try store.threadDatasets().isEmpty && store.preferredThreadDataset() == nil)
    }

    @Test func sameExtendedPANIDReplacesUnlessOlder() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        let v1 = try Self.dataset(seed: 3, name: "Home", seconds: 10)
        try store.addThreadDataset(v1)
        var v2 = v1
        v2.channel = ThreadChannel(number: v1.channel!.number == 11 ? 12 : 11)
        v2.activeTimestamp = ThreadTimestamp(seconds: 11)
        let r = try store.addThreadDataset(v2)
        #expect(r.replaced && r.dataset.isPreferred)
        #expect(try store.threadDatasets().map(\.dataset) == [v2])
        let e = try #require(throws: StoreError.self) { try store.addThreadDataset(v1) }
        #expect(e.code == "invalid_network_credentials" && e.description.contains("newer active timestamp"), "\(e)")
        #expect(try store.threadDatasets().map(\.dataset) == [v2], "the newer dataset stays")
    }

    @Test func incompleteDatasetIsRefused() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        var d = try Self.dataset(seed: 4)
        d.networkKey = nil
        let e = try #require(throws: StoreError.self) { try NetworkCredentialStore(stateDirectory: state).addThreadDataset(d) }
        #expect(e.description.contains("network key"), "\(e)")
    }

    @Test func corruptFileIsNamed() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        try store.addThreadDataset(Self.dataset(seed: 5))
        try "{\"version\":1,\"datasets\":[{\"id\":\"x\",\"tlvs\":\"0003\",\"addedAt\":\"2026-01-01T00:00:00Z\"}]}"
            .write(toFile: store.threadDatasetsPath, atomically: false, encoding: .utf8)
        let e = try #require(throws: StoreError.self) { try store.threadDatasets() }
        #expect(e.code == "corrupt_network_credentials" && e.description.contains("truncated TLV"), "\(e)")
    }

    @Test func concurrentAddsAreAllKept() async throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let datasets = try (0..<16).map { try Self.dataset(seed: 100 + UInt64($0)) }
        await withTaskGroup(of: Void.self) { group in
            for d in datasets {
                group.addTask { _ = try? NetworkCredentialStore(stateDirectory: state).addThreadDataset(d) }
            }
        }
        let stored = try NetworkCredentialStore(stateDirectory: state).threadDatasets()
        #expect(Set(stored.map(\.dataset)) == Set(datasets), "no read-modify-write lost an addition")
        #expect(stored.filter(\.isPreferred).count == 1)
    }

    @Test func wifiCredentialsAreOwnerOnly() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        #expect(try store.wifiCredentials() == nil)
        let c = try WiFiCredentials(ssid: Array("Home Wi-Fi".utf8), passphrase: SecretBytes(Array("hunter2hunter2".utf8)))
        try store.setWiFiCredentials(c)
        #expect(try store.wifiCredentials() == c)
        #expect(Self.mode(store.wifiPath) == 0o600)
        chmod(store.wifiPath, 0o644)
        #expect(try store.wifiCredentials() == c)
        #expect(Self.mode(store.wifiPath) == 0o600, "a file others could read is tightened")
        try store.removeWiFiCredentials()
        #expect(try store.wifiCredentials() == nil)
    }

    /// Named Wi-Fi entries: each its own; a blank passphrase keeps the stored one of the same
    /// SSID only; a version-1 file (one set) is the default entry; listing never shows a secret.
    @Test func wifiEntriesKeepTheirSecretsApart() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        // What MatterHub wrote before entries existed.
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        let v1 = #"{"passphrase":"68756e746572326875","ssid":"486f6d65","updatedAt":"2026-11-01T10:00:00Z"}"#
        try v1.write(toFile: store.wifiPath, atomically: true, encoding: .utf8)
        #expect(try store.wifiCredentials() == WiFiCredentials(ssid: Array("Home".utf8), passphrase: SecretBytes(Array("hunter2hu".utf8))))

        try store.setWiFiCredentials(ssid: Array("Guest".utf8), passphrase: SecretBytes(Array("guestpass".utf8)), id: "Guest")
        #expect(try store.wifiEntries().map(\.id) == ["default", "Guest"])
        #expect(try store.wifiEntries().map { String(decoding: $0.ssid, as: UTF8.self) } == ["Home", "Guest"])
        // Re-saved without the secret: kept for the same SSID...
        try store.setWiFiCredentials(ssid: Array("Guest".utf8), passphrase: nil, id: "Guest")
        #expect(try store.wifiCredentials(id: "Guest")?.passphrase == SecretBytes(Array("guestpass".utf8)))
        // ...never moved to another network, nor invented for a new entry.
        #expect(throws: StoreError.self) { try store.setWiFiCredentials(ssid: Array("Other".utf8), passphrase: nil, id: "Guest") }
        #expect(throws: StoreError.self) { try store.setWiFiCredentials(ssid: Array("New".utf8), passphrase: nil, id: "New") }
        #expect(try store.wifiCredentials(id: "Guest")?.ssid == Array("Guest".utf8))
        #expect(throws: StoreError.self) { try store.setWiFiCredentials(ssid: Array("X".utf8), passphrase: nil, id: "") }

        try store.removeWiFiCredentials()
        #expect(try store.wifiCredentials() == nil && store.wifiCredentials(id: "Guest") != nil)
        try store.removeWiFiCredentials(id: "default")  // nothing there: no error
        #expect(throws: StoreError.notFound(kind: .wifiCredentials, id: "Nope")) { try store.removeWiFiCredentials(id: "Nope") }
        try store.removeWiFiCredentials(id: "Guest")
        #expect(!FileManager.default.fileExists(atPath: store.wifiPath), "the file goes with its last entry")
    }

    /// Named Thread entries: a label finds its dataset, moves to another dataset when reused,
    /// and does not make the dataset preferred (the `default` entry) unless it is the first.
    @Test func threadEntriesAreLabelledDatasets() throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = NetworkCredentialStore(stateDirectory: state)
        let a = try Self.dataset(seed: 21, name: "Alpha"), b = try Self.dataset(seed: 22, name: "Beta")
        try store.addThreadDataset(a, prefer: true)
        try store.addThreadDataset(b, label: "Lab")
        #expect(try store.preferredThreadDataset()?.dataset == a)
        #expect(try store.threadDataset("Lab")?.dataset == b)
        try store.addThreadDataset(a, label: "Lab")
        #expect(try store.threadDataset("Lab")?.dataset == a, "the label moved")
        #expect(try store.threadDatasets().compactMap(\.label) == ["Lab"])
        try store.removeThreadDataset("Lab")
        #expect(try store.threadDatasets().map(\.dataset) == [b] && store.threadDataset("Lab") == nil)
    }

    @Test func hubAPISetsThePreferredDataset() async throws {
        let state = Self.tempState()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let hub = try Hub(stateDirectory: state)
        let a = try Self.dataset(seed: 6), b = try Self.dataset(seed: 7)
        try await hub.setThreadDataset(a)
        try await hub.setThreadDataset(tlvs: b.encoded())
        #expect(try await hub.preferredThreadDataset() == b, "set_thread_dataset makes it the preferred one")
        await #expect(throws: HomeError.self) { try await hub.setThreadDataset(tlvs: [0x00, 0x03]) }
        let c = try WiFiCredentials(ssid: Array("Net".utf8), passphrase: SecretBytes(Array("12345678".utf8)))
        try await hub.setWiFiCredentials(c)
        #expect(try await hub.wifiCredentials() == c)
        await hub.shutdown()
    }
}
