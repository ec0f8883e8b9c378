import CNet
import MatterPlatform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One thread per process that waits (epoll) on every registered socket and runs the socket's
/// read handler itself when it becomes readable.
///
/// Why not a DispatchSource: on Linux libdispatch's manager thread does the epoll and then wakes a
/// worker thread to run the handler, which then wakes the Swift task reading the stream: two
/// thread wake-ups per datagram instead of one, and worker threads that are torn down when idle
/// and created again for the next burst. A message's round trip crosses this path twice.
final class DatagramReactor: @unchecked Sendable {
    // @unchecked: `epollFD` never changes after init; `handlers` is behind a Mutex. (epoll_ctl from
    // another thread takes effect in a running epoll_wait: no wake-up descriptor is needed.)
    typealias Handler = @Sendable (Int32) -> Void

    /// Nil when the system could not give it an epoll instance or a thread (then no UDP socket
    /// can be read: UDPTransport's init throws).
    static let shared = DatagramReactor()

    private let epollFD: Int32
    /// Handlers run with this lock held, so once `unregister` returns, the socket's handler is
    /// not running and will not run again: its fd can be closed (and its number reused) safely.
    private let handlers = Mutex<[Int32: Handler]>([:])

    private init?() {
        epollFD = cnet_epoll_create()
        guard epollFD >= 0 else { return nil }
        guard DetachedThread.start(name: "udp-reactor", { [self] in run() }) else {
            close(epollFD)
            return nil
        }
    }

    /// Calls `handler(fd)` on the reactor thread whenever `fd` (non-blocking) is readable; the
    /// handler reads until EAGAIN (edge-free: level-triggered, so a partial drain is picked up).
    /// Returns the errno when epoll refuses the descriptor.
    func register(_ fd: Int32, handler: @escaping Handler) -> Int32? {
        handlers.withLock { $0[fd] = handler }
        let result = cnet_epoll_add(epollFD, fd)
        guard result == 0 else {
            handlers.withLock { $0[fd] = nil }
            return -result
        }
        return nil
    }

    /// After this returns the handler of `fd` is not running and never runs again.
    func unregister(_ fd: Int32) {
        _ = cnet_epoll_remove(epollFD, fd)
        handlers.withLock { $0[fd] = nil }
    }

    private func run() {
        var ready = [Int32](repeating: -1, count: 64)
        while true {
            let n = ready.withUnsafeMutableBufferPointer { cnet_epoll_wait(epollFD, $0.baseAddress, Int32($0.count), -1) }
            if n < 0 { continue }  // EINTR
            for i in 0..<Int(n) {
                let fd = ready[i]
                handlers.withLock { table in table[fd]?(fd) }
            }
        }
    }
}
