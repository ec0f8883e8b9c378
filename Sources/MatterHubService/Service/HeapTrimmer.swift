import MatterPlatform
import Synchronization

/// glibc keeps what a long-running, many-threaded process frees in its arenas (resident, not
/// reused across arenas, returned only from the top of the main heap): the soak showed a hub's
/// heap in use flat while what its allocator held free grew by megabytes an hour. Every
/// `interval`, when the arenas hold more than `threshold` free, they are handed back to the
/// system (malloc_trim), so a hub that runs for months comes back to its working set after
/// every burst (a restart storm, a big interview).
final class HeapTrimmer: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)
    let interval: Duration
    let thresholdKB: Int

    init(interval: Duration = .seconds(300), thresholdKB: Int = 2048) {
        self.interval = interval
        self.thresholdKB = thresholdKB
    }

    func start(log: @escaping @Sendable (String) -> Void) {
        let (interval, threshold) = (interval, thresholdKB)
        let loop = Task.detached(priority: .utility) {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                let before = ProcessMemory.current()
                guard before.heapFreeKB > threshold, ProcessMemory.releaseFreeHeap() else { continue }
                let after = ProcessMemory.current()
                if before.residentKB - after.residentKB >= 1024 {
                    log("hub: handed \((before.residentKB - after.residentKB) / 1024) MB the allocator held free back to the system "
                        + "(resident \(before.residentKB / 1024) -> \(after.residentKB / 1024) MB)")
                }
            }
        }
        task.withLock { $0?.cancel(); $0 = loop }
    }

    func stop() { task.withLock { $0?.cancel(); $0 = nil } }
}
