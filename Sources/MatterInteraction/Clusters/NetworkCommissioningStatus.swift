import MatterClusters

extension Clusters.NetworkCommissioning {
    /// NetworkCommissioningStatusEnum (Matter Core 11.9.5.1): the outcome of ScanNetworks,
    /// AddOrUpdateWiFiNetwork, AddOrUpdateThreadNetwork, RemoveNetwork, ConnectNetwork and
    /// ReorderNetwork, and the LastNetworkingStatus attribute. Unknown values round-trip.
    public typealias Status = NetworkCommissioningStatusEnum
}
