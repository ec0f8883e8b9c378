import MatterClusters
import MatterTLV

/// Access Control (Matter Core 9.10): the ACL, a fabric-scoped list. A write replaces the
/// accessing fabric's entries (or appends one) after checking each against the spec's
/// constraints and this server's limits; other fabrics' entries stay. Read without fabric
/// filtering, other fabrics' entries show only their fabric index (their fields are
/// fabric-sensitive). Who may do what by these entries is ``AccessControl``'s answer.
public struct AccessControlServer: ClusterServer {
    typealias A = Clusters.AccessControl.Attribute
    public typealias Entry = Clusters.AccessControl.Entry

    public let id = ClusterID.accessControl
    public let revision: UInt16 = 2
    public var attributes: [AttributeID] {
        [A.acl, A.subjectsPerAccessControlEntry, A.targetsPerAccessControlEntry, A.accessControlEntriesPerFabric]
    }
    public var writableAttributes: [AttributeID] { [A.acl] }
    /// Every fabric's entries, each with its fabric index.
    public var entries: [Entry]
    public static let subjectsPerEntry = 4
    public static let targetsPerEntry = 3
    public static let entriesPerFabric = 4

    public init(entries: [Entry]) { self.entries = entries }

    public func read(_ attribute: AttributeID, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        switch attribute {
        case A.acl:
            let shown = entries.filter { !fabricFiltered || $0.fabricIndex == context.fabricIndex }
            return .array(shown.map { e in
                e.fabricIndex == context.fabricIndex ? e.element(tag: .anonymous) : .structure([.unsigned(.context(0xFE), e.fabricIndex ?? 0)])
            })
        case A.subjectsPerAccessControlEntry: return .unsigned(UInt16(Self.subjectsPerEntry))
        case A.targetsPerAccessControlEntry: return .unsigned(UInt16(Self.targetsPerEntry))
        case A.accessControlEntriesPerFabric: return .unsigned(UInt16(Self.entriesPerFabric))
        default: throw .unsupportedAttribute
        }
    }

    public mutating func write(_ attribute: AttributeID, value: TLVElement, listIndex: ListIndex?,
                               context: IMSessionContext) throws(IMStatus) {
        guard attribute == A.acl else { throw .unsupportedWrite }
        guard let fabric = context.fabricIndex else { throw .unsupportedAccess }
        var mine: [Entry]
        switch listIndex {
        case nil:
            guard case .container(.array, let items) = value.value else { throw .invalidDataType }
            mine = []
            for item in items { mine.append(try Self.checked(item, fabric: fabric)) }
        case .append:
            mine = entries.filter { $0.fabricIndex == fabric } + [try Self.checked(value, fabric: fabric)]
        case .index:
            throw .invalidAction
        }
        guard mine.count <= Self.entriesPerFabric else { throw .resourceExhausted }
        entries = entries.filter { $0.fabricIndex != fabric } + mine
    }

    /// An entry as written, checked (Matter Core 9.10.5.5's constraints), on the writer's fabric.
    static func checked(_ element: TLVElement, fabric: UInt8) throws(IMStatus) -> Entry {
        guard var entry = try? Entry(element: element) else { throw .invalidDataType }
        guard (1...5).contains(entry.privilege.rawValue),
              entry.authMode == .case || entry.authMode == .group,
              !(entry.authMode == .group && entry.privilege == .administer),
              (entry.subjects?.count ?? 0) <= subjectsPerEntry, (entry.targets?.count ?? 0) <= targetsPerEntry,
              entry.targets?.allSatisfy({ t in
                  (t.cluster != nil || t.endpoint != nil || t.deviceType != nil) && !(t.endpoint != nil && t.deviceType != nil)
              }) ?? true else { throw .constraintError }
        entry.fabricIndex = fabric
        return entry
    }
}
