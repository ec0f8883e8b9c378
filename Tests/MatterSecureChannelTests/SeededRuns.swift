/// Runs `body` for seeds 1...`runs`, at most `atOnce` at a time, and counts the runs that gave
/// true. The loss tests bound their parallelism: with all runs together on a loaded 2-core CI
/// machine, a responder computing its answer could take longer than a 40 ms retransmission
/// schedule allows (PASE completed 93 of 100 once), which measures the CPU, not how a handshake
/// survives loss.
func successes(ofRuns runs: Int, atOnce: Int = 8, _ body: @escaping @Sendable (_ seed: UInt64) async -> Bool) async -> Int {
    await withTaskGroup(of: Bool.self) { group in
        var next: UInt64 = 1
        func startNext() {
            guard next <= UInt64(runs) else { return }
            let seed = next
            next += 1
            group.addTask { await body(seed) }
        }
        for _ in 0..<atOnce { startNext() }
        var n = 0
        for await ok in group {
            if ok { n += 1 }
            startNext()
        }
        return n
    }
}
