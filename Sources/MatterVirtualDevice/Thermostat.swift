import MatterClusters
import MatterInteraction
import MatterMessaging
import MatterTLV

/// A virtual thermostat's Thermostat cluster (Heating, Cooling and Presets features) with the
/// atomic write of its Presets (Matter Core 7.15, the Thermostat cluster's AtomicRequest): a
/// client opens an atomic write with BeginWrite, its writes to Presets are held as pending,
/// CommitWrite checks and applies them (or reports the broken constraint and discards them),
/// RollbackWrite or the timeout discards them. A write to Presets outside an atomic write, or
/// by a client other than the one holding it, is refused.
struct ThermostatState: Sendable {
    typealias A = Clusters.Thermostat.Attribute
    typealias C = Clusters.Thermostat.Command

    /// One preset (PresetStruct), kept as the client wrote it once it checks out.
    struct Preset: Hashable, Sendable {
        var handle: [UInt8]
        var scenario: UInt8
        var name: String?
        var coolingSetpoint: Int16?
        var heatingSetpoint: Int16?
        var builtIn: Bool

        var element: TLVElement {
            var fields: [TLVElement] = [.bytes(.context(0), handle), .unsigned(.context(1), scenario)]
            if let name { fields.append(.utf8(.context(2), name)) }
            if let coolingSetpoint { fields.append(.signed(.context(3), coolingSetpoint)) }
            if let heatingSetpoint { fields.append(.signed(.context(4), heatingSetpoint)) }
            fields.append(.bool(.context(5), builtIn))
            return .structure(fields)
        }
    }

    /// Who holds the open atomic write (Core 7.15: the accessing fabric and node), until when,
    /// and the Presets they wrote so far (nil: not written yet).
    struct AtomicWrite: Sendable {
        var fabricIndex: UInt8
        var nodeID: UInt64?
        var deadline: Milliseconds
        var pending: [TLVElement]?
    }

    static let attributeIDs: [AttributeID] = [A.localTemperature, A.occupiedCoolingSetpoint, A.occupiedHeatingSetpoint,
                                               A.controlSequenceOfOperation, A.systemMode, A.presetTypes, A.numberOfPresets,
                                               A.activePresetHandle, A.presets]
    static let writableIDs: [AttributeID] = [A.occupiedCoolingSetpoint, A.occupiedHeatingSetpoint, A.controlSequenceOfOperation,
                                             A.systemMode, A.presets]
    static let acceptedCommands: [CommandID] = [C.setpointRaiseLower, C.setActivePresetRequest, C.atomicRequest]
    static let generatedCommands: [CommandID] = [C.atomicResponse]
    static let featureMap = Clusters.Thermostat.Feature([.heating, .cooling, .presets]).rawValue
    /// The most presets it keeps, and the longest an atomic write may stay open.
    static let maxPresets = 6
    static let presetsPerScenario = 2
    static let maxAtomicTimeout: Milliseconds = 60_000
    /// PresetScenarioEnum: Occupied 1 ... UserDefined 254 (Matter 1.4 Thermostat 4.3.8.23).
    static let scenarios: Set<UInt8> = [1, 2, 3, 4, 5, 6, 254]
    static let setpointRange: ClosedRange<Int16> = 700...3200

    var localTemperature: Int16 = 2050
    var coolingSetpoint: Int16 = 2600
    var heatingSetpoint: Int16 = 2000
    var systemMode: UInt8 = 4  // Heat
    /// ControlSequenceOfOperation: 4, cooling and heating (any of 0-5 with both features).
    var controlSequence: UInt8 = 4
    var presets: [Preset] = [
        Preset(handle: [0x01], scenario: 1, name: "Home", coolingSetpoint: 2500, heatingSetpoint: 2100, builtIn: true),
        Preset(handle: [0x02], scenario: 2, name: "Away", coolingSetpoint: 2800, heatingSetpoint: 1700, builtIn: true),
    ]
    var activePresetHandle: [UInt8]?
    var atomicWrite: AtomicWrite?

    func attribute(_ id: AttributeID, now: Milliseconds) -> TLVElement? {
        switch id {
        case A.localTemperature: return .signed(localTemperature)
        case A.occupiedCoolingSetpoint: return .signed(coolingSetpoint)
        case A.occupiedHeatingSetpoint: return .signed(heatingSetpoint)
        case A.controlSequenceOfOperation: return .unsigned(controlSequence)
        case A.systemMode: return .unsigned(systemMode)
        case A.presetTypes:
            // Each scenario: at most presetsPerScenario, with names (PresetTypeFeatures SupportsNames).
            return .array(Self.scenarios.sorted().map {
                .structure([.unsigned(.context(0), $0), .unsigned(.context(1), UInt8(Self.presetsPerScenario)),
                            .unsigned(.context(2), UInt16(0x02))])
            })
        case A.numberOfPresets: return .unsigned(UInt8(Self.maxPresets))
        case A.activePresetHandle: return activePresetHandle.map { .bytes($0) } ?? .null
        case A.presets: return .array(presets.map(\.element))
        default: return nil
        }
    }

