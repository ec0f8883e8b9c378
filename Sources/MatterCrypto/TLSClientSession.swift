internal import COpenSSL

/// The policy of TLS client sessions (an OpenSSL `SSL_CTX`): TLS 1.2 or later, and the server's
/// certificate verified against the system's trust store, plus, when given, the CA certificates
/// of one more PEM file. The system's store is OpenSSL's default certificate directory
/// (`/usr/lib/ssl/certs` -> `/etc/ssl/certs` on Debian, or `$SSL_CERT_DIR`), whose hashed links
/// are read one issuer at a time as handshakes need them; without hashed links, or with
/// `$SSL_CERT_FILE` set, OpenSSL's default paths (`SSL_CTX_set_default_verify_paths`), which
/// read the whole bundle at once (~100 ms and 1.4 MB that stays allocated).
/// Immutable once made, so one context serves any number of sessions on any thread.
public final class TLSClientContext: @unchecked Sendable {
    let ctx: OpaquePointer

    /// A context that trusts the system's CAs and, when `additionalTrustedCAFile` names a PEM
    /// file, the certificates in it too.
    /// - Throws: `CryptoError.invalidArgument` when the CA file cannot be read as PEM
    ///   certificates, `.backendFailure` when OpenSSL cannot set up a context.
    public init(additionalTrustedCAFile: String? = nil) throws(CryptoError) {
        var which: Int32 = 0
        let made: OpaquePointer?
        if let file = additionalTrustedCAFile {
            made = file.withCString { mh_tls_context_new($0, &which) }
        } else {
            made = mh_tls_context_new(nil, &which)
        }
        guard let made else {
            let reason = Self.queuedError()
            switch which {
            case 1:
                throw CryptoError(.invalidArgument, "cannot load trusted CA certificates from \(additionalTrustedCAFile ?? ""): \(reason)")
            case 2:
                throw CryptoError(.backendFailure, "OpenSSL cannot load the system's trusted CA certificates: \(reason)")
            default:
                throw CryptoError.backend("a TLS client context (SSL_CTX_new): \(reason)")
            }
        }
        ctx = made
    }

    deinit { mh_tls_context_free(ctx) }

    /// The context with the system's trust store only, made on first use.
    public static func system() throws(CryptoError) -> TLSClientContext { try shared.get() }
    private static let shared = Result { () throws(CryptoError) -> TLSClientContext in try TLSClientContext() }

