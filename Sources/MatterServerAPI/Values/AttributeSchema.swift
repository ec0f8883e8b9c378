import MatterTLV

/// The types of the attributes clients write (`write_attribute`): the writable attributes of
/// the clusters Home Assistant's number, select, switch, climate, fan, lock and laundry entities
/// and its device-name sync (bridged nodes too) write, and the python-matter-server dashboard,
/// with their widths from the Matter specification;
/// checked against the CHIP SDK's cluster objects (testvectors/matter-server/cluster_schema.json).
///
/// For an attribute not listed, ``inferred(from:)`` takes the type of the value the node last
/// reported for it (an octet string stays one, an integer keeps its sign); with no value known
/// either, the value is written as ``MatterDataType/any``.
public enum AttributeSchema {
    /// (cluster, attribute) → name and type.
    public static let writable: [UInt64: (name: String, type: MatterDataType)] = {
        var table: [UInt64: (String, MatterDataType)] = [:]
        for (cluster, attributes) in entries {
            for (id, name, type) in attributes { table[key(cluster, id)] = (name, type) }
        }
        return table
    }()

    public static func type(cluster: UInt32, attribute: UInt32) -> MatterDataType? {
        writable[key(cluster, attribute)]?.type
    }

    static func key(_ cluster: UInt32, _ attribute: UInt32) -> UInt64 { UInt64(cluster) << 32 | UInt64(attribute) }

    /// The type of an attribute whose schema is unknown, from a value of it: unsigned and signed
    /// integers at 64 bits, structures by their tags, lists by their first element, null as any.
    public static func inferred(from element: TLVElement) -> MatterDataType {
        switch element.value {
        case .bool: return .bool
        case .unsigned: return .uint64
        case .signed: return .int64
        case .float: return .float
        case .double: return .double
        case .utf8: return .string
        case .bytes: return .bytes
        case .null: return .any
        case .container(.structure, let members):
            return .structure(members.compactMap { m in
                guard case .context(let tag) = m.tag else { return nil }
                return MatterField(String(tag), tag: tag, inferred(from: m), optional: true)
            })
        case .container(_, let members):
            return .list(members.first.map(inferred) ?? .any)
        }
    }

    static let aclEntry = MatterDataType.structure([
        MatterField("privilege", tag: 1, .enum8), MatterField("authMode", tag: 2, .enum8),
        MatterField("subjects", tag: 3, .nullable(.list(.uint64))),
        MatterField("targets", tag: 4, .nullable(.list(.structure([
            MatterField("cluster", tag: 0, .nullable(.uint32)), MatterField("endpoint", tag: 1, .nullable(.uint16)),
            MatterField("deviceType", tag: 2, .nullable(.uint32)),
        ])))),
        MatterField("fabricIndex", tag: 254, .fabricIndex, optional: true),
    ])

    static let bindingTarget = MatterDataType.structure([
        MatterField("node", tag: 1, .uint64, optional: true), MatterField("group", tag: 2, .uint16, optional: true),
        MatterField("endpoint", tag: 3, .uint16, optional: true), MatterField("cluster", tag: 4, .uint32, optional: true),
        MatterField("fabricIndex", tag: 254, .fabricIndex, optional: true),
    ])