    /// Every attribute's value, to tell whether a command changed any.
    func values(now: Milliseconds) -> [TLVElement?] { Self.attributeIDs.map { attribute($0, now: now) } }

    mutating func write(_ id: AttributeID, _ value: TLVElement, listIndex: ListIndex?, context: IMSessionContext,
                        now: Milliseconds) throws(IMStatus) {
        expire(now: now)
        switch id {
        case A.occupiedCoolingSetpoint: coolingSetpoint = try Self.setpoint(value)
        case A.occupiedHeatingSetpoint: heatingSetpoint = try Self.setpoint(value)
        case A.controlSequenceOfOperation:
            guard let v = try? value.unsigned(as: UInt8.self) else { throw .invalidDataType }
            guard v <= 5 else { throw .constraintError }
            controlSequence = v
        case A.systemMode:
            guard let v = try? value.unsigned(as: UInt8.self) else { throw .invalidDataType }
            guard [0, 3, 4].contains(v) else { throw .constraintError }  // Off, Cool, Heat (no AutoMode)
            systemMode = v
        case A.presets:
            // Only inside an atomic write, by the client that opened it (Core 7.15.3).
            guard var open = atomicWrite, open.fabricIndex == context.fabricIndex, open.nodeID == context.peerNodeID else {
                throw .invalidInState
            }
            switch listIndex {
            case nil:
                guard case .container(.array, let items) = value.value else { throw .invalidDataType }
                open.pending = items
            case .append?:
                guard open.pending != nil else { throw .invalidInState }
                open.pending?.append(value)
            default:
                throw .invalidAction
            }
            atomicWrite = open
        default:
            throw .unsupportedWrite
        }
    }

    mutating func invoke(_ command: CommandID, _ fields: TLVElement?, context: IMSessionContext, now: Milliseconds) -> CommandOutcome {
        expire(now: now)
        switch command {
        case C.atomicRequest: return atomicRequest(fields, context: context, now: now)
        case C.setActivePresetRequest:
            guard let f = fields, let handle = f[context: 0] else { return .status(StatusIB(.invalidCommand)) }
            if case .null = handle.value { activePresetHandle = nil; return .status(StatusIB(.success)) }
            guard case .bytes(let h) = handle.value, presets.contains(where: { $0.handle == h }) else {
                return .status(StatusIB(.invalidCommand))
            }
            activePresetHandle = h
            return .status(StatusIB(.success))
        case C.setpointRaiseLower:
            guard let f = fields, let mode = try? f[context: 0]?.unsigned(as: UInt8.self),
                  let amount = try? f[context: 1]?.signed(as: Int8.self) else { return .status(StatusIB(.invalidCommand)) }
            let delta = Int16(amount) * 10
            if mode != 1 { heatingSetpoint = (heatingSetpoint + delta).clamped(to: Self.setpointRange) }
            if mode != 0 { coolingSetpoint = (coolingSetpoint + delta).clamped(to: Self.setpointRange) }
            return .status(StatusIB(.success))
        default:
            return .status(StatusIB(.unsupportedCommand))
        }
    }

    /// AtomicRequest (Core 7.15.4): Begin opens (BUSY while another client holds it), Commit
    /// checks and applies, Rollback discards. Only Presets has the Atomic quality here.
    private mutating func atomicRequest(_ fields: TLVElement?, context: IMSessionContext, now: Milliseconds) -> CommandOutcome {
        guard let f = fields, let type = try? f[context: 0]?.unsigned(as: UInt8.self),
              let requested = f[context: 1]?.members.compactMap({ try? $0.unsigned(as: UInt32.self) }), !requested.isEmpty else {
            return .status(StatusIB(.invalidCommand))
        }
        guard requested.allSatisfy({ $0 == A.presets.rawValue }), let fabric = context.fabricIndex else {
            return .status(StatusIB(.invalidCommand))
        }
        let holds = atomicWrite.map { $0.fabricIndex == fabric && $0.nodeID == context.peerNodeID } ?? false
        switch type {
        case 0:  // BeginWrite
            if atomicWrite != nil && !holds { return response(.failure, [(A.presets.rawValue, .busy)], timeout: nil) }
            // BeginWrite names its Timeout (Core 7.15.4).
            guard let asked = (try? f[context: 2]?.unsigned(as: UInt16.self)).flatMap({ $0 }) else {
                return .status(StatusIB(.invalidCommand))
            }
            let timeout = min(Milliseconds(asked), Self.maxAtomicTimeout)
            atomicWrite = AtomicWrite(fabricIndex: fabric, nodeID: context.peerNodeID, deadline: now + timeout, pending: nil)
            return response(.success, [(A.presets.rawValue, .success)], timeout: UInt16(timeout))
        case 1:  // CommitWrite
            guard holds, let open = atomicWrite else { return .status(StatusIB(.invalidInState)) }
            atomicWrite = nil
            guard let pending = open.pending else { return response(.success, [(A.presets.rawValue, .success)], timeout: nil) }
            switch Self.checked(pending, replacing: presets) {
            case .success(let checked):
                // The active preset cannot be removed (Thermostat 4.3.10.1).
                if let active = activePresetHandle, !checked.contains(where: { $0.handle == active }) {
                    return response(.failure, [(A.presets.rawValue, .invalidInState)], timeout: nil)
                }
                presets = checked
                return response(.success, [(A.presets.rawValue, .success)], timeout: nil)
            case .failure(let status):
                return response(.failure, [(A.presets.rawValue, status)], timeout: nil)
            }
        case 2:  // RollbackWrite
            guard holds else { return .status(StatusIB(.invalidInState)) }
            atomicWrite = nil
            return response(.success, [(A.presets.rawValue, .success)], timeout: nil)
        default:
            return .status(StatusIB(.invalidCommand))
        }
    }

