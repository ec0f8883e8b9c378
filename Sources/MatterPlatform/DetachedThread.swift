#if canImport(Glibc)
import Glibc
#endif

/// A plain POSIX thread for work that must own its thread (`setns` applies to the calling thread
/// only; a blocking loop must not hold a Dispatch or Swift concurrency worker): what
/// `Thread.detachNewThread` did, without Foundation.
package enum DetachedThread {
    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps);
    /// false when the system cannot create a thread (then `body` never runs).
    @discardableResult
    package static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, detachedThreadEntry, context) == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

/// What a new thread runs, passed through pthread_create's context pointer (retained once).
private final class ThreadStart: Sendable {
    let name: String?
    let body: @Sendable () -> Void

    init(name: String?, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        if let name { Self.setName(name) }
        body()
    }

    /// Names the calling thread (as `ps -L` and debuggers show it) through /proc/thread-self/comm:
    /// Glibc's module map hides `pthread_setname_np` (a GNU extension).
    private static func setName(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = FileDescriptorIO.writeAll(fd, Array(name.utf8.prefix(15)))
        close(fd)
    }
}

private func detachedThreadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
