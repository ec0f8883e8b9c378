import MatterClusters
import MatterTLV

/// Level Control (Matter Application Cluster 1.6), the brightness of a dimmable light: its
/// commands as typed values (IDs, enums and bitmaps are generated in MatterClusters).
extension Clusters.LevelControl {
    /// MoveModeEnum and StepModeEnum.
    public enum Direction: UInt8, Sendable {
        case up = 0
        case down = 1
    }

    /// The two fields every command ends with: bits of the Options attribute to override for
    /// this command, and their values.
    public struct OptionsOverride: Sendable, Hashable {
        public var mask: UInt8
        public var override: UInt8
        public init(mask: UInt8 = 0, override: UInt8 = 0) {
            self.mask = mask
            self.override = override
        }
        /// The temporary Options bitmap: each bit from `override` where `mask` has it, else
        /// from the Options attribute.
        public func effective(_ options: UInt8) -> UInt8 { options & ~mask | override & mask }
    }

    /// MoveToLevel (0x00) and MoveToLevelWithOnOff (0x04).
    public struct MoveToLevel: TLVCodable {
        /// MoveToLevelWithOnOff has the same fields.
        public typealias Tag = Clusters.LevelControl.MoveToLevelTag
        public var level: UInt8
        /// Tenths of a second; nil (null) uses OnOffTransitionTime.
        public var transitionTime: UInt16?
        public var options: OptionsOverride
        public init(level: UInt8, transitionTime: UInt16? = nil, options: OptionsOverride = .init()) {
            self.level = level
            self.transitionTime = transitionTime
            self.options = options
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "MoveToLevel")
            level = try f.requiredUInt(Tag.level)
            transitionTime = try f.nullableUInt(Tag.transitionTime)
            options = try f.levelOptions(Tag.optionsMask, Tag.optionsOverride)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.level), level),
                             transitionTime.map { .unsigned(.context(Tag.transitionTime), $0) } ?? .null(.context(Tag.transitionTime)),
                             .unsigned(.context(Tag.optionsMask), options.mask), .unsigned(.context(Tag.optionsOverride), options.override)])
        }
    }

    /// Move (0x01) and MoveWithOnOff (0x05): towards MaxLevel or MinLevel at a rate.
    public struct Move: TLVCodable {
        public typealias Tag = Clusters.LevelControl.MoveTag
        /// The raw MoveModeEnum (0 up, 1 down); other values are refused by the device.
        public var moveMode: UInt8
        /// Units per second; nil (null) uses DefaultMoveRate or the fastest rate.
        public var rate: UInt8?
        public var options: OptionsOverride
        public init(moveMode: UInt8, rate: UInt8?, options: OptionsOverride = .init()) {
            self.moveMode = moveMode
            self.rate = rate
            self.options = options
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "Move")
            moveMode = try f.requiredUInt(Tag.moveMode)
            rate = try f.nullableUInt(Tag.rate)
            options = try f.levelOptions(Tag.optionsMask, Tag.optionsOverride)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.moveMode), moveMode), rate.map { .unsigned(.context(Tag.rate), $0) } ?? .null(.context(Tag.rate)),
                             .unsigned(.context(Tag.optionsMask), options.mask), .unsigned(.context(Tag.optionsOverride), options.override)])
        }
    }

    /// Step (0x02) and StepWithOnOff (0x06): up or down by a step size.
    public struct Step: TLVCodable {
        public typealias Tag = Clusters.LevelControl.StepTag
        /// The raw StepModeEnum (0 up, 1 down).
        public var stepMode: UInt8
        public var stepSize: UInt8
        public var transitionTime: UInt16?
        public var options: OptionsOverride
        public init(stepMode: UInt8, stepSize: UInt8, transitionTime: UInt16? = nil, options: OptionsOverride = .init()) {
            self.stepMode = stepMode
            self.stepSize = stepSize
            self.transitionTime = transitionTime
            self.options = options
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "Step")
            stepMode = try f.requiredUInt(Tag.stepMode)
            stepSize = try f.requiredUInt(Tag.stepSize)
            transitionTime = try f.nullableUInt(Tag.transitionTime)
            options = try f.levelOptions(Tag.optionsMask, Tag.optionsOverride)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.stepMode), stepMode), .unsigned(.context(Tag.stepSize), stepSize),
                             transitionTime.map { .unsigned(.context(Tag.transitionTime), $0) } ?? .null(.context(Tag.transitionTime)),
                             .unsigned(.context(Tag.optionsMask), options.mask), .unsigned(.context(Tag.optionsOverride), options.override)])
        }
    }

    /// Stop (0x03) and StopWithOnOff (0x07).
    public struct Stop: TLVCodable {
        public typealias Tag = Clusters.LevelControl.StopTag
        public var options: OptionsOverride
        public init(options: OptionsOverride = .init()) { self.options = options }
        public init(element: TLVElement) throws(InteractionError) {
            options = try FieldReader(element, .structure, "Stop").levelOptions(Tag.optionsMask, Tag.optionsOverride)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.optionsMask), options.mask), .unsigned(.context(Tag.optionsOverride), options.override)])
        }
    }
}

extension FieldReader {
    /// A mandatory nullable unsigned field: nil when it is null.
    func nullableUInt<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type = T.self) throws(InteractionError) -> T? {
        if try required(tag).isNull { return nil }
        return try requiredUInt(tag)
    }

    /// OptionsMask and OptionsOverride, mandatory since Matter 1.0.
    func levelOptions(_ maskTag: UInt8, _ overrideTag: UInt8) throws(InteractionError) -> Clusters.LevelControl.OptionsOverride {
        Clusters.LevelControl.OptionsOverride(mask: try requiredUInt(maskTag), override: try requiredUInt(overrideTag))
    }
}
