import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET over HTTP(S) with a size limit: how the trust store reaches the DCL and CRL
/// distribution points. Injected, so tests can count requests or fail them.
public protocol HTTPFetching: Sendable {
    /// The body of a 200 response to GET `url`, at most `limit` bytes.
    func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8]
}

/// `HTTPFetching` with Foundation's URLSession (libcurl on Linux): HTTPS to the real DCL,
/// plain HTTP to a loopback stand-in in tests. A body larger than the limit is cut off as
/// soon as it is seen (declared Content-Length or bytes received), never buffered whole.
public struct URLSessionFetcher: HTTPFetching {
    /// Seconds without progress before a request fails.
    public var timeout: TimeInterval

    public init(timeout: TimeInterval = 20) {
        self.timeout = timeout
    }

    public func get(_ url: URL, limit: Int) async throws(TrustStoreError) -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            throw TrustStoreError(.invalidArgument, "\(url.absoluteString) is not an http(s) URL")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 6
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let collector = BodyCollector(url: url, limit: limit)
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result: Result<[UInt8], TrustStoreError> = await withCheckedContinuation { continuation in
            collector.start(session.dataTask(with: url), continuation)
        }
        return try result.get()
    }
}

/// Collects one response body under a limit; resumes its continuation exactly once.
private final class BodyCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: URL
    private let limit: Int
    private let lock = NSLock()
    private var body: [UInt8] = []
    private var failure: TrustStoreError?
    private var continuation: CheckedContinuation<Result<[UInt8], TrustStoreError>, Never>?

    init(url: URL, limit: Int) {
        self.url = url
        self.limit = limit
    }

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<Result<[UInt8], TrustStoreError>, Never>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    private func fail(_ error: TrustStoreError, _ task: URLSessionTask) {
        lock.withLock { if failure == nil { failure = error } }
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status != 200 {
            fail(TrustStoreError(status == 404 ? .notFound : .unreachable, "\(url.absoluteString) answered HTTP \(status)"), dataTask)
            completionHandler(.cancel)
        } else if response.expectedContentLength > Int64(limit) {
            fail(TrustStoreError(.responseTooLarge, "\(url.absoluteString) sent \(response.expectedContentLength) bytes; the limit is \(limit)"),
                 dataTask)
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = lock.withLock { () -> Bool in
            guard failure == nil else { return false }
            body.append(contentsOf: data)
            return body.count > limit
        }
        if tooLarge {
            fail(TrustStoreError(.responseTooLarge, "\(url.absoluteString) sent more than \(limit) bytes"), dataTask)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<Result<[UInt8], TrustStoreError>, Never>?, Result<[UInt8], TrustStoreError>) in
            let c = self.continuation
            self.continuation = nil
            if let failure { return (c, .failure(failure)) }
            if let error {
                return (c, .failure(TrustStoreError(.unreachable, "cannot fetch \(url.absoluteString): \(error.localizedDescription)")))
            }
            return (c, .success(body))
        }
        continuation?.resume(returning: result)
    }
}
