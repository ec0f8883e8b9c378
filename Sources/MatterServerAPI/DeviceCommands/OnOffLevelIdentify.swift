/// On/Off (0x0006) commands.
enum OnOffCommands {
    static let cluster: UInt32 = 0x0006
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "Off", id: 0x00),
        ClusterCommand(cluster: cluster, "On", id: 0x01),
        ClusterCommand(cluster: cluster, "Toggle", id: 0x02),
        ClusterCommand(cluster: cluster, "OffWithEffect", id: 0x40, [
            MatterField("effectIdentifier", tag: 0, .enum8), MatterField("effectVariant", tag: 1, .uint8),
        ]),
        ClusterCommand(cluster: cluster, "OnWithRecallGlobalScene", id: 0x41),
        ClusterCommand(cluster: cluster, "OnWithTimedOff", id: 0x42, [
            MatterField("onOffControl", tag: 0, .map8), MatterField("onTime", tag: 1, .uint16),
            MatterField("offWaitTime", tag: 2, .uint16),
        ]),
    ]
}

/// Level Control (0x0008) commands.
enum LevelControlCommands {
    static let cluster: UInt32 = 0x0008
    static let options = [MatterField("optionsMask", tag: 2, .map8), MatterField("optionsOverride", tag: 3, .map8)]
    static func moveToLevel(_ name: String, _ id: UInt32) -> ClusterCommand {
        ClusterCommand(cluster: cluster, name, id: id, [
            MatterField("level", tag: 0, .uint8), MatterField("transitionTime", tag: 1, .nullable(.uint16)),
        ] + options)
    }
    static func move(_ name: String, _ id: UInt32) -> ClusterCommand {
        ClusterCommand(cluster: cluster, name, id: id, [
            MatterField("moveMode", tag: 0, .enum8), MatterField("rate", tag: 1, .nullable(.uint8)),
        ] + options)
    }
    static func step(_ name: String, _ id: UInt32) -> ClusterCommand {
        ClusterCommand(cluster: cluster, name, id: id, [
            MatterField("stepMode", tag: 0, .enum8), MatterField("stepSize", tag: 1, .uint8),
            MatterField("transitionTime", tag: 2, .nullable(.uint16)),
            MatterField("optionsMask", tag: 3, .map8), MatterField("optionsOverride", tag: 4, .map8),
        ])
    }
    static func stop(_ name: String, _ id: UInt32) -> ClusterCommand {
        ClusterCommand(cluster: cluster, name, id: id, [
            MatterField("optionsMask", tag: 0, .map8), MatterField("optionsOverride", tag: 1, .map8),
        ])
    }
    static let all: [ClusterCommand] = [
        moveToLevel("MoveToLevel", 0x00), move("Move", 0x01), step("Step", 0x02), stop("Stop", 0x03),
        moveToLevel("MoveToLevelWithOnOff", 0x04), move("MoveWithOnOff", 0x05), step("StepWithOnOff", 0x06),
        stop("StopWithOnOff", 0x07),
        ClusterCommand(cluster: cluster, "MoveToClosestFrequency", id: 0x08, [MatterField("frequency", tag: 0, .uint16)]),
    ]
}

/// Identify (0x0003) commands.
enum IdentifyCommands {
    static let cluster: UInt32 = 0x0003
    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "Identify", id: 0x00, [MatterField("identifyTime", tag: 0, .uint16)]),
        ClusterCommand(cluster: cluster, "TriggerEffect", id: 0x40, [
            MatterField("effectIdentifier", tag: 0, .enum8), MatterField("effectVariant", tag: 1, .enum8),
        ]),
    ]
}
