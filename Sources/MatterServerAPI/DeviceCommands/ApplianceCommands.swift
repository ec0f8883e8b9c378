/// The appliance and energy clusters Home Assistant drives (its select, button, vacuum, valve,
/// water heater, switch and number entities): modes, operational states, service areas, filters,
/// alarms, valves, water heaters, EV chargers, temperature and microwave control, fans.

/// ChangeToMode of the mode clusters. Mode Select (0x0050) answers with a status; the clusters
/// built on Mode Base answer ChangeToModeResponse. (Microwave Oven Mode, 0x005E, has no
/// ChangeToMode: its mode is the oven's to set.)
enum ModeCommands {
    static let modeBaseClusters: [UInt32] = [
        0x0049,  // Oven Mode
        0x0051,  // Laundry Washer Mode
        0x0052,  // Refrigerator And Temperature Controlled Cabinet Mode
        0x0054,  // RVC Run Mode
        0x0055,  // RVC Clean Mode
        0x0059,  // Dishwasher Mode
        0x009D,  // Energy EVSE Mode
        0x009E,  // Water Heater Mode
        0x009F,  // Device Energy Management Mode
    ]
    static let newMode = [MatterField("newMode", tag: 0, .uint8)]
    static let all: [ClusterCommand] = [ClusterCommand(cluster: 0x0050, "ChangeToMode", id: 0x00, newMode)]
        + modeBaseClusters.map { cluster in
            ClusterCommand(cluster: cluster, "ChangeToMode", id: 0x00, newMode, response: CommandResponse("ChangeToModeResponse", id: 0x01, [
                MatterField("status", tag: 0, .enum8), MatterField("statusText", tag: 1, .string, optional: true),
            ]))
        }
}

/// Operational State (0x0060) and the clusters derived from it, RVC Operational State (0x0061)
/// and Oven Cavity Operational State (0x0048): each command answers OperationalCommandResponse.
enum OperationalStateCommands {
    static let response = CommandResponse("OperationalCommandResponse", id: 0x04, [
        MatterField("commandResponseState", tag: 0, .structure([
            MatterField("errorStateID", tag: 0, .enum8), MatterField("errorStateLabel", tag: 1, .string, optional: true),
            MatterField("errorStateDetails", tag: 2, .string, optional: true),
        ])),
    ])
    static func command(_ cluster: UInt32, _ name: String, _ id: UInt32) -> ClusterCommand {
        ClusterCommand(cluster: cluster, name, id: id, response: response)
    }
    static let all: [ClusterCommand] = [
        command(0x0060, "Pause", 0x00), command(0x0060, "Stop", 0x01), command(0x0060, "Start", 0x02),
        command(0x0060, "Resume", 0x03),
        command(0x0061, "Pause", 0x00), command(0x0061, "Resume", 0x03), command(0x0061, "GoHome", 0x80),
        command(0x0048, "Stop", 0x01), command(0x0048, "Start", 0x02),
    ]
}

/// Service Area (0x0150): the areas a robot cleans.
enum ServiceAreaCommands {
    static let cluster: UInt32 = 0x0150
    static func response(_ name: String, _ id: UInt32) -> CommandResponse {
        CommandResponse(name, id: id, [MatterField("status", tag: 0, .enum8), MatterField("statusText", tag: 1, .string)])
    }
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "SelectAreas", id: 0x00, [MatterField("newAreas", tag: 0, .list(.uint32))],
                       response: response("SelectAreasResponse", 0x01)),
        ClusterCommand(cluster: cluster, "SkipArea", id: 0x02, [MatterField("skippedArea", tag: 0, .uint32)],
                       response: response("SkipAreaResponse", 0x03)),
    ]
}

