import MatterClusters
import MatterTLV

extension Clusters.GeneralCommissioning {
    /// CommissioningErrorEnum (Matter Core 11.10.5.1).
    public typealias CommissioningError = CommissioningErrorEnum

    /// RegulatoryLocationTypeEnum.
    public typealias RegulatoryLocationType = RegulatoryLocationTypeEnum

    /// The response shape shared by ArmFailSafe, SetRegulatoryConfig and CommissioningComplete.
    public struct ErrorCodeResponse<Marker: ResponseMarker>: CommandFields {
        public typealias Tag = ErrorCodeResponseTag
        public static var cluster: ClusterID { Clusters.GeneralCommissioning.id }
        public static var command: CommandID { Marker.command }
        public var errorCode: CommissioningError
        public var debugText: String

        public init(errorCode: CommissioningError, debugText: String = "") {
            self.errorCode = errorCode
            self.debugText = debugText
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "\(Marker.name)")
            errorCode = CommissioningError(rawValue: try f.requiredUInt(Tag.errorCode))
            debugText = try f.string(Tag.debugText) ?? ""
        }

        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.errorCode), errorCode.rawValue),
                             .utf8(.context(Tag.debugText), debugText)])
        }
    }

    /// The tags of `ErrorCodeResponse` (ArmFailSafeResponse's, which SetRegulatoryConfigResponse
    /// and CommissioningCompleteResponse share).
    public typealias ErrorCodeResponseTag = ArmFailSafeResponseTag

    /// Names the command of an `ErrorCodeResponse`.
    public protocol ResponseMarker: Sendable, Hashable {
        static var command: CommandID { get }
        static var name: String { get }
    }
    public enum ArmFailSafeMarker: ResponseMarker {
        public static var command: CommandID { Command.armFailSafeResponse }
        public static var name: String { "ArmFailSafeResponse" }
    }
    public enum SetRegulatoryConfigMarker: ResponseMarker {
        public static var command: CommandID { Command.setRegulatoryConfigResponse }
        public static var name: String { "SetRegulatoryConfigResponse" }
    }
    public enum CommissioningCompleteMarker: ResponseMarker {
        public static var command: CommandID { Command.commissioningCompleteResponse }
        public static var name: String { "CommissioningCompleteResponse" }
    }
    public typealias ArmFailSafeResponse = ErrorCodeResponse<ArmFailSafeMarker>
    public typealias SetRegulatoryConfigResponse = ErrorCodeResponse<SetRegulatoryConfigMarker>
    public typealias CommissioningCompleteResponse = ErrorCodeResponse<CommissioningCompleteMarker>

    /// ArmFailSafe (0x00): arm (or with 0 seconds, disarm) the fail-safe timer.
    public struct ArmFailSafe: CommandRequest {
        public typealias Response = ArmFailSafeResponse
        public typealias Tag = Clusters.GeneralCommissioning.ArmFailSafeTag
        public static var cluster: ClusterID { Clusters.GeneralCommissioning.id }
        public static var command: CommandID { Command.armFailSafe }
        public var expiryLengthSeconds: UInt16
        public var breadcrumb: UInt64

        public init(expiryLengthSeconds: UInt16, breadcrumb: UInt64) {
            self.expiryLengthSeconds = expiryLengthSeconds
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "ArmFailSafe")
            expiryLengthSeconds = try f.requiredUInt(Tag.expiryLengthSeconds)
            breadcrumb = try f.requiredUInt(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.expiryLengthSeconds), expiryLengthSeconds),
                             .unsigned(.context(Tag.breadcrumb), breadcrumb)])
        }
    }

    /// SetRegulatoryConfig (0x02).
    public struct SetRegulatoryConfig: CommandRequest {
        public typealias Response = SetRegulatoryConfigResponse
        public typealias Tag = Clusters.GeneralCommissioning.SetRegulatoryConfigTag
        public static var cluster: ClusterID { Clusters.GeneralCommissioning.id }
        public static var command: CommandID { Command.setRegulatoryConfig }
        public var newRegulatoryConfig: RegulatoryLocationType
        /// ISO 3166-1 alpha-2, or "XX" for unknown.
        public var countryCode: String
        public var breadcrumb: UInt64

        public init(newRegulatoryConfig: RegulatoryLocationType, countryCode: String, breadcrumb: UInt64) {
            self.newRegulatoryConfig = newRegulatoryConfig
            self.countryCode = countryCode
            self.breadcrumb = breadcrumb
        }

        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "SetRegulatoryConfig")
            newRegulatoryConfig = RegulatoryLocationType(rawValue: try f.requiredUInt(Tag.newRegulatoryConfig))
            guard let cc = try f.string(Tag.countryCode) else {
                throw .malformed(what: "SetRegulatoryConfig", .missingField(.context(Tag.countryCode)))
            }
            guard cc.utf8.count == 2 else {
                throw .invalidValue(what: "SetRegulatoryConfig.CountryCode", reason: "must be 2 characters")
            }
            countryCode = cc
            breadcrumb = try f.requiredUInt(Tag.breadcrumb)
        }

        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.newRegulatoryConfig), newRegulatoryConfig.rawValue),
                             .utf8(.context(Tag.countryCode), countryCode),
                             .unsigned(.context(Tag.breadcrumb), breadcrumb)])
        }
    }

    /// CommissioningComplete (0x04): no fields; must be sent over CASE.
    public struct CommissioningComplete: CommandRequest, EmptyCommandFields {
        public typealias Response = CommissioningCompleteResponse
        public static var cluster: ClusterID { Clusters.GeneralCommissioning.id }
        public static var command: CommandID { Command.commissioningComplete }
        public init() {}
    }
}
