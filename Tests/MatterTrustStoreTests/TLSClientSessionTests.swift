import Foundation
import MatterCrypto
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// MatterCrypto's `TLSClientSession` on a socket of the test's own, against the Python TLS server
/// of `TLSTestPKI` (here, where that fixture lives): the handshake, application data, and the
/// typed error of each refusal.
@Suite(.serialized) struct TLSClientSessionTests {
    /// A blocking TCP socket connected to 127.0.0.1:port, with a 5 s receive timeout.
    static func connect(_ port: UInt16, timeout: Int = 5) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func context() throws -> TLSClientContext {
        try TLSClientContext(additionalTrustedCAFile: try TLSTestPKI.paths().caCertificate)
    }

    @Test func handshakeThenApplicationData() async throws {
        let server = try await TLSTestServer()
        let port = server.port
        let (version, received) = try await TLSTestPKI.offPool { () throws -> (String, [UInt8]) in
            let fd = try Self.connect(port)
            defer { close(fd) }
            let session = try TLSClientSession(fileDescriptor: fd, serverName: "localhost", context: try Self.context())
            try session.write(Array("GET /file HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8))
            var received: [UInt8] = []
            while true {
                let bytes = try session.read()
                if bytes.isEmpty { break }
                received += bytes
            }
            session.shutdown()
            return (session.protocolVersion, received)
        }
        #expect(version == "TLSv1.3")
        #expect(received.count > server.body.count)
        #expect(Array(received.suffix(server.body.count)) == server.body)
    }

    @Test func refusalsAreTyped() async throws {
        let server = try await TLSTestServer()
        let other = try await TLSTestServer(certificate: "other")
        let context = try Self.context()
        func attempt(_ port: UInt16, _ name: String, _ context: TLSClientContext?) async throws -> CryptoError? {
            try await TLSTestPKI.offPool { () throws -> CryptoError? in
                let fd = try Self.connect(port)
                defer { close(fd) }
                do throws(CryptoError) {
                    _ = try TLSClientSession(fileDescriptor: fd, serverName: name, context: context)
                    return nil
                } catch { return error }
            }
        }
        let untrusted = try await attempt(server.port, "localhost", nil)
        #expect(untrusted?.code == .certificateUntrusted)
        #expect(untrusted?.message.hasSuffix("certificate verify failed: unable to get local issuer certificate") == true)
        #expect(try await attempt(other.port, "localhost", context)?.code == .hostNameMismatch)
        #expect(try await attempt(other.port, "127.0.0.1", context)?.code == .hostNameMismatch)
        #expect(try await attempt(other.port, "[127.0.0.1]", context)?.code == .hostNameMismatch)
        #expect(try await attempt(other.port, "dcl.example", context) == nil)
        #expect(try await attempt(other.port, "x.dcl.example", context)?.code == .hostNameMismatch)
        #expect(try await attempt(server.port, "127.0.0.1", context) == nil)
        #expect(try await attempt(server.port, "", context)?.code == .invalidArgument)
    }

    @Test func aSilentServerTimesOut() async throws {
        let silent = try ScriptedHTTPServer()
        let port = silent.port
        // Timed on the thread that blocks, not across a resumption on the test pool.
        let (error, elapsed) = try await TLSTestPKI.offPool { () throws -> (CryptoError?, Duration) in
            let fd = try Self.connect(port, timeout: 1)
            defer { close(fd) }
            let started = ContinuousClock.now
            do throws(CryptoError) {
                _ = try TLSClientSession(fileDescriptor: fd, serverName: "localhost")
                return (nil, ContinuousClock.now - started)
            } catch { return (error, ContinuousClock.now - started) }
        }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(3), "\(elapsed)")
    }

    @Test func aCAFileThatIsNotPEMIsRefused() throws {
        let file = try TrustStoreTests.temporaryDirectory() + "/not-a-ca.pem"
        try "hello".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: CryptoError.self) { try TLSClientContext(additionalTrustedCAFile: file) }
    }
}
