/// Door Lock (0x0101) commands: locking, users, credentials, schedules, Aliro. Those that
/// change who may enter (and locking itself) require a timed invoke (Home Assistant sends its own).
enum DoorLockCommands {
    static let cluster: UInt32 = 0x0101
    static let pinCode = MatterField("PINCode", tag: 0, .bytes, optional: true)
    static let credentialStruct = MatterDataType.structure([
        MatterField("credentialType", tag: 0, .enum8), MatterField("credentialIndex", tag: 1, .uint16),
    ])
    static let getUserResponse = CommandResponse("GetUserResponse", id: 0x1C, [
        MatterField("userIndex", tag: 0, .uint16),
        MatterField("userName", tag: 1, .nullable(.string)),
        MatterField("userUniqueID", tag: 2, .nullable(.uint32)),
        MatterField("userStatus", tag: 3, .nullable(.enum8)),
        MatterField("userType", tag: 4, .nullable(.enum8)),
        MatterField("credentialRule", tag: 5, .nullable(.enum8)),
        MatterField("credentials", tag: 6, .nullable(.list(credentialStruct))),
        MatterField("creatorFabricIndex", tag: 7, .nullable(.fabricIndex)),
        MatterField("lastModifiedFabricIndex", tag: 8, .nullable(.fabricIndex)),
        MatterField("nextUserIndex", tag: 9, .nullable(.uint16)),
    ])
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "LockDoor", id: 0x00, [pinCode], timed: true),
        ClusterCommand(cluster: cluster, "UnlockDoor", id: 0x01, [pinCode], timed: true),
        ClusterCommand(cluster: cluster, "UnlockWithTimeout", id: 0x03, [
            MatterField("timeout", tag: 0, .uint16), MatterField("PINCode", tag: 1, .bytes, optional: true),
        ], timed: true),
        ClusterCommand(cluster: cluster, "SetUser", id: 0x1A, [
            MatterField("operationType", tag: 0, .enum8), MatterField("userIndex", tag: 1, .uint16),
            MatterField("userName", tag: 2, .nullable(.string)), MatterField("userUniqueID", tag: 3, .nullable(.uint32)),
            MatterField("userStatus", tag: 4, .nullable(.enum8)), MatterField("userType", tag: 5, .nullable(.enum8)),
            MatterField("credentialRule", tag: 6, .nullable(.enum8)),
        ], timed: true),
        ClusterCommand(cluster: cluster, "GetUser", id: 0x1B, [MatterField("userIndex", tag: 0, .uint16)],
                       response: getUserResponse),
        ClusterCommand(cluster: cluster, "ClearUser", id: 0x1D, [MatterField("userIndex", tag: 0, .uint16)], timed: true),
        ClusterCommand(cluster: cluster, "SetCredential", id: 0x22, [
            MatterField("operationType", tag: 0, .enum8), MatterField("credential", tag: 1, credentialStruct),
            MatterField("credentialData", tag: 2, .bytes), MatterField("userIndex", tag: 3, .nullable(.uint16)),
            MatterField("userStatus", tag: 4, .nullable(.enum8)), MatterField("userType", tag: 5, .nullable(.enum8)),
        ], response: CommandResponse("SetCredentialResponse", id: 0x23, [
            MatterField("status", tag: 0, .enum8), MatterField("userIndex", tag: 1, .nullable(.uint16)),
            MatterField("nextCredentialIndex", tag: 2, .nullable(.uint16)),
        ]), timed: true),
        ClusterCommand(cluster: cluster, "GetCredentialStatus", id: 0x24, [MatterField("credential", tag: 0, credentialStruct)],
                       response: CommandResponse("GetCredentialStatusResponse", id: 0x25, [
                           MatterField("credentialExists", tag: 0, .bool), MatterField("userIndex", tag: 1, .nullable(.uint16)),
                           MatterField("creatorFabricIndex", tag: 2, .nullable(.fabricIndex)),
                           MatterField("lastModifiedFabricIndex", tag: 3, .nullable(.fabricIndex)),
                           MatterField("nextCredentialIndex", tag: 4, .nullable(.uint16)),
                           MatterField("credentialData", tag: 5, .nullable(.bytes), optional: true),
                       ])),
        ClusterCommand(cluster: cluster, "ClearCredential", id: 0x26, [MatterField("credential", tag: 0, .nullable(credentialStruct))],
                       timed: true),
        ClusterCommand(cluster: cluster, "UnboltDoor", id: 0x27, [pinCode], timed: true),
        ClusterCommand(cluster: cluster, "SetAliroReaderConfig", id: 0x28, [
            MatterField("signingKey", tag: 0, .bytes), MatterField("verificationKey", tag: 1, .bytes),
            MatterField("groupIdentifier", tag: 2, .bytes), MatterField("groupResolvingKey", tag: 3, .bytes, optional: true),
        ], timed: true),
        ClusterCommand(cluster: cluster, "ClearAliroReaderConfig", id: 0x29, timed: true),
    ] + schedules

    /// Week-day, year-day and holiday schedules (times: epoch seconds in local time).
    static let schedules: [ClusterCommand] = {
        let weekDay = [MatterField("weekDayIndex", tag: 0, .uint8), MatterField("userIndex", tag: 1, .uint16)]
        let yearDay = [MatterField("yearDayIndex", tag: 0, .uint8), MatterField("userIndex", tag: 1, .uint16)]
        let holiday = [MatterField("holidayIndex", tag: 0, .uint8)]
        return [
            ClusterCommand(cluster: cluster, "SetWeekDaySchedule", id: 0x0B, weekDay + [
                MatterField("daysMask", tag: 2, .map8), MatterField("startHour", tag: 3, .uint8),
                MatterField("startMinute", tag: 4, .uint8), MatterField("endHour", tag: 5, .uint8),
                MatterField("endMinute", tag: 6, .uint8),
            ]),
            ClusterCommand(cluster: cluster, "GetWeekDaySchedule", id: 0x0C, weekDay,
                           response: CommandResponse("GetWeekDayScheduleResponse", id: 0x0C, weekDay + [
                               MatterField("status", tag: 2, .enum8), MatterField("daysMask", tag: 3, .map8, optional: true),
                               MatterField("startHour", tag: 4, .uint8, optional: true),
                               MatterField("startMinute", tag: 5, .uint8, optional: true),
                               MatterField("endHour", tag: 6, .uint8, optional: true),
                               MatterField("endMinute", tag: 7, .uint8, optional: true),
                           ])),
            ClusterCommand(cluster: cluster, "ClearWeekDaySchedule", id: 0x0D, weekDay),
            ClusterCommand(cluster: cluster, "SetYearDaySchedule", id: 0x0E, yearDay + [
                MatterField("localStartTime", tag: 2, .uint32), MatterField("localEndTime", tag: 3, .uint32),
            ]),
            ClusterCommand(cluster: cluster, "GetYearDaySchedule", id: 0x0F, yearDay,
                           response: CommandResponse("GetYearDayScheduleResponse", id: 0x0F, yearDay + [
                               MatterField("status", tag: 2, .enum8),
                               MatterField("localStartTime", tag: 3, .uint32, optional: true),
                               MatterField("localEndTime", tag: 4, .uint32, optional: true),
                           ])),
            ClusterCommand(cluster: cluster, "ClearYearDaySchedule", id: 0x10, yearDay),
            ClusterCommand(cluster: cluster, "SetHolidaySchedule", id: 0x11, holiday + [
                MatterField("localStartTime", tag: 1, .uint32), MatterField("localEndTime", tag: 2, .uint32),
                MatterField("operatingMode", tag: 3, .enum8),
            ]),
            ClusterCommand(cluster: cluster, "GetHolidaySchedule", id: 0x12, holiday,
                           response: CommandResponse("GetHolidayScheduleResponse", id: 0x12, holiday + [
                               MatterField("status", tag: 1, .enum8),
                               MatterField("localStartTime", tag: 2, .uint32, optional: true),
                               MatterField("localEndTime", tag: 3, .uint32, optional: true),
                               MatterField("operatingMode", tag: 4, .enum8, optional: true),
                           ])),
            ClusterCommand(cluster: cluster, "ClearHolidaySchedule", id: 0x13, holiday),
        ]
    }()
}

