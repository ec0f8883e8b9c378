import MatterCertificates
import MatterCommissioning
import MatterHome
import MatterServerAPI
import MatterSetupPayload
import MatterTLV

/// The Home API's commissioning session through the hub: one active session across every client
/// (the store enforces it), owned by the connection that prepared it.
extension HubService {
    func prepareCommissioning(_ structureID: Int64?, connection: UInt64) async throws(HomeError) {
        let structure = try await structure(structureID)
        try await structure.prepareForMatterCommissioning()
        extensionState.holdSession(structure, for: connection)
    }

    func heldSession(_ connection: UInt64) throws(HomeError) -> Structure {
        guard let structure = extensionState.session(of: connection) else {
            throw HomeError(.noCommissioningSession, "call prepareForMatterCommissioning() first")
        }
        return structure
    }

    /// Commissions every device of the code (or the one that accepts the PIN) with live step
    /// events, then brings each new node up (subscription, interview) and announces it before answering.
    func performCommissioning(_ onboarding: MatterCommissioningRequest.Onboarding, name: String?, roomID: Int64?, ecosystem: String?,
                              connection: UInt64) async throws(HomeError) -> JSONValue {
        let structure = try heldSession(connection)
        var room: Room?
        if let roomID {
            guard let found = try await structure.rooms().first(where: { $0.id.rawValue == roomID }) else {
                throw HomeError(.roomNotFound, "no room with id \(roomID) in \(structure.name) (matterhub/rooms lists them)")
            }
            room = found
        }
        let topology = CommissioningTopology(ecosystemName: ecosystem ?? "MatterHub", homes: [.init(id: structure.id, name: structure.name)])
        let request = switch onboarding {
        case .payload(let code): structure.matterCommissioningRequest(topology: topology, onboardingPayload: code, options: options)
        case .setupPIN(let pin, let address):
            structure.matterCommissioningRequest(topology: topology, setupPIN: pin, address: address, options: options)
        }
        let (requestID, results) = try await commissionReporting(request, name: name, room: room, source: .matterhub)
        var outcomes: [JSONValue] = []
        for (i, result) in results.enumerated() {
            if case .success(let r) = result { _ = await bringUp(r.nodeID) }
            outcomes.append(HubDeviceOutcome(device: i, result).json)
        }
        return .object(["request_id": .string(requestID), "results": .array(outcomes)])
    }

    /// `perform()` with `matterhub/commissioning_*` events for every enabled client.
    func commissionReporting(_ request: MatterCommissioningRequest, name: String?, room: Room?,
                             source: HubEvent.Source) async throws(HomeError)
        -> (String, [Result<CommissionedDevice, CommissioningError>]) {
        let reporter = CommissioningReporter(publish: { [extensionState] in extensionState.publish($0) })
        if let devices = request.deviceCount { reporter.started(devices: devices, source: source) }
        do {
            let (report, hook) = (reporter.onStep, onCommissioningStep)
            let results = try await request.perform(name: name, room: room) { device, timing in
                report(device, timing)
                hook(timing)
            }
            _ = reporter.finished(results)
            return (reporter.requestID, results)
        } catch {
            _ = reporter.finished([])
            throw error
        }
    }

    func completeCommissioning(connection: UInt64) async throws(HomeError) -> [UInt64] {
        let structure = try heldSession(connection)
        _ = extensionState.releaseSession(of: connection)
        return try await structure.completeMatterCommissioning().map(\.rawValue)
    }

    func cancelCommissioning(connection: UInt64) async throws(HomeError) {
        let structure = try heldSession(connection)
        _ = extensionState.releaseSession(of: connection)
        try await structure.cancelMatterCommissioning()
    }
}
