import Synchronization
import Testing
import MatterPlatform
#if canImport(Glibc)
import Glibc
#endif

/// The hub calls its event sink once per event for as long as it runs, so a call must cost the
/// same after thousands of events as before (a closure read out of a `Mutex` by inout access grew
/// one thunk per read: 64 B leaked and a longer call every time).
@Suite struct SettableCallbackTests {
    private static func seconds(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// The fastest of five batches of 200 calls (the minimum filters out preemption).
    private static func fastestBatch(_ callback: SettableCallback<Int>) -> Double {
        (0..<5).map { _ in seconds { for i in 0..<200 { callback(i) } } }.min()!
    }

    @Test func aCallCostsTheSameAfterThousandsOfCalls() {
        let count = Mutex(0)
        let callback = SettableCallback<Int>()
        callback.set { _ in count.withLock { $0 += 1 } }
        let before = Self.fastestBatch(callback)
        for i in 0..<5_000 { callback(i) }
        let after = Self.fastestBatch(callback)
        #expect(count.withLock { $0 } == 7_000)
        // With a thunk per call, the later batches run ~6,000 thunks deep: three orders of magnitude.
        #expect(after < before * 20 + 0.000_2, "a call got slower with every call: \(before) s -> \(after) s per 200")
    }

    @Test func theLatestClosureSetIsTheOneCalled() {
        let seen = Mutex<[String]>([])
        let callback = SettableCallback<String>()
        callback("dropped: nothing set yet")
        callback.set { value in seen.withLock { $0.append("first \(value)") } }
        callback("a")
        callback.set { value in seen.withLock { $0.append("second \(value)") } }
        callback("b")
        #expect(seen.withLock { $0 } == ["first a", "second b"])
    }
}
