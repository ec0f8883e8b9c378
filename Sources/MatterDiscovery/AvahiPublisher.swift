internal import CAvahi
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A DNS-SD service to advertise.
public struct ServiceAdvert: Sendable, Hashable {
    public var name: String
    /// e.g. `_matterc._udp`.
    public var type: String
    public var port: UInt16
    /// Bare subtype labels, e.g. `_L3840`.
    public var subtypes: [String]
    public var txt: TXTRecord
    /// Nil: the daemon's own host name.
    public var host: String?
    /// Nil: every interface the daemon serves.
    public var interfaceIndex: Int32?

    public init(name: String, type: String, port: UInt16, subtypes: [String] = [], txt: TXTRecord = TXTRecord(),
                host: String? = nil, interfaceIndex: Int32? = nil) {
        self.name = name
        self.type = type
        self.port = port
        self.subtypes = subtypes
        self.txt = txt
        self.host = host
        self.interfaceIndex = interfaceIndex
    }
}

/// A published advert on the system's avahi-daemon. It is re-registered after a name collision
/// (renamed, as Avahi's alternative name) and after a daemon restart. `withdraw()` or dropping the
/// last reference removes it.
public final class AvahiAdvertisement: Sendable {
    /// What happened to the advert since it was published.
    public enum Event: Sendable, Hashable {
        case established(name: String)
        case renamed(to: String)
        case disconnected
        case reconnected
        case failed(DiscoveryError)
    }

    /// Lifecycle events (established, renamed, ...); finishes when the advert is freed.
    public let events: AsyncStream<Event>
    private let state: Mutex<PublisherPointer?>
    private let context: PublishContext

    /// Publishes `advert`. Throws `DiscoveryError.daemonUnavailable` without a daemon and
    /// `publishFailed` when the daemon rejects it.
    public init(_ advert: ServiceAdvert) throws(DiscoveryError) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        self.events = events
        let context = PublishContext(continuation: continuation)
        let unmanaged = Unmanaged.passRetained(context)
        var error: Int32 = 0
        guard let p = mh_publisher_new(publishEventCallback, releasePublishContext, unmanaged.toOpaque(), &error) else {
            unmanaged.release()
            continuation.finish()
            throw DiscoveryError.daemonUnavailable(avahiError: error, reason: String(cString: mh_strerror(error)))
        }
        state = Mutex(PublisherPointer(pointer: p))
        self.context = context
        try update(advert)
    }

    /// The advert's current name (after any rename).
    public var currentName: String { context.name.withLock { $0 } }

    /// Replaces the advert (TXT, subtypes, port...) in place.
    public func update(_ advert: ServiceAdvert) throws(DiscoveryError) {
        context.name.withLock { $0 = advert.name }
        let result: Int32 = state.withLock { box in
            guard let p = box?.pointer else { return -2 }
            let items = advert.txt.items
            let lengths = items.map(\.count)
            return withCStrings(advert.subtypes) { subtypes in
                withBytePointers(items) { txt in
                    lengths.withUnsafeBufferPointer { lens in
                        mh_publisher_set(p, advert.name, advert.type, advert.host, advert.port,
                                         advert.interfaceIndex ?? -1, subtypes.baseAddress, subtypes.count,
                                         txt.baseAddress, lens.baseAddress, items.count)
                    }
                }
            }
        }
        guard result == 0 else {
            throw DiscoveryError(.publishFailed, "cannot publish '\(advert.name)' (\(advert.type)): "
                                 + String(cString: mh_strerror(result)), avahiError: result)
        }
    }

    /// Publishes `advert` with the blocking daemon calls on an avahi thread, so the caller's
    /// (cooperative) thread is not held while the daemon answers.
    public static func publish(_ advert: ServiceAdvert) async throws(DiscoveryError) -> AvahiAdvertisement {
        try await AvahiCalls.run { () throws(DiscoveryError) -> AvahiAdvertisement in try AvahiAdvertisement(advert) }
    }

    /// `withdraw()` on an avahi thread, without waiting for the daemon.
    public func withdrawInBackground() {
        AvahiCalls.async { self.withdraw() }
    }

    /// Withdraws the advert and stops its poll thread. Idempotent.
    public func withdraw() {
        let box = state.withLock { box -> PublisherPointer? in defer { box = nil }; return box }
        if let box { mh_publisher_free(box.pointer) }
    }

    deinit { withdraw() }
}

/// An `mh_publisher*`; only used under the advertisement's mutex.
struct PublisherPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Context for the publisher's C callbacks (called on the poll thread); `name` is shared with the
/// advertisement under its mutex.
final class PublishContext: Sendable {
    let continuation: AsyncStream<AvahiAdvertisement.Event>.Continuation
    let name = Mutex("")
    init(continuation: AsyncStream<AvahiAdvertisement.Event>.Continuation) { self.continuation = continuation }

    func handle(_ ev: mh_event) {
        let name = ev.name.map { String(cString: $0) } ?? ""
        switch Int(ev.kind) {
        case Int(MH_EVENT_PUBLISHED.rawValue): continuation.yield(.established(name: name))
        case Int(MH_EVENT_RENAMED.rawValue):
            self.name.withLock { $0 = name }
            continuation.yield(.renamed(to: name))
        case Int(MH_EVENT_DISCONNECTED.rawValue): continuation.yield(.disconnected)
        case Int(MH_EVENT_RECONNECTED.rawValue): continuation.yield(.reconnected)
        case Int(MH_EVENT_FAILED.rawValue):
            let message = ev.error_message.map { String(cString: $0) } ?? "error \(ev.error)"
            continuation.yield(.failed(DiscoveryError(.publishFailed, "advert failed: \(message)", avahiError: ev.error)))
        default: break
        }
    }

    deinit { continuation.finish() }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { $0.map { UnsafePointer<CChar>($0) } }
    return pointers.withUnsafeBufferPointer(body)
}

private func withBytePointers<R>(_ items: [[UInt8]], _ body: (UnsafeBufferPointer<UnsafePointer<UInt8>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<UInt8>] = items.map { item in
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(item.count, 1))
        p.initialize(from: item, count: item.count)
        return p
    }
    defer { copies.forEach { $0.deallocate() } }
    let pointers = copies.map { UnsafePointer<UInt8>?(UnsafePointer($0)) }
    return pointers.withUnsafeBufferPointer(body)
}

private let publishEventCallback: mh_event_callback = { context, event in
    guard let context, let event else { return }
    Unmanaged<PublishContext>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
}

private let releasePublishContext: mh_release_callback = { context in
    guard let context else { return }
    Unmanaged<PublishContext>.fromOpaque(context).release()
}
