import Dispatch
#if canImport(Glibc)
import Glibc
#endif
@testable import MatterPlatform
import Synchronization
import Testing

/// Resolving a host is bounded like the rest of a connection: a name server that never answers
/// (getaddrinfo would block for glibc's retries) fails in the caller's timeout, and a cancelled
/// request stops waiting at once.
@Suite struct HostResolutionTests {
    /// A lookup that answers after `milliseconds`, as getaddrinfo does with a silent name server.
    static func slowLookup(_ milliseconds: UInt32) -> HostResolution.Lookup {
        { _, _ in
            usleep(milliseconds * 1000)
            return .success([])
        }
    }

    static func elapsed(since start: ContinuousClock.Instant) -> Duration { ContinuousClock.now - start }

    @Test func aSilentNameServerFailsWithinTheTimeout() {
        let start = ContinuousClock.now
        let result = HostResolution.resolve("dcl.example", port: 443, timeout: 0.3, lookup: Self.slowLookup(10_000))
        #expect(result.failure == HostResolution.Failure(reason: "no answer from the name server within 0.3 s"))
        #expect(Self.elapsed(since: start) < .seconds(5), "waited for the lookup, not the timeout")
    }

    @Test func cancellationStopsTheWait() {
        let cancelled = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { cancelled.withLock { $0 = true } }
        let start = ContinuousClock.now
        let result = HostResolution.resolve("dcl.example", port: 443, timeout: 30, isCancelled: { cancelled.withLock { $0 } },
                                            lookup: Self.slowLookup(10_000))
        #expect(result.failure?.cancelled == true)
        #expect(Self.elapsed(since: start) < .seconds(5), "the cancellation was not seen while waiting")
    }

    @Test func aLookupThatAnswersInTimeIsUsed() {
        let address = ResolvedAddress(family: AF_INET, socketAddress: [2, 0, 0x1F, 0x90, 127, 0, 0, 1] + [UInt8](repeating: 0, count: 8))
        let result = HostResolution.resolve("hub.local", port: 8080, timeout: 5, lookup: { _, _ in
            usleep(50_000)
            return .success([address])
        })
        #expect((try? result.get())?.map(\.numericHost) == ["127.0.0.1"])
        let failing = HostResolution.resolve("x.invalid", port: 80, timeout: 5, lookup: { _, _ in .failure(.init(reason: "Name or service not known")) })
        #expect(failing.failure?.reason == "Name or service not known")
    }

    /// The system's getaddrinfo (inline: an address literal needs no thread): numeric addresses
    /// give exactly themselves.
    @Test(arguments: [("127.0.0.1", AF_INET, 16), ("::1", AF_INET6, 28)])
    func numericHostsResolveToThemselves(_ host: String, _ family: Int32, _ length: Int) throws {
        let addresses = try HostResolution.resolve(host, port: 8080, timeout: 5).get()
        #expect(addresses.count == 1)
        #expect(addresses.first?.family == family)
        #expect(addresses.first?.socketAddress.count == length)
        #expect(addresses.first?.numericHost == host)
        // The port, in network order, follows the family in both sockaddr layouts.
        #expect(addresses.first.map { Array($0.socketAddress[2..<4]) } == [0x1F, 0x90])
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let f) = self { return f }
        return nil
    }
}
