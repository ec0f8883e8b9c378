internal import CCurl
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials
import MatterPlatform

/// GET over HTTP(S) with a size limit: how the trust store reaches the DCL and CRL
/// distribution points, and the hub fetches firmware. Injected, so tests can count requests or
/// fail them.
public protocol HTTPFetching: Sendable {
    /// The body of a 200 response to GET `url`, at most `limit` bytes.
    func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8]
    /// The body of a 200 response written to `path` (created or truncated, owner-only), at most
    /// `limit` bytes; returns its length. For bodies too large to hold in memory (firmware).
    func download(_ url: URL, toFile path: String, limit: Int) async throws(TrustStoreError) -> UInt64
}

extension HTTPFetching {
    public func download(_ url: URL, toFile path: String, limit: Int) async throws(TrustStoreError) -> UInt64 {
        let body = try await get(url, limit: limit)
        do { try Data(body).write(to: URL(fileURLWithPath: path)) } catch {
            throw TrustStoreError(.storage, "cannot write \(path): \(error)")
        }
        return UInt64(body.count)
    }
}

/// `HTTPFetching` with libcurl (behind CShims/CCurl): HTTPS with the system's trusted CAs
/// (OpenSSL's, host names checked, TLS 1.2 or later), HTTP/2 where the server offers it, IPv6 and
/// IPv4, the proxies the environment names (`https_proxy`, `http_proxy`, `no_proxy`), chunked
/// and compressed-free bodies.
///
/// Up to ``maxRedirects`` redirects are followed, never from https to http nor to another
/// scheme. A body larger than the limit is refused as soon as it is seen (a declared
/// Content-Length, or the bytes received), never buffered whole. Errors: `.notFound` for 404,
/// `.responseTooLarge`, `.responseInvalid` for an answer that is not HTTP, `.invalidArgument` for
/// a URL that is not http(s), `.unreachable` for everything else (resolving, connecting, TLS,
/// other statuses, a connection closed early, no progress for ``timeout`` seconds, the whole
/// request past six times that).
public struct HTTPClientFetcher: HTTPFetching {
    /// Seconds without progress (resolving, connecting, the handshake, receiving) before a request
    /// fails; a whole request, redirects included, gets six times this.
    public var timeout: TimeInterval
    /// The most redirects followed for one request.
    public static let maxRedirects = 5
    private let trustedCAFile: String?

    public init(timeout: TimeInterval = 20) {
        self.timeout = timeout
        trustedCAFile = nil
    }

    /// A fetcher that also trusts the CA certificates in `trustedCAFile` (PEM): a DCL mirror with
    /// a private CA, or tests against a server with a throwaway one.
    package init(timeout: TimeInterval = 20, trustedCAFile: String?) {
        self.timeout = timeout
        self.trustedCAFile = trustedCAFile
    }

    /// libcurl's version line (for logs).
    public static var libraryVersion: String { String(cString: mh_http_version()) }

