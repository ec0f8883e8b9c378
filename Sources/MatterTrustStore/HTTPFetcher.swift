import Dispatch
import FoundationEssentials
import MatterCrypto
import MatterPlatform
import Synchronization

/// GET over HTTP(S) with a size limit: how the trust store reaches the DCL and CRL
/// distribution points. Injected, so tests can count requests or fail them.
public protocol HTTPFetching: Sendable {
    /// The body of a 200 response to GET `url`, at most `limit` bytes.
    func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8]
}

/// `HTTPFetching` with MatterHub's own HTTP/1.1 client: HTTPS over OpenSSL's libssl (the
/// system's trusted CAs, host-name verification, TLS 1.2 or later) to the real DCL, plain HTTP
/// to a loopback stand-in in tests. No Foundation networking, no libcurl.
///
/// One request per connection (`Connection: close`); up to ``maxRedirects`` redirects are
/// followed (301, 302, 303, 307, 308), never from https to http. A body larger than the limit
/// is refused as soon as it is seen (a declared Content-Length or chunk size, or the bytes
/// received), never buffered whole. Errors: `.notFound` for 404, `.responseTooLarge`,
/// `.responseInvalid` for a response that is not HTTP/1.1, `.invalidArgument` for a URL that is
/// not http(s), `.unreachable` for everything else (resolving, connecting, TLS, other statuses,
/// a connection closed early, no progress for ``timeout`` seconds).
public struct HTTPClientFetcher: HTTPFetching {
    /// Seconds without progress (resolving, connecting, sending, receiving) before a request fails; a
    /// whole request, redirects included, gets six times this.
    public var timeout: TimeInterval
    /// The most redirects followed for one request.
    public static let maxRedirects = 5
    private let trust: TrustPolicy

    public init(timeout: TimeInterval = 20) {
        self.timeout = timeout
        trust = TrustPolicy(caFile: nil)
    }

    /// A fetcher that also trusts the CA certificates in `trustedCAFile` (PEM), for tests
    /// against a server with a throwaway CA.
    package init(timeout: TimeInterval = 20, trustedCAFile: String?) {
        self.timeout = timeout
        trust = TrustPolicy(caFile: trustedCAFile)
    }

