import MatterTLV

/// Encodes an array field of IBs.
func ibArray<T: TLVCodable>(_ items: [T]?) -> [TLVElement]? {
    items?.map { $0.element(tag: .anonymous) }
}

/// StatusResponseMessage (Matter Core 10.7.1).
public struct StatusResponseMessage: IMMessage {
    public static let opcode = IMOpcode.statusResponse
    public enum Tag { public static let status: UInt8 = 0 }
    public var status: IMStatus
    public var interactionModelRevision: UInt8

    public init(status: IMStatus, interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.status = status
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "StatusResponseMessage")
        status = IMStatus(try f.requiredUInt(Tag.status, UInt8.self))
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.status, status.rawValue)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// ReadRequestMessage (Matter Core 10.7.2).
public struct ReadRequestMessage: IMMessage {
    public static let opcode = IMOpcode.readRequest
    public enum Tag {
        public static let attributeRequests: UInt8 = 0
        public static let eventRequests: UInt8 = 1
        public static let eventFilters: UInt8 = 2
        public static let isFabricFiltered: UInt8 = 3
        public static let dataVersionFilters: UInt8 = 4
    }
    public var attributeRequests: [AttributePathIB]?
    public var eventRequests: [EventPathIB]?
    public var eventFilters: [EventFilterIB]?
    public var isFabricFiltered: Bool
    public var dataVersionFilters: [DataVersionFilterIB]?
    public var interactionModelRevision: UInt8

    public init(attributeRequests: [AttributePathIB]? = nil, eventRequests: [EventPathIB]? = nil,
                eventFilters: [EventFilterIB]? = nil, isFabricFiltered: Bool = true,
                dataVersionFilters: [DataVersionFilterIB]? = nil,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.attributeRequests = attributeRequests
        self.eventRequests = eventRequests
        self.eventFilters = eventFilters
        self.isFabricFiltered = isFabricFiltered
        self.dataVersionFilters = dataVersionFilters
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "ReadRequestMessage")
        attributeRequests = try f.array(Tag.attributeRequests) { e throws(InteractionError) in try AttributePathIB(element: e) }
        eventRequests = try f.array(Tag.eventRequests) { e throws(InteractionError) in try EventPathIB(element: e) }
        eventFilters = try f.array(Tag.eventFilters) { e throws(InteractionError) in try EventFilterIB(element: e) }
        isFabricFiltered = try f.requiredBool(Tag.isFabricFiltered)
        dataVersionFilters = try f.array(Tag.dataVersionFilters) { e throws(InteractionError) in try DataVersionFilterIB(element: e) }
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.array(Tag.attributeRequests, ibArray(attributeRequests))
        w.array(Tag.eventRequests, ibArray(eventRequests))
        w.array(Tag.eventFilters, ibArray(eventFilters))
        w.bool(Tag.isFabricFiltered, isFabricFiltered)
        w.array(Tag.dataVersionFilters, ibArray(dataVersionFilters))
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// SubscribeRequestMessage (Matter Core 10.7.3). Tag 6 is reserved.
public struct SubscribeRequestMessage: IMMessage {
    public static let opcode = IMOpcode.subscribeRequest
    public enum Tag {
        public static let keepSubscriptions: UInt8 = 0
        public static let minIntervalFloor: UInt8 = 1
        public static let maxIntervalCeiling: UInt8 = 2
        public static let attributeRequests: UInt8 = 3
        public static let eventRequests: UInt8 = 4
        public static let eventFilters: UInt8 = 5
        public static let isFabricFiltered: UInt8 = 7
        public static let dataVersionFilters: UInt8 = 8
    }
    public var keepSubscriptions: Bool
    /// Seconds.
    public var minIntervalFloor: UInt16
    /// Seconds.
    public var maxIntervalCeiling: UInt16
    public var attributeRequests: [AttributePathIB]?
    public var eventRequests: [EventPathIB]?
    public var eventFilters: [EventFilterIB]?
    public var isFabricFiltered: Bool
    public var dataVersionFilters: [DataVersionFilterIB]?
    public var interactionModelRevision: UInt8

