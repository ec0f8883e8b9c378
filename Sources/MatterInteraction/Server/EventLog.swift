import MatterTLV

/// The events a server has emitted (Matter Core 7.14): numbered in order, kept up to a capacity
/// (the oldest dropped first), and selected by path and by event number for reads and
/// subscriptions. Sans-I/O; the server owns one.
public struct EventLog: Sendable, Hashable {
    public private(set) var events: [EventDataIB] = []
    /// The number the next event gets.
    public private(set) var nextEventNumber: UInt64
    public let capacity: Int

    /// `firstEventNumber` must exceed every number the device used before (across reboots, so
    /// that subscribers' `EventFilterIB.eventMin` stays meaningful).
    public init(firstEventNumber: UInt64 = 1, capacity: Int = 128) {
        nextEventNumber = firstEventNumber
        self.capacity = max(1, capacity)
    }

    /// Logs one event and returns it (with its number).
    @discardableResult
    public mutating func log(endpoint: EndpointID, cluster: ClusterID, event: EventID, priority: UInt8,
                             epochTimestampMs: UInt64?, systemTimestampMs: UInt64? = nil, data: TLVElement) -> EventDataIB {
        let record = EventDataIB(path: EventPathIB(endpoint: endpoint, cluster: cluster, event: event),
                                 eventNumber: nextEventNumber, priority: priority, epochTimestamp: epochTimestampMs,
                                 systemTimestamp: epochTimestampMs == nil ? systemTimestampMs : nil, data: data)
        nextEventNumber &+= 1
        events.append(record)
        if events.count > capacity { events.removeFirst(events.count - capacity) }
        return record
    }

    /// The logged events that one of `paths` selects, numbered at least `eventMin`, in order.
    public func select(_ paths: [EventPathIB], eventMin: UInt64 = 0) -> [EventDataIB] {
        events.filter { e in e.eventNumber >= eventMin && paths.contains { $0.matches(e.path) } }
    }
}

extension EventPathIB {
    /// True when this (possibly wildcard) path selects the concrete event path `concrete`.
    public func matches(_ concrete: EventPathIB) -> Bool {
        (endpoint == nil || endpoint == concrete.endpoint) && (cluster == nil || cluster == concrete.cluster)
            && (event == nil || event == concrete.event)
    }
}