    /// A pending Presets list as presets, or the constraint it breaks (Thermostat 4.3.10.1): at
    /// most ``maxPresets`` and ``presetsPerScenario`` of a scenario, known scenarios, setpoints in
    /// range; a new preset (null handle) gets a fresh handle and is not built in; an existing one
    /// (its handle) keeps its scenario and BuiltIn; a handle that names no preset is NOT_FOUND;
    /// no built-in preset may go.
    static func checked(_ items: [TLVElement], replacing current: [Preset]) -> Result<[Preset], IMStatus> {
        guard items.count <= maxPresets else { return .failure(.resourceExhausted) }
        var out: [Preset] = []
        var next: UInt8 = 0x10
        for item in items {
            guard case .container(.structure, _) = item.value,
                  let scenario = try? item[context: 1]?.unsigned(as: UInt8.self) else { return .failure(.invalidDataType) }
            guard scenarios.contains(scenario) else { return .failure(.constraintError) }
            var handle: [UInt8]
            if case .bytes(let h)? = item[context: 0]?.value { handle = h } else {
                while out.contains(where: { $0.handle == [next] }) { next &+= 1 }
                handle = [next]
                next &+= 1
            }
            guard !handle.isEmpty, handle.count <= 16, !out.contains(where: { $0.handle == handle }) else { return .failure(.constraintError) }
            var name: String?
            if case .utf8(let n)? = item[context: 2]?.value { name = n }
            guard (name?.utf8.count ?? 0) <= 64 else { return .failure(.constraintError) }
            let cooling = try? item[context: 3]?.signed(as: Int16.self)
            let heating = try? item[context: 4]?.signed(as: Int16.self)
            for s in [cooling, heating].compactMap({ $0 }) where !setpointRange.contains(s) { return .failure(.constraintError) }
            var builtIn: Bool?
            if case .bool(let b)? = item[context: 5]?.value { builtIn = b }
            if case .bytes? = item[context: 0]?.value {
                guard let existing = current.first(where: { $0.handle == handle }) else { return .failure(.notFound) }
                guard existing.scenario == scenario, builtIn == nil || builtIn == existing.builtIn else { return .failure(.constraintError) }
                builtIn = existing.builtIn
            } else if builtIn == true {
                return .failure(.constraintError)
            }
            guard out.filter({ $0.scenario == scenario }).count < presetsPerScenario else { return .failure(.resourceExhausted) }
            out.append(Preset(handle: handle, scenario: scenario, name: name, coolingSetpoint: cooling, heatingSetpoint: heating,
                              builtIn: builtIn ?? false))
        }
        for kept in current where kept.builtIn && !out.contains(where: { $0.handle == kept.handle }) {
            return .failure(.constraintError)
        }
        return .success(out)
    }

    /// An atomic write past its deadline is discarded.
    private mutating func expire(now: Milliseconds) {
        if let open = atomicWrite, now >= open.deadline { atomicWrite = nil }
    }

    private func response(_ status: IMStatus, _ attributes: [(UInt32, IMStatus)], timeout: UInt16?) -> CommandOutcome {
        var fields: [TLVElement] = [
            .unsigned(.context(0), status.rawValue),
            .array(.context(1), attributes.map { .structure([.unsigned(.context(0), $0.0), .unsigned(.context(1), $0.1.rawValue)]) }),
        ]
        if let timeout { fields.append(.unsigned(.context(2), timeout)) }
        return .response(C.atomicResponse, .structure(fields))
    }

    private static func setpoint(_ value: TLVElement) throws(IMStatus) -> Int16 {
        guard let v = try? value.signed(as: Int16.self) else { throw .invalidDataType }
        guard setpointRange.contains(v) else { throw .constraintError }
        return v
    }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