    public init(keepSubscriptions: Bool = false, minIntervalFloor: UInt16, maxIntervalCeiling: UInt16,
                attributeRequests: [AttributePathIB]? = nil, eventRequests: [EventPathIB]? = nil,
                eventFilters: [EventFilterIB]? = nil, isFabricFiltered: Bool = true,
                dataVersionFilters: [DataVersionFilterIB]? = nil,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.keepSubscriptions = keepSubscriptions
        self.minIntervalFloor = minIntervalFloor
        self.maxIntervalCeiling = maxIntervalCeiling
        self.attributeRequests = attributeRequests
        self.eventRequests = eventRequests
        self.eventFilters = eventFilters
        self.isFabricFiltered = isFabricFiltered
        self.dataVersionFilters = dataVersionFilters
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "SubscribeRequestMessage")
        keepSubscriptions = try f.requiredBool(Tag.keepSubscriptions)
        minIntervalFloor = try f.requiredUInt(Tag.minIntervalFloor)
        maxIntervalCeiling = try f.requiredUInt(Tag.maxIntervalCeiling)
        attributeRequests = try f.array(Tag.attributeRequests) { e throws(InteractionError) in try AttributePathIB(element: e) }
        eventRequests = try f.array(Tag.eventRequests) { e throws(InteractionError) in try EventPathIB(element: e) }
        eventFilters = try f.array(Tag.eventFilters) { e throws(InteractionError) in try EventFilterIB(element: e) }
        isFabricFiltered = try f.requiredBool(Tag.isFabricFiltered)
        dataVersionFilters = try f.array(Tag.dataVersionFilters) { e throws(InteractionError) in try DataVersionFilterIB(element: e) }
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.bool(Tag.keepSubscriptions, keepSubscriptions)
        w.uint(Tag.minIntervalFloor, minIntervalFloor)
        w.uint(Tag.maxIntervalCeiling, maxIntervalCeiling)
        w.array(Tag.attributeRequests, ibArray(attributeRequests))
        w.array(Tag.eventRequests, ibArray(eventRequests))
        w.array(Tag.eventFilters, ibArray(eventFilters))
        w.bool(Tag.isFabricFiltered, isFabricFiltered)
        w.array(Tag.dataVersionFilters, ibArray(dataVersionFilters))
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// SubscribeResponseMessage (Matter Core 10.7.4). Tag 1 is reserved.
public struct SubscribeResponseMessage: IMMessage {
    public static let opcode = IMOpcode.subscribeResponse
    public enum Tag {
        public static let subscriptionID: UInt8 = 0
        public static let maxInterval: UInt8 = 2
    }
    public var subscriptionID: UInt32
    /// Seconds: the interval the publisher committed to.
    public var maxInterval: UInt16
    public var interactionModelRevision: UInt8

    public init(subscriptionID: UInt32, maxInterval: UInt16,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.subscriptionID = subscriptionID
        self.maxInterval = maxInterval
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "SubscribeResponseMessage")
        subscriptionID = try f.requiredUInt(Tag.subscriptionID)
        maxInterval = try f.requiredUInt(Tag.maxInterval)
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.subscriptionID, subscriptionID)
        w.uint(Tag.maxInterval, maxInterval)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// ReportDataMessage (Matter Core 10.7.5).
public struct ReportDataMessage: IMMessage {
    public static let opcode = IMOpcode.reportData
    public enum Tag {
        public static let subscriptionID: UInt8 = 0
        public static let attributeReports: UInt8 = 1
        public static let eventReports: UInt8 = 2
        public static let moreChunkedMessages: UInt8 = 3
        public static let suppressResponse: UInt8 = 4
    }
    public var subscriptionID: UInt32?
    public var attributeReports: [AttributeReportIB]?
    public var eventReports: [EventReportIB]?
    public var moreChunkedMessages: Bool?
    public var suppressResponse: Bool?
    public var interactionModelRevision: UInt8

    public init(subscriptionID: UInt32? = nil, attributeReports: [AttributeReportIB]? = nil,
                eventReports: [EventReportIB]? = nil, moreChunkedMessages: Bool? = nil,
                suppressResponse: Bool? = nil,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.subscriptionID = subscriptionID
        self.attributeReports = attributeReports
        self.eventReports = eventReports
        self.moreChunkedMessages = moreChunkedMessages
        self.suppressResponse = suppressResponse
        self.interactionModelRevision = interactionModelRevision
    }

