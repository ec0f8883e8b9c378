/// The `device_command` table: (cluster id, command name) -> ``ClusterCommand``, for the clusters
/// Home Assistant drives, each with every command a client sends to it (Operational
/// Credentials: only the two a commissioned node gets outside commissioning). Names, ids, field
/// names and tags, responses and timed invokes are those of the CHIP SDK's Python cluster
/// objects (home-assistant-chip-clusters 2025.7.0 `chip/clusters/Objects.py`, generated from
/// the SDK's cluster XML; `DeviceCommandCatalogTests` checks each against them); field widths
/// from the Matter Application Cluster specification.
public enum DeviceCommandCatalog {
    /// Every command in the table.
    public static let all: [ClusterCommand] =
        OnOffCommands.all + LevelControlCommands.all + ColorControlCommands.all + IdentifyCommands.all
        + DoorLockCommands.all + WindowCoveringCommands.all + ThermostatCommands.all
        + OperationalCredentialsCommands.all + AdministratorCommissioningCommands.all
        + ModeCommands.all + OperationalStateCommands.all + ServiceAreaCommands.all + MaintenanceCommands.all
        + ValveCommands.all + WaterHeaterCommands.all + EnergyEVSECommands.all + ApplianceControlCommands.all
        + ClosureCommands.all + TimeSynchronizationCommands.all

    private static let index: [Key: ClusterCommand] = {
        var table: [Key: ClusterCommand] = [:]
        for c in all { table[Key(cluster: c.clusterID, name: c.name)] = c }
        return table
    }()

    private struct Key: Hashable {
        let cluster: UInt32
        let name: String
    }

    /// The command `name` of cluster `cluster`, or nil when the table does not have it.
    public static func command(cluster: UInt32, name: String) -> ClusterCommand? {
        index[Key(cluster: cluster, name: name)]
    }

    /// The clusters the table covers.
    public static var clusterIDs: Set<UInt32> { Set(all.map(\.clusterID)) }
}