    public func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8] {
        try await perform(url, limit: limit, into: nil).body
    }

    public func download(_ url: URL, toFile path: String, limit: Int) async throws(TrustStoreError) -> UInt64 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TrustStoreError(.storage, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try await perform(url, limit: limit, into: fd).length
    }

    /// Runs the request on a thread of its own: libcurl blocks for up to `timeout` at a time, and
    /// the global queue has as many threads as cores (two blocked fetches would stall every other
    /// user of it); a serial queue targets the overcommitting root queue, which starts a thread
    /// when all are busy. Task cancellation reaches libcurl's progress callback.
    private func perform(_ url: URL, limit: Int, into fd: Int32?) async throws(TrustStoreError) -> (body: [UInt8], length: UInt64) {
        _ = try HTTPRequestTarget(url)  // http(s) with a host, before libcurl sees it
        if let file = trustedCAFile, !FileManager.default.isReadableFile(atPath: file) {
            throw TrustStoreError(.invalidArgument, "cannot load trusted CA certificates from \(file): no such readable file")
        }
        let cancel = CancelFlag()
        let (timeout, caFile) = (timeout, trustedCAFile)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<([UInt8], UInt64), TrustStoreError>, Never>) in
                DispatchQueue(label: "matterhub.http").async {
                    continuation.resume(returning: Result { () throws(TrustStoreError) in
                        try Self.fetch(url, limit: limit, fd: fd, timeout: timeout, caFile: caFile, cancel: cancel)
                    })
                }
            }
        } onCancel: {
            cancel.set()
        }
        return try result.get()
    }

    /// The whole request, blocking.
    private static func fetch(_ url: URL, limit: Int, fd: Int32?, timeout: TimeInterval, caFile: String?,
                              cancel: CancelFlag) throws(TrustStoreError) -> ([UInt8], UInt64) {
        let stall = max(1, Int(timeout.rounded(.up)))
        var response = mh_http_response()
        defer { mh_http_response_free(&response) }
        url.absoluteString.withCString { urlText in
            withOptionalCString(caFile) { ca in
                var request = mh_http_request(url: urlText, extra_ca_file: ca, limit: Int64(limit), stall_seconds: stall,
                                              total_seconds: stall * 6, max_redirects: maxRedirects, out_fd: fd ?? -1,
                                              cancel: cancel.pointer)
                mh_http_get(&request, &response)
            }
        }
        if Int32(response.outcome) == MH_HTTP_OK.rawValue {
            let body = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
            return (body, response.received)
        }
        throw failure(response, url: url, limit: limit, stall: stall)
    }

    /// The typed error for a failed request, worded as "cannot fetch <url>: <what happened>".
    private static func failure(_ r: mh_http_response, url: URL, limit: Int, stall: Int) -> TrustStoreError {
        let name = url.absoluteString
        let said = text(r.error)
        let host = url.host(percentEncoded: false) ?? "the server"
        func unreachable(_ why: String) -> TrustStoreError { TrustStoreError(.unreachable, "cannot fetch \(name): \(why)") }
        switch mh_http_outcome(rawValue: UInt32(r.outcome)) {
        case MH_HTTP_STATUS:
            return TrustStoreError(r.status == 404 ? .notFound : .unreachable, "\(name) answered HTTP \(r.status)")
        case MH_HTTP_TOO_LARGE:
            if r.declared_over_limit != 0 {
                let size = r.declared_length > Int64(limit) ? "\(r.declared_length) bytes" : "a body over the limit"
                return TrustStoreError(.responseTooLarge, "\(name) declares \(size); the limit is \(limit) bytes")
            }
            return TrustStoreError(.responseTooLarge, "\(name) sent more than \(limit) bytes, the limit")
        case MH_HTTP_STALLED: return unreachable("no data from the server for \(stall) s")
        case MH_HTTP_DEADLINE: return unreachable("no complete response within \(stall * 6) s")
        case MH_HTTP_CANCELLED: return unreachable("cancelled")
        case MH_HTTP_RESOLVE: return unreachable("cannot resolve \(host) (\(said))")
        case MH_HTTP_CONNECT:
            return unreachable("cannot connect to \(host) port \(url.port ?? (url.scheme == "https" ? 443 : 80)): \(said)")
        case MH_HTTP_TLS_VERIFY: return unreachable("the TLS certificate of \(host) failed verification: \(said)")
        case MH_HTTP_TLS_HANDSHAKE: return unreachable("the TLS handshake with \(host) failed: \(said)")
        case MH_HTTP_TOO_MANY_REDIRECTS: return unreachable("more than \(maxRedirects) redirects (the last to \(text(r.last_url)))")
        case MH_HTTP_REDIRECT_REFUSED:
            let to = text(r.redirect_url).isEmpty ? text(r.last_url) : text(r.redirect_url)
            return unreachable("redirected to \(to), which is refused: redirects stay on http(s) and never go from https to http")
        case MH_HTTP_CLOSED_EARLY: return unreachable("the server closed the connection after \(r.received) body bytes (\(said))")
        case MH_HTTP_NOTHING: return unreachable("the server closed the connection without answering")
        case MH_HTTP_RECEIVE: return unreachable("receiving broke off after \(r.received) body bytes: \(said)")
        case MH_HTTP_HEAD_TOO_LARGE:
            return TrustStoreError(.responseInvalid, "\(name) sent a bad answer: more than libcurl holds (a response head over 100 kB)")
        case MH_HTTP_MALFORMED: return TrustStoreError(.responseInvalid, "\(name) sent a bad answer: \(said)")
        case MH_HTTP_WRITE_FAILED: return TrustStoreError(.storage, "cannot keep the body of \(name): out of memory or disk")
        default: return unreachable(said)
        }
    }

    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return body(nil) }
        return s.withCString { body($0) }
    }
}

/// A cancellation flag libcurl's progress callback reads (C11 atomic, owned here).
private final class CancelFlag: @unchecked Sendable {
    let pointer: OpaquePointer?
    init() { pointer = mh_http_cancel_new() }
    func set() { mh_http_cancel_set(pointer) }
    deinit { mh_http_cancel_free(pointer) }
}