    private static let entries: [(UInt32, [(UInt32, String, MatterDataType)])] = [
        (0x0003, [(0x0000, "Identify.IdentifyTime", .uint16)]),
        (0x0006, [(0x4001, "OnOff.OnTime", .uint16), (0x4002, "OnOff.OffWaitTime", .uint16),
                  (0x4003, "OnOff.StartUpOnOff", .nullable(.enum8))]),
        (0x0008, [(0x000F, "LevelControl.Options", .map8), (0x0010, "LevelControl.OnOffTransitionTime", .uint16),
                  (0x0011, "LevelControl.OnLevel", .nullable(.uint8)), (0x0012, "LevelControl.OnTransitionTime", .nullable(.uint16)),
                  (0x0013, "LevelControl.OffTransitionTime", .nullable(.uint16)),
                  (0x0014, "LevelControl.DefaultMoveRate", .nullable(.uint8)),
                  (0x4000, "LevelControl.StartUpCurrentLevel", .nullable(.uint8))]),
        (0x001E, [(0x0000, "Binding.Binding", .list(bindingTarget))]),
        (0x001F, [(0x0000, "AccessControl.Acl", .list(aclEntry))]),
        (0x0028, [(0x0005, "BasicInformation.NodeLabel", .string), (0x0006, "BasicInformation.Location", .string),
                  (0x0010, "BasicInformation.LocalConfigDisabled", .bool)]),
        (0x0030, [(0x0000, "GeneralCommissioning.Breadcrumb", .uint64)]),
        (0x0039, [(0x0005, "BridgedDeviceBasicInformation.NodeLabel", .string)]),
        (0x002B, [(0x0000, "LocalizationConfiguration.ActiveLocale", .string)]),
        (0x002C, [(0x0000, "TimeFormatLocalization.HourFormat", .enum8),
                  (0x0001, "TimeFormatLocalization.ActiveCalendarType", .enum8)]),
        (0x002D, [(0x0000, "UnitLocalization.TemperatureUnit", .enum8)]),
        (0x0050, [(0x0004, "ModeSelect.StartUpMode", .nullable(.uint8)), (0x0005, "ModeSelect.OnMode", .nullable(.uint8))]),
        (0x0053, [(0x0001, "LaundryWasherControls.SpinSpeedCurrent", .nullable(.uint8)),
                  (0x0002, "LaundryWasherControls.NumberOfRinses", .enum8)]),
        (0x005C, [(0x000B, "SmokeCoAlarm.SmokeSensitivityLevel", .enum8)]),
        (0x0080, [(0x0000, "BooleanStateConfiguration.CurrentSensitivityLevel", .uint8),
                  (0x0005, "BooleanStateConfiguration.AlarmsEnabled", .map8)]),
        (0x0081, [(0x0001, "ValveConfigurationAndControl.DefaultOpenDuration", .nullable(.uint32)),
                  (0x0008, "ValveConfigurationAndControl.DefaultOpenLevel", .uint8)]),
        (0x0101, [(0x0021, "DoorLock.Language", .string), (0x0023, "DoorLock.AutoRelockTime", .uint32),
                  (0x0024, "DoorLock.SoundVolume", .uint8), (0x0025, "DoorLock.OperatingMode", .enum8),
                  (0x0029, "DoorLock.EnableOneTouchLocking", .bool), (0x002A, "DoorLock.EnableInsideStatusLED", .bool),
                  (0x002B, "DoorLock.EnablePrivacyModeButton", .bool), (0x0030, "DoorLock.WrongCodeEntryLimit", .uint8),
                  (0x0031, "DoorLock.UserCodeTemporaryDisableTime", .uint8),
                  (0x0033, "DoorLock.RequirePINforRemoteOperation", .bool)]),
        (0x0102, [(0x0017, "WindowCovering.Mode", .map8)]),
        (0x0200, [(0x0020, "PumpConfigurationAndControl.OperationMode", .enum8),
                  (0x0021, "PumpConfigurationAndControl.ControlMode", .enum8)]),
        (0x0201, [(0x0010, "Thermostat.LocalTemperatureCalibration", .int8),
                  (0x0011, "Thermostat.OccupiedCoolingSetpoint", .int16), (0x0012, "Thermostat.OccupiedHeatingSetpoint", .int16),
                  (0x0013, "Thermostat.UnoccupiedCoolingSetpoint", .int16),
                  (0x0014, "Thermostat.UnoccupiedHeatingSetpoint", .int16),
                  (0x0015, "Thermostat.MinHeatSetpointLimit", .int16), (0x0016, "Thermostat.MaxHeatSetpointLimit", .int16),
                  (0x0017, "Thermostat.MinCoolSetpointLimit", .int16), (0x0018, "Thermostat.MaxCoolSetpointLimit", .int16),
                  (0x0019, "Thermostat.MinSetpointDeadBand", .int8),
                  (0x001B, "Thermostat.ControlSequenceOfOperation", .enum8), (0x001C, "Thermostat.SystemMode", .enum8)]),
        (0x0202, [(0x0000, "FanControl.FanMode", .enum8), (0x0002, "FanControl.PercentSetting", .nullable(.uint8)),
                  (0x0005, "FanControl.SpeedSetting", .nullable(.uint8)), (0x0008, "FanControl.RockSetting", .map8),
                  (0x000A, "FanControl.WindSetting", .map8), (0x000B, "FanControl.AirflowDirection", .enum8)]),
        (0x0204, [(0x0000, "ThermostatUserInterfaceConfiguration.TemperatureDisplayMode", .enum8),
                  (0x0001, "ThermostatUserInterfaceConfiguration.KeypadLockout", .enum8),
                  (0x0002, "ThermostatUserInterfaceConfiguration.ScheduleProgrammingVisibility", .enum8)]),
        (0x0300, [(0x000F, "ColorControl.Options", .map8),
                  (0x4010, "ColorControl.StartUpColorTemperatureMireds", .nullable(.uint16))]),
        (0x0406, [(0x0003, "OccupancySensing.HoldTime", .uint16),
                  (0x0010, "OccupancySensing.PIROccupiedToUnoccupiedDelay", .uint16)]),
    ]
}
