// C helpers for MatterCrypto's TLS client; see include/tls.h for the contract of each function.
#include "tls.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// MARK: A socket BIO that writes with MSG_NOSIGNAL

// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE when the peer has gone;
// nothing in the process ignores SIGPIPE, so this BIO sends with MSG_NOSIGNAL instead.
typedef struct {
    int fd;
    int eof;          // the peer closed its side (BIO_CTRL_EOF)
    int last_errno;   // errno of the last failed recv/send
} mh_socket_state;

static pthread_once_t bio_once = PTHREAD_ONCE_INIT;
static BIO_METHOD *socket_method;

static int socket_write(BIO *b, const char *buf, int len) {
    mh_socket_state *s = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t n;
    do { n = send(s->fd, buf, (size_t)len, MSG_NOSIGNAL); } while (n < 0 && errno == EINTR);
    if (n < 0) {
        s->last_errno = errno;
        if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(b);
        return -1;
    }
    return (int)n;
}

static int socket_read(BIO *b, char *buf, int len) {
    mh_socket_state *s = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (buf == NULL || len <= 0) return 0;
    ssize_t n;
    do { n = recv(s->fd, buf, (size_t)len, 0); } while (n < 0 && errno == EINTR);
    if (n < 0) {
        s->last_errno = errno;
        if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(b);
        return -1;
    }
    if (n == 0) s->eof = 1;
    return (int)n;
}

static long socket_ctrl(BIO *b, int cmd, long num, void *ptr) {
    (void)num;
    (void)ptr;
    mh_socket_state *s = BIO_get_data(b);
    switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_EOF: return s != NULL && s->eof;
    default: return 0;
    }
}

static int socket_create(BIO *b) {
    BIO_set_data(b, NULL);
    BIO_set_init(b, 0);
    return 1;
}

static int socket_destroy(BIO *b) {
    free(BIO_get_data(b));
    BIO_set_data(b, NULL);
    BIO_set_init(b, 0);
    return 1;
}

static void make_socket_method(void) {
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "matterhub socket");
    if (m == NULL) return;
    if (BIO_meth_set_write(m, socket_write) != 1 || BIO_meth_set_read(m, socket_read) != 1 ||
        BIO_meth_set_ctrl(m, socket_ctrl) != 1 || BIO_meth_set_create(m, socket_create) != 1 ||
        BIO_meth_set_destroy(m, socket_destroy) != 1) {
        BIO_meth_free(m);
        return;
    }
    socket_method = m;
}

static BIO *socket_bio(int fd) {
    pthread_once(&bio_once, make_socket_method);
    if (socket_method == NULL) return NULL;
    mh_socket_state *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    BIO *b = BIO_new(socket_method);
    if (b == NULL) { free(s); return NULL; }
    s->fd = fd;
    BIO_set_data(b, s);
    BIO_set_init(b, 1);
    return b;
}

static int session_errno(SSL *ssl) {
    BIO *b = SSL_get_rbio(ssl);
    mh_socket_state *s = b != NULL ? BIO_get_data(b) : NULL;
    return s != NULL ? s->last_errno : 0;
}

// MARK: Contexts and sessions

// 1 when dir holds OpenSSL's hashed links (c_rehash / update-ca-certificates: "5ad8a5d6.0").
static int has_hashed_certificates(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if (len < 10 || n[8] != '.') continue;
        int ok = 1;
        for (size_t i = 0; i < 8 && ok; i++) ok = isxdigit((unsigned char)n[i]) != 0;
        for (size_t i = 9; i < len && ok; i++) ok = isdigit((unsigned char)n[i]) != 0;
        found = ok;
    }
    closedir(d);
    return found;
}

// The system's trusted CAs. SSL_CTX_set_default_verify_paths reads the whole bundle file
// (Debian: /usr/lib/ssl/cert.pem, ~140 certificates) up front: 100 ms and 1.4 MB of heap that is
// never given back. The hashed directory (/usr/lib/ssl/certs, or $SSL_CERT_DIR) is looked up
// lazily, one issuer at a time, so it is used when it has the hashed links; otherwise, or when
// $SSL_CERT_FILE names a bundle, the default paths are.
static int load_system_trust(SSL_CTX *ctx) {
    const char *dir = getenv(X509_get_default_cert_dir_env());
    if (dir == NULL || *dir == 0) dir = X509_get_default_cert_dir();
    const char *file = getenv(X509_get_default_cert_file_env());
    if ((file == NULL || *file == 0) && has_hashed_certificates(dir)) return SSL_CTX_load_verify_dir(ctx, dir);
    return SSL_CTX_set_default_verify_paths(ctx);
}