/// Resets, self-tests and alarms: HEPA (0x0071) and activated carbon (0x0072) filter
/// monitoring, Smoke CO Alarm (0x005C), Boolean State Configuration (0x0080).
enum MaintenanceCommands {
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: 0x0071, "ResetCondition", id: 0x00),
        ClusterCommand(cluster: 0x0072, "ResetCondition", id: 0x00),
        ClusterCommand(cluster: 0x005C, "SelfTestRequest", id: 0x00),
        ClusterCommand(cluster: 0x0080, "SuppressAlarm", id: 0x00, [MatterField("alarmsToSuppress", tag: 0, .map8)]),
        ClusterCommand(cluster: 0x0080, "EnableDisableAlarm", id: 0x01, [MatterField("alarmsToEnableDisable", tag: 0, .map8)]),
    ]
}

/// Valve Configuration and Control (0x0081).
enum ValveCommands {
    static let cluster: UInt32 = 0x0081
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "Open", id: 0x00, [
            MatterField("openDuration", tag: 0, .nullable(.uint32), optional: true),
            MatterField("targetLevel", tag: 1, .uint8, optional: true),
        ]),
        ClusterCommand(cluster: cluster, "Close", id: 0x01),
    ]
}

/// Water Heater Management (0x0094): a boost and its cancellation.
enum WaterHeaterCommands {
    static let cluster: UInt32 = 0x0094
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "Boost", id: 0x00, [
            MatterField("boostInfo", tag: 0, .structure([
                MatterField("duration", tag: 0, .uint32), MatterField("oneShot", tag: 1, .bool, optional: true),
                MatterField("emergencyBoost", tag: 2, .bool, optional: true),
                MatterField("temporarySetpoint", tag: 3, .int16, optional: true),
                MatterField("targetPercentage", tag: 4, .uint8, optional: true),
                MatterField("targetReheat", tag: 5, .uint8, optional: true),
            ])),
        ]),
        ClusterCommand(cluster: cluster, "CancelBoost", id: 0x01),
    ]
}

/// Energy EVSE (0x0099), an EV charger: every command requires a timed invoke. Currents are
/// in mA, times in epoch seconds, energy in mWh.
enum EnergyEVSECommands {
    static let cluster: UInt32 = 0x0099
    static let chargingTargetSchedules = MatterField("chargingTargetSchedules", tag: 0, .list(.structure([
        MatterField("dayOfWeekForSequence", tag: 0, .map8),
        MatterField("chargingTargets", tag: 1, .list(.structure([
            MatterField("targetTimeMinutesPastMidnight", tag: 0, .uint16),
            MatterField("targetSoC", tag: 1, .uint8, optional: true),
            MatterField("addedEnergy", tag: 2, .int64, optional: true),
        ]))),
    ])))
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "Disable", id: 0x01, timed: true),
        ClusterCommand(cluster: cluster, "EnableCharging", id: 0x02, [
            MatterField("chargingEnabledUntil", tag: 0, .nullable(.uint32)),
            MatterField("minimumChargeCurrent", tag: 1, .int64), MatterField("maximumChargeCurrent", tag: 2, .int64),
        ], timed: true),
        ClusterCommand(cluster: cluster, "EnableDischarging", id: 0x03, [
            MatterField("dischargingEnabledUntil", tag: 0, .nullable(.uint32)),
            MatterField("maximumDischargeCurrent", tag: 1, .int64),
        ], timed: true),
        ClusterCommand(cluster: cluster, "StartDiagnostics", id: 0x04, timed: true),
        ClusterCommand(cluster: cluster, "SetTargets", id: 0x05, [chargingTargetSchedules], timed: true),
        ClusterCommand(cluster: cluster, "GetTargets", id: 0x06,
                       response: CommandResponse("GetTargetsResponse", id: 0x00, [chargingTargetSchedules]), timed: true),
        ClusterCommand(cluster: cluster, "ClearTargets", id: 0x07, timed: true),
    ]
}

