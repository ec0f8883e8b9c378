import MatterClusters
import MatterTLV
import Synchronization
import Testing

@testable import MatterInteraction

/// The cluster servers the hub's node and the virtual device share, served from a
/// ``ClusterTable``: writes checked by the server, data versions, access, fabric scoping.
@Suite struct ClusterTableTests {
    typealias Basic = Clusters.BasicInformation.Attribute
    typealias ACL = Clusters.AccessControl.Attribute

    static func basic() -> BasicInformationServer {
        BasicInformationServer(vendorName: "Acme", vendorID: 0xFFF1, productName: "Lamp", productID: 0x8000, hardwareVersion: 1,
                               hardwareVersionString: "1", softwareVersion: 3, softwareVersionString: "3.0", uniqueID: "u1")
    }
    static func context(fabric: UInt8) -> IMSessionContext {
        IMSessionContext(fabricIndex: fabric, peerNodeID: 0x10, authMode: .case)
    }

    @Test func aWriteIsCheckedByItsServerAndMovesTheDataVersion() async throws {
        let told = Mutex<[ConcreteAttributePath]>([])
        let denied = Mutex(false)
        let table = ClusterTable(endpoints: [0: [Self.basic()]], allows: { _, access, _, _ in
            !(access == .write && denied.withLock { $0 })
        }, changed: { paths in told.withLock { $0 += paths } })
        let label = ConcreteAttributePath(0, .basicInformation, Basic.nodeLabel)
        let c = Self.context(fabric: 1)
        let v0 = try #require(await table.dataVersion(0, .basicInformation))
        try await table.writeAttribute(label, value: .utf8("kitchen"), listIndex: nil, context: c)
        #expect(try await table.readAttribute(label, fabricFiltered: true, context: c) == .utf8("kitchen"))
        #expect(await table.dataVersion(0, .basicInformation) == v0 &+ 1)
        #expect(told.withLock { $0 } == [label])

        // Refused writes change nothing: wrong type, too long, not writable, not allowed.
        let refused: [(ConcreteAttributePath, TLVElement, IMStatus)] = [
            (label, .unsigned(UInt8(1)), .invalidDataType),
            (label, .utf8(String(repeating: "x", count: 33)), .constraintError),
            (ConcreteAttributePath(0, .basicInformation, Basic.location), .utf8("DEU"), .constraintError),
            (ConcreteAttributePath(0, .basicInformation, Basic.vendorName), .utf8("Other"), .unsupportedWrite),
            (ConcreteAttributePath(0, .descriptor, Clusters.Descriptor.Attribute.partsList), .array([]), .unsupportedCluster),
        ]
        for (path, value, status) in refused {
            await #expect(throws: status) { try await table.writeAttribute(path, value: value, listIndex: nil, context: c) }
        }
        denied.withLock { $0 = true }
        await #expect(throws: IMStatus.unsupportedAccess) {
            try await table.writeAttribute(label, value: .utf8("hall"), listIndex: nil, context: c)
        }
        #expect(try await table.readAttribute(label, fabricFiltered: true, context: c) == .utf8("kitchen"))
        #expect(await table.dataVersion(0, .basicInformation) == v0 &+ 1)
        #expect(told.withLock { $0.count } == 1)
    }

    @Test func theGlobalAttributesFollowTheDeclarations() async throws {
        var b = Self.basic()
        let c = Self.context(fabric: 1)
        func list(_ s: BasicInformationServer) async throws -> [UInt64] {
            try await s.readAny(.attributeList, fabricFiltered: true, context: c).members(of: .array).map { try $0.unsigned(as: UInt64.self) }
        }
        #expect(try await !list(b).contains(UInt64(Basic.serialNumber.rawValue)))
        await #expect(throws: IMStatus.unsupportedAttribute) { try await b.readAny(Basic.serialNumber, fabricFiltered: true, context: c) }
        b.serialNumber = "S1"
        let ids = try await list(b)
        #expect(ids.contains(UInt64(Basic.serialNumber.rawValue)) && ids.contains(UInt64(AttributeID.clusterRevision.rawValue)))
        #expect(ids == ids.sorted())
        #expect(try await b.readAny(.clusterRevision, fabricFiltered: true, context: c) == .unsigned(UInt16(4)))
        #expect(b.dataModelCluster.writableAttributes == [Basic.nodeLabel, Basic.location])
    }

    @Test func theACLIsFabricScopedAndItsWritesChecked() async throws {
        typealias Entry = Clusters.AccessControl.Entry
        let theirs = Entry(privilege: .administer, authMode: .case, subjects: [0x22], targets: nil, fabricIndex: 2)
        var acl = AccessControlServer(entries: [
            Entry(privilege: .administer, authMode: .case, subjects: [0x11], targets: nil, fabricIndex: 1), theirs,
        ])
        let mine = Self.context(fabric: 1)
        func read(_ filtered: Bool) async throws -> [TLVElement] {
            try await acl.read(ACL.acl, fabricFiltered: filtered, context: mine).members(of: .array)
        }
        #expect(try await read(true).count == 1)
        // Unfiltered, the other fabric's entry shows its fabric index only (its fields are fabric-sensitive).
        let all = try await read(false)
        #expect(all.count == 2 && all[1] == .structure([.unsigned(.context(0xFE), UInt8(2))]), "\(all)")

        func entry(_ p: Clusters.AccessControl.Privilege, _ mode: Clusters.AccessControl.AuthMode = .case, subjects: [UInt64]? = [0x11],
                   targets: [Clusters.AccessControl.Target]? = nil) -> TLVElement {
            Entry(privilege: p, authMode: mode, subjects: subjects, targets: targets).element(tag: .anonymous)
        }
        // A whole-list write replaces this fabric's entries only, on this fabric whatever it says.
        try acl.write(ACL.acl, value: .array([entry(.administer), entry(.view, subjects: nil)]), listIndex: nil, context: mine)
        #expect(acl.entries.filter { $0.fabricIndex == 1 }.count == 2 && acl.entries.contains(theirs))
        try acl.write(ACL.acl, value: entry(.operate), listIndex: .append, context: mine)
        #expect(acl.entries.filter { $0.fabricIndex == 1 }.map(\.privilege) == [.administer, .view, .operate])

        // A fourth entry by append fills the fabric's four; a fifth is refused.
        let before = acl.entries
        try acl.write(ACL.acl, value: entry(.view), listIndex: .append, context: mine)
        #expect(throws: IMStatus.resourceExhausted) { try acl.write(ACL.acl, value: entry(.view), listIndex: .append, context: mine) }
        acl.entries = before

        // Entries against the constraints (Matter Core 9.10.5.5) change nothing.
        let refused: [(TLVElement, ListIndex?, IMStatus)] = [
            (.array([entry(.administer, .group)]), nil, .constraintError),
            (.array([entry(.view, subjects: [1, 2, 3, 4, 5])]), nil, .constraintError),
            (.array([entry(.view, targets: [.init(endpoint: 1, deviceType: 0x100)])]), nil, .constraintError),
            (.array([entry(.view, targets: [.init()])]), nil, .constraintError),
            (.array(Array(repeating: entry(.view), count: 5)), nil, .resourceExhausted),
            (.utf8("not a list"), nil, .invalidDataType),
            (entry(.view), .index(0), .invalidAction),
        ]
        for (value, index, status) in refused {
            #expect(throws: status, "\(value)") { try acl.write(ACL.acl, value: value, listIndex: index, context: mine) }
            #expect(acl.entries == before)
        }
    }
}
