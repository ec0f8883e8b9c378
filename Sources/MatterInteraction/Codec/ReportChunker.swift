import MatterTLV

/// Splits attribute reports into ReportData messages that each fit a payload budget, setting
/// MoreChunkedMessages on all but the last (Matter Core 8.4.3.2 and 10.7.5).
///
/// A list attribute too large for one message is sent the way the SDK does it: the path with
/// an empty list (replace all), then one AttributeDataIB per item with ListIndex null (append).
public struct ReportChunker: Sendable {
    /// The largest IM payload for one UDP datagram over IPv6: 1280 (IPv6 minimum MTU) - 40
    /// (IPv6) - 8 (UDP) - 24 (message header with both node IDs) - 12 (protocol header with an
    /// acknowledgement) - 16 (MIC) = 1180 bytes.
    public static let defaultMaxPayloadSize = 1180

    public var maxPayloadSize: Int
    public var subscriptionID: UInt32?
    /// SuppressResponse of the final chunk (true for plain reads).
    public var suppressResponseOnLast: Bool

    public init(maxPayloadSize: Int = defaultMaxPayloadSize, subscriptionID: UInt32? = nil,
                suppressResponseOnLast: Bool) {
        self.maxPayloadSize = maxPayloadSize
        self.subscriptionID = subscriptionID
        self.suppressResponseOnLast = suppressResponseOnLast
    }

    /// The chunks, in order. Always at least one message (an empty report if there is nothing).
    /// Throws `invalidValue` if a single report (or list item) cannot fit the budget at all.
    public func chunk(_ reports: [AttributeReportIB], events: [EventReportIB] = []) throws(InteractionError) -> [ReportDataMessage] {
        let overhead = messageSize(attributes: [], events: [], more: true)
        let budget = maxPayloadSize - overhead
        var pieces: [(AttributeReportIB, Int)] = []
        for r in reports {
            for piece in try split(r, budget: budget) {
                pieces.append((piece, TLVWriter.encode(piece.element(tag: .anonymous)).count))
            }
        }
        var eventPieces: [(EventReportIB, Int)] = []
        for ev in events {
            let size = TLVWriter.encode(ev.element(tag: .anonymous)).count
            guard size <= budget else { throw .invalidValue(what: "event report", reason: "\(size) bytes exceed the \(budget)-byte chunk budget") }
            eventPieces.append((ev, size))
        }

        var messages: [ReportDataMessage] = []
        var current: [AttributeReportIB] = []
        var currentEvents: [EventReportIB] = []
        var used = 0
        func flush() {
            messages.append(ReportDataMessage(subscriptionID: subscriptionID,
                                              attributeReports: current.isEmpty ? nil : current,
                                              eventReports: currentEvents.isEmpty ? nil : currentEvents,
                                              moreChunkedMessages: true))
            current = []
            currentEvents = []
            used = 0
        }
        for (r, size) in pieces {
            if used + size > budget { flush() }
            current.append(r)
            used += size
        }
        for (r, size) in eventPieces {
            if used + size > budget { flush() }
            currentEvents.append(r)
            used += size
        }
        flush()
        // The last chunk: no MoreChunkedMessages, and the caller's SuppressResponse.
        messages[messages.count - 1].moreChunkedMessages = nil
        messages[messages.count - 1].suppressResponse = suppressResponseOnLast ? true : nil
        if messages.count > 1, messages[messages.count - 1].attributeReports == nil,
           messages[messages.count - 1].eventReports == nil {
            // A trailing empty chunk is legal but wasteful: fold the flags into the one before.
            messages.removeLast()
            messages[messages.count - 1].moreChunkedMessages = nil
            messages[messages.count - 1].suppressResponse = suppressResponseOnLast ? true : nil
        }
        return messages
    }

    private func messageSize(attributes: [AttributeReportIB], events: [EventReportIB], more: Bool) -> Int {
        ReportDataMessage(subscriptionID: subscriptionID, attributeReports: attributes, eventReports: events,
                          moreChunkedMessages: more, suppressResponse: true).payload.count
    }

    /// One report, or its list split into replace-with-empty plus one append per item.
    private func split(_ report: AttributeReportIB, budget: Int) throws(InteractionError) -> [AttributeReportIB] {
        let size = TLVWriter.encode(report.element(tag: .anonymous)).count
        if size <= budget { return [report] }
        guard case .data(let d) = report, case .container(.array, let items) = d.data.value else {
            throw .invalidValue(what: "attribute report for \(report.path)", reason: "\(size) bytes exceed the \(budget)-byte chunk budget")
        }
        var out = [AttributeReportIB.data(AttributeDataIB(dataVersion: d.dataVersion, path: d.path, data: .array([])))]
        var appendPath = d.path
        appendPath.listIndex = .append
        for item in items {
            let piece = AttributeReportIB.data(AttributeDataIB(dataVersion: d.dataVersion, path: appendPath, data: item))
            let s = TLVWriter.encode(piece.element(tag: .anonymous)).count
            guard s <= budget else {
                throw .invalidValue(what: "list item of \(d.path)", reason: "\(s) bytes exceed the \(budget)-byte chunk budget")
            }
            out.append(piece)
        }
        return out
    }
}