    public func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8] {
        let cancellation = HTTPCancellation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8], TrustStoreError>, Never>) in
                // A serial queue of its own, not the global queue: a request blocks its thread for
                // up to `timeout` at a time, and the global queue has as many threads as cores
                // (two blocked fetches would stall every other user of it). A serial queue
                // targets the overcommitting root queue, which starts a thread when all are busy.
                DispatchQueue(label: "matterhub.trust-store.http").async {
                    continuation.resume(returning: Result { () throws(TrustStoreError) in
                        try fetch(url, limit: limit, cancellation: cancellation)
                    })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// The whole request, blocking: each hop of the redirect chain in turn.
    func fetch(_ url: URL, limit: Int, cancellation: HTTPCancellation) throws(TrustStoreError) -> [UInt8] {
        let deadline = ContinuousClock.now + .milliseconds(Int64((timeout * 6_000).rounded(.up)))
        var current = url
        var target = try HTTPRequestTarget(current)
        var redirects = 0
        while true {
            switch try exchange(target, current, limit: limit, deadline: deadline, cancellation: cancellation) {
            case .body(let body):
                return body
            case .redirect(let location):
                redirects += 1
                guard redirects <= Self.maxRedirects else {
                    throw TrustStoreError(.unreachable, "cannot fetch \(url.absoluteString): more than \(Self.maxRedirects) redirects (the last to \(location))")
                }
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                    throw TrustStoreError(.responseInvalid, "\(current.absoluteString) redirected to '\(location)', which is not a URL")
                }
                let nextTarget: HTTPRequestTarget
                do throws(TrustStoreError) { nextTarget = try HTTPRequestTarget(next) } catch {
                    throw TrustStoreError(.unreachable, "cannot fetch \(url.absoluteString): redirected to \(next.absoluteString), which is not an http(s) URL")
                }
                guard !target.isTLS || nextTarget.isTLS else {
                    throw TrustStoreError(.unreachable, "cannot fetch \(url.absoluteString): \(current.absoluteString) redirected to "
                                          + "\(next.absoluteString); a redirect from https to http is refused")
                }
                current = next
                target = nextTarget
            }
        }
    }

    enum Outcome {
        case body([UInt8])
        case redirect(String)
    }

    /// One request on one connection.
    private func exchange(_ target: HTTPRequestTarget, _ url: URL, limit: Int, deadline: ContinuousClock.Instant,
                          cancellation: HTTPCancellation) throws(TrustStoreError) -> Outcome {
        let name = url.absoluteString
        func unreachable(_ error: HTTPConnectionError) -> TrustStoreError {
            TrustStoreError(.unreachable, "cannot fetch \(name): \(error.reason)")
        }
        let context = target.isTLS ? try trust.context() : nil
        let connection: HTTPConnection
        do throws(HTTPConnectionError) {
            connection = try HTTPConnection(host: target.host, port: target.port, tls: context, timeout: timeout, cancellation: cancellation)
        } catch { throw unreachable(error) }
        defer { connection.close() }
        do throws(HTTPConnectionError) { try connection.send(target.request) } catch { throw unreachable(error) }

        var parser = HTTPResponseParser(bodyLimit: limit)
        func step(_ body: (inout HTTPResponseParser) throws(HTTPResponseParser.Failure) -> Void) throws(TrustStoreError) {
            do throws(HTTPResponseParser.Failure) { try body(&parser) } catch {
                switch error {
                case .bodyTooLarge: throw TrustStoreError(.responseTooLarge, "\(name) \(error)")
                case .malformed, .headTooLong: throw TrustStoreError(.responseInvalid, "\(name) sent a bad answer: \(error)")
                case .truncated: throw TrustStoreError(.unreachable, "cannot fetch \(name): \(error)")
                }
            }
        }
        var reading = false
        while !parser.isComplete {
            let bytes: [UInt8]
            do throws(HTTPConnectionError) { bytes = try connection.receive() } catch { throw unreachable(error) }
            if bytes.isEmpty {
                try step { p throws(HTTPResponseParser.Failure) in try p.finish() }
                break
            }
            try step { p throws(HTTPResponseParser.Failure) in try p.consume(bytes) }
            if !reading, let head = parser.head {
                switch head.status {
                case 200:
                    reading = true
                    try step { p throws(HTTPResponseParser.Failure) in try p.acceptBody() }
                case 301, 302, 303, 307, 308:
                    guard let location = head.field("location"), !location.isEmpty else {
                        throw TrustStoreError(.unreachable, "\(name) answered HTTP \(head.status) without a Location")
                    }
                    return .redirect(location)
                case 404:
                    throw TrustStoreError(.notFound, "\(name) answered HTTP 404")
                default:
                    throw TrustStoreError(.unreachable, "\(name) answered HTTP \(head.status)")
                }
            }
            guard ContinuousClock.now < deadline else {
                throw TrustStoreError(.unreachable, "cannot fetch \(name): no complete response within \(String(seconds: timeout * 6))")
            }
        }
        return .body(parser.body)
    }
}

/// The TLS trust of a fetcher: the system's shared context, or one made on first use with an
/// extra CA file (tests).
private final class TrustPolicy: Sendable {
    private let caFile: String?
    private let made = Mutex<TLSClientContext?>(nil)

    init(caFile: String?) { self.caFile = caFile }

    func context() throws(TrustStoreError) -> TLSClientContext {
        do throws(CryptoError) {
            guard let caFile else { return try TLSClientContext.system() }
            return try made.withLock { (context: inout TLSClientContext?) throws(CryptoError) -> TLSClientContext in
                if let context { return context }
                let fresh = try TLSClientContext(additionalTrustedCAFile: caFile)
                context = fresh
                return fresh
            }
        } catch {
            throw TrustStoreError(.invalidArgument, "cannot set up TLS: \(error.message)")
        }
    }
}
