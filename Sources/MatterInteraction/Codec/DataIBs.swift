import MatterTLV

/// StatusIB (Matter Core 10.6.17): an IM status and an optional cluster-specific status.
public struct StatusIB: TLVCodable, Error, CustomStringConvertible {
    public enum Tag {
        public static let status: UInt8 = 0
        public static let clusterStatus: UInt8 = 1
    }
    public var status: IMStatus
    public var clusterStatus: UInt8?

    public init(_ status: IMStatus, clusterStatus: UInt8? = nil) {
        self.status = status
        self.clusterStatus = clusterStatus
    }

    public static let success = StatusIB(.success)

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "StatusIB")
        status = IMStatus(try f.requiredUInt(Tag.status, UInt8.self))
        clusterStatus = try f.uint(Tag.clusterStatus)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.status, status.rawValue)
        w.uint(Tag.clusterStatus, clusterStatus)
        return w.structure(tag)
    }

    public var description: String {
        clusterStatus.map { "\(status) cluster status \($0)" } ?? "\(status)"
    }

    /// The error this status stands for at a path, or nil for success.
    /// Success is success even when a peer adds a cluster status (CircuitMatter sends 0): the
    /// cluster status refines failures only.
    public func error(at path: IMPath?) -> InteractionError? {
        status.isSuccess ? nil : .status(status, clusterStatus: clusterStatus, path: path)
    }
}

/// Gives an arbitrary value the context tag the enclosing IB requires.
func retagged(_ e: TLVElement, _ tag: UInt8) -> TLVElement {
    TLVElement(tag: .context(tag), e.value)
}

/// Strips the tag of a carried value so that users see it as anonymous.
func anonymous(_ e: TLVElement) -> TLVElement { TLVElement(tag: .anonymous, e.value) }

/// AttributeDataIB (Matter Core 10.6.4): a path, an optional data version and a value of any type.
public struct AttributeDataIB: TLVCodable {
    public enum Tag {
        public static let dataVersion: UInt8 = 0
        public static let path: UInt8 = 1
        public static let data: UInt8 = 2
    }
    public var dataVersion: UInt32?
    public var path: AttributePathIB
    /// The attribute value; stored anonymous, written with context tag 2.
    public var data: TLVElement

    public init(dataVersion: UInt32? = nil, path: AttributePathIB, data: TLVElement) {
        self.dataVersion = dataVersion
        self.path = path
        self.data = anonymous(data)
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "AttributeDataIB")
        dataVersion = try f.uint(Tag.dataVersion)
        path = try AttributePathIB(element: try f.required(Tag.path))
        data = anonymous(try f.required(Tag.data))
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.dataVersion, dataVersion)
        w.add(path.element(tag: .context(Tag.path)))
        w.add(retagged(data, Tag.data))
        return w.structure(tag)
    }
}

/// AttributeStatusIB (Matter Core 10.6.16).
public struct AttributeStatusIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let status: UInt8 = 1
    }
    public var path: AttributePathIB
    public var status: StatusIB

    public init(path: AttributePathIB, status: StatusIB) {
        self.path = path
        self.status = status
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "AttributeStatusIB")
        path = try AttributePathIB(element: try f.required(Tag.path))
        status = try StatusIB(element: try f.required(Tag.status))
    }

    public func element(tag: TLVTag) -> TLVElement {
        .structure(tag, [path.element(tag: .context(Tag.path)), status.element(tag: .context(Tag.status))])
    }
}

