import MatterTLV

/// A cluster event as `node_event` names its fields: the event id, and its fields
/// (name <-> tag <-> type, as the chip Python classes spell them).
public struct ClusterEvent: Hashable, Sendable {
    public var clusterID: UInt32
    public var name: String
    public var id: UInt32
    public var fields: [MatterField]

    public init(cluster: UInt32, _ name: String, id: UInt32, _ fields: [MatterField] = []) {
        self.clusterID = cluster
        self.name = name
        self.id = id
        self.fields = fields
    }
}

/// The events whose data this hub sends name-keyed in `node_event` (ws-api.md section 5.3):
/// BasicInformation, Switch, DoorLock and BooleanState, checked against the chip cluster objects
/// (testvectors/matter-server/cluster_schema.json). The data of any other event is sent
/// tag-keyed (`{"0": 1}`), the attribute encoding, since its field names are unknown here.
public enum ClusterEventCatalog {
    static let basicInformation: UInt32 = 0x0028
    static let `switch`: UInt32 = 0x003B
    static let doorLock: UInt32 = 0x0101
    static let booleanState: UInt32 = 0x0045

    public static let all: [ClusterEvent] = [
        ClusterEvent(cluster: basicInformation, "StartUp", id: 0, [MatterField("softwareVersion", tag: 0, .uint32)]),
        ClusterEvent(cluster: basicInformation, "ShutDown", id: 1),
        ClusterEvent(cluster: basicInformation, "Leave", id: 2, [MatterField("fabricIndex", tag: 0, .fabricIndex)]),
        ClusterEvent(cluster: basicInformation, "ReachableChanged", id: 3, [MatterField("reachableNewValue", tag: 0, .bool)]),
        ClusterEvent(cluster: `switch`, "SwitchLatched", id: 0, [MatterField("newPosition", tag: 0, .uint8)]),
        ClusterEvent(cluster: `switch`, "InitialPress", id: 1, [MatterField("newPosition", tag: 0, .uint8)]),
        ClusterEvent(cluster: `switch`, "LongPress", id: 2, [MatterField("newPosition", tag: 0, .uint8)]),
        ClusterEvent(cluster: `switch`, "ShortRelease", id: 3, [MatterField("previousPosition", tag: 0, .uint8)]),
        ClusterEvent(cluster: `switch`, "LongRelease", id: 4, [MatterField("previousPosition", tag: 0, .uint8)]),
        ClusterEvent(cluster: `switch`, "MultiPressOngoing", id: 5, [MatterField("newPosition", tag: 0, .uint8),
                                                                   MatterField("currentNumberOfPressesCounted", tag: 1, .uint8)]),
        ClusterEvent(cluster: `switch`, "MultiPressComplete", id: 6, [MatterField("previousPosition", tag: 0, .uint8),
                                                                    MatterField("totalNumberOfPressesCounted", tag: 1, .uint8)]),
        ClusterEvent(cluster: doorLock, "DoorLockAlarm", id: 0, [MatterField("alarmCode", tag: 0, .enum8)]),
        ClusterEvent(cluster: doorLock, "DoorStateChange", id: 1, [MatterField("doorState", tag: 0, .enum8)]),
        ClusterEvent(cluster: doorLock, "LockOperation", id: 2, [
            MatterField("lockOperationType", tag: 0, .enum8), MatterField("operationSource", tag: 1, .enum8),
            MatterField("userIndex", tag: 2, .nullable(.uint16)), MatterField("fabricIndex", tag: 3, .nullable(.fabricIndex)),
            MatterField("sourceNode", tag: 4, .nullable(.uint64)),
            MatterField("credentials", tag: 5, .nullable(.list(.structure([MatterField("credentialType", tag: 0, .enum8),
                                                                          MatterField("credentialIndex", tag: 1, .uint16)]))),
                        optional: true),
        ]),
        ClusterEvent(cluster: booleanState, "StateChange", id: 0, [MatterField("stateValue", tag: 0, .bool)]),
    ]

    private static let byID: [UInt64: ClusterEvent] = Dictionary(uniqueKeysWithValues: all.map { (key($0.clusterID, $0.id), $0) })

    private static func key(_ cluster: UInt32, _ event: UInt32) -> UInt64 { UInt64(cluster) << 32 | UInt64(event) }

    public static func event(cluster: UInt32, id: UInt32) -> ClusterEvent? { byID[key(cluster, id)] }

    /// The `data` of a `node_event`: name-keyed for a known event, tag-keyed otherwise; null when
    /// the device sent data that does not fit the event's fields.
    public static func json(cluster: UInt32, event: UInt32, data: TLVElement) -> JSONValue {
        if let known = self.event(cluster: cluster, id: event) {
            return (try? NameKeyedCoding.json(from: data, fields: known.fields, path: known.name)) ?? .null
        }
        return (try? AttributeValueCoding.json(from: data)) ?? .null
    }
}
