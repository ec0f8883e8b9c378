import Foundation
import MatterTrustStore
import Testing
import TestSupport

/// `HTTPClientFetcher` (libcurl) over HTTPS against a real TLS server on loopback (Python's `ssl`, a
/// throwaway CA made with the openssl CLI): trusted, untrusted, wrong host, downgrade, stall.
@Suite(.serialized) struct HTTPClientFetcherTLSTests {
    func failure(_ fetcher: HTTPClientFetcher, _ url: URL) async -> TrustStoreError? {
        do throws(TrustStoreError) {
            _ = try await fetcher.get(url, limit: 1 << 20)
            return nil
        } catch { return error }
    }

    var trusting: HTTPClientFetcher {
        get throws { HTTPClientFetcher(timeout: 5, trustedCAFile: try TLSTestPKI.paths().caCertificate) }
    }

    @Test func fetchesFromAServerWhoseCAIsTrusted() async throws {
        let server = try await TLSTestServer()
        // By name (localhost resolves to 127.0.0.1; ::1, if listed, refuses) and by address.
        #expect(try await trusting.get(server.url("localhost"), limit: 1 << 20) == server.body)
        #expect(try await trusting.get(server.url("127.0.0.1"), limit: 1 << 20) == server.body)
        let fetcher = try trusting
        do throws(TrustStoreError) {
            _ = try await fetcher.get(server.url(), limit: 1000)
            Issue.record("the limit did not hold over TLS")
        } catch { #expect(error.code == .responseTooLarge) }
        let missing = await failure(try trusting, server.url("localhost", "/nothing"))
        #expect(missing?.code == .notFound)
    }

    @Test func refusesAServerWhoseCAIsNotTrusted() async throws {
        let server = try await TLSTestServer()
        let error = await failure(HTTPClientFetcher(timeout: 5), server.url())
        #expect(error?.code == .unreachable)
        #expect(error?.message == "cannot fetch \(server.url().absoluteString): the TLS certificate of localhost failed verification: "
                + "SSL certificate problem: unable to get local issuer certificate", "\(String(describing: error))")
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func refusesACertificateForAnotherHost(_ host: String) async throws {
        let server = try await TLSTestServer(certificate: "other")
        let error = await failure(try trusting, server.url(host))
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("the TLS certificate of \(host) failed verification") == true
                && error?.message.contains("subject name matches target host name '\(host)'") == true, "\(String(describing: error))")
    }

    @Test func refusesARedirectFromHTTPSToHTTP() async throws {
        let plain = try ScriptedHTTPServer()
        plain.route("/x", [.text("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno")])
        let server = try await TLSTestServer(redirect: plain.base + "/x")
        let error = await failure(try trusting, server.url("localhost", "/to-http"))
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("redirected to \(plain.base)/x, which is refused") == true, "\(String(describing: error))")
        #expect(plain.heads.isEmpty)
    }

    @Test func refusesAServerOlderThanTLS12() async throws {
        let server = try await TLSTestServer(maxVersion: "tls1.1")
        let error = await failure(try trusting, server.url())
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("the TLS handshake with localhost failed") == true, "\(String(describing: error))")
    }

    @Test func httpsToAPlainHTTPServerFailsInTheHandshake() async throws {
        let plain = try ScriptedHTTPServer(greeting: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        let error = await failure(try trusting, URL(string: "https://127.0.0.1:\(plain.port)/x")!)
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("TLS handshake with 127.0.0.1") == true, "\(String(describing: error))")
    }

    /// A server that accepts and never answers the ClientHello: the handshake times out.
    @Test func aStalledHandshakeTimesOut() async throws {
        let silent = try ScriptedHTTPServer()
        let error = await failure(HTTPClientFetcher(timeout: 1), URL(string: "https://127.0.0.1:\(silent.port)/x")!)
        #expect(error?.message.contains("no data from the server for 1 s") == true, "\(String(describing: error))")
    }

    @Test func aMissingCAFileIsAnInvalidArgument() async throws {
        let error = await failure(HTTPClientFetcher(timeout: 1, trustedCAFile: "/nonexistent/ca.pem"), URL(string: "https://127.0.0.1:1/x")!)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("cannot load trusted CA certificates from /nonexistent/ca.pem") == true, "\(String(describing: error))")
    }
}