    /// True when another chunk of this report follows.
    public var hasMoreChunks: Bool { moreChunkedMessages ?? false }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "ReportDataMessage")
        subscriptionID = try f.uint(Tag.subscriptionID)
        attributeReports = try f.array(Tag.attributeReports) { e throws(InteractionError) in try AttributeReportIB(element: e) }
        eventReports = try f.array(Tag.eventReports) { e throws(InteractionError) in try EventReportIB(element: e) }
        moreChunkedMessages = try f.bool(Tag.moreChunkedMessages)
        suppressResponse = try f.bool(Tag.suppressResponse)
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.subscriptionID, subscriptionID)
        w.array(Tag.attributeReports, ibArray(attributeReports))
        w.array(Tag.eventReports, ibArray(eventReports))
        w.bool(Tag.moreChunkedMessages, moreChunkedMessages)
        w.bool(Tag.suppressResponse, suppressResponse)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// WriteRequestMessage (Matter Core 10.7.6).
public struct WriteRequestMessage: IMMessage {
    public static let opcode = IMOpcode.writeRequest
    public enum Tag {
        public static let suppressResponse: UInt8 = 0
        public static let timedRequest: UInt8 = 1
        public static let writeRequests: UInt8 = 2
        public static let moreChunkedMessages: UInt8 = 3
    }
    public var suppressResponse: Bool?
    public var timedRequest: Bool
    public var writeRequests: [AttributeDataIB]
    public var moreChunkedMessages: Bool?
    public var interactionModelRevision: UInt8

    public init(suppressResponse: Bool? = false, timedRequest: Bool = false, writeRequests: [AttributeDataIB],
                moreChunkedMessages: Bool? = false,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.suppressResponse = suppressResponse
        self.timedRequest = timedRequest
        self.writeRequests = writeRequests
        self.moreChunkedMessages = moreChunkedMessages
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "WriteRequestMessage")
        suppressResponse = try f.bool(Tag.suppressResponse)
        timedRequest = try f.requiredBool(Tag.timedRequest)
        writeRequests = try f.requiredArray(Tag.writeRequests, { e throws(InteractionError) in try AttributeDataIB(element: e) })
        moreChunkedMessages = try f.bool(Tag.moreChunkedMessages)
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.bool(Tag.suppressResponse, suppressResponse)
        w.bool(Tag.timedRequest, timedRequest)
        w.array(Tag.writeRequests, ibArray(writeRequests))
        w.bool(Tag.moreChunkedMessages, moreChunkedMessages)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// WriteResponseMessage (Matter Core 10.7.7).
public struct WriteResponseMessage: IMMessage {
    public static let opcode = IMOpcode.writeResponse
    public enum Tag { public static let writeResponses: UInt8 = 0 }
    public var writeResponses: [AttributeStatusIB]
    public var interactionModelRevision: UInt8

    public init(writeResponses: [AttributeStatusIB],
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.writeResponses = writeResponses
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "WriteResponseMessage")
        writeResponses = try f.array(Tag.writeResponses) { e throws(InteractionError) in try AttributeStatusIB(element: e) } ?? []
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.array(Tag.writeResponses, ibArray(writeResponses))
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// InvokeRequestMessage (Matter Core 10.7.9).
public struct InvokeRequestMessage: IMMessage {
    public static let opcode = IMOpcode.invokeRequest
    public enum Tag {
        public static let suppressResponse: UInt8 = 0
        public static let timedRequest: UInt8 = 1
        public static let invokeRequests: UInt8 = 2
    }
    public var suppressResponse: Bool
    public var timedRequest: Bool
    public var invokeRequests: [CommandDataIB]
    public var interactionModelRevision: UInt8

    public init(suppressResponse: Bool = false, timedRequest: Bool = false, invokeRequests: [CommandDataIB],
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.suppressResponse = suppressResponse
        self.timedRequest = timedRequest
        self.invokeRequests = invokeRequests
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "InvokeRequestMessage")
        suppressResponse = try f.requiredBool(Tag.suppressResponse)
        timedRequest = try f.requiredBool(Tag.timedRequest)
        invokeRequests = try f.requiredArray(Tag.invokeRequests, { e throws(InteractionError) in try CommandDataIB(element: e) })
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.bool(Tag.suppressResponse, suppressResponse)
        w.bool(Tag.timedRequest, timedRequest)
        w.array(Tag.invokeRequests, ibArray(invokeRequests))
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// InvokeResponseMessage (Matter Core 10.7.10).
public struct InvokeResponseMessage: IMMessage {
    public static let opcode = IMOpcode.invokeResponse
    public enum Tag {
        public static let suppressResponse: UInt8 = 0
        public static let invokeResponses: UInt8 = 1
        public static let moreChunkedMessages: UInt8 = 2
    }
    public var suppressResponse: Bool
    public var invokeResponses: [InvokeResponseIB]
    public var moreChunkedMessages: Bool?
    public var interactionModelRevision: UInt8

