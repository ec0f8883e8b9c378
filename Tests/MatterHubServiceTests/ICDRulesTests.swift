@testable import MatterHubService
import MatterClusters
import MatterCrypto
import MatterHome
import MatterSecureChannel
import Foundation
import MatterInteraction
import MatterServerAPI
import MatterTLV
import Testing

/// The hub's ICD rules that need no device: matterjs-server's multi-admin refusal (error 100 and
/// the details its clients parse), the schedule read from a node's cached ICD Management values,
/// and what makes a node LIT-capable.
@Suite struct ICDRulesTests {
    @Test func moreThanOneFabricOfAnotherVendorIsError100() throws {
        let ignored = HubService.icdDefaultIgnoredVendors
        #expect(HubService.multiAdminRefusal(fabricVendors: [0xFFF1], ignored: ignored) == nil)
        #expect(HubService.multiAdminRefusal(fabricVendors: [0xFFF1, 0x1384, 0x134B], ignored: ignored) == nil,
                "Apple's and the OHF's fabrics do not count")
        let refusal = try #require(HubService.multiAdminRefusal(fabricVendors: [0xFFF1, 0xFFF2, 0xFFF2, 0x1384], ignored: ignored))
        #expect(refusal.code == .icdMultiAdmin)
        // matter-python-client's IcdMultiAdmin parses the details as JSON: message, admin_vendor_ids.
        let details = try JSONParser.parse(refusal.details)
        #expect(details["admin_vendor_ids"] == .array([.integer(0xFFF1), .integer(0xFFF2)]))
        #expect(details["message"]?.string?.contains("other vendors") == true)
        // A caller's list replaces the default one: Apple counts when it is not in it.
        #expect(HubService.multiAdminRefusal(fabricVendors: [0xFFF1, 0x1384], ignored: [0xFFF1])?.code == nil)
        #expect(HubService.multiAdminRefusal(fabricVendors: [0xFFF1, 0x1384], ignored: [])?.code == .icdMultiAdmin)
    }

    @Test func theScheduleComesFromTheCachedCluster() {
        typealias A = Clusters.IcdManagement.Attribute
        let cache: [ConcreteAttributePath: TLVElement] = [
            ConcreteAttributePath(0, .icdManagement, A.idleModeDuration): .unsigned(UInt32(30)),
            ConcreteAttributePath(0, .icdManagement, A.activeModeDuration): .unsigned(UInt32(3000)),
        ]
        #expect(HubService.icdSchedule(cache) == NodeLifecycle.ICDSchedule(idle: 30_000, active: 3000))
        #expect(HubService.icdSchedule([:]) == NodeLifecycle.ICDSchedule(idle: 3_600_000, active: 300), "the cluster's defaults")
        #expect(HubService.hasICDManagement(cache) && !HubService.hasICDManagement([:]))
    }

    @Test func litNeedsTheFeatureAndMatter14() {
        func cache(features: UInt32, spec: UInt32) -> [ConcreteAttributePath: TLVElement] {
            [ConcreteAttributePath(0, .icdManagement, .featureMap): .unsigned(features),
             ConcreteAttributePath(0, .basicInformation, Clusters.BasicInformation.Attribute.specificationVersion): .unsigned(spec)]
        }
        #expect(HubService.supportsLIT(cache(features: 0b111, spec: 0x0104_0000)))
        #expect(!HubService.supportsLIT(cache(features: 0b011, spec: 0x0104_0000)), "no LITS")
        #expect(!HubService.supportsLIT(cache(features: 0b111, spec: 0x0103_0000)), "Matter 1.3")
    }
}

/// The hub's Check-In check against a real store: a Check-In sealed with the registration's key
/// (by the same code the CHIP SDK's vectors check) is accepted and its offset kept across a
/// restart; the same one again is a replay; one sealed with another key opens nothing.
@Suite struct ICDCheckInsTests {
    @Test func acceptsOnceRefusesReplaysAndForeignKeys() async throws {
        let path = NSTemporaryDirectory() + "matterhub-icdcheckins-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HubStore(directory: path)
        let session = try store.beginCommissioningSession()
        let node = try store.allocateNodeID(for: session)
        _ = try store.recordCommissionedNode(CommissionedNode(nodeID: node, vendorID: 0xFFF1, productID: 0x8000, name: "Sensor",
                                                              nocSerial: [1]), in: session)
        let key = SecureRandom.bytes(16)
        let checkIns = ICDCheckIns(store: store)
        try await checkIns.save(ICDRegistration(nodeID: node, checkInNodeID: 0x1234, monitoredSubject: 0x1234, key: SecretBytes(key),
                                                counterStart: 0xFFFF_FFF0))
        // The counter wraps past 2^32: offset 0x20 from the start.
        let first = try CheckInMessage.seal(key: key, counter: 0x0000_0010, applicationData: [0x88, 0x13])
        #expect(await checkIns.receive(first) == .accepted(node, offset: 0x20, refreshKey: false))
        #expect(await checkIns.receive(first) == .replayed(node, offset: 0x20, last: 0x20))
        #expect(await checkIns.receive(try CheckInMessage.seal(key: SecureRandom.bytes(16), counter: 0x11)) == .unknown)
        #expect(await checkIns.receive(Array(first.prefix(10))) == .unknown, "too short")
        #expect(await checkIns.receive(first + [UInt8](repeating: 0, count: 200)) == .unknown, "too long: no key is tried")
        // Unreadable ones are logged at most once a minute, with their count.
        #expect(await checkIns.ignoredOne() == 1)
        #expect(await checkIns.ignoredOne() == nil)
        // A hub restarted on the store remembers the offset: the old Check-In is still a replay.
        let restarted = ICDCheckIns(store: try HubStore(directory: path))
        #expect(await restarted.receive(first) == .replayed(node, offset: 0x20, last: 0x20))
        let late = try CheckInMessage.seal(key: key, counter: 0xFFFF_FFF0 &+ 0x8000_0001)
        #expect(await restarted.receive(late) == .accepted(node, offset: 0x8000_0001, refreshKey: true), "past 2^31: a new key")
        await restarted.forget(node)
        #expect(try store.icdRegistrations().isEmpty)
    }
}
