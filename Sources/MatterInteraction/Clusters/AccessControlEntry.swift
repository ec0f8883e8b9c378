import MatterClusters
import MatterTLV

extension Clusters.AccessControl {
    /// AccessControlEntryPrivilegeEnum.
    public typealias Privilege = AccessControlEntryPrivilegeEnum

    /// AccessControlEntryAuthModeEnum.
    public typealias AuthMode = AccessControlEntryAuthModeEnum

    /// AccessControlTargetStruct: each field null means "any".
    public struct Target: TLVCodable {
        public typealias Tag = Clusters.AccessControl.AccessControlTargetStructTag
        public var cluster: ClusterID?
        public var endpoint: EndpointID?
        public var deviceType: UInt32?

        public init(cluster: ClusterID? = nil, endpoint: EndpointID? = nil, deviceType: UInt32? = nil) {
            self.cluster = cluster
            self.endpoint = endpoint
            self.deviceType = deviceType
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AccessControlTargetStruct")
            func nullable<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type) throws(InteractionError) -> T? {
                guard let e = f.optional(tag), !e.isNull else { return nil }
                return try f.uint(tag, T.self)
            }
            cluster = try nullable(Tag.cluster, UInt32.self).map { ClusterID($0) }
            endpoint = try nullable(Tag.endpoint, UInt16.self).map { EndpointID($0) }
            deviceType = try nullable(Tag.deviceType, UInt32.self)
        }
        public func element(tag: TLVTag) -> TLVElement {
            func field(_ t: UInt8, _ v: UInt64?) -> TLVElement { v.map { .unsigned(.context(t), $0) } ?? .null(.context(t)) }
            return .structure(tag, [field(Tag.cluster, cluster.map { UInt64($0.rawValue) }),
                                    field(Tag.endpoint, endpoint.map { UInt64($0.rawValue) }),
                                    field(Tag.deviceType, deviceType.map { UInt64($0) })])
        }
    }

    /// AccessControlEntryStruct (fabric-scoped; FabricIndex tag 0xFE is set by the server).
    public struct Entry: TLVCodable {
        public typealias Tag = Clusters.AccessControl.AccessControlEntryStructTag
        public var privilege: Privilege
        public var authMode: AuthMode
        /// Node IDs or CASE Authenticated Tags; nil (null) means any subject.
        public var subjects: [UInt64]?
        /// nil (null) means the whole node.
        public var targets: [Target]?
        public var fabricIndex: UInt8?

        public init(privilege: Privilege, authMode: AuthMode, subjects: [UInt64]?, targets: [Target]?,
                    fabricIndex: UInt8? = nil) {
            self.privilege = privilege
            self.authMode = authMode
            self.subjects = subjects
            self.targets = targets
            self.fabricIndex = fabricIndex
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AccessControlEntryStruct")
            privilege = Privilege(rawValue: try f.requiredUInt(Tag.privilege))
            authMode = AuthMode(rawValue: try f.requiredUInt(Tag.authMode))
            if let s = f.optional(Tag.subjects), !s.isNull {
                subjects = try f.array(Tag.subjects) { e throws(InteractionError) in try subjectID(e) }
            }
            if let t = f.optional(Tag.targets), !t.isNull {
                targets = try f.array(Tag.targets) { e throws(InteractionError) in try Target(element: e) }
            }
            fabricIndex = try f.uint(Tag.fabricIndex)
        }

        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.privilege, privilege.rawValue)
            w.uint(Tag.authMode, authMode.rawValue)
            w.add(subjects.map { .array(.context(Tag.subjects), $0.map { .unsigned($0) }) } ?? .null(.context(Tag.subjects)))
            w.add(targets.map { .array(.context(Tag.targets), $0.map { $0.element(tag: .anonymous) }) } ?? .null(.context(Tag.targets)))
            w.uint(Tag.fabricIndex, fabricIndex)
            return w.structure(tag)
        }
    }
}

/// One ACL subject: a 64-bit node ID or CAT.
private func subjectID(_ e: TLVElement) throws(InteractionError) -> UInt64 {
    do { return try e.unsigned(as: UInt64.self) } catch { throw .malformed(what: "ACL subjects", error) }
}
