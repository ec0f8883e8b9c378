import Foundation
import MatterTrustStore
import Testing
import TestSupport

/// `HTTPClientFetcher` (libcurl) over plain HTTP against a scripted server on loopback: the
/// request it sends, each body framing, limits seen early, statuses, redirects, broken answers
/// and stalls, each failure typed and worded. (TLS: `HTTPClientFetcherTLSTests`.)
@Suite struct HTTPClientFetcherTests {
    static let ok = "HTTP/1.1 200 OK\r\n"

    func fetch(_ server: ScriptedHTTPServer, _ path: String, limit: Int = 1 << 20, timeout: Double = 5)
        async throws(TrustStoreError) -> [UInt8] {
        try await HTTPClientFetcher(timeout: timeout).get(URL(string: server.base + path)!, limit: limit)
    }

    func failure(_ server: ScriptedHTTPServer, _ path: String, limit: Int = 1 << 20, timeout: Double = 5) async -> TrustStoreError? {
        do throws(TrustStoreError) {
            _ = try await fetch(server, path, limit: limit, timeout: timeout)
            return nil
        } catch { return error }
    }

    @Test func sendsAPlainGET() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/dcl/pki/x?pagination.key=a%2Fb", [.text(Self.ok + "Content-Length: 5\r\n\r\nhello")])
        let body = try await fetch(server, "/dcl/pki/x?pagination.key=a%2Fb#fragment")
        #expect(body == Array("hello".utf8))
        let head = try #require(server.heads.first).split(separator: "\r\n").map(String.init)
        // No Accept-Encoding: bodies come as they are (checksums are over the bytes published).
        #expect(head == ["GET /dcl/pki/x?pagination.key=a%2Fb HTTP/1.1", "Host: 127.0.0.1:\(server.port)", "User-Agent: MatterHub",
                         "Accept: */*"])
    }

    @Test func contentLengthBodyArrivingInPieces() async throws {
        let server = try ScriptedHTTPServer()
        let body = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        server.route("/crl", [.text(Self.ok + "Content-Type: application/pkix-crl\r\nContent-Length: \(body.count)\r\n"), .pause(0.05),
                              .text("\r\n"), .send(Array(body[..<1])), .pause(0.05), .send(Array(body[1...])),
                              .text("bytes after the body are not read"), .pause(1)])
        #expect(try await fetch(server, "/crl") == body)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/chunked", [.text(Self.ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"), .pause(0.05),
                                  .text("1;name=value\r\n,\r\n"), .text("1"), .pause(0.05), .text("C\r\n"),
                                  .text(" and more than sixteen bytes\r\n"),
                                  .text("0\r\nExpires: never\r\n\r\n"), .pause(1)])
        #expect(String(decoding: try await fetch(server, "/chunked"), as: UTF8.self) == "hello, and more than sixteen bytes")
    }

    @Test func bodyUntilTheServerCloses() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/close", [.text("HTTP/1.0 200 OK\r\nServer: x\r\n\r\n"), .flood(count: 100_000, byte: 0x41)])
        let body = try await fetch(server, "/close")
        #expect(body.count == 100_000 && body.allSatisfy { $0 == 0x41 })
    }

    /// The limit holds as soon as it is passed: the server then stalls for longer than the
    /// fetcher's timeout, so a check that waited for more bytes (or the end) would fail with a
    /// timeout instead. (No wall-clock bound: the test pool's threads may be starved by others.)
    /// A chunk size alone is not refused: libcurl counts the bytes that arrive.
    @Test(arguments: ["declared", "received", "received chunked"])
    func bodyOverTheLimitIsRefusedAtOnce(_ how: String) async throws {
        let server = try ScriptedHTTPServer()
        switch how {
        case "declared": server.route("/big", [.text(Self.ok + "Content-Length: 1001\r\n\r\n"), .pause(8)])
        case "received": server.route("/big", [.text(Self.ok + "\r\n"), .flood(count: 1001, byte: 0x20), .pause(8)])
        default: server.route("/big", [.text(Self.ok + "Transfer-Encoding: chunked\r\n\r\n"
                                             + String(repeating: "64\r\n" + String(repeating: "x", count: 100) + "\r\n", count: 11)), .pause(8)])
        }
        let error = await failure(server, "/big", limit: 1000, timeout: 3)
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains(how == "declared" ? "; the limit is 1000 bytes" : "sent more than 1000 bytes") == true,
                "\(String(describing: error))")
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/exact", [.text(Self.ok + "\r\n"), .flood(count: 1000, byte: 0x20)])
        #expect(try await fetch(server, "/exact", limit: 1000).count == 1000)
    }

    @Test(arguments: [(404, TrustStoreError.Code.notFound), (500, .unreachable), (403, .unreachable), (204, .unreachable)])
    func statusOtherThan200(_ status: Int, _ code: TrustStoreError.Code) async throws {
        let server = try ScriptedHTTPServer()
        server.route("/s", [.text("HTTP/1.1 \(status) Whatever\r\nContent-Length: 2\r\n\r\n{}")])
        let error = await failure(server, "/s")
        #expect(error?.code == code)
        #expect(error?.message == "\(server.base)/s answered HTTP \(status)")
    }

    @Test func interimResponsesAreSkipped() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/i", [.text("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + Self.ok + "Content-Length: 2\r\n\r\nok")])
        #expect(try await fetch(server, "/i") == Array("ok".utf8))
    }

    @Test func redirectsAreFollowed() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/a", [.text("HTTP/1.1 301 Moved\r\nLocation: /b?x=1\r\nContent-Length: 0\r\n\r\n")])
        server.route("/b?x=1", [.text("HTTP/1.1 302 Found\r\nLocation: \(server.base)/dir/c\r\n\r\nignored")])
        server.route("/dir/c", [.text("HTTP/1.1 307 Temporary\r\nLocation: d\r\nContent-Length: 0\r\n\r\n")])
        server.route("/dir/d", [.text("HTTP/1.1 308 Permanent\r\nLocation: ../e\r\nContent-Length: 0\r\n\r\n")])
        server.route("/e", [.text("HTTP/1.1 303 See Other\r\nLocation: //127.0.0.1:\(server.port)/f\r\nContent-Length: 0\r\n\r\n")])
        server.route("/f", [.text(Self.ok + "Content-Length: 4\r\n\r\ndone")])
        #expect(try await fetch(server, "/a") == Array("done".utf8))
        #expect(server.paths == ["/a", "/b?x=1", "/dir/c", "/dir/d", "/e", "/f"])
    }

    @Test func aRedirectLoopStopsAfterFiveRedirects() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/loop", [.text("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n")])
        let error = await failure(server, "/loop")
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("more than 5 redirects") == true, "\(String(describing: error))")
        #expect(server.paths.count == 6)
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "http:///nohost", "http://a b/"])
    func nonHTTPURLs(_ text: String) async throws {
        guard let url = URL(string: text) else { return }  // Foundation already refuses it
        do throws(TrustStoreError) {
            _ = try await HTTPClientFetcher().get(url, limit: 10)
            Issue.record("fetched \(text)")
        } catch {
            #expect(error.code == .invalidArgument, "\(error)")
        }
    }

    @Test func redirectToANonHTTPURLIsRefused() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/r", [.text("HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\n\r\n")])
        let error = await failure(server, "/r")
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("redirected to file:///etc/passwd, which is refused") == true, "\(String(describing: error))")
    }

    /// Answers that are not HTTP fail with `.responseInvalid` naming what was wrong, at once
    /// (the server then stalls past the timeout). libcurl tolerates what RFC 9112 lets a
    /// recipient tolerate (bare LF line ends, obs-fold); what it waits on past a malformed head
    /// ends in the stall timeout, still an error.
    @Test(arguments: [
        ("HTTP/1.1 2OO OK\r\n\r\n", "Unsupported response code"),
        ("ICY 200 OK\r\n\r\n", "HTTP/0.9"),
        ("SSH-2.0-OpenSSH_9.2\r\n", "HTTP/0.9"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Invalid Content-Length"),
    ])
    func answersThatAreNotHTTP(_ response: String, _ reason: String) async throws {
        let server = try ScriptedHTTPServer()
        server.route("/m", [.text(response), .pause(8)])
        let error = await failure(server, "/m", timeout: 3)
        #expect(error?.code == .responseInvalid, "\(String(describing: error))")
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        ("zz\r\n", "hexadecimal"),
        ("3\r\nabcXY", "Malformed encoding"),
    ])
    func brokenChunkedBodies(_ body: String, _ reason: String) async throws {
        let server = try ScriptedHTTPServer()
        server.route("/m", [.text(Self.ok + "Transfer-Encoding: chunked\r\n\r\n" + body), .pause(8)])
        let error = await failure(server, "/m", timeout: 3)
        #expect(error?.code == .unreachable, "\(String(describing: error))")
        #expect(error?.message.contains("receiving broke off") == true && error?.message.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func endlessHeadIsCutOff() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/h", [.text(Self.ok), .flood(count: 10 << 20, byte: 0x41)])
        let error = await failure(server, "/h")
        #expect(error?.code == .responseInvalid)
        #expect(error?.message.contains("a response head over 100 kB") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        (Self.ok + "Content-Length: 10\r\n\r\nabc", "closed the connection after 3 body bytes"),
        (Self.ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nab", "closed the connection after 2 body bytes"),
        ("", "without answering"),
    ])
    func connectionClosedEarly(_ response: String, _ reason: String) async throws {
        let server = try ScriptedHTTPServer()
        server.route("/t", [.text(response)])
        let error = await failure(server, "/t")
        #expect(error?.code == .unreachable)
        #expect(error?.message.hasPrefix("cannot fetch \(server.base)/t: ") == true)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
    }

    /// A head cut off before its blank line reads, in libcurl, as a 200 with an empty body; the
    /// DCL client's own check refuses it (not a JSON document).
    @Test func aHeadCutOffIsRefusedByTheDCLClient() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/dcl/pki/root-certificates", [.text("HTTP/1.1 200 OK\r\nContent-")])
        do throws(TrustStoreError) {
            _ = try await DCLClient(base: URL(string: server.base)!, http: HTTPClientFetcher(timeout: 5)).approvedRoots()
            Issue.record("a cut-off head gave roots")
        } catch {
            #expect(error.code == .responseInvalid && error.message.contains("did not answer a JSON object (0 bytes)"), "\(error)")
        }
    }

    @Test(arguments: ["before the head", "in the body"])
    func aStalledServerTimesOut(_ when: String) async throws {
        let server = try ScriptedHTTPServer()
        server.route("/stall", when == "before the head" ? [.pause(8)] : [.text(Self.ok + "Content-Length: 10\r\n\r\nab"), .pause(8)])
        let started = ContinuousClock.now
        let error = await failure(server, "/stall", timeout: 1)
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .unreachable)
        #expect(error?.message.contains("no data from the server for 1 s") == true, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(900), "\(elapsed)")  // the message says it was the timeout, not the server's close at 8 s
    }

    /// Blocked requests each have a thread of their own: eight stalled at once reach the server
    /// together, not two at a time (as many threads as the global queue has cores: then the
    /// last would arrive 12 s after the first). Timed by the server's threads, not the test's;
    /// the 4 s timeout leaves room for 16 threads to start on a loaded 2-core machine.
    @Test func stalledRequestsDoNotQueueBehindEachOther() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/stall", [.pause(20)])
        let errors = await withTaskGroup(of: TrustStoreError?.self) { group in
            for _ in 0..<8 { group.addTask { await failure(server, "/stall", timeout: 4) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors.count == 8 && errors.allSatisfy { $0?.message.contains("no data from the server for 4 s") == true })
        let arrivals = server.arrivals
        #expect(arrivals.count == 8)
        if let first = arrivals.min(), let last = arrivals.max() { #expect(last - first < .seconds(6), "\(last - first)") }
    }

    /// A byte every 0.1 s is progress, but the whole request gets six times the timeout. (A 2 s
    /// timeout: with 1 s, one stall of the server's thread was taken for no progress.)
    @Test func aTricklingServerHitsTheWholeRequestDeadline() async throws {
        let server = try ScriptedHTTPServer()
        let trickle: [ScriptedHTTPServer.Step] = (0..<150).flatMap { _ in [ScriptedHTTPServer.Step.text("a"), .pause(0.1)] }
        server.route("/slow", [.text(Self.ok + "Content-Length: 200\r\n\r\n")] + trickle)
        let started = ContinuousClock.now
        let error = await failure(server, "/slow", timeout: 2)
        let elapsed = ContinuousClock.now - started
        #expect(error?.message.contains("no complete response within 12 s") == true, "\(String(describing: error))")
        #expect(elapsed >= .seconds(12), "\(elapsed)")
    }

    @Test func connectionRefused() async throws {
        let server = try ScriptedHTTPServer()
        let url = URL(string: server.base + "/x")!
        server.stop()
        do throws(TrustStoreError) {
            _ = try await HTTPClientFetcher(timeout: 2).get(url, limit: 10)
            Issue.record("fetched from a stopped server")
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.message.contains("cannot fetch \(url.absoluteString): cannot connect to 127.0.0.1 port \(server.port)"), "\(error)")
            #expect(error.message.contains("Couldn't connect to server"), "\(error)")
        }
    }

    @Test func unknownHost() async throws {
        do throws(TrustStoreError) {
            _ = try await HTTPClientFetcher(timeout: 2).get(URL(string: "http://no-such-host.invalid/x")!, limit: 10)
            Issue.record("resolved .invalid")
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.message.contains("cannot resolve no-such-host.invalid"), "\(error)")
        }
    }

    @Test func cancellationStopsABlockedRequest() async throws {
        let server = try ScriptedHTTPServer()
        server.route("/stall", [.pause(8)])
        let url = URL(string: server.base + "/stall")!
        let task = Task { try await HTTPClientFetcher(timeout: 30).get(url, limit: 10) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.result  // without the cancellation: "no data from the server for 30 s"
        guard case .failure(let error) = result else { Issue.record("a cancelled request succeeded"); return }
        #expect((error as? TrustStoreError)?.message == "cannot fetch \(url.absoluteString): cancelled", "\(error)")
    }
}
