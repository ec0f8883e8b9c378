import CNet
import Dispatch
import MatterPlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A dual-stack UDP socket (IPv6 and IPv4-mapped) that reports each datagram's arrival interface,
/// so replies to fe80:: peers go out the interface they came in on.
public final class UDPTransport: MessageTransport, @unchecked Sendable {
    // @unchecked: the fd is guarded by `socket`; reads happen on the reactor thread, in `receive`.
    private let socket: Mutex<Socket>
    private let continuation: AsyncStream<Datagram>.Continuation
    private let reader: DatagramReader
    public let incoming: AsyncStream<Datagram>
    public let localPort: UInt16

    /// The descriptor and the sends using it. A send runs outside the lock (two senders held it
    /// in turn for each sendto before); `close` leaves the descriptor to the last one, so its
    /// number is never reused under a send.
    private struct Socket {
        var fd: Int32
        var sending = 0
        var closing = false
    }

    /// Opens a socket on `port` (0 picks a free one). `netnsPath` (e.g. /run/netns/NAME)
    /// opens it inside another network namespace.
    public init(port: UInt16 = 0, netnsPath: String? = nil) throws(MessagingError) {
        let fd: Int32
        if let netnsPath {
            fd = try Self.openInNamespace(netnsPath, port: port)
        } else {
            fd = cnet_udp_open(port)
        }
        guard fd >= 0 else { throw MessagingError.transport(operation: "bind to port \(port)", errno: -fd) }
        localPort = UInt16(truncatingIfNeeded: cnet_local_port(fd))
        socket = Mutex(Socket(fd: fd))
        (incoming, continuation) = AsyncStream.makeStream(of: Datagram.self, bufferingPolicy: .bufferingNewest(512))
        let reader = DatagramReader(continuation: continuation)
        self.reader = reader
        guard let reactor = DatagramReactor.shared else {
            Glibc.close(fd)
            throw MessagingError.transport(operation: "start the thread that reads UDP sockets", errno: EAGAIN)
        }
        if let e = reactor.register(fd, handler: { reader.drain($0) }) {
            Glibc.close(fd)
            throw MessagingError.transport(operation: "watch the socket on port \(port)", errno: e)
        }
    }

    public func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        guard bytes.count <= maximumMessageSize else { throw MessagingError.tooLarge(bytes.count) }
        let fd = socket.withLock { s -> Int32? in
            guard !s.closing, s.fd >= 0 else { return nil }
            s.sending += 1
            return s.fd
        }
        guard let fd else { throw MessagingError.transport(operation: "send", errno: EBADF) }
        let n = bytes.withUnsafeBufferPointer { b in
            peer.ip.withUnsafeBufferPointer { a in
                cnet_send(fd, b.baseAddress, b.count, a.baseAddress, peer.port, peer.interfaceIndex)
            }
        }
        socket.withLock { s in
            s.sending -= 1
            if s.closing, s.sending == 0, s.fd >= 0 {
                Glibc.close(s.fd)
                s.fd = -1
            }
        }
        if n < 0 { throw MessagingError.transport(operation: "send to \(peer)", errno: Int32(-n)) }
    }

    /// Datagrams go to `handler` on the reactor thread: no task wake-up per datagram.
    public func deliverDirectly(to handler: @escaping @Sendable (Datagram) -> Void) -> Bool {
        reader.sink.set(handler)
        return true
    }

    public func close() {
        let fd = socket.withLock { s -> Int32? in
            guard !s.closing, s.fd >= 0 else { return nil }
            s.closing = true
            return s.fd
        }
        if let fd {
            DatagramReactor.shared?.unregister(fd)  // waits for a running read handler: not under our lock
            socket.withLock { s in
                if s.sending == 0 {
                    Glibc.close(fd)
                    s.fd = -1
                }
            }
        }
        continuation.finish()
    }

    deinit { close() }

    /// Reads every queued datagram into the stream, or to the direct handler once there is
    /// one; runs only on the reactor thread, so its buffer needs no lock.
    private final class DatagramReader: @unchecked Sendable {
        private var buffer = [UInt8](repeating: 0, count: 2048)
        private var address = [UInt8](repeating: 0, count: 16)
        /// Where each datagram goes: the stream until `deliverDirectly` sets a handler.
        let sink: SettableCallback<Datagram>

        init(continuation: AsyncStream<Datagram>.Continuation) {
            sink = SettableCallback { continuation.yield($0) }
        }

        func drain(_ fd: Int32) {
            var port: UInt16 = 0, ifindex: UInt32 = 0
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { b in
                    address.withUnsafeMutableBufferPointer { a in
                        cnet_recv(fd, b.baseAddress, b.count, a.baseAddress, &port, &ifindex)
                    }
                }
                if n < 0 { return }
                let datagram = Datagram(bytes: Array(buffer[0..<n]),
                                        from: PeerAddress(ip: address, port: port, interfaceIndex: ifindex))
                sink(datagram)
            }
        }
    }

    /// setns applies to the calling thread only: open the socket on a short-lived thread.
    private static func openInNamespace(_ path: String, port: UInt16) throws(MessagingError) -> Int32 {
        final class Box: @unchecked Sendable { var fd: Int32 = -EINVAL }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let started = DetachedThread.start {
            let r = cnet_enter_netns(path)
            box.fd = r < 0 ? r : cnet_udp_open(port)
            done.signal()
        }
        if started { done.wait() } else { box.fd = -EAGAIN }
        if box.fd < 0 { throw MessagingError.transport(operation: "open in namespace \(path)", errno: -box.fd) }
        return box.fd
    }
}
