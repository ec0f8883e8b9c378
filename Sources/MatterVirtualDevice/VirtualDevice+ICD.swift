import MatterDiscovery
import MatterMessaging
import MatterSecureChannel

/// The schedule of a sleepy virtual device (`--icd lit`): every IdleModeDuration it wakes for
/// ActiveModeDuration, sends its due subscription reports, and sends a Check-In (Matter Core
/// 4.18) to each registered client that holds no active subscription (Matter Core 9.16.6.5);
/// in between, its radio is off (``SleepGate``). A LIT device with no registered client
/// operates as SIT and does not sleep.
extension VirtualDevice {
    /// The ICD clients registered with the device (`--icd`).
    public var icdRegisteredClients: Int { get async { await core.icdRegistrations.count } }
    /// Whether its radio is off now (a LIT device with a client, between wakes).
    public nonisolated var isAsleep: Bool { sleepGate.map { !$0.isAwake } ?? false }
    /// The datagrams that arrived while it slept (lost, as a sleepy radio's are).
    public nonisolated var datagramsLostAsleep: UInt64 { sleepGate?.dropped ?? 0 }
    /// The Check-Ins it sent.
    public nonisolated var checkInsSent: Int { checkInCount.value }

    func startICDSchedule() {
        guard let configuration = icdConfiguration, configuration.mode == .lit, sleepGate != nil else { return }
        let clock = self.clock, idle = Milliseconds(configuration.idleSeconds) * 1000
        icdSchedule = Task { [weak self] in
            while !Task.isCancelled {
                guard let device = self else { return }
                await device.icdWake()
                do { try await clock.sleep(until: clock.now() + idle) } catch { return }
            }
        }
    }

    func stopICDSchedule() {
        icdSchedule?.cancel()
        icdSchedule = nil
    }

    /// One wake: up for ActiveModeDuration, the reports that are due, the Check-Ins.
    func icdWake() async {
        guard let gate = sleepGate, let configuration = icdConfiguration else { return }
        gate.stayAwake(Milliseconds(configuration.activeMilliseconds))
        gate.setSleeps(await core.icdOperatesAsLIT)
        wakeReportPumpForICD()
        var unsubscribed: [ICDManagementState.Registration] = []
        for r in await core.icdRegistrations {
            if let address = await sessionAddress(ofNode: r.checkInNodeID) { checkInClientAddresses[r.checkInNodeID] = address }
        }
        for r in await core.icdRegistrations where await !server.hasActiveSubscription(from: r.checkInNodeID, fabricIndex: r.fabricIndex) {
            unsubscribed.append(r)
        }
        for (client, payload) in await core.icdWake(for: unsubscribed) {
            await sendCheckIn(payload, to: client)
        }
    }

    /// A Check-In goes unsecured, unacknowledged, from a random source node ID (Matter Core
    /// 4.18.4), to where the client is: its `_matter._tcp` advert on the fabric, else the
    /// address of its last CASE session with the device.
    private func sendCheckIn(_ payload: [UInt8], to client: ICDManagementState.Registration) async {
        guard let address = await operationalAddress(ofNode: client.checkInNodeID, fabricIndex: client.fabricIndex) else {
            log("ICD: no address for check-in client \(String(printf: "%016llX", client.checkInNodeID)); Check-In not sent")
            return
        }
        let session = await manager.newUnsecuredSession(to: address)
        defer { Task { await manager.removeSession(session) } }
        do {
            let exchange = try await manager.newExchange(on: session)
            try await exchange.send(.secureChannel, opcode: SecureChannelOpcode.icdCheckIn.rawValue, payload: payload, reliable: false)
            await exchange.close()
            checkInCount.increment()
        } catch {
            log("ICD: cannot send the Check-In to \(address): \(error)")
        }
    }

    /// Where a node of one of the device's fabrics answers: its `_matter._tcp` advert (a device
    /// that advertises uses avahi; in-process test devices do not), else the address of its last
    /// CASE session with the device (open now, or seen at a wake).
    func operationalAddress(ofNode nodeID: UInt64, fabricIndex: UInt8) async -> PeerAddress? {
        let fabric = await core.state.fabrics.first { $0.index == fabricIndex }
        if advertises, let cfid = fabric?.compressedFabricID {
            let stream = MatterDiscovery().operationalNodes(compressedFabricID: cfid, nodeID: nodeID)
            let resolved = await MatterMessaging.first(within: .seconds(2)) { () async -> PeerAddress? in
                do {
                    for try await event in stream {
                        if case .found(let node) = event, let a = node.service.addresses.lazy.compactMap({
                            PeerAddress($0.ip, port: node.service.port, interfaceIndex: UInt32(max(0, $0.interfaceIndex)))
                        }).first { return a }
                    }
                } catch {}
                return nil
            }
            if let resolved = resolved ?? nil { return resolved }
        }
        return await sessionAddress(ofNode: nodeID) ?? checkInClientAddresses[nodeID]
    }

    private func sessionAddress(ofNode nodeID: UInt64) async -> PeerAddress? {
        await manager.secureSessions().last { $0.peerNodeID == nodeID && $0.peer != .pase }?.peerAddress
    }
}
