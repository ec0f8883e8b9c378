import Foundation
import Testing
import TestSupport

/// A process that links MatterCrypto exits cleanly while other threads are still inside OpenSSL.
/// With OpenSSL's default atexit cleanup, its locks were freed under those threads: the probe
/// crashed in pthread_rwlock_wrlock in about nine runs of ten (as `matterctl add` once did after
/// "Added ...", failing a CI run).
@Suite struct ProcessExitTests {
    static var probe: String { ProcessRunner.productsDirectory.appendingPathComponent("matterhub-exit-probe").path }

    @Test func exitingWhileThreadsUseOpenSSLDoesNotCrash() throws {
        var statuses: [Int32] = []
        for _ in 0..<20 {
            let result = try ProcessRunner.run(Self.probe, ["3", "20"], timeout: 30)
            statuses.append(result.status)
        }
        #expect(statuses.allSatisfy { $0 == 0 }, "exit statuses of 20 runs: \(statuses)")
    }
}