/// AttributeReportIB (Matter Core 10.6.5): either a status or data for one path.
public enum AttributeReportIB: TLVCodable {
    public enum Tag {
        public static let attributeStatus: UInt8 = 0
        public static let attributeData: UInt8 = 1
    }
    case status(AttributeStatusIB)
    case data(AttributeDataIB)

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "AttributeReportIB")
        switch (f.optional(Tag.attributeStatus), f.optional(Tag.attributeData)) {
        case (let s?, nil): self = .status(try AttributeStatusIB(element: s))
        case (nil, let d?): self = .data(try AttributeDataIB(element: d))
        case (nil, nil): throw .malformed(what: "AttributeReportIB", .missingField(.context(Tag.attributeData)))
        default: throw .invalidValue(what: "AttributeReportIB", reason: "carries both a status and data")
        }
    }

    public func element(tag: TLVTag) -> TLVElement {
        switch self {
        case .status(let s): return .structure(tag, [s.element(tag: .context(Tag.attributeStatus))])
        case .data(let d): return .structure(tag, [d.element(tag: .context(Tag.attributeData))])
        }
    }

    public var path: AttributePathIB {
        switch self {
        case .status(let s): return s.path
        case .data(let d): return d.path
        }
    }
}

/// EventDataIB (Matter Core 10.6.9).
public struct EventDataIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let eventNumber: UInt8 = 1
        public static let priority: UInt8 = 2
        public static let epochTimestamp: UInt8 = 3
        public static let systemTimestamp: UInt8 = 4
        public static let deltaEpochTimestamp: UInt8 = 5
        public static let deltaSystemTimestamp: UInt8 = 6
        public static let data: UInt8 = 7
    }
    public var path: EventPathIB
    public var eventNumber: UInt64
    public var priority: UInt8
    public var epochTimestamp: UInt64?
    public var systemTimestamp: UInt64?
    public var deltaEpochTimestamp: UInt64?
    public var deltaSystemTimestamp: UInt64?
    /// The event fields; stored anonymous, written with context tag 7.
    public var data: TLVElement

    public init(path: EventPathIB, eventNumber: UInt64, priority: UInt8, epochTimestamp: UInt64? = nil,
                systemTimestamp: UInt64? = nil, deltaEpochTimestamp: UInt64? = nil,
                deltaSystemTimestamp: UInt64? = nil, data: TLVElement) {
        self.path = path
        self.eventNumber = eventNumber
        self.priority = priority
        self.epochTimestamp = epochTimestamp
        self.systemTimestamp = systemTimestamp
        self.deltaEpochTimestamp = deltaEpochTimestamp
        self.deltaSystemTimestamp = deltaSystemTimestamp
        self.data = anonymous(data)
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "EventDataIB")
        path = try EventPathIB(element: try f.required(Tag.path))
        eventNumber = try f.requiredUInt(Tag.eventNumber)
        priority = try f.requiredUInt(Tag.priority)
        epochTimestamp = try f.uint(Tag.epochTimestamp)
        systemTimestamp = try f.uint(Tag.systemTimestamp)
        deltaEpochTimestamp = try f.uint(Tag.deltaEpochTimestamp)
        deltaSystemTimestamp = try f.uint(Tag.deltaSystemTimestamp)
        data = anonymous(try f.required(Tag.data))
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.add(path.element(tag: .context(Tag.path)))
        w.uint(Tag.eventNumber, eventNumber)
        w.uint(Tag.priority, priority)
        w.uint(Tag.epochTimestamp, epochTimestamp)
        w.uint(Tag.systemTimestamp, systemTimestamp)
        w.uint(Tag.deltaEpochTimestamp, deltaEpochTimestamp)
        w.uint(Tag.deltaSystemTimestamp, deltaSystemTimestamp)
        w.add(retagged(data, Tag.data))
        return w.structure(tag)
    }
}

/// EventStatusIB (Matter Core 10.6.14).
public struct EventStatusIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let status: UInt8 = 1
    }
    public var path: EventPathIB
    public var status: StatusIB

    public init(path: EventPathIB, status: StatusIB) {
        self.path = path
        self.status = status
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "EventStatusIB")
        path = try EventPathIB(element: try f.required(Tag.path))
        status = try StatusIB(element: try f.required(Tag.status))
    }

    public func element(tag: TLVTag) -> TLVElement {
        .structure(tag, [path.element(tag: .context(Tag.path)), status.element(tag: .context(Tag.status))])
    }
}

