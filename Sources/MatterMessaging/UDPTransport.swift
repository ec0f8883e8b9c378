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
    // @unchecked: the fd is guarded by `state`; the read source runs on its own serial queue.
    private let state: Mutex<Int32>
    private let source: DispatchSourceRead
    public let incoming: AsyncStream<Datagram>
    public let localPort: UInt16

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
        state = Mutex(fd)
        let (stream, continuation) = AsyncStream.makeStream(of: Datagram.self, bufferingPolicy: .bufferingNewest(512))
        incoming = stream
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "matterhub.udp"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 2048)
            var addr = [UInt8](repeating: 0, count: 16)
            var port: UInt16 = 0, ifindex: UInt32 = 0
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { b in
                    addr.withUnsafeMutableBufferPointer { a in
                        cnet_recv(fd, b.baseAddress, b.count, a.baseAddress, &port, &ifindex)
                    }
                }
                if n < 0 { break }
                continuation.yield(Datagram(bytes: Array(buffer[0..<n]),
                                            from: PeerAddress(ip: addr, port: port, interfaceIndex: ifindex)))
            }
        }
        source.setCancelHandler {
            continuation.finish()
            Glibc.close(fd)
        }
        source.resume()
    }

    public func send(_ bytes: [UInt8], to peer: PeerAddress) async throws(MessagingError) {
        guard bytes.count <= maximumMessageSize else { throw MessagingError.tooLarge(bytes.count) }
        try state.withLock { fd throws(MessagingError) in
            guard fd >= 0 else { throw MessagingError.transport(operation: "send", errno: EBADF) }
            let n = bytes.withUnsafeBufferPointer { b in
                peer.ip.withUnsafeBufferPointer { a in
                    cnet_send(fd, b.baseAddress, b.count, a.baseAddress, peer.port, peer.interfaceIndex)
                }
            }
            if n < 0 { throw MessagingError.transport(operation: "send to \(peer)", errno: Int32(-n)) }
        }
    }

    public func close() {
        state.withLock { fd in
            guard fd >= 0 else { return }
            fd = -1
            source.cancel()
        }
    }

    deinit { close() }

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