/// Window Covering (0x0102) commands.
enum WindowCoveringCommands {
    static let cluster: UInt32 = 0x0102
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "UpOrOpen", id: 0x00),
        ClusterCommand(cluster: cluster, "DownOrClose", id: 0x01),
        ClusterCommand(cluster: cluster, "StopMotion", id: 0x02),
        ClusterCommand(cluster: cluster, "GoToLiftValue", id: 0x04, [MatterField("liftValue", tag: 0, .uint16)]),
        ClusterCommand(cluster: cluster, "GoToLiftPercentage", id: 0x05, [MatterField("liftPercent100thsValue", tag: 0, .uint16)]),
        ClusterCommand(cluster: cluster, "GoToTiltValue", id: 0x07, [MatterField("tiltValue", tag: 0, .uint16)]),
        ClusterCommand(cluster: cluster, "GoToTiltPercentage", id: 0x08, [MatterField("tiltPercent100thsValue", tag: 0, .uint16)]),
    ]
}

/// Thermostat (0x0201) commands: setpoint steps, weekly schedules, presets and schedules by
/// handle, atomic writes. (The setpoints themselves are attributes, written with
/// write_attribute: OccupiedHeatingSetpoint 0x0012, OccupiedCoolingSetpoint 0x0011.)
enum ThermostatCommands {
    static let cluster: UInt32 = 0x0201
    /// The fields of SetWeeklySchedule and of GetWeeklySchedule's response.
    static let weeklySchedule = [
        MatterField("numberOfTransitionsForSequence", tag: 0, .uint8), MatterField("dayOfWeekForSequence", tag: 1, .map8),
        MatterField("modeForSequence", tag: 2, .map8),
        MatterField("transitions", tag: 3, .list(.structure([
            MatterField("transitionTime", tag: 0, .uint16), MatterField("heatSetpoint", tag: 1, .nullable(.int16)),
            MatterField("coolSetpoint", tag: 2, .nullable(.int16)),
        ]))),
    ]
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "SetpointRaiseLower", id: 0x00, [
            MatterField("mode", tag: 0, .enum8), MatterField("amount", tag: 1, .int8),
        ]),
        ClusterCommand(cluster: cluster, "SetWeeklySchedule", id: 0x01, weeklySchedule),
        ClusterCommand(cluster: cluster, "GetWeeklySchedule", id: 0x02, [
            MatterField("daysToReturn", tag: 0, .map8), MatterField("modeToReturn", tag: 1, .map8),
        ], response: CommandResponse("GetWeeklyScheduleResponse", id: 0x00, weeklySchedule)),
        ClusterCommand(cluster: cluster, "ClearWeeklySchedule", id: 0x03),
        ClusterCommand(cluster: cluster, "SetActiveScheduleRequest", id: 0x05, [MatterField("scheduleHandle", tag: 0, .bytes)]),
        ClusterCommand(cluster: cluster, "SetActivePresetRequest", id: 0x06, [MatterField("presetHandle", tag: 0, .nullable(.bytes))]),
        ClusterCommand(cluster: cluster, "AtomicRequest", id: 0xFE, [
            MatterField("requestType", tag: 0, .enum8), MatterField("attributeRequests", tag: 1, .list(.uint32)),
            MatterField("timeout", tag: 2, .uint16, optional: true),
        ], response: CommandResponse("AtomicResponse", id: 0xFD, [
            MatterField("statusCode", tag: 0, .uint8),
            MatterField("attributeStatus", tag: 1, .list(.structure([
                MatterField("attributeID", tag: 0, .uint32), MatterField("statusCode", tag: 1, .uint8),
            ]))),
            MatterField("timeout", tag: 2, .uint16, optional: true),
        ])),
    ]
}