    /// The oldest error on this thread's OpenSSL queue ("" when none); clears the queue.
    static func queuedError() -> String {
        var text = [CChar](repeating: 0, count: 256)
        text.withUnsafeMutableBufferPointer { mh_tls_error_text($0.baseAddress!, $0.count) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A TLS client session over a connected, blocking TCP socket that the caller owns (and closes
/// after the session is gone). The handshake runs in `init`: it sends SNI for a host name, and
/// verifies the server's certificate chain against the context's trusted CAs and its name (or
/// IP address) against `serverName` (RFC 6125, no partial wildcards).
///
/// Timeouts are the socket's own: with `SO_RCVTIMEO` / `SO_SNDTIMEO` set, a handshake, read or
/// write that makes no progress for that long fails with `CryptoError.timedOut`. Writes never
/// raise SIGPIPE. Not for concurrent use: one thread drives a session at a time.
public final class TLSClientSession {
    /// The host name or IP address the certificate was checked against.
    public let serverName: String
    private let ssl: OpaquePointer
    private let context: TLSClientContext

    /// Runs the handshake with the server on `fileDescriptor`.
    /// - Parameters:
    ///   - serverName: the host the caller meant to reach: a DNS name, or an IPv4/IPv6 literal
    ///     (brackets allowed), never taken from the peer.
    ///   - context: the trust policy; `nil` is ``TLSClientContext/system()``.
    /// - Throws: `CryptoError` `.certificateUntrusted` (with OpenSSL's verify result, e.g.
    ///   "unable to get local issuer certificate"), `.hostNameMismatch`, `.timedOut` or
    ///   `.tlsFailed` (the protocol error or socket error), each naming the server.
    public init(fileDescriptor: Int32, serverName: String, context: TLSClientContext? = nil) throws(CryptoError) {
        var name = serverName
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw CryptoError(.invalidArgument, "the TLS server name is empty or contains NUL")
        }
        self.serverName = name
        let policy: TLSClientContext
        if let context { policy = context } else { policy = try TLSClientContext.system() }
        self.context = policy
        guard let ssl = name.withCString({ mh_tls_session_new(policy.ctx, fileDescriptor, $0) }) else {
            throw CryptoError.backend("a TLS session for \(name): \(TLSClientContext.queuedError())")
        }
        // The handshake runs before `self.ssl` is set: on failure the session is freed here,
        // and no deinit of a half-made object runs.
        var sslError: Int32 = 0
        var sysErrno: Int32 = 0
        if mh_tls_connect(ssl, &sslError, &sysErrno) != 1 {
            let verify = mh_tls_verify_result(ssl)
            let error: CryptoError
            if verify != 0 /* X509_V_OK */ {
                let text = String(cString: mh_tls_verify_text(verify))
                if mh_tls_verify_is_host_mismatch(verify) == 1 {
                    error = CryptoError(.hostNameMismatch, "the TLS certificate of \(name) does not match the host name (\(text))")
                } else {
                    error = CryptoError(.certificateUntrusted, "the TLS certificate of \(name) failed verification: certificate verify failed: \(text)")
                }
                _ = TLSClientContext.queuedError()
            } else {
                error = Self.failure("handshake", name, sslError, sysErrno)
            }
            mh_tls_session_free(ssl)
            throw error
        }
        self.ssl = ssl
    }

    deinit { mh_tls_session_free(ssl) }

    /// The negotiated protocol version, e.g. "TLSv1.3".
    public var protocolVersion: String { String(cString: mh_tls_version(ssl)) }

    /// Up to `maxCount` bytes of application data; empty at the end of the stream (the server
    /// sent close_notify or closed the connection).
    public func read(maxCount: Int = 16_384) throws(CryptoError) -> [UInt8] {
        guard maxCount > 0 else { return [] }
        var sslError: Int32 = 0
        var sysErrno: Int32 = 0
        var ok: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: maxCount) { buffer, count in
            var got = 0
            ok = mh_tls_read(ssl, buffer.baseAddress, buffer.count, &got, &sslError, &sysErrno)
            count = ok == 1 ? got : 0
        }
        guard ok == 1 else { throw Self.failure("read", serverName, sslError, sysErrno) }
        return bytes
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(CryptoError) {
        var sslError: Int32 = 0
        var sysErrno: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer { mh_tls_write(ssl, $0.baseAddress, $0.count, &sslError, &sysErrno) }
        guard ok == 1 else { throw Self.failure("write", serverName, sslError, sysErrno) }
    }

    /// Sends close_notify; the socket stays open for the caller to close.
    public func shutdown() { mh_tls_shutdown(ssl) }

    /// What a failed handshake, read or write says, from SSL_get_error and the socket's errno.
    private static func failure(_ operation: String, _ host: String, _ sslError: Int32, _ sysErrno: Int32) -> CryptoError {
        let queued = TLSClientContext.queuedError()
        if sslError == SSL_ERROR_WANT_READ || sslError == SSL_ERROR_WANT_WRITE || mh_tls_errno_is_timeout(sysErrno) == 1 {
            return CryptoError(.timedOut, "the TLS \(operation) with \(host) timed out (no data within the socket timeout)")
        }
        if sslError == SSL_ERROR_SYSCALL {
            if sysErrno != 0 {
                var text = [CChar](repeating: 0, count: 128)
                text.withUnsafeMutableBufferPointer { mh_tls_errno_text(sysErrno, $0.baseAddress!, $0.count) }
                let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return CryptoError(.tlsFailed, "the TLS \(operation) with \(host) failed: \(reason)")
            }
            return CryptoError(.tlsFailed, "\(host) closed the connection during the TLS \(operation)")
        }
        let reason = queued.isEmpty ? "SSL error \(sslError)" : queued
        return CryptoError(.tlsFailed, "the TLS \(operation) with \(host) failed: \(reason)")
    }
}
