import MatterClusters
import MatterSecureChannel
import MatterInteraction
import MatterTLV

/// The ICD Management cluster of a sleepy virtual device (`--icd sit|lit`, Matter Core 9.16),
/// with the CHIP SDK's rules: RegisterClient takes a 16-byte key per check-in node and fabric
/// (an existing entry is replaced only by an administrator or with its current key as
/// VerificationKey), answers the ICD counter, and the counter advances once per wake; the keys
/// are never read back. The Check-Ins themselves go out from ``VirtualDevice`` when it wakes.
struct ICDManagementState: Sendable {
    typealias A = Clusters.IcdManagement.Attribute
    typealias C = Clusters.IcdManagement.Command
    static let attributeIDs = [A.idleModeDuration, A.activeModeDuration, A.activeModeThreshold, A.registeredClients, A.icdCounter,
                               A.clientsSupportedPerFabric, A.userActiveModeTriggerHint, A.operatingMode, A.maximumCheckInBackOff]
    static let clientsPerFabric = 2

    struct Registration: Sendable, Hashable {
        var fabricIndex: UInt8
        var checkInNodeID: UInt64
        var monitoredSubject: UInt64
        var key: [UInt8]
        var clientType: UInt8
    }

    let configuration: ICDConfiguration
    var registrations: [Registration] = []
    /// The last counter value used (random at first, as the SDK's `CheckInCounter`).
    var counter = UInt32.random(in: 0...UInt32.max >> 4)

    init(_ configuration: ICDConfiguration) { self.configuration = configuration }

    var featureMap: UInt32 {
        typealias F = Clusters.IcdManagement.Feature
        return configuration.mode == .lit ? F([.checkInProtocolSupport, .userActiveModeTrigger, .longIdleTimeSupport]).rawValue
            : F.checkInProtocolSupport.rawValue
    }

    /// LIT only while a client is registered (Matter Core 9.16.6.7: a LIT device with none
    /// operates as SIT).
    var operatesAsLIT: Bool { configuration.mode == .lit && !registrations.isEmpty }

    func attribute(_ id: AttributeID, fabricIndex: UInt8?) -> TLVElement? {
        typealias S = Clusters.IcdManagement.MonitoringRegistrationStructTag
        switch id {
        case A.idleModeDuration: return .unsigned(configuration.idleSeconds)
        case A.activeModeDuration: return .unsigned(configuration.activeMilliseconds)
        case A.activeModeThreshold: return .unsigned(configuration.thresholdMilliseconds)
        case A.registeredClients:
            return .array(registrations.filter { fabricIndex == nil || $0.fabricIndex == fabricIndex }.map { r in
                .structure([.unsigned(.context(S.checkInNodeID), r.checkInNodeID), .unsigned(.context(S.monitoredSubject), r.monitoredSubject),
                            .unsigned(.context(S.clientType), r.clientType), .unsigned(.context(S.fabricIndex), r.fabricIndex)])
            })
        case A.icdCounter: return .unsigned(counter)
        case A.clientsSupportedPerFabric: return .unsigned(UInt16(Self.clientsPerFabric))
        case A.userActiveModeTriggerHint: return .unsigned(Clusters.IcdManagement.UserActiveModeTriggerBitmap.powerCycle.rawValue)
        case A.operatingMode: return .unsigned(UInt8(operatesAsLIT ? 1 : 0))
        case A.maximumCheckInBackOff: return .unsigned(configuration.idleSeconds)
        default: return nil
        }
    }

