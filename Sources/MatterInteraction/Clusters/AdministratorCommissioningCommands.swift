import MatterClusters
import MatterTLV

extension Clusters.AdministratorCommissioning {
    /// OpenCommissioningWindow (0x00): the enhanced window with a PAKE verifier. Timed invoke.
    public struct OpenCommissioningWindow: CommandRequest {
        public typealias Response = StatusOnlyResponse
        public typealias Tag = Clusters.AdministratorCommissioning.OpenCommissioningWindowTag
        public static var cluster: ClusterID { Clusters.AdministratorCommissioning.id }
        public static var command: CommandID { Command.openCommissioningWindow }
        public static var requiresTimedInvoke: Bool { true }
        /// Seconds.
        public var commissioningTimeout: UInt16
        /// W0 || L (97 bytes). Secret-equivalent: never printed.
        public var pakePasscodeVerifier: [UInt8]
        public var discriminator: UInt16
        public var iterations: UInt32
        public var salt: [UInt8]

        public init(commissioningTimeout: UInt16, pakePasscodeVerifier: [UInt8], discriminator: UInt16,
                    iterations: UInt32, salt: [UInt8]) {
            self.commissioningTimeout = commissioningTimeout
            self.pakePasscodeVerifier = pakePasscodeVerifier
            self.discriminator = discriminator
            self.iterations = iterations
            self.salt = salt
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "OpenCommissioningWindow")
            commissioningTimeout = try f.requiredUInt(Tag.commissioningTimeout)
            pakePasscodeVerifier = try f.requiredBytes(Tag.pakePasscodeVerifier)
            discriminator = try f.requiredUInt(Tag.discriminator)
            iterations = try f.requiredUInt(Tag.iterations)
            salt = try f.requiredBytes(Tag.salt)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.commissioningTimeout), commissioningTimeout),
                             .bytes(.context(Tag.pakePasscodeVerifier), pakePasscodeVerifier),
                             .unsigned(.context(Tag.discriminator), discriminator),
                             .unsigned(.context(Tag.iterations), iterations),
                             .bytes(.context(Tag.salt), salt)])
        }
    }

    /// OpenBasicCommissioningWindow (0x01). Timed invoke.
    public struct OpenBasicCommissioningWindow: CommandRequest {
        public typealias Response = StatusOnlyResponse
        public typealias Tag = Clusters.AdministratorCommissioning.OpenBasicCommissioningWindowTag
        public static var cluster: ClusterID { Clusters.AdministratorCommissioning.id }
        public static var command: CommandID { Command.openBasicCommissioningWindow }
        public static var requiresTimedInvoke: Bool { true }
        public var commissioningTimeout: UInt16
        public init(commissioningTimeout: UInt16) { self.commissioningTimeout = commissioningTimeout }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "OpenBasicCommissioningWindow")
            commissioningTimeout = try f.requiredUInt(Tag.commissioningTimeout)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.commissioningTimeout), commissioningTimeout)])
        }
    }

    /// RevokeCommissioning (0x02). Timed invoke.
    public struct RevokeCommissioning: CommandRequest, EmptyCommandFields {
        public typealias Response = StatusOnlyResponse
        public static var cluster: ClusterID { Clusters.AdministratorCommissioning.id }
        public static var command: CommandID { Command.revokeCommissioning }
        public static var requiresTimedInvoke: Bool { true }
        public init() {}
    }
}

extension Clusters.AdministratorCommissioning.OpenCommissioningWindow: CustomStringConvertible {
    public var description: String {
        "OpenCommissioningWindow(timeout: \(commissioningTimeout)s, verifier: <redacted>, discriminator: \(discriminator), iterations: \(iterations), salt: \(salt.count) bytes)"
    }
}
