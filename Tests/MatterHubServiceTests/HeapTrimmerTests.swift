import Foundation
@testable import MatterHubService
import MatterPlatform
import Synchronization
import Testing

/// The hub's heap trimmer: memory freed behind a live block stays resident as held free (what
/// the soak saw grow) until the trimmer hands it back, which it says.
@Suite(.serialized) struct HeapTrimmerTests {
    @Test func heldFreeMemoryIsHandedBack() async throws {
        // 96 MB in 64 KB blocks (from an arena, below the mmap threshold), the last kept as a fence.
        let blocks = (0..<1537).map { _ in malloc(64 * 1024)! }
        for block in blocks { memset(block, 0x5A, 64 * 1024) }
        for block in blocks.dropLast() { free(block) }
        defer { free(blocks[blocks.count - 1]) }
        let held = ProcessMemory.current()
        #expect(held.heapFreeKB >= 80 * 1024, "\(held)")

        let said = Mutex<[String]>([])
        let trimmer = HeapTrimmer(interval: .milliseconds(50), thresholdKB: 1024)
        trimmer.start { line in said.withLock { $0.append(line) } }
        defer { trimmer.stop() }
        for _ in 0..<100 where said.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(50)) }
        let after = ProcessMemory.current()
        #expect(held.residentAnonymousKB - after.residentAnonymousKB >= 64 * 1024, "\(held) -> \(after)")
        #expect(said.withLock { $0.first?.contains("back to the system") } == true, "\(said.withLock { $0 })")
    }
}
