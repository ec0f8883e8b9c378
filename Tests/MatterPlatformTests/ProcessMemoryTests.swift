import Foundation
import MatterPlatform
import Testing

/// ProcessMemory against the kernel's and glibc's own counts: memory malloc hands out shows as heap
/// in use and resident; freed behind a live block it stays resident as held free (what a grown
/// arena keeps), and releaseFreeHeap gives it back.
@Suite(.serialized) struct ProcessMemoryTests {
    @Test func heapInUseHeldFreeAndReleasedAreSeen() throws {
        let before = ProcessMemory.current()
        #expect(before.residentKB > 0 && before.residentAnonymousKB > 0 && before.residentAnonymousKB <= before.residentKB)
        #expect(before.heapInUseKB > 0, "\(before)")

        // 96 MB in 64 KB blocks (below glibc's mmap threshold: from an arena), every page touched;
        // the last one stays, so that freeing the others leaves a hole glibc keeps, not a free
        // top it would give back by itself (a small block would come from a free list instead).
        let blocks = (0..<1537).map { _ in malloc(64 * 1024)! }
        for block in blocks { memset(block, 0x5A, 64 * 1024) }
        let fence = blocks[blocks.count - 1]
        let held = ProcessMemory.current()
        #expect(held.heapInUseKB - before.heapInUseKB >= 90 * 1024, "heap in use \(before.heapInUseKB) -> \(held.heapInUseKB) kB")
        #expect(held.residentAnonymousKB - before.residentAnonymousKB >= 80 * 1024,
                "anonymous resident \(before.residentAnonymousKB) -> \(held.residentAnonymousKB) kB")

        for block in blocks.dropLast() { free(block) }
        let freed = ProcessMemory.current()
        #expect(held.heapInUseKB - freed.heapInUseKB >= 90 * 1024, "heap in use after free: \(freed.heapInUseKB) kB")
        #expect(freed.heapFreeKB >= 80 * 1024, "held free after free: \(freed.heapFreeKB) kB")

        ProcessMemory.releaseFreeHeap()
        let released = ProcessMemory.current()
        #expect(freed.residentAnonymousKB - released.residentAnonymousKB >= 64 * 1024,
                "anonymous resident after releaseFreeHeap: \(freed.residentAnonymousKB) -> \(released.residentAnonymousKB) kB")
        free(fence)
    }
}