    public init(suppressResponse: Bool = false, invokeResponses: [InvokeResponseIB], moreChunkedMessages: Bool? = nil,
                interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.suppressResponse = suppressResponse
        self.invokeResponses = invokeResponses
        self.moreChunkedMessages = moreChunkedMessages
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "InvokeResponseMessage")
        suppressResponse = try f.requiredBool(Tag.suppressResponse)
        invokeResponses = try f.requiredArray(Tag.invokeResponses, { e throws(InteractionError) in try InvokeResponseIB(element: e) })
        moreChunkedMessages = try f.bool(Tag.moreChunkedMessages)
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.bool(Tag.suppressResponse, suppressResponse)
        w.array(Tag.invokeResponses, ibArray(invokeResponses))
        w.bool(Tag.moreChunkedMessages, moreChunkedMessages)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// TimedRequestMessage (Matter Core 10.7.8): opens a window for the following write or invoke.
public struct TimedRequestMessage: IMMessage {
    public static let opcode = IMOpcode.timedRequest
    public enum Tag { public static let timeout: UInt8 = 0 }
    /// Milliseconds.
    public var timeout: UInt16
    public var interactionModelRevision: UInt8

    public init(timeout: UInt16, interactionModelRevision: UInt8 = MatterInteraction.interactionModelRevision) {
        self.timeout = timeout
        self.interactionModelRevision = interactionModelRevision
    }

    public init(element: TLVElement) throws(InteractionError) {
        let f = try FieldReader(element, .structure, "TimedRequestMessage")
        timeout = try f.requiredUInt(Tag.timeout)
        interactionModelRevision = try f.revision()
    }

    public func element(tag: TLVTag) -> TLVElement {
        var w = FieldWriter()
        w.uint(Tag.timeout, timeout)
        w.revision(interactionModelRevision)
        return w.structure(tag)
    }
}

/// Decodes any IM message by opcode (for logging, fuzzing and dispatch).
public enum AnyIMMessage: Hashable, Sendable {
    case statusResponse(StatusResponseMessage)
    case readRequest(ReadRequestMessage)
    case subscribeRequest(SubscribeRequestMessage)
    case subscribeResponse(SubscribeResponseMessage)
    case reportData(ReportDataMessage)
    case writeRequest(WriteRequestMessage)
    case writeResponse(WriteResponseMessage)
    case invokeRequest(InvokeRequestMessage)
    case invokeResponse(InvokeResponseMessage)
    case timedRequest(TimedRequestMessage)

    /// Decodes the payload of `opcode`; an unknown opcode is `invalidValue`.
    public init(opcode: IMOpcode, payload: [UInt8]) throws(InteractionError) {
        switch opcode {
        case .statusResponse: self = .statusResponse(try .init(payload: payload))
        case .readRequest: self = .readRequest(try .init(payload: payload))
        case .subscribeRequest: self = .subscribeRequest(try .init(payload: payload))
        case .subscribeResponse: self = .subscribeResponse(try .init(payload: payload))
        case .reportData: self = .reportData(try .init(payload: payload))
        case .writeRequest: self = .writeRequest(try .init(payload: payload))
        case .writeResponse: self = .writeResponse(try .init(payload: payload))
        case .invokeRequest: self = .invokeRequest(try .init(payload: payload))
        case .invokeResponse: self = .invokeResponse(try .init(payload: payload))
        case .timedRequest: self = .timedRequest(try .init(payload: payload))
        default: throw .invalidValue(what: "IM message", reason: "unknown \(opcode)")
        }
    }

    public var opcode: IMOpcode {
        switch self {
        case .statusResponse: return .statusResponse
        case .readRequest: return .readRequest
        case .subscribeRequest: return .subscribeRequest
        case .subscribeResponse: return .subscribeResponse
        case .reportData: return .reportData
        case .writeRequest: return .writeRequest
        case .writeResponse: return .writeResponse
        case .invokeRequest: return .invokeRequest
        case .invokeResponse: return .invokeResponse
        case .timedRequest: return .timedRequest
        }
    }

    public var payload: [UInt8] {
        switch self {
        case .statusResponse(let m): return m.payload
        case .readRequest(let m): return m.payload
        case .subscribeRequest(let m): return m.payload
        case .subscribeResponse(let m): return m.payload
        case .reportData(let m): return m.payload
        case .writeRequest(let m): return m.payload
        case .writeResponse(let m): return m.payload
        case .invokeRequest(let m): return m.payload
        case .invokeResponse(let m): return m.payload
        case .timedRequest(let m): return m.payload
        }
    }
}
