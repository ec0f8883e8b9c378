import CAllocator
#if canImport(Glibc)
import Glibc
#endif

/// The process's memory as the kernel and glibc's allocator count it, for `hub_status` and the soak:
/// a resident set that grows while the heap in use stays flat is memory the allocator holds
/// free (fragmentation, arenas), not a leak.
package struct ProcessMemory: Sendable, Hashable {
    /// Resident pages (kB), and the anonymous ones among them (resident minus file-backed and shared).
    package var residentKB: Int
    package var residentAnonymousKB: Int
    /// Allocated by malloc and not freed (kB).
    package var heapInUseKB: Int
    /// Held free in the allocator's arenas (kB): resident until trimmed or reused.
    package var heapFreeKB: Int

    package static func current() -> ProcessMemory {
        let stats = callocator_current()
        let (resident, shared) = residentPages()
        let page = max(1, Int(sysconf(Int32(_SC_PAGESIZE)))) / 1024
        return ProcessMemory(residentKB: resident * page, residentAnonymousKB: max(0, resident - shared) * page,
                             heapInUseKB: Int(stats.in_use) / 1024, heapFreeKB: Int(stats.free_held) / 1024)
    }

    /// Hands the free pages of every arena back to the system (malloc_trim): glibc returns only
    /// the top of the main heap by itself, so a long-running process with many threads keeps the
    /// high-water mark of each arena's fragmentation. True when some memory was released.
    @discardableResult
    package static func releaseFreeHeap() -> Bool { callocator_trim() == 1 }

    /// Caps glibc's malloc arenas (by default 8 per core, each keeping its own free memory);
    /// call before the process starts its threads.
    package static func limitArenas(_ count: Int) { _ = callocator_limit_arenas(Int32(count)) }

    /// Resident and shared pages from /proc/self/statm ("size resident shared text lib data dt").
    private static func residentPages() -> (resident: Int, shared: Int) {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (0, 0) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return (0, 0) }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " ")).map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
        return fields.count >= 3 ? (fields[1], fields[2]) : (0, 0)
    }
}
