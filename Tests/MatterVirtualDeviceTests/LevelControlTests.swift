import Foundation
import MatterClusters
import MatterInteraction
import MatterTLV
@testable import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// The virtual light's Level Control cluster (Matter Application Cluster 1.6, OnOff and
/// Lighting features), driven over PASE as a controller would. Serialized: each case is a device
/// and a PASE handshake, and 30 at once starved the timed messaging tests beside them.
@Suite(.serialized) struct LevelControlTests {
    typealias LC = Clusters.LevelControl
    static let executeIfOff = LC.OptionsOverride(mask: LC.OptionsBitmap.executeIfOff.rawValue, override: LC.OptionsBitmap.executeIfOff.rawValue)

    /// One command from a known state, and what the spec says must follow.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var on: Bool
        var level: UInt8
        /// The Options attribute before the command.
        var options: UInt8 = 0
        var command: CommandID
        var fields: TLVElement
        var status: IMStatus = .success
        var expectLevel: UInt8
        var expectOn: Bool
        var testDescription: String { name }
    }

    static func moveToLevel(_ level: UInt8, _ o: LC.OptionsOverride = .init()) -> TLVElement {
        LC.MoveToLevel(level: level, transitionTime: 0, options: o).element(tag: .anonymous)
    }
    static func move(_ mode: UInt8, _ rate: UInt8?, _ o: LC.OptionsOverride = .init()) -> TLVElement {
        LC.Move(moveMode: mode, rate: rate, options: o).element(tag: .anonymous)
    }
    static func step(_ mode: UInt8, _ size: UInt8, _ o: LC.OptionsOverride = .init()) -> TLVElement {
        LC.Step(stepMode: mode, stepSize: size, transitionTime: nil, options: o).element(tag: .anonymous)
    }
    static let stop = LC.Stop().element(tag: .anonymous)

    static let cases: [Case] = [
        Case(name: "MoveToLevelWithOnOff up from off turns it on", on: false, level: 50,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(128), expectLevel: 128, expectOn: true),
        Case(name: "MoveToLevelWithOnOff to the same level from off turns it on", on: false, level: 50,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(50), expectLevel: 50, expectOn: true),
        // Matter Application Cluster 1.6.4: a command that sets CurrentLevel above MinLevel turns
        // the light on first, lower than now or higher ("on at half" from off, as Home
        // Assistant's light does; the SDK's light turns on).
        Case(name: "MoveToLevelWithOnOff down from 254 while off turns it on", on: false, level: 254,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(128), expectLevel: 128, expectOn: true),
        Case(name: "MoveToLevelWithOnOff to MinLevel turns it off", on: true, level: 128,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(1), expectLevel: 1, expectOn: false),
        Case(name: "MoveToLevelWithOnOff down, above MinLevel, turns it on", on: false, level: 200,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(100), expectLevel: 100, expectOn: true),
        Case(name: "MoveToLevelWithOnOff to 0 clamps to MinLevel and turns it off", on: true, level: 50,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(0), expectLevel: 1, expectOn: false),
        Case(name: "MoveToLevel while off without ExecuteIfOff does nothing", on: false, level: 254,
             command: LC.Command.moveToLevel, fields: moveToLevel(100), expectLevel: 254, expectOn: false),
        Case(name: "MoveToLevel while off with the override's ExecuteIfOff moves, stays off", on: false, level: 254,
             command: LC.Command.moveToLevel, fields: moveToLevel(100, executeIfOff), expectLevel: 100, expectOn: false),
        Case(name: "MoveToLevel while off with the Options attribute's ExecuteIfOff moves", on: false, level: 254,
             options: LC.OptionsBitmap.executeIfOff.rawValue, command: LC.Command.moveToLevel, fields: moveToLevel(100),
             expectLevel: 100, expectOn: false),
        Case(name: "the mask overrides the Options attribute's ExecuteIfOff with 0", on: false, level: 254,
             options: LC.OptionsBitmap.executeIfOff.rawValue, command: LC.Command.moveToLevel,
             fields: moveToLevel(100, .init(mask: LC.OptionsBitmap.executeIfOff.rawValue, override: 0)), expectLevel: 254, expectOn: false),
        Case(name: "override bits outside the mask are ignored", on: false, level: 254, command: LC.Command.moveToLevel,
             fields: moveToLevel(100, .init(mask: 0, override: LC.OptionsBitmap.executeIfOff.rawValue)), expectLevel: 254, expectOn: false),
        Case(name: "MoveToLevel to MinLevel while on leaves it on", on: true, level: 100,
             command: LC.Command.moveToLevel, fields: moveToLevel(1), expectLevel: 1, expectOn: true),
        Case(name: "MoveToLevel 255 is a constraint error", on: true, level: 100,
             command: LC.Command.moveToLevel, fields: moveToLevel(255), status: .constraintError, expectLevel: 100, expectOn: true),
        Case(name: "MoveToLevelWithOnOff 255 is a constraint error, off stays off", on: false, level: 100,
             command: LC.Command.moveToLevelWithOnOff, fields: moveToLevel(255), status: .constraintError,
             expectLevel: 100, expectOn: false),
        Case(name: "MoveWithOnOff up from off goes to MaxLevel and turns it on", on: false, level: 10,
             command: LC.Command.moveWithOnOff, fields: move(0, 10), expectLevel: 254, expectOn: true),
        Case(name: "MoveWithOnOff down goes to MinLevel and turns it off", on: true, level: 100,
             command: LC.Command.moveWithOnOff, fields: move(1, nil), expectLevel: 1, expectOn: false),
        Case(name: "Move up while on", on: true, level: 100, command: LC.Command.move, fields: move(0, 50),
             expectLevel: 254, expectOn: true),
        Case(name: "Move with an unknown mode is a constraint error", on: true, level: 100, command: LC.Command.move,
             fields: move(2, 10), status: .constraintError, expectLevel: 100, expectOn: true),
        Case(name: "Move at rate 0 is refused", on: true, level: 100, command: LC.Command.move, fields: move(0, 0),
             status: .invalidCommand, expectLevel: 100, expectOn: true),
        Case(name: "StepWithOnOff up from off turns it on", on: false, level: 100, command: LC.Command.stepWithOnOff,
             fields: step(0, 10), expectLevel: 110, expectOn: true),
        Case(name: "StepWithOnOff down past MinLevel stops there and turns it off", on: true, level: 100,
             command: LC.Command.stepWithOnOff, fields: step(1, 200), expectLevel: 1, expectOn: false),
        Case(name: "Step up past MaxLevel stops there", on: true, level: 250, command: LC.Command.step, fields: step(0, 10),
             expectLevel: 254, expectOn: true),
        Case(name: "Step down while on", on: true, level: 100, command: LC.Command.step, fields: step(1, 10),
             expectLevel: 90, expectOn: true),
        Case(name: "Step with an unknown mode is a constraint error", on: true, level: 100, command: LC.Command.step,
             fields: step(7, 10), status: .constraintError, expectLevel: 100, expectOn: true),
        Case(name: "Stop changes nothing", on: true, level: 77, command: LC.Command.stop, fields: stop,
             expectLevel: 77, expectOn: true),
        Case(name: "StopWithOnOff changes nothing", on: false, level: 77, command: LC.Command.stopWithOnOff, fields: stop,
             expectLevel: 77, expectOn: false),
        Case(name: "MoveToLevel without OptionsMask/OptionsOverride is an invalid command", on: true, level: 100,
             command: LC.Command.moveToLevel, fields: .structure([.unsigned(.context(0), UInt8(50)), .null(.context(1))]),
             status: .invalidCommand, expectLevel: 100, expectOn: true),
        Case(name: "a level of the wrong type is an invalid command", on: true, level: 100, command: LC.Command.moveToLevel,
             fields: .structure([.utf8(.context(0), "50"), .null(.context(1)), .unsigned(.context(2), UInt8(0)),
                                 .unsigned(.context(3), UInt8(0))]), status: .invalidCommand, expectLevel: 100, expectOn: true),
        Case(name: "MoveToClosestFrequency is not accepted", on: true, level: 100, command: 0x08,
             fields: .structure([.unsigned(.context(0), UInt16(50))]), status: .unsupportedCommand, expectLevel: 100, expectOn: true),
    ]

    static let level = ConcreteAttributePath(1, .levelControl, LC.Attribute.currentLevel)
    static let onOff = ConcreteAttributePath(1, .onOff, Clusters.OnOff.Attribute.onOff)

    /// Brings the light to `on` at `level` with the Options attribute at `options`.
    static func prepare(_ client: InteractionClient, on: Bool, level: UInt8, options: UInt8) async throws {
        let ep = EndpointID(1)
        _ = try await client.invoke(commandPath: CommandPathIB(ep, .levelControl, LC.Command.moveToLevel),
                                    fields: moveToLevel(level, executeIfOff))
        _ = try await client.invoke(commandPath: CommandPathIB(ep, .onOff, on ? Clusters.OnOff.Command.on : Clusters.OnOff.Command.off))
        try await client.writeAttribute(ConcreteAttributePath(1, .levelControl, LC.Attribute.options), value: .unsigned(options))
        #expect(try await client.readAttribute(Self.level).unsigned(as: UInt8.self) == level)
        #expect(try await client.readAttribute(Self.onOff).bool() == on)
    }

    @Test(arguments: cases) func command(_ c: Case) async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        try await Self.prepare(client, on: c.on, level: c.level, options: c.options)
        let result = try await client.invoke(commandPath: CommandPathIB(1, .levelControl, c.command), fields: c.fields)
        #expect(result == .status(StatusIB(c.status)))
        #expect(try await client.readAttribute(Self.level).unsigned(as: UInt8.self) == c.expectLevel)
        #expect(try await client.readAttribute(Self.onOff).bool() == c.expectOn)
        #expect(await h.device.currentLevel == c.expectLevel)
        #expect(await h.device.isOn == c.expectOn)
    }

    @Test func attributesAndGlobals() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        func read(_ a: AttributeID, _ cluster: ClusterID = .levelControl) async throws -> TLVElement {
            try await client.readAttribute(ConcreteAttributePath(1, cluster, a))
        }
        func ids(_ e: TLVElement) throws -> [UInt32] {
            guard case .container(.array, let items) = e.value else { throw InteractionError.invalidValue(what: "list", reason: "not an array") }
            return try items.map { try $0.unsigned(as: UInt32.self) }
        }
        #expect(try await read(LC.Attribute.currentLevel).unsigned(as: UInt8.self) == 254)
        #expect(try await read(LC.Attribute.remainingTime).unsigned(as: UInt16.self) == 0)
        #expect(try await read(LC.Attribute.minLevel).unsigned(as: UInt8.self) == 1)
        #expect(try await read(LC.Attribute.maxLevel).unsigned(as: UInt8.self) == 254)
        #expect(try await read(LC.Attribute.options).unsigned(as: UInt8.self) == 0)
        #expect(try await read(LC.Attribute.onOffTransitionTime).unsigned(as: UInt16.self) == 0)
        #expect(try await read(LC.Attribute.onLevel).isNull)
        #expect(try await read(LC.Attribute.startUpCurrentLevel).isNull)
        #expect(try await read(.featureMap).unsigned(as: UInt32.self) == LC.Feature([.onOff, .lighting]).rawValue)
        #expect(try await read(.clusterRevision).unsigned(as: UInt16.self) == 5)
        #expect(try ids(try await read(.acceptedCommandList)) == Array(0...7))
        #expect(try ids(try await read(.generatedCommandList)) == [])
        #expect(try ids(try await read(.attributeList)) == [0, 1, 2, 3, 0x0F, 0x10, 0x11, 0x4000, 0xFFF8, 0xFFF9, 0xFFFB, 0xFFFC, 0xFFFD])
        #expect(try ids(try await read(Clusters.Descriptor.Attribute.serverList, .descriptor)) == [0x1D, 0x06, 0x08])
        let types = try await read(Clusters.Descriptor.Attribute.deviceTypeList, .descriptor)
        guard case .container(.array, let entries) = types.value else { Issue.record("DeviceTypeList is not a list"); return }
        #expect(try entries.map { try #require($0[context: 0]).unsigned(as: UInt32.self) } == [0x0101])
    }

    /// A plug is an On/Off Plug-in Unit: no Level Control at all.
    @Test func aPlugHasNoLevelControl() async throws {
        let h = try await DeviceHarness.make(kind: .plug)
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        let servers = try await client.readAttribute(ConcreteAttributePath(1, .descriptor, Clusters.Descriptor.Attribute.serverList))
        #expect(servers == .array([.unsigned(UInt32(0x1D)), .unsigned(UInt32(0x06))]))
        let result = try await client.invoke(commandPath: CommandPathIB(1, .levelControl, LC.Command.moveToLevelWithOnOff),
                                             fields: Self.moveToLevel(100))
        #expect(result == .status(StatusIB(.unsupportedCluster)))
        #expect(await h.device.currentLevel == nil)
    }

    /// The writable attributes and their constraints; On applies OnLevel.
    @Test func writesAndOnLevel() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let client = h.client(try await h.pase())
        func write(_ a: AttributeID, _ v: TLVElement) async -> IMStatus {
            do {
                try await client.writeAttribute(ConcreteAttributePath(1, .levelControl, a), value: v)
                return .success
            } catch {
                return error.imStatus ?? .failure
            }
        }
        #expect(await write(LC.Attribute.onLevel, .unsigned(UInt8(0))) == .constraintError)
        #expect(await write(LC.Attribute.onLevel, .unsigned(UInt8(255))) == .constraintError)
        #expect(await write(LC.Attribute.onLevel, .utf8("x")) == .invalidDataType)
        #expect(await write(LC.Attribute.options, .unsigned(UInt8(0x04))) == .constraintError)
        #expect(await write(LC.Attribute.startUpCurrentLevel, .unsigned(UInt8(255))) == .constraintError)
        #expect(await write(LC.Attribute.currentLevel, .unsigned(UInt8(10))) == .unsupportedWrite)
        #expect(await write(LC.Attribute.minLevel, .unsigned(UInt8(10))) == .unsupportedWrite)
        #expect(await write(LC.Attribute.onOffTransitionTime, .unsigned(UInt16(10))) == .success)
        #expect(await write(LC.Attribute.onLevel, .unsigned(UInt8(42))) == .success)
        _ = try await client.invoke(commandPath: CommandPathIB(1, .onOff, Clusters.OnOff.Command.on))
        #expect(await h.device.currentLevel == 42)
        #expect(await write(LC.Attribute.onLevel, .null(.anonymous)) == .success)
        #expect(try await client.readAttribute(ConcreteAttributePath(1, .levelControl, LC.Attribute.onLevel)).isNull)
    }

    /// CurrentLevel reaches a subscriber as OnOff does, and OnOff moves with the WithOnOff command.
    @Test func levelChangeIsReportedToTheSubscriber() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let seen = Mutex<[String: TLVElement]>([:])
        await h.controller.setHandler(for: .interactionModel) { exchange, first in
            guard first.opcode == IMOpcode.reportData.rawValue, let report = try? ReportDataMessage(payload: first.payload) else { return }
            for case .data(let d) in report.attributeReports ?? [] {
                seen.withLock { $0["\(d.path.cluster?.rawValue ?? 0)/\(d.path.attribute?.rawValue ?? 0)"] = d.data }
            }
            try? await exchange.send(.interactionModel, opcode: IMOpcode.statusResponse.rawValue,
                                     payload: StatusResponseMessage(status: .success).payload)
            await exchange.close()
        }
        let client = h.client(try await h.pase())
        let subscription = try await client.subscribe(paths: [Self.level.ib, Self.onOff.ib], minIntervalFloor: 0, maxIntervalCeiling: 5)
        #expect(subscription.primingReport.attributes.count == 2)
        // Down from 254 while off: the level moves and the light turns on (above MinLevel).
        _ = try await client.invoke(commandPath: CommandPathIB(1, .levelControl, LC.Command.moveToLevelWithOnOff),
                                    fields: Self.moveToLevel(77))
        #expect(await eventually(10) { seen.withLock { $0["8/0"] == .unsigned(UInt8(77)) && $0["6/0"] == .bool(true) } },
                "no report of CurrentLevel 77 and OnOff true: \(seen.withLock { $0 })")
        // Down to MinLevel: it turns off.
        _ = try await client.invoke(commandPath: CommandPathIB(1, .levelControl, LC.Command.moveToLevelWithOnOff),
                                    fields: Self.moveToLevel(1))
        #expect(await eventually(10) { seen.withLock { $0["8/0"] == .unsigned(UInt8(1)) && $0["6/0"] == .bool(false) } },
                "no report of CurrentLevel 1 and OnOff false: \(seen.withLock { $0 })")
    }

    /// StartUpCurrentLevel decides the level after a reboot; the level itself is persisted.
    @Test(arguments: [(UInt8?.none, UInt8(99)), (0, 1), (200, 200)])
    func startUpCurrentLevel(_ startUp: UInt8?, _ expected: UInt8) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("level-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try await DeviceHarness.make(stateDirectory: dir)
        let client = first.client(try await first.pase())
        _ = try await client.invoke(commandPath: CommandPathIB(1, .onOff, Clusters.OnOff.Command.on))
        _ = try await client.invoke(commandPath: CommandPathIB(1, .levelControl, LC.Command.moveToLevelWithOnOff),
                                    fields: Self.moveToLevel(99))
        try await client.writeAttribute(ConcreteAttributePath(1, .levelControl, LC.Attribute.startUpCurrentLevel),
                                        value: startUp.map { .unsigned($0) } ?? .null(.anonymous))
        await first.shutdown()
        let second = try await DeviceHarness.make(stateDirectory: dir)
        defer { Task { await second.shutdown() } }
        #expect(await second.device.currentLevel == expected)
        #expect(await second.device.isOn)
    }
}
