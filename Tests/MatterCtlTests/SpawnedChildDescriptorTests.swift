import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The test spawners hand a child its standard streams and nothing else: a descriptor the test
/// process holds (here a pipe it opened without close-on-exec, as any test may) must not reach
/// the child. An inherited pipe end kept its reader waiting for an end of file until that
/// unrelated child exited: the deadlock that hung a CI run.
@Suite struct SpawnedChildDescriptorTests {
    /// The descriptor numbers open in a child that lists its own (`ls` adds the one it reads with).
    static func descriptors(in output: String) -> Set<Int32> {
        Set(output.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
    }

    @Test func processRunnerChildrenGetOnlyTheirStandardStreams() throws {
        var leaked: [Int32] = [0, 0]
        try #require(pipe(&leaked) == 0)
        defer { close(leaked[0]); close(leaked[1]) }
        let r = try ProcessRunner.run("/bin/sh", ["-c", "ls /proc/self/fd"])
        #expect(r.status == 0, "\(r.stderr)")
        let open = Self.descriptors(in: r.stdout)
        #expect(!open.contains(leaked[0]) && !open.contains(leaked[1]), "the child holds \(open.sorted())")
        #expect(open.isSubset(of: [0, 1, 2, 3]), "the child holds \(open.sorted())")
    }

    @Test func childProcessChildrenGetOnlyTheirStandardStreams() async throws {
        var leaked: [Int32] = [0, 0]
        try #require(pipe(&leaked) == 0)
        defer { close(leaked[0]); close(leaked[1]) }
        let child = try ChildProcess(["/bin/sh", "-c", "ls /proc/self/fd"])
        #expect(await child.wait(timeout: 30) == 0)
        for _ in 0..<500 where !child.isDrained { try? await Task.sleep(for: .milliseconds(10)) }
        let open = Self.descriptors(in: child.text)
        #expect(!open.contains(leaked[0]) && !open.contains(leaked[1]), "the child holds \(open.sorted())")
        #expect(open.isSubset(of: [0, 1, 2, 3]), "the child holds \(open.sorted())")
    }
}
