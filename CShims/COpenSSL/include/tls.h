// C helpers for MatterCrypto's TLS client over OpenSSL 3 libssl.
//
// A context (SSL_CTX) holds the policy: TLS 1.2 or later, the peer's certificate verified
// against the system's default trust store (plus an optional extra CA file). A session (SSL)
// runs over a connected, blocking socket the caller owns; a receive or send timeout on that
// socket (SO_RCVTIMEO / SO_SNDTIMEO) surfaces as SSL_ERROR_WANT_READ / SSL_ERROR_WANT_WRITE.
// Writes use send(MSG_NOSIGNAL), so a peer that went away is an error, never a SIGPIPE.
#ifndef MATTERHUB_COPENSSL_TLS_H
#define MATTERHUB_COPENSSL_TLS_H

#include "shim.h"
#include <openssl/ssl.h>

/// A client context: TLS 1.2 minimum, peer verification on, the system's trusted CAs (OpenSSL's
/// default certificate directory, looked up lazily when it has hashed links, else
/// SSL_CTX_set_default_verify_paths; $SSL_CERT_DIR and $SSL_CERT_FILE are honoured) and, when
/// ca_file is not NULL, the PEM certificates in it.
/// NULL on failure; *which is then 1 when ca_file could not be loaded, 2 when the default
/// paths could not be set, 3 for any other failure.
SSL_CTX *mh_tls_context_new(const char *ca_file, int *which);
void mh_tls_context_free(SSL_CTX *ctx);

/// A session on the connected socket fd that will verify the peer's certificate for host: a
/// DNS name (sent as SNI, checked with SSL_set1_host) or an IPv4/IPv6 literal (checked against
/// the certificate's IP addresses, no SNI). NULL on failure.
SSL *mh_tls_session_new(SSL_CTX *ctx, int fd, const char *host);
void mh_tls_session_free(SSL *ssl);

/// SSL_connect. Returns 1 when the handshake completed; otherwise 0 and *ssl_error receives
/// SSL_get_error and *sys_errno the socket's errno.
int mh_tls_connect(SSL *ssl, int *ssl_error, int *sys_errno);
/// SSL_read_ex of at most cap bytes. Returns 1 and *got > 0 on data; 1 and *got == 0 at the end
/// of the stream (close_notify, or the peer closing the socket without one); otherwise 0 with
/// *ssl_error and *sys_errno as for mh_tls_connect.
int mh_tls_read(SSL *ssl, uint8_t *buf, size_t cap, size_t *got, int *ssl_error, int *sys_errno);
/// SSL_write_ex of all len bytes. 1 on success; otherwise 0 with *ssl_error and *sys_errno.
int mh_tls_write(SSL *ssl, const uint8_t *buf, size_t len, int *ssl_error, int *sys_errno);
/// Sends close_notify (does not wait for the peer's).
void mh_tls_shutdown(SSL *ssl);

/// The certificate verification result (X509_V_OK = 0 when it verified) and its text.
long mh_tls_verify_result(const SSL *ssl);
const char *mh_tls_verify_text(long result);
/// 1 when result is a host-name or IP-address mismatch.
int mh_tls_verify_is_host_mismatch(long result);
/// The negotiated protocol ("TLSv1.3").
const char *mh_tls_version(const SSL *ssl);
/// The oldest error on this thread's OpenSSL error queue as text (reason string), and clears
/// the queue; "" when it is empty.
void mh_tls_error_text(char *out, size_t cap);
/// strerror(e) into out.
void mh_tls_errno_text(int e, char *out, size_t cap);
/// 1 when e is EAGAIN / EWOULDBLOCK: a socket timeout (SO_RCVTIMEO / SO_SNDTIMEO) expired.
int mh_tls_errno_is_timeout(int e);

#endif