SSL_CTX *mh_tls_context_new(const char *ca_file, int *which) {
    *which = 3;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) return NULL;
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) goto fail;
    // A peer that closes the socket without close_notify ends the stream (as curl does); the
    // HTTP layer detects truncation from Content-Length or chunked framing.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (load_system_trust(ctx) != 1) { *which = 2; goto fail; }
    if (ca_file != NULL && SSL_CTX_load_verify_file(ctx, ca_file) != 1) { *which = 1; goto fail; }
    ERR_clear_error();
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

void mh_tls_context_free(SSL_CTX *ctx) { SSL_CTX_free(ctx); }

SSL *mh_tls_session_new(SSL_CTX *ctx, int fd, const char *host) {
    SSL *ssl = SSL_new(ctx);
    if (ssl == NULL) return NULL;
    unsigned char ip[16];
    int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    if (is_ip) {
        // RFC 6066: SNI carries host names only; an address is checked against iPAddress SANs.
        if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1) goto fail;
    } else {
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        if (SSL_set_tlsext_host_name(ssl, host) != 1 || SSL_set1_host(ssl, host) != 1) goto fail;
    }
    BIO *bio = socket_bio(fd);
    if (bio == NULL) goto fail;
    SSL_set_bio(ssl, bio, bio);
    return ssl;
fail:
    SSL_free(ssl);
    return NULL;
}

void mh_tls_session_free(SSL *ssl) { SSL_free(ssl); }

int mh_tls_connect(SSL *ssl, int *ssl_error, int *sys_errno) {
    ERR_clear_error();
    int rc = SSL_connect(ssl);
    if (rc == 1) return 1;
    *ssl_error = SSL_get_error(ssl, rc);
    *sys_errno = session_errno(ssl);
    return 0;
}

int mh_tls_read(SSL *ssl, uint8_t *buf, size_t cap, size_t *got, int *ssl_error, int *sys_errno) {
    ERR_clear_error();
    *got = 0;
    if (SSL_read_ex(ssl, buf, cap, got) == 1) return 1;
    int e = SSL_get_error(ssl, 0);
    if (e == SSL_ERROR_ZERO_RETURN) { *got = 0; return 1; }
    *ssl_error = e;
    *sys_errno = session_errno(ssl);
    return 0;
}

int mh_tls_write(SSL *ssl, const uint8_t *buf, size_t len, int *ssl_error, int *sys_errno) {
    ERR_clear_error();
    size_t written = 0;
    if (len == 0) return 1;
    if (SSL_write_ex(ssl, buf, len, &written) == 1 && written == len) return 1;
    *ssl_error = SSL_get_error(ssl, 0);
    *sys_errno = session_errno(ssl);
    return 0;
}

void mh_tls_shutdown(SSL *ssl) {
    ERR_clear_error();
    (void)SSL_shutdown(ssl);
    ERR_clear_error();
}

long mh_tls_verify_result(const SSL *ssl) { return SSL_get_verify_result(ssl); }

const char *mh_tls_verify_text(long result) { return X509_verify_cert_error_string(result); }

int mh_tls_verify_is_host_mismatch(long result) {
    return result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH;
}

const char *mh_tls_version(const SSL *ssl) { return SSL_get_version(ssl); }

void mh_tls_error_text(char *out, size_t cap) {
    if (cap == 0) return;
    out[0] = 0;
    unsigned long e = ERR_get_error();
    if (e != 0) {
        const char *reason = ERR_reason_error_string(e);
        if (reason != NULL) {
            strncpy(out, reason, cap - 1);
            out[cap - 1] = 0;
        } else {
            ERR_error_string_n(e, out, cap);
        }
    }
    ERR_clear_error();
}

void mh_tls_errno_text(int e, char *out, size_t cap) {
    if (cap == 0) return;
    snprintf(out, cap, "%s", strerror(e));
}

int mh_tls_errno_is_timeout(int e) { return e == EAGAIN || e == EWOULDBLOCK; }
