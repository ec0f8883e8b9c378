import MatterClusters
import MatterInteraction
import MatterTLV

typealias LC = Clusters.LevelControl

/// The light's Level Control state, persisted (Matter Application Cluster 1.6 with the OnOff
/// and Lighting features). Transitions are instant: the device moves "as fast as it is able",
/// so RemainingTime is always 0 and a Stop has nothing to stop.
struct LevelState: Codable, Sendable, Hashable {
    static let minLevel: UInt8 = 1
    static let maxLevel: UInt8 = 254

    /// CurrentLevel (nullable: null means unknown, never the case here once booted).
    var currentLevel: UInt8? = maxLevel
    /// OnLevel: the level On sets; null keeps the level the light had.
    var onLevel: UInt8?
    /// Options (OptionsBitmap): ExecuteIfOff and CoupleColorTempToLevel.
    var options: UInt8 = 0
    /// OnOffTransitionTime, tenths of a second (accepted and kept; transitions are instant).
    var onOffTransitionTime: UInt16 = 0
    /// StartUpCurrentLevel: 0 starts at MinLevel, null at the previous level, else that level.
    var startUpCurrentLevel: UInt8?

    /// The state after a reboot: CurrentLevel from StartUpCurrentLevel.
    func booted() -> LevelState {
        var s = self
        switch startUpCurrentLevel {
        case nil: s.currentLevel = currentLevel ?? Self.maxLevel
        case 0?: s.currentLevel = Self.minLevel
        case let v?: s.currentLevel = Self.clamp(v)
        }
        return s
    }

    static func clamp(_ v: UInt8) -> UInt8 { min(max(v, minLevel), maxLevel) }

    /// The attribute IDs the cluster has (globals aside).
    static let attributeIDs: [AttributeID] = [LC.Attribute.currentLevel, LC.Attribute.remainingTime, LC.Attribute.minLevel,
                                              LC.Attribute.maxLevel, LC.Attribute.options, LC.Attribute.onOffTransitionTime,
                                              LC.Attribute.onLevel, LC.Attribute.startUpCurrentLevel]
    static let writableIDs: [AttributeID] = [LC.Attribute.options, LC.Attribute.onOffTransitionTime, LC.Attribute.onLevel,
                                             LC.Attribute.startUpCurrentLevel]
    static let commandIDs: [CommandID] = [LC.Command.moveToLevel, LC.Command.move, LC.Command.step, LC.Command.stop,
                                          LC.Command.moveToLevelWithOnOff, LC.Command.moveWithOnOff, LC.Command.stepWithOnOff,
                                          LC.Command.stopWithOnOff]

    func attribute(_ id: AttributeID) -> TLVElement? {
        func nullable(_ v: UInt8?) -> TLVElement { v.map { .unsigned($0) } ?? .null(.anonymous) }
        switch id {
        case LC.Attribute.currentLevel: return nullable(currentLevel)
        case LC.Attribute.remainingTime: return .unsigned(UInt16(0))
        case LC.Attribute.minLevel: return .unsigned(Self.minLevel)
        case LC.Attribute.maxLevel: return .unsigned(Self.maxLevel)
        case LC.Attribute.options: return .unsigned(options)
        case LC.Attribute.onOffTransitionTime: return .unsigned(onOffTransitionTime)
        case LC.Attribute.onLevel: return nullable(onLevel)
        case LC.Attribute.startUpCurrentLevel: return nullable(startUpCurrentLevel)
        default: return nil
        }
    }

    /// Writes one attribute, with the spec's constraints as IM status.
    mutating func write(_ id: AttributeID, _ value: TLVElement) throws(IMStatus) {
        func nullableLevel(allowZero: Bool) throws(IMStatus) -> UInt8? {
            if value.isNull { return nil }
            guard let v = try? value.unsigned(as: UInt8.self) else { throw .invalidDataType }
            // 255 is uint8's null value and never a level.
            guard v <= Self.maxLevel, allowZero || v >= Self.minLevel else { throw .constraintError }
            return v
        }
        switch id {
        case LC.Attribute.options:
            guard let v = try? value.unsigned(as: UInt8.self) else { throw .invalidDataType }
            guard v & ~LC.OptionsBitmap([.executeIfOff, .coupleColorTempToLevel]).rawValue == 0 else { throw .constraintError }
            options = v
        case LC.Attribute.onOffTransitionTime:
            guard let v = try? value.unsigned(as: UInt16.self) else { throw .invalidDataType }
            onOffTransitionTime = v
        case LC.Attribute.onLevel: onLevel = try nullableLevel(allowZero: false)
        case LC.Attribute.startUpCurrentLevel: startUpCurrentLevel = try nullableLevel(allowZero: true)
        default: throw .unsupportedWrite
        }
    }
}