/// EventReportIB (Matter Core 10.6.10): either a status or data for one event path.
public enum EventReportIB: TLVCodable {
    public enum Tag {
        public static let eventStatus: UInt8 = 0
        public static let eventData: UInt8 = 1
    }
    case status(EventStatusIB)
    case data(EventDataIB)

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "EventReportIB")
        switch (f.optional(Tag.eventStatus), f.optional(Tag.eventData)) {
        case (let s?, nil): self = .status(try EventStatusIB(element: s))
        case (nil, let d?): self = .data(try EventDataIB(element: d))
        case (nil, nil): throw .malformed(what: "EventReportIB", .missingField(.context(Tag.eventData)))
        default: throw .invalidValue(what: "EventReportIB", reason: "carries both a status and data")
        }
    }

    public func element(tag: TLVTag) -> TLVElement {
        switch self {
        case .status(let s): return .structure(tag, [s.element(tag: .context(Tag.eventStatus))])
        case .data(let d): return .structure(tag, [d.element(tag: .context(Tag.eventData))])
        }
    }
}

/// CommandDataIB (Matter Core 10.6.12): a command path and its fields.
public struct CommandDataIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let fields: UInt8 = 1
        public static let commandRef: UInt8 = 2
    }
    public var path: CommandPathIB
    /// The command fields (normally a structure); stored anonymous, written with context tag 1.
    public var fields: TLVElement?
    /// Matches responses to requests when one InvokeRequest carries several commands.
    public var commandRef: UInt16?

    public init(path: CommandPathIB, fields: TLVElement? = .structure([]), commandRef: UInt16? = nil) {
        self.path = path
        self.fields = fields.map(anonymous)
        self.commandRef = commandRef
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "CommandDataIB")
        path = try CommandPathIB(element: try f.required(Tag.path))
        fields = f.optional(Tag.fields).map(anonymous)
        commandRef = try f.uint(Tag.commandRef)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.add(path.element(tag: .context(Tag.path)))
        w.add(fields.map { retagged($0, Tag.fields) })
        w.uint(Tag.commandRef, commandRef)
        return w.structure(tag)
    }
}

/// CommandStatusIB (Matter Core 10.6.13).
public struct CommandStatusIB: TLVCodable {
    public enum Tag {
        public static let path: UInt8 = 0
        public static let status: UInt8 = 1
        public static let commandRef: UInt8 = 2
    }
    public var path: CommandPathIB
    public var status: StatusIB
    public var commandRef: UInt16?

    public init(path: CommandPathIB, status: StatusIB, commandRef: UInt16? = nil) {
        self.path = path
        self.status = status
        self.commandRef = commandRef
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "CommandStatusIB")
        path = try CommandPathIB(element: try f.required(Tag.path))
        status = try StatusIB(element: try f.required(Tag.status))
        commandRef = try f.uint(Tag.commandRef)
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.add(path.element(tag: .context(Tag.path)))
        w.add(status.element(tag: .context(Tag.status)))
        w.uint(Tag.commandRef, commandRef)
        return w.structure(tag)
    }
}

/// InvokeResponseIB (Matter Core 10.6.15): a response command or a status for one request.
public enum InvokeResponseIB: TLVCodable {
    public enum Tag {
        public static let command: UInt8 = 0
        public static let status: UInt8 = 1
    }
    case command(CommandDataIB)
    case status(CommandStatusIB)

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "InvokeResponseIB")
        switch (f.optional(Tag.command), f.optional(Tag.status)) {
        case (let c?, nil): self = .command(try CommandDataIB(element: c))
        case (nil, let s?): self = .status(try CommandStatusIB(element: s))
        case (nil, nil): throw .malformed(what: "InvokeResponseIB", .missingField(.context(Tag.status)))
        default: throw .invalidValue(what: "InvokeResponseIB", reason: "carries both a command and a status")
        }
    }

    public func element(tag: TLVTag) -> TLVElement {
        switch self {
        case .command(let c): return .structure(tag, [c.element(tag: .context(Tag.command))])
        case .status(let s): return .structure(tag, [s.element(tag: .context(Tag.status))])
        }
    }

    public var commandRef: UInt16? {
        switch self {
        case .command(let c): return c.commandRef
        case .status(let s): return s.commandRef
        }
    }
}
