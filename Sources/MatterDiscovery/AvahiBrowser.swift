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
/// One process talks to one daemon: libdbus reads `DBUS_SYSTEM_BUS_ADDRESS` once.
public struct AvahiBrowser: ServiceBrowsing {
    public init() {}

    public func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ServiceEvent.self)
        // Set before the browse exists: a failure event can finish the stream from the poll thread
        // before mh_browse_new has even returned, and a handler set after termination never runs.
        let handle = BrowseHandle()
        continuation.onTermination = { _ in handle.terminate() }
        let context = BrowseContext(continuation: continuation)
        let unmanaged = Unmanaged.passRetained(context)
        var error: Int32 = 0
        guard let browse = mh_browse_new(type, nil, browseEventCallback, releaseContextCallback,
                                         unmanaged.toOpaque(), &error) else {
            unmanaged.release()
            continuation.finish(throwing: DiscoveryError.daemonUnavailable(
                avahiError: error, reason: String(cString: mh_strerror(error))))
            return stream
        }
        handle.attach(browse)
        return stream
    }
}

/// Owns an `mh_browse*` and frees it exactly once, when the stream terminates, whichever of
/// `attach` and `terminate` comes first. The free runs on a Dispatch queue: termination may be
/// signalled on the poll thread (a callback finishing the stream), where stopping the poll is
/// illegal.
private final class BrowseHandle: Sendable {
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
        DispatchQueue.global().async { mh_browse_free(box.pointer) }
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
    let continuation: AsyncThrowingStream<ServiceEvent, any Error>.Continuation
    var aggregator = ServiceAggregator()
    init(continuation: AsyncThrowingStream<ServiceEvent, any Error>.Continuation) {
        self.continuation = continuation
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