extension DeviceCore {
    /// A Level Control command (Matter Application Cluster 1.6, Commands): options processing, then the
    /// level change, then for the WithOnOff variants the coupling to On/Off (raising the level
    /// turns the light on; reaching MinLevel turns it off).
    func levelControl(_ command: CommandID, _ fields: TLVElement?, endpoint: EndpointID) -> CommandOutcome {
        guard var level = state.level, let current = level.currentLevel else { return .status(StatusIB(.failure)) }
        guard command.rawValue <= LC.Command.stopWithOnOff.rawValue else { return .status(StatusIB(.unsupportedCommand)) }
        let withOnOff = command.rawValue >= LC.Command.moveToLevelWithOnOff.rawValue
        guard let fields else { return .status(StatusIB(.invalidCommand)) }
        let target: UInt8?
        let options: LC.OptionsOverride
        do {
            switch command.rawValue & 0x3 {
            case LC.Command.moveToLevel.rawValue:
                let c = try LC.MoveToLevel(element: fields)
                guard c.level <= LevelState.maxLevel else { return .status(StatusIB(.constraintError)) }
                (target, options) = (LevelState.clamp(c.level), c.options)
            case LC.Command.move.rawValue:
                let c = try LC.Move(element: fields)
                guard let direction = LC.Direction(rawValue: c.moveMode) else { return .status(StatusIB(.constraintError)) }
                // A rate of 0 would never move: refused, as connectedhomeip's server does.
                guard c.rate != 0 else { return .status(StatusIB(.invalidCommand)) }
                (target, options) = (direction == .up ? LevelState.maxLevel : LevelState.minLevel, c.options)
            case LC.Command.step.rawValue:
                let c = try LC.Step(element: fields)
                guard let direction = LC.Direction(rawValue: c.stepMode) else { return .status(StatusIB(.constraintError)) }
                let moved = direction == .up ? Int(current) + Int(c.stepSize) : Int(current) - Int(c.stepSize)
                (target, options) = (UInt8(min(max(moved, Int(LevelState.minLevel)), Int(LevelState.maxLevel))), c.options)
            default:
                (target, options) = (nil, try LC.Stop(element: fields).options)
            }
        } catch {
            return .status(StatusIB(.invalidCommand))
        }
        // Options processing (the Options attribute's ExecuteIfOff): a command without On/Off does nothing while the light is
        // off unless the effective ExecuteIfOff bit is set.
        if !withOnOff && !state.onOff && options.effective(level.options) & LC.OptionsBitmap.executeIfOff.rawValue == 0 {
            return .status(.success)
        }
        guard let target else { return .status(.success) }  // Stop: no transition is ever in progress
        var on = state.onOff
        if withOnOff {
            // MoveToLevelWithOnOff to anything above MinLevel turns the light on, lower or
            // higher than now (the SDK's light does: "on at 30 %" from off); Move and Step turn
            // it on going up; reaching MinLevel turns it off.
            let isMoveToLevel = command.rawValue & 0x3 == LC.Command.moveToLevel.rawValue
            if target == LevelState.minLevel {
                on = false
            } else if isMoveToLevel || target >= current {
                on = true
            }
        }
        level.currentLevel = target
        setLight(onOff: on, level: level, persisting: true)
        return .status(.success)
    }

    /// On/Off's effect on the level (the OnLevel attribute): On sets CurrentLevel to OnLevel when it has one.
    func levelFollowsOn() {
        guard var level = state.level, let on = level.onLevel, level.currentLevel != on else { return }
        level.currentLevel = on
        setLight(onOff: state.onOff, level: level, persisting: false)
    }
}
