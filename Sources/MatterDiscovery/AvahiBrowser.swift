internal import CAvahi
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Browses and resolves through the system's avahi-daemon (over D-Bus, via libavahi-client).
/// Each browse runs on its own Avahi threaded poll; it survives daemon restarts (reporting
/// `.disconnected` / `.reconnected`) and is torn down when the stream's consumer stops.
///
/// Browses of the same type in one process share one avahi browse (see `SharedBrowses`): fifty
/// commissionings looking for fifty devices resolve each device once, not fifty times.
///
/// One process talks to one daemon: libdbus reads `DBUS_SYSTEM_BUS_ADDRESS` once.
public struct AvahiBrowser: ServiceBrowsing {
    public init() {}

    public func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        SharedBrowses.shared.subscribe(type: type)
    }
}

/// Where the blocking libavahi-client calls run (creating and freeing clients, browsers and
/// publishers: each a few synchronous D-Bus round trips, slow when the daemon is busy). Never on
/// the Swift cooperative pool or Dispatch's global queues, which they would stall for everything
/// else in the process (message handling, timers): on a few serial queues of their own, which
/// libdispatch runs on threads of their own.
enum AvahiCalls {
    private static let queues = (0..<4).map { DispatchQueue(label: "matterhub.avahi.\($0)") }
    private static let next = Atomic<Int>(0)

    /// Runs `work` on one of the avahi queues, without waiting.
    static func async(_ work: @escaping @Sendable () -> Void) {
        let i = next.add(1, ordering: .relaxed).oldValue
        queues[i % queues.count].async(execute: work)
    }

    /// Runs `work` on one of the avahi queues and returns its result.
    static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { c in
            async { c.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }
}

/// The avahi browses of this process, one per service type, each shared by all its consumers.
/// A consumer that joins a running browse first gets what it has found so far (and its "all for
/// now", if it came); the browse is freed when its last consumer stops.
final class SharedBrowses: Sendable {
    static let shared = SharedBrowses()

    typealias Continuation = AsyncThrowingStream<ServiceEvent, any Error>.Continuation

    private struct Browse {
        var handle = BrowseHandle()
        var consumers: [UInt64: Continuation] = [:]
        /// The instances found and not removed, by name.type.domain, in the order found.
        var instances: [String: ServiceInstance] = [:]
        var order: [String] = []
        var allForNow = false
    }
    private struct State {
        var browses: [String: Browse] = [:]
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())

    func subscribe(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ServiceEvent.self)
        let (id, create) = state.withLock { s -> (UInt64, Bool) in
            s.nextID += 1
            let id = s.nextID
            if var b = s.browses[type] {
                for key in b.order { if let i = b.instances[key] { continuation.yield(.found(i)) } }
                if b.allForNow { continuation.yield(.allForNow) }
                b.consumers[id] = continuation
                s.browses[type] = b
                return (id, false)
            }
            var b = Browse()
            b.consumers[id] = continuation
            s.browses[type] = b
            return (id, true)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(type: type, id: id) }
        if create { start(type: type) }
        return stream
    }

    /// Creates the avahi browse of `type` on an avahi queue; its events go to every consumer.
    private func start(type: String) {
        guard let handle = state.withLock({ $0.browses[type]?.handle }) else { return }
        AvahiCalls.async { [weak self] in
            guard let self else { return }
            let context = BrowseContext(emit: { [weak self] in self?.emit($0, type: type, handle: handle) },
                                        fail: { [weak self] in self?.fail($0, type: type, handle: handle) })
            let unmanaged = Unmanaged.passRetained(context)
            var error: Int32 = 0
            guard let browse = mh_browse_new(type, nil, browseEventCallback, releaseContextCallback,
                                             unmanaged.toOpaque(), &error) else {
                unmanaged.release()
                self.fail(DiscoveryError.daemonUnavailable(avahiError: error, reason: String(cString: mh_strerror(error))),
                          type: type, handle: handle)
                return
            }
            handle.attach(browse)
        }
    }

    /// Folds `event` into the browse's snapshot and hands it to the consumers, outside the lock:
    /// a yield can wait for a consumer task's own lock, which a task being cancelled holds while
    /// its stream's termination handler waits for this lock.
    private func emit(_ event: ServiceEvent, type: String, handle: BrowseHandle) {
        let consumers = state.withLock { s -> [Continuation] in
            guard var b = s.browses[type], b.handle === handle else { return [] }
            switch event {
            case .found(let i), .updated(let i):
                let key = Self.key(i)
                if b.instances.updateValue(i, forKey: key) == nil { b.order.append(key) }
            case .removed(let i):
                let key = Self.key(i)
                b.instances[key] = nil
                b.order.removeAll { $0 == key }
            case .allForNow: b.allForNow = true
            case .disconnected:
                b.instances = [:]
                b.order = []
                b.allForNow = false
            case .reconnected: break
            }
            s.browses[type] = b
            return Array(b.consumers.values)
        }
        for c in consumers { c.yield(event) }
    }

    /// The browse failed: every consumer's stream ends with `error`; the next consumer starts anew.
    private func fail(_ error: any Error, type: String, handle: BrowseHandle) {
        let consumers = state.withLock { s -> [Continuation] in
            guard let b = s.browses[type], b.handle === handle else { return [] }
            s.browses[type] = nil
            return Array(b.consumers.values)
        }
        handle.terminate()
        for c in consumers { c.finish(throwing: error) }
    }

    private func unsubscribe(type: String, id: UInt64) {
        let last = state.withLock { s -> BrowseHandle? in
            guard var b = s.browses[type], b.consumers.removeValue(forKey: id) != nil else { return nil }
            if b.consumers.isEmpty {
                s.browses[type] = nil
                return b.handle
            }
            s.browses[type] = b
            return nil
        }
        last?.terminate()
    }

