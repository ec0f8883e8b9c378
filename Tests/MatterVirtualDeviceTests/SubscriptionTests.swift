import MatterClusters
import MatterInteraction
import MatterMessaging
import MatterTLV
@testable import MatterVirtualDevice
import Synchronization
import Testing
import TestSupport

/// Subscription reports the device sends on exchanges it opens to the subscriber.
@Suite struct VirtualDeviceSubscriptionTests {
    /// What the controller heard in reports: OnOff values by subscription.
    final class Reports: Sendable {
        let values = Mutex<[(UInt32?, Bool)]>([])
    }

    /// The controller answers each ReportData with StatusResponse(Success) and records its
    /// OnOff values.
    static func record(_ reports: Reports, at h: DeviceHarness) async {
        await h.controller.setHandler(for: .interactionModel) { exchange, first in
            guard first.opcode == IMOpcode.reportData.rawValue,
                  let report = try? ReportDataMessage(payload: first.payload) else { return }
            for case .data(let d) in report.attributeReports ?? [] {
                if let on = try? d.data.bool() { reports.values.withLock { $0.append((report.subscriptionID, on)) } }
            }
            try? await exchange.send(.interactionModel, opcode: IMOpcode.statusResponse.rawValue,
                                     payload: StatusResponseMessage(status: .success).payload)
            await exchange.close()
        }
    }

    @Test func toggleIsReportedToTheSubscriber() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let reports = Reports()
        await Self.record(reports, at: h)
        let client = h.client(try await h.pase())
        let onOff = ConcreteAttributePath(1, .onOff, 0)
        let subscription = try await client.subscribe(paths: [onOff.ib], minIntervalFloor: 0, maxIntervalCeiling: 5)
        #expect(try subscription.primingReport.attributes.first?.value().bool() == false)
        let toggle = CommandPathIB(endpoint: 1, cluster: .onOff, command: Clusters.OnOff.Command.toggle)
        _ = try await client.invoke(commandPath: toggle)
        #expect(await eventually(10) { reports.values.withLock { $0.contains { $0.1 } } }, "no report of OnOff=true")
        #expect(reports.values.withLock { $0.allSatisfy { $0.0 == subscription.subscriptionID } })
    }

    /// The device's own button changes OnOff with no command: the subscriber hears it anyway.
    @Test func buttonPressIsReportedToTheSubscriber() async throws {
        let h = try await DeviceHarness.make()
        defer { Task { await h.shutdown() } }
        let reports = Reports()
        await Self.record(reports, at: h)
        let client = h.client(try await h.pase())
        let onOff = ConcreteAttributePath(1, .onOff, 0)
        _ = try await client.subscribe(paths: [onOff.ib], minIntervalFloor: 0, maxIntervalCeiling: 5)
        await h.device.pressButton()
        #expect(await h.device.isOn)
        #expect(await eventually(10) { reports.values.withLock { $0.contains { $0.1 } } }, "no report of OnOff=true after the press")
        await h.device.pressButton()
        #expect(await eventually(10) { reports.values.withLock { $0.last?.1 == false } }, "no report of OnOff=false after the second press")
    }
}
