import MatterTLV

/// One attribute's outcome in a read or subscription report, after reassembly.
public struct AttributeReport: Hashable, Sendable {
    /// The path as reported (concrete for data from a well-behaved server).
    public var path: AttributePathIB
    public var dataVersion: UInt32?
    public var outcome: Outcome

    public enum Outcome: Hashable, Sendable {
        case value(TLVElement)
        case status(StatusIB)
    }

    public init(path: AttributePathIB, dataVersion: UInt32?, outcome: Outcome) {
        self.path = path
        self.dataVersion = dataVersion
        self.outcome = outcome
    }

    /// The value, or the error the server reported for this path.
    public func value() throws(InteractionError) -> TLVElement {
        switch outcome {
        case .value(let v): return v
        case .status(let s): throw .status(s.status, clusterStatus: s.clusterStatus, path: .attribute(path))
        }
    }
}

/// A whole report after all chunks arrived.
public struct AssembledReport: Hashable, Sendable {
    public var subscriptionID: UInt32?
    public var attributes: [AttributeReport]
    public var events: [EventReportIB]

    public init(subscriptionID: UInt32?, attributes: [AttributeReport], events: [EventReportIB]) {
        self.subscriptionID = subscriptionID
        self.attributes = attributes
        self.events = events
    }
}

/// Client side of chunked reports (Matter Core 8.4.3.2): collects ReportData chunks, merges
/// list appends into the list they extend, expands tag-compressed paths, and says what to send.
public struct ReportAssembler: Sendable {
    /// What the exchange must do after a chunk.
    public enum Step: Hashable, Sendable {
        /// Send this StatusResponse and wait for the next ReportData.
        case sendStatusAndContinue(StatusResponseMessage)
        /// The report is complete; send the StatusResponse if one is given (nil when the last
        /// chunk had SuppressResponse).
        case complete(AssembledReport, reply: StatusResponseMessage?)
    }

    private var subscriptionID: UInt32?
    private var started = false
    private var attributes: [AttributeReport] = []
    private var events: [EventReportIB] = []
    private var previousPath: AttributePathIB?

    public init() {}

    public mutating func receive(_ chunk: ReportDataMessage) throws(InteractionError) -> Step {
        if started, chunk.subscriptionID != subscriptionID {
            throw .invalidValue(what: "ReportData chunk", reason: "subscription ID changed between chunks")
        }
        if chunk.hasMoreChunks, chunk.suppressResponse == true {
            throw .invalidValue(what: "ReportData chunk", reason: "SuppressResponse set on a non-final chunk")
        }
        started = true
        subscriptionID = chunk.subscriptionID
        for report in chunk.attributeReports ?? [] { try add(report) }
        events += chunk.eventReports ?? []
        let ok = StatusResponseMessage(status: .success)
        if chunk.hasMoreChunks { return .sendStatusAndContinue(ok) }
        let done = AssembledReport(subscriptionID: subscriptionID, attributes: attributes, events: events)
        self = ReportAssembler()
        return .complete(done, reply: chunk.suppressResponse == true ? nil : ok)
    }

    private mutating func add(_ report: AttributeReportIB) throws(InteractionError) {
        var path = report.path
        if path.enableTagCompression == true, let prev = previousPath {
            path.node = path.node ?? prev.node
            path.endpoint = path.endpoint ?? prev.endpoint
            path.cluster = path.cluster ?? prev.cluster
            path.enableTagCompression = nil
        }
        previousPath = path
        switch report {
        case .status(let s):
            attributes.append(AttributeReport(path: path, dataVersion: nil, outcome: .status(s.status)))
        case .data(let d):
            if path.listIndex == .append {
                var base = path
                base.listIndex = nil
                guard let i = attributes.lastIndex(where: { $0.path == base }),
                      case .value(let list) = attributes[i].outcome,
                      case .container(.array, var items) = list.value else {
                    throw .invalidValue(what: "list append for \(base)", reason: "no list to append to")
                }
                items.append(d.data)
                attributes[i].outcome = .value(.array(items))
                attributes[i].dataVersion = d.dataVersion ?? attributes[i].dataVersion
            } else {
                attributes.append(AttributeReport(path: path, dataVersion: d.dataVersion, outcome: .value(d.data)))
            }
        }
    }
}