/// Operational Credentials (0x003E): the fabric commands a controller sends to a commissioned
/// node (RemoveFabric backs the client's remove_matter_fabric).
enum OperationalCredentialsCommands {
    static let cluster: UInt32 = 0x003E
    static let nocResponse = CommandResponse("NOCResponse", id: 0x08, [
        MatterField("statusCode", tag: 0, .enum8), MatterField("fabricIndex", tag: 1, .fabricIndex, optional: true),
        MatterField("debugText", tag: 2, .string, optional: true),
    ])
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "UpdateFabricLabel", id: 0x09, [MatterField("label", tag: 0, .string)],
                       response: nocResponse),
        ClusterCommand(cluster: cluster, "RemoveFabric", id: 0x0A, [MatterField("fabricIndex", tag: 0, .fabricIndex)],
                       response: nocResponse),
    ]
}

/// Administrator Commissioning (0x003C): every command requires a timed invoke.
enum AdministratorCommissioningCommands {
    static let cluster: UInt32 = 0x003C
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "OpenCommissioningWindow", id: 0x00, [
            MatterField("commissioningTimeout", tag: 0, .uint16), MatterField("PAKEPasscodeVerifier", tag: 1, .bytes),
            MatterField("discriminator", tag: 2, .uint16), MatterField("iterations", tag: 3, .uint32),
            MatterField("salt", tag: 4, .bytes),
        ], timed: true),
        ClusterCommand(cluster: cluster, "OpenBasicCommissioningWindow", id: 0x01, [
            MatterField("commissioningTimeout", tag: 0, .uint16),
        ], timed: true),
        ClusterCommand(cluster: cluster, "RevokeCommissioning", id: 0x02, timed: true),
    ]
}