/// Temperature Control (0x0056), Microwave Oven Control (0x005F) and Fan Control's Step (0x0202).
enum ApplianceControlCommands {
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: 0x0056, "SetTemperature", id: 0x00, [
            MatterField("targetTemperature", tag: 0, .int16, optional: true),
            MatterField("targetTemperatureLevel", tag: 1, .uint8, optional: true),
        ]),
        ClusterCommand(cluster: 0x005F, "SetCookingParameters", id: 0x00, [
            MatterField("cookMode", tag: 0, .uint8, optional: true), MatterField("cookTime", tag: 1, .uint32, optional: true),
            MatterField("powerSetting", tag: 2, .uint8, optional: true),
            MatterField("wattSettingIndex", tag: 3, .uint8, optional: true),
            MatterField("startAfterSetting", tag: 4, .bool, optional: true),
        ]),
        ClusterCommand(cluster: 0x005F, "AddMoreTime", id: 0x01, [MatterField("timeToAdd", tag: 0, .uint32)]),
        ClusterCommand(cluster: 0x0202, "Step", id: 0x00, [
            MatterField("direction", tag: 0, .enum8), MatterField("wrap", tag: 1, .bool, optional: true),
            MatterField("lowestOff", tag: 2, .bool, optional: true),
        ]),
    ]
}

/// Closure Control (0x0104) and Closure Dimension (0x0105), the closures of Matter 1.5 (Home
/// Assistant's covers for them).
enum ClosureCommands {
    static let speed = MatterField("speed", tag: 2, .enum8, optional: true)
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: 0x0104, "Stop", id: 0x00),
        ClusterCommand(cluster: 0x0104, "MoveTo", id: 0x01, [
            MatterField("position", tag: 0, .enum8, optional: true), MatterField("latch", tag: 1, .bool, optional: true), speed,
        ]),
        ClusterCommand(cluster: 0x0104, "Calibrate", id: 0x02),
        ClusterCommand(cluster: 0x0105, "SetTarget", id: 0x00, [
            MatterField("position", tag: 0, .uint16, optional: true), MatterField("latch", tag: 1, .bool, optional: true), speed,
        ]),
        ClusterCommand(cluster: 0x0105, "Step", id: 0x01, [
            MatterField("direction", tag: 0, .enum8), MatterField("numberOfSteps", tag: 1, .uint16), speed,
        ]),
    ]
}

/// Time Synchronization (0x0038): Home Assistant's "sync time" button sets the UTC time, the
/// time zone and the DST offsets (times in microseconds since 2000-01-01).
enum TimeSynchronizationCommands {
    static let cluster: UInt32 = 0x0038
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "SetUTCTime", id: 0x00, [
            MatterField("UTCTime", tag: 0, .uint64), MatterField("granularity", tag: 1, .enum8),
            MatterField("timeSource", tag: 2, .enum8, optional: true),
        ]),
        ClusterCommand(cluster: cluster, "SetTrustedTimeSource", id: 0x01, [
            MatterField("trustedTimeSource", tag: 0, .nullable(.structure([
                MatterField("nodeID", tag: 0, .uint64), MatterField("endpoint", tag: 1, .uint16),
            ]))),
        ]),
        ClusterCommand(cluster: cluster, "SetTimeZone", id: 0x02, [
            MatterField("timeZone", tag: 0, .list(.structure([
                MatterField("offset", tag: 0, .int32), MatterField("validAt", tag: 1, .uint64),
                MatterField("name", tag: 2, .string, optional: true),
            ]))),
        ], response: CommandResponse("SetTimeZoneResponse", id: 0x03, [MatterField("DSTOffsetRequired", tag: 0, .bool)])),
        ClusterCommand(cluster: cluster, "SetDSTOffset", id: 0x04, [
            MatterField("DSTOffset", tag: 0, .list(.structure([
                MatterField("offset", tag: 0, .int32), MatterField("validStarting", tag: 1, .uint64),
                MatterField("validUntil", tag: 2, .nullable(.uint64)),
            ]))),
        ]),
        ClusterCommand(cluster: cluster, "SetDefaultNTP", id: 0x05, [MatterField("defaultNTP", tag: 0, .nullable(.string))]),
    ]
}
