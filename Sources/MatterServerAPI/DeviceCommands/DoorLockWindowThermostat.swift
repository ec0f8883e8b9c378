/// Door Lock (0x0101) commands. LockDoor, UnlockDoor, UnlockWithTimeout, UnboltDoor, SetUser
/// and ClearUser require a timed invoke (Home Assistant sends 1000 ms).
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
        ClusterCommand(cluster: cluster, "UnboltDoor", id: 0x27, [pinCode], timed: true),
    ]
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

/// Thermostat (0x0201) setpoint command. (The setpoints themselves are attributes, written with
/// write_attribute: OccupiedHeatingSetpoint 0x0012, OccupiedCoolingSetpoint 0x0011.)
enum ThermostatCommands {
    static let cluster: UInt32 = 0x0201
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "SetpointRaiseLower", id: 0x00, [
            MatterField("mode", tag: 0, .enum8), MatterField("amount", tag: 1, .int8),
        ]),
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
