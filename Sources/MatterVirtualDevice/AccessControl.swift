import MatterClusters
import MatterInteraction
import MatterTLV

/// Access control (Matter Core 6.6): which privilege a session holds on a path, from the ACL.
/// PASE sessions hold an implicit Administer privilege while commissioning; CASE sessions hold
/// what the entries of their fabric grant their node ID or CATs.
enum AccessControl {
    typealias Privilege = Clusters.AccessControl.Privilege

    /// Whether `context` holds `required` on `endpoint`/`cluster`.
    static func allows(_ required: Privilege, endpoint: EndpointID, cluster: ClusterID, deviceTypes: [UInt32],
                       context: IMSessionContext, acl: [ACLRecord]) -> Bool {
        if context.authMode == .pase { return true }
        guard context.authMode == .case, let fabric = context.fabricIndex, let node = context.peerNodeID else { return false }
        for record in acl where record.fabricIndex == fabric && record.authMode == Clusters.AccessControl.AuthMode.case.rawValue {
            guard grants(Privilege(rawValue: record.privilege), required) else { continue }
            if let subjects = record.subjects, !subjects.isEmpty,
               !subjects.contains(where: { matches(subject: $0, node: node, cats: context.caseAuthenticatedTags) }) { continue }
            if let targets = record.targets, !targets.isEmpty, !targets.contains(where: {
                ($0.cluster == nil || $0.cluster == cluster.rawValue) && ($0.endpoint == nil || $0.endpoint == endpoint.rawValue)
                    && ($0.deviceType == nil || deviceTypes.contains($0.deviceType!))
            }) { continue }
            return true
        }
        return false
    }

    /// Administer implies Manage implies Operate implies View; ProxyView implies View.
    static func grants(_ held: Privilege, _ required: Privilege) -> Bool {
        if held == required { return true }
        switch required {
        case .view: return held != .view
        case .proxyView: return held == .administer
        case .operate: return held == .manage || held == .administer
        case .manage: return held == .administer
        default: return false
        }
    }

    /// A subject is a node ID or a CAT (0xFFFFFFFD_IIIIVVVV): a CAT matches a peer CAT with the
    /// same identifier and an equal or higher version.
    static func matches(subject: UInt64, node: UInt64, cats: [UInt32]) -> Bool {
        if subject == node { return true }
        guard subject >> 32 == 0xFFFF_FFFD else { return false }
        let id = UInt16(truncatingIfNeeded: subject >> 16), version = UInt16(truncatingIfNeeded: subject)
        return cats.contains { UInt16($0 >> 16) == id && UInt16(truncatingIfNeeded: $0) >= version }
    }

    /// The privilege reading an attribute needs.
    static func readPrivilege(_ cluster: ClusterID, _ attribute: AttributeID) -> Privilege {
        switch (cluster, attribute) {
        case (.accessControl, _): .administer
        // RegisteredClients and ICDCounter (Matter Core 9.16.6).
        case (.icdManagement, Clusters.IcdManagement.Attribute.registeredClients), (.icdManagement, Clusters.IcdManagement.Attribute.icdCounter): .administer
        default: .view
        }
    }

    /// The privilege writing an attribute needs.
    static func writePrivilege(_ cluster: ClusterID, _ attribute: AttributeID) -> Privilege {
        switch cluster {
        case .accessControl, .otaSoftwareUpdateRequestor, .networkCommissioning: return .administer
        case .basicInformation, .bridgedDeviceBasicInformation, .generalCommissioning: return .manage
        default: return .operate
        }
    }

    /// The privilege invoking a command needs.
    static func invokePrivilege(_ cluster: ClusterID) -> Privilege {
        switch cluster {
        case .generalCommissioning, .operationalCredentials, .administratorCommissioning, .accessControl,
             .networkCommissioning: return .administer
        case .icdManagement: return .manage  // RegisterClient, UnregisterClient (StayActiveRequest needs only Operate)
        default: return .operate
        }
    }
}