    private static func key(_ i: ServiceInstance) -> String { "\(i.name).\(i.type).\(i.domain)" }
}

/// Owns an `mh_browse*` and frees it exactly once, when the browse ends, whichever of `attach`
/// and `terminate` comes first. The free runs on an avahi queue: termination may be signalled on
/// the poll thread (a callback ending the browse), where stopping the poll is illegal.
final class BrowseHandle: Sendable {
    private struct State: @unchecked Sendable {  // the pointer is only touched under the mutex
        var pointer: OpaquePointer?
        var terminated = false
    }
    private let state = Mutex(State())

    func attach(_ pointer: OpaquePointer) {
        let free = state.withLock { s -> Bool in
            if s.terminated { return true }
            s.pointer = pointer
            return false
        }
        if free { Self.free(pointer) }
    }

    func terminate() {
        let pointer = state.withLock { s -> OpaquePointer? in
            s.terminated = true
            defer { s.pointer = nil }
            return s.pointer
        }
        if let pointer { Self.free(pointer) }
    }

    private static func free(_ pointer: OpaquePointer) {
        let box = PointerBox(pointer)
        AvahiCalls.async { mh_browse_free(box.pointer) }
    }
}

private struct PointerBox: @unchecked Sendable {  // handed to one queue, used once
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// The per-browse state the C callbacks reach through their context pointer. Only the poll
/// thread touches `aggregator` (and the creating thread before the poll starts), so it needs no
/// lock.
final class BrowseContext: @unchecked Sendable {
    let continuation: Sink
    var aggregator = ServiceAggregator()
    init(emit: @escaping @Sendable (ServiceEvent) -> Void, fail: @escaping @Sendable (any Error) -> Void) {
        self.continuation = Sink(emit: emit, fail: fail)
    }

    /// Where the events go (the shared browse's consumers).
    struct Sink {
        let emit: @Sendable (ServiceEvent) -> Void
        let fail: @Sendable (any Error) -> Void
        func yield(_ e: ServiceEvent) { emit(e) }
        func finish(throwing error: any Error) { fail(error) }
    }

    func handle(_ ev: mh_event) {
        let slot = ServiceAggregator.Slot(interfaceIndex: ev.interface_index, protocolIsIPv6: ev.protocol == 1)
        switch Int(ev.kind) {
        case Int(MH_EVENT_FOUND.rawValue):
            let family: ServiceAddress.Family = ev.protocol == 1 ? .ipv6 : .ipv4
            let ip = ev.address.map { String(cString: $0) } ?? ""
            let address = ip.isEmpty ? nil : ServiceAddress(
                ip: ip, family: family, interfaceIndex: ev.interface_index,
                interfaceName: interfaceName(ev.interface_index))
            let txt = ev.txt.map { TXTRecord(wire: Array(UnsafeBufferPointer(start: $0, count: ev.txt_length))) }
                ?? TXTRecord()
            if let e = aggregator.resolved(name: string(ev.name), type: string(ev.type),
                                           domain: string(ev.domain), slot: slot,
                                           host: string(ev.host), address: address,
                                           port: ev.port, txt: txt) {
                continuation.yield(e)
            }
        case Int(MH_EVENT_ADDRESS_ADDED.rawValue), Int(MH_EVENT_ADDRESS_REMOVED.rawValue):
            guard let ip = ev.address.map({ String(cString: $0) }), !ip.isEmpty else { return }
            let address = ServiceAddress(ip: ip, family: ev.protocol == 1 ? .ipv6 : .ipv4,
                                         interfaceIndex: ev.interface_index,
                                         interfaceName: interfaceName(ev.interface_index))
            if let e = aggregator.address(name: string(ev.name), type: string(ev.type), domain: string(ev.domain),
                                          slot: slot, address: address,
                                          present: Int(ev.kind) == Int(MH_EVENT_ADDRESS_ADDED.rawValue)) {
                continuation.yield(e)
            }
        case Int(MH_EVENT_REMOVED.rawValue):
            if let e = aggregator.removed(name: string(ev.name), type: string(ev.type),
                                          domain: string(ev.domain), slot: slot) {
                continuation.yield(e)
            }
        case Int(MH_EVENT_ALL_FOR_NOW.rawValue):
            for e in aggregator.allForNow() { continuation.yield(e) }
            continuation.yield(.allForNow)
        case Int(MH_EVENT_DISCONNECTED.rawValue):
            aggregator.disconnected()
            continuation.yield(.disconnected)
        case Int(MH_EVENT_RECONNECTED.rawValue):
            continuation.yield(.reconnected)
        case Int(MH_EVENT_FAILED.rawValue):
            let message = ev.error_message.map { String(cString: $0) } ?? "error \(ev.error)"
            continuation.finish(throwing: DiscoveryError(.browseFailed, "browse failed: \(message)",
                                                         avahiError: ev.error))
        default:
            break  // a single instance that did not resolve: it is simply not reported
        }
    }

    private func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
}

/// The name of interface `index` on this host, nil if unknown.
func interfaceName(_ index: Int32) -> String? {
    guard index > 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
    guard if_indextoname(UInt32(index), &buffer) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

// C callbacks, formed at file scope so they carry no actor isolation (they run on Avahi's thread).
private let browseEventCallback: mh_event_callback = { context, event in
    guard let context, let event else { return }
    Unmanaged<BrowseContext>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
}

private let releaseContextCallback: mh_release_callback = { context in
    guard let context else { return }
    Unmanaged<AnyObject>.fromOpaque(context).release()
}
