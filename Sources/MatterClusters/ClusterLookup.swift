import MatterTLV

/// Lookups in the generated model by ID or name (cluster names ignore case; command names are
/// the SDK's exact spelling, as `device_command` takes them).
extension Clusters {
    public static func cluster(id: UInt32) -> ClusterDefinition? { generatedDefinition(id: id) }
    public static func cluster(named name: String) -> ClusterDefinition? {
        generatedID(lowercasedName: name.lowercased()).flatMap(generatedDefinition(id:))
    }

    public static func attribute(cluster: UInt32, id: UInt32) -> AttributeDefinition? { self.cluster(id: cluster)?.attribute(id: id) }
    public static func command(cluster: UInt32, name: String) -> ClusterCommand? { self.cluster(id: cluster)?.command(named: name) }
    public static func event(cluster: UInt32, id: UInt32) -> ClusterEvent? { self.cluster(id: cluster)?.event(id: id) }
}

/// Global attributes every cluster has (Matter Core 7.13).
extension AttributeID {
    public static let generatedCommandList: AttributeID = 0xFFF8
    public static let acceptedCommandList: AttributeID = 0xFFF9
    public static let eventList: AttributeID = 0xFFFA
    public static let attributeList: AttributeID = 0xFFFB
    public static let featureMap: AttributeID = 0xFFFC
    public static let clusterRevision: AttributeID = 0xFFFD
}