    mutating func invoke(_ command: CommandID, _ fields: TLVElement?, fabricIndex: UInt8, isAdministrator: Bool) -> CommandOutcome {
        switch command {
        case C.registerClient: return register(fields, fabricIndex: fabricIndex, isAdministrator: isAdministrator)
        case C.unregisterClient: return unregister(fields, fabricIndex: fabricIndex, isAdministrator: isAdministrator)
        case C.stayActiveRequest:
            guard configuration.mode == .lit else { return .status(StatusIB(.unsupportedCommand)) }
            guard let ms = try? fields?.required(Clusters.IcdManagement.StayActiveRequestTag.stayActiveDuration).unsigned(as: UInt32.self) else {
                return .status(StatusIB(.invalidCommand))
            }
            // The SDK promises at most 30 s per request.
            return .response(C.stayActiveResponse, .structure([.unsigned(.context(0), min(ms, 30_000))]))
        default: return .status(StatusIB(.unsupportedCommand))
        }
    }

    private mutating func register(_ fields: TLVElement?, fabricIndex: UInt8, isAdministrator: Bool) -> CommandOutcome {
        typealias T = Clusters.IcdManagement.RegisterClientTag
        guard let f = fields, let node = try? f.required(T.checkInNodeID).unsigned(as: UInt64.self),
              let subject = try? f.required(T.monitoredSubject).unsigned(as: UInt64.self),
              let key = try? f.required(T.key).bytes() else { return .status(StatusIB(.invalidCommand)) }
        let clientType = (try? f.required(T.clientType).unsigned(as: UInt8.self)) ?? 0
        guard key.count == 16, clientType <= 1 else { return .status(StatusIB(.constraintError)) }
        let verification = try? f.required(T.verificationKey).bytes()
        let existing = registrations.firstIndex { $0.fabricIndex == fabricIndex && $0.checkInNodeID == node }
        if let i = existing, !isAdministrator, verification != registrations[i].key { return .status(StatusIB(.failure)) }
        if existing == nil, registrations.filter({ $0.fabricIndex == fabricIndex }).count >= Self.clientsPerFabric {
            return .status(StatusIB(.resourceExhausted))
        }
        let entry = Registration(fabricIndex: fabricIndex, checkInNodeID: node, monitoredSubject: subject, key: key, clientType: clientType)
        if let i = existing { registrations[i] = entry } else { registrations.append(entry) }
        return .response(C.registerClientResponse, .structure([.unsigned(.context(Clusters.IcdManagement.RegisterClientResponseTag.icdCounter), counter)]))
    }

    private mutating func unregister(_ fields: TLVElement?, fabricIndex: UInt8, isAdministrator: Bool) -> CommandOutcome {
        typealias T = Clusters.IcdManagement.UnregisterClientTag
        guard let node = try? fields?.required(T.checkInNodeID).unsigned(as: UInt64.self) else { return .status(StatusIB(.invalidCommand)) }
        guard let i = registrations.firstIndex(where: { $0.fabricIndex == fabricIndex && $0.checkInNodeID == node }) else {
            return .status(StatusIB(.notFound))
        }
        let verification = try? fields?.required(T.verificationKey).bytes()
        if !isAdministrator, verification != registrations[i].key { return .status(StatusIB(.failure)) }
        registrations.remove(at: i)
        return .status(StatusIB(.success))
    }

    /// A fabric removed takes its registrations with it.
    mutating func forget(fabricIndex: UInt8) { registrations.removeAll { $0.fabricIndex == fabricIndex } }

    /// The Check-In payloads of one wake for `clients` (those without a subscription): the
    /// counter advanced once for all (the SDK's `SendCheckInMsgs`), each Permanent client's
    /// sealed with its key.
    mutating func wake(for clients: [Registration]) -> [(Registration, [UInt8])] {
        let permanent = clients.filter { c in c.clientType == 0 && registrations.contains(c) }
        guard !permanent.isEmpty else { return [] }
        counter &+= 1
        let threshold = configuration.thresholdMilliseconds
        let data = [UInt8(truncatingIfNeeded: threshold), UInt8(truncatingIfNeeded: threshold >> 8)]
        return permanent.compactMap { r in (try? CheckInMessage.seal(key: r.key, counter: counter, applicationData: data)).map { (r, $0) } }
    }
}
