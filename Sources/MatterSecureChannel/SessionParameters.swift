import MatterMessaging
import MatterTLV

/// The session parameters each side of PASE and CASE announces (Matter Core 4.12.8 and
/// 4.11.1.5): its MRP timing and the revisions it speaks.
public struct SessionParameters: Hashable, Sendable {
    public var idleInterval: UInt32?
    public var activeInterval: UInt32?
    public var activeThreshold: UInt16?
    public var dataModelRevision: UInt16?
    public var interactionModelRevision: UInt16?
    public var specificationVersion: UInt32?
    public var maxPathsPerInvoke: UInt16?

    /// session-parameter-struct tags (Matter Core 4.12.8; 8 and 9, the TCP fields, are not
    /// sent: lenient devices such as CircuitMatter reject tags they do not know).
    enum Tag {
        static let idleInterval: UInt8 = 1
        static let activeInterval: UInt8 = 2
        static let activeThreshold: UInt8 = 3
        static let dataModelRevision: UInt8 = 4
        static let interactionModelRevision: UInt8 = 5
        static let specificationVersion: UInt8 = 6
        static let maxPathsPerInvoke: UInt8 = 7
    }

    public init(idleInterval: UInt32? = nil, activeInterval: UInt32? = nil, activeThreshold: UInt16? = nil,
                dataModelRevision: UInt16? = nil, interactionModelRevision: UInt16? = nil,
                specificationVersion: UInt32? = nil, maxPathsPerInvoke: UInt16? = nil) {
        self.idleInterval = idleInterval
        self.activeInterval = activeInterval
        self.activeThreshold = activeThreshold
        self.dataModelRevision = dataModelRevision
        self.interactionModelRevision = interactionModelRevision
        self.specificationVersion = specificationVersion
        self.maxPathsPerInvoke = maxPathsPerInvoke
    }

    /// What MatterHub announces: the spec's default MRP timing, Matter 1.3 revisions.
    public static let matterHub = SessionParameters(idleInterval: 500, activeInterval: 300, activeThreshold: 4000,
                                                    dataModelRevision: 17, interactionModelRevision: 11,
                                                    specificationVersion: 0x0103_0000, maxPathsPerInvoke: 1)

    /// The MRP timing these parameters give, with the spec's defaults for absent fields.
    public var mrp: MRPParameters {
        MRPParameters(idleInterval: Milliseconds(idleInterval ?? 500), activeInterval: Milliseconds(activeInterval ?? 300),
                      activeThreshold: Milliseconds(activeThreshold ?? 4000))
    }

    func element(tag: UInt8) -> TLVElement {
        var m: [TLVElement] = []
        if let v = idleInterval { m.append(.unsigned(.context(Tag.idleInterval), v)) }
        if let v = activeInterval { m.append(.unsigned(.context(Tag.activeInterval), v)) }
        if let v = activeThreshold { m.append(.unsigned(.context(Tag.activeThreshold), v)) }
        if let v = dataModelRevision { m.append(.unsigned(.context(Tag.dataModelRevision), v)) }
        if let v = interactionModelRevision { m.append(.unsigned(.context(Tag.interactionModelRevision), v)) }
        if let v = specificationVersion { m.append(.unsigned(.context(Tag.specificationVersion), v)) }
        if let v = maxPathsPerInvoke { m.append(.unsigned(.context(Tag.maxPathsPerInvoke), v)) }
        return .structure(.context(tag), m)
    }

    init(_ e: TLVElement) throws(TLVError) {
        _ = try e.members(of: .structure)
        idleInterval = try e[context: Tag.idleInterval]?.unsigned(as: UInt32.self)
        activeInterval = try e[context: Tag.activeInterval]?.unsigned(as: UInt32.self)
        activeThreshold = try e[context: Tag.activeThreshold]?.unsigned(as: UInt16.self)
        dataModelRevision = try e[context: Tag.dataModelRevision]?.unsigned(as: UInt16.self)
        interactionModelRevision = try e[context: Tag.interactionModelRevision]?.unsigned(as: UInt16.self)
        specificationVersion = try e[context: Tag.specificationVersion]?.unsigned(as: UInt32.self)
        maxPathsPerInvoke = try e[context: Tag.maxPathsPerInvoke]?.unsigned(as: UInt16.self)
    }
}
