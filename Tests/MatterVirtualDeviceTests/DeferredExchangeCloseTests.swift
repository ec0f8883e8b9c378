import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
@testable import MatterVirtualDevice
import Testing
import TestSupport

/// The hub answers its client before it acknowledges the device's reply: exchanges an
/// interaction lets go inside `run` stay open (the device's reply unacknowledged) until
/// `closeAll`, and once that ran, a late one closes at once.
@Suite struct DeferredExchangeCloseTests {
    static let onOff = AttributePathIB(endpoint: 1, cluster: 6, attribute: 0)

    @Test func heldUntilCloseAllThenClosedAtOnce() async throws {
        // A manual clock: on the real one the controller's standalone ack goes out 200 ms after
        // the report even for a held exchange, and a starved test could look only after that.
        let h = try await DeviceHarness.make(clock: ManualClock())
        let client = h.client(try await h.pase())
        let deferred = DeferredExchangeClose()
        let reports = await deferred.run { try? await client.read(paths: [Self.onOff]) }
        #expect(reports?.count == 1)
        #expect(await h.controller.occupancy.exchanges == 1, "the read's exchange is held")
        #expect(await h.device.manager.occupancy.unacknowledged == 1, "the device's report is not acknowledged yet")
        await deferred.closeAll()
        #expect(await h.controller.occupancy.exchanges == 0)
        #expect(await eventually(5) { await h.device.manager.occupancy.unacknowledged == 0 })

        // After closeAll the collector holds nothing: a read in its scope closes as usual.
        _ = await deferred.run { try? await client.read(paths: [Self.onOff]) }
        #expect(await eventually(5) { await h.controller.occupancy.exchanges == 0 })
        await h.shutdown()
    }
}
