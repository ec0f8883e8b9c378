import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PKI, made once per test run with the openssl CLI: a CA, a server certificate for
/// `localhost` and 127.0.0.1, and one for `dcl.example` only (a host-name mismatch), all P-256.
enum TLSTestPKI {
    struct Paths: Sendable {
        let directory: String
        var caCertificate: String { directory + "/ca.pem" }
        var localhostCertificate: String { directory + "/localhost.pem" }
        var localhostKey: String { directory + "/localhost.key" }
        var otherCertificate: String { directory + "/other.pem" }
        var otherKey: String { directory + "/other.key" }
        var script: String { directory + "/server.py" }
    }

    static func paths() throws -> Paths { try made.get() }

    /// Runs blocking work (openssl, handshakes, reads) on a thread of its own, so that the test
    /// pool's two threads stay free for the timed tests beside it.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "matterhub.tests.tls").async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static let made = Result { () throws -> Paths in
        let dir = try TrustStoreTests.temporaryDirectory()
        let paths = Paths(directory: dir)
        func openssl(_ args: [String]) throws {
            let r = try ProcessRunner.run("/usr/bin/openssl", args)
            guard r.status == 0 else { throw ChildProcessError("openssl \(args.joined(separator: " ")): \(r.stderr)") }
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509", "-new"] + ec + ["-keyout", dir + "/ca.key", "-out", paths.caCertificate, "-days", "2",
                     "-subj", "/CN=MatterHub Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        for (name, san, serial) in [("localhost", "DNS:localhost,IP:127.0.0.1", "2"), ("other", "DNS:dcl.example", "3")] {
            try "subjectAltName=\(san)\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
                .write(toFile: "\(dir)/\(name).ext", atomically: true, encoding: .utf8)
            try openssl(["req", "-new"] + ec + ["-keyout", "\(dir)/\(name).key", "-out", "\(dir)/\(name).csr", "-subj", "/CN=\(name)"])
            try openssl(["x509", "-req", "-in", "\(dir)/\(name).csr", "-CA", paths.caCertificate, "-CAkey", dir + "/ca.key",
                         "-set_serial", serial, "-days", "2", "-out", "\(dir)/\(name).pem", "-extfile", "\(dir)/\(name).ext"])
        }
        try serverScript.write(toFile: paths.script, atomically: true, encoding: .utf8)
        return paths
    }

    /// HTTPS on 127.0.0.1 (an ephemeral port, printed first): `/file` serves the file named on
    /// the command line, `/to-http` redirects to the given URL, anything else is 404.
    static let serverScript = """
        import http.server, ssl, sys
        cert, key, body_file, redirect, max_version = sys.argv[1:6]
        body = open(body_file, 'rb').read()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def do_GET(self):
                if self.path == '/file':
                    self.send_response(200)
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == '/to-http':
                    self.send_response(302)
                    self.send_header('Location', redirect)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                else:
                    self.send_error(404)
            def log_message(self, *args):
                pass
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if max_version == 'tls1.1':
            context.set_ciphers('DEFAULT:@SECLEVEL=0')
            context.minimum_version = ssl.TLSVersion.TLSv1
            context.maximum_version = ssl.TLSVersion.TLSv1_1
        context.load_cert_chain(cert, key)
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print('port', server.server_address[1], flush=True)
        server.serve_forever()
        """
}

/// The PKI's HTTPS server (Python's `ssl` over OpenSSL) as a child process.
final class TLSTestServer: @unchecked Sendable {
    let port: UInt16
    let body: [UInt8]
    private let child: ChildProcess

    /// - Parameters:
    ///   - certificate: which PKI certificate the server presents, "localhost" or "other".
    ///   - redirect: where `/to-http` points.
    ///   - maxVersion: "tls1.1" for a server that speaks nothing newer than TLS 1.1.
    init(certificate: String = "localhost", redirect: String = "http://127.0.0.1:1/", maxVersion: String = "default") async throws {
        let pki = try await TLSTestPKI.offPool { try TLSTestPKI.paths() }
        var rng = SeededRandom(seed: 0x715)
        body = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let bodyFile = pki.directory + "/body-\(UUID().uuidString)"
        try Data(body).write(to: URL(fileURLWithPath: bodyFile))
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        child = try ChildProcess([python, pki.script, "\(pki.directory)/\(certificate).pem", "\(pki.directory)/\(certificate).key",
                                  bodyFile, redirect, maxVersion])
        guard let line = await child.waitForLine(timeout: 20, where: { $0.hasPrefix("port ") }),
              let port = UInt16(line.dropFirst(5)) else {
            let output = child.text
            child.kill9()
            throw ChildProcessError("the TLS test server did not start: \(output)")
        }
        self.port = port
    }

    func url(_ host: String = "localhost", _ path: String = "/file") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    func stop() async { await child.stop() }

    deinit { child.kill9() }
}
