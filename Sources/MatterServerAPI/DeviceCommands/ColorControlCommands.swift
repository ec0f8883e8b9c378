/// Color Control (0x0300) commands: hue/saturation (and enhanced hue), XY, color temperature.
enum ColorControlCommands {
    static let cluster: UInt32 = 0x0300

    /// optionsMask/optionsOverride (map8) at tags `first` and `first + 1`.
    static func options(_ first: UInt8) -> [MatterField] {
        [MatterField("optionsMask", tag: first, .map8), MatterField("optionsOverride", tag: first + 1, .map8)]
    }

    static let all: [ClusterCommand] = [
        ClusterCommand(cluster: cluster, "MoveToHue", id: 0x00, [
            MatterField("hue", tag: 0, .uint8), MatterField("direction", tag: 1, .enum8),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveHue", id: 0x01, [
            MatterField("moveMode", tag: 0, .enum8), MatterField("rate", tag: 1, .uint8),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "StepHue", id: 0x02, [
            MatterField("stepMode", tag: 0, .enum8), MatterField("stepSize", tag: 1, .uint8),
            MatterField("transitionTime", tag: 2, .uint8),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveToSaturation", id: 0x03, [
            MatterField("saturation", tag: 0, .uint8), MatterField("transitionTime", tag: 1, .uint16),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "MoveSaturation", id: 0x04, [
            MatterField("moveMode", tag: 0, .enum8), MatterField("rate", tag: 1, .uint8),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "StepSaturation", id: 0x05, [
            MatterField("stepMode", tag: 0, .enum8), MatterField("stepSize", tag: 1, .uint8),
            MatterField("transitionTime", tag: 2, .uint8),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveToHueAndSaturation", id: 0x06, [
            MatterField("hue", tag: 0, .uint8), MatterField("saturation", tag: 1, .uint8),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveToColor", id: 0x07, [
            MatterField("colorX", tag: 0, .uint16), MatterField("colorY", tag: 1, .uint16),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveColor", id: 0x08, [
            MatterField("rateX", tag: 0, .int16), MatterField("rateY", tag: 1, .int16),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "StepColor", id: 0x09, [
            MatterField("stepX", tag: 0, .int16), MatterField("stepY", tag: 1, .int16),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "MoveToColorTemperature", id: 0x0A, [
            MatterField("colorTemperatureMireds", tag: 0, .uint16), MatterField("transitionTime", tag: 1, .uint16),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "EnhancedMoveToHue", id: 0x40, [
            MatterField("enhancedHue", tag: 0, .uint16), MatterField("direction", tag: 1, .enum8),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "EnhancedMoveHue", id: 0x41, [
            MatterField("moveMode", tag: 0, .enum8), MatterField("rate", tag: 1, .uint16),
        ] + options(2)),
        ClusterCommand(cluster: cluster, "EnhancedStepHue", id: 0x42, [
            MatterField("stepMode", tag: 0, .enum8), MatterField("stepSize", tag: 1, .uint16),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "EnhancedMoveToHueAndSaturation", id: 0x43, [
            MatterField("enhancedHue", tag: 0, .uint16), MatterField("saturation", tag: 1, .uint8),
            MatterField("transitionTime", tag: 2, .uint16),
        ] + options(3)),
        ClusterCommand(cluster: cluster, "ColorLoopSet", id: 0x44, [
            MatterField("updateFlags", tag: 0, .map8), MatterField("action", tag: 1, .enum8),
            MatterField("direction", tag: 2, .enum8), MatterField("time", tag: 3, .uint16),
            MatterField("startHue", tag: 4, .uint16),
        ] + options(5)),
        ClusterCommand(cluster: cluster, "StopMoveStep", id: 0x47, options(0)),
        ClusterCommand(cluster: cluster, "MoveColorTemperature", id: 0x4B, [
            MatterField("moveMode", tag: 0, .enum8), MatterField("rate", tag: 1, .uint16),
            MatterField("colorTemperatureMinimumMireds", tag: 2, .uint16),
            MatterField("colorTemperatureMaximumMireds", tag: 3, .uint16),
        ] + options(4)),
        ClusterCommand(cluster: cluster, "StepColorTemperature", id: 0x4C, [
            MatterField("stepMode", tag: 0, .enum8), MatterField("stepSize", tag: 1, .uint16),
            MatterField("transitionTime", tag: 2, .uint16),
            MatterField("colorTemperatureMinimumMireds", tag: 3, .uint16),
            MatterField("colorTemperatureMaximumMireds", tag: 4, .uint16),
        ] + options(5)),
    ]
}
