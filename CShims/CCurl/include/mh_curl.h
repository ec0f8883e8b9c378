// libcurl behind a small C shim: curl_easy_setopt is variadic (Swift cannot call it), and the
// write, progress and TLS callbacks are C function pointers. One blocking GET per call, meant
// for a thread of its own. Only MatterTrustStore imports it.
#ifndef MH_CURL_H
#define MH_CURL_H

#include <stddef.h>
#include <stdint.h>

/// Set from another thread to stop a request (checked by libcurl's progress callback, which it
/// calls at least once a second, and on every read).
typedef struct mh_http_cancel mh_http_cancel;
mh_http_cancel *mh_http_cancel_new(void);
void mh_http_cancel_set(mh_http_cancel *cancel);
void mh_http_cancel_free(mh_http_cancel *cancel);

typedef struct mh_http_request {
    const char *url;
    /// A PEM file of CA certificates trusted besides the system's (NULL: the system's only).
    const char *extra_ca_file;
    /// The most body bytes taken; more fails at once (a declared Content-Length too).
    long long limit;
    /// Seconds without progress (resolving, connecting, the TLS handshake, receiving) that fail the request.
    long stall_seconds;
    /// Seconds the whole request may take, redirects included.
    long total_seconds;
    long max_redirects;
    /// Write the body to this descriptor (>= 0) instead of keeping it in memory.
    int out_fd;
    mh_http_cancel *cancel;
} mh_http_request;

enum mh_http_outcome {
    MH_HTTP_OK = 0,
    /// The final answer was not 200 (`status`).
    MH_HTTP_STATUS,
    /// The body passed the limit (`declared_length` when the server declared it).
    MH_HTTP_TOO_LARGE,
    MH_HTTP_STALLED,
    MH_HTTP_DEADLINE,
    MH_HTTP_CANCELLED,
    MH_HTTP_RESOLVE,
    MH_HTTP_CONNECT,
    MH_HTTP_TLS_VERIFY,
    MH_HTTP_TLS_HANDSHAKE,
    MH_HTTP_TOO_MANY_REDIRECTS,
    /// A redirect to a URL that is not http(s), or from https to http.
    MH_HTTP_REDIRECT_REFUSED,
    /// The server closed the connection before the whole answer.
    MH_HTTP_CLOSED_EARLY,
    MH_HTTP_NOTHING,
    /// Receiving failed part-way (a reset, or a body framing libcurl could not read).
    MH_HTTP_RECEIVE,
    /// An answer libcurl would not hold (a head over its 100 kB bound).
    MH_HTTP_HEAD_TOO_LARGE,
    /// Not an HTTP answer, or a malformed one.
    MH_HTTP_MALFORMED,
    MH_HTTP_WRITE_FAILED,
    MH_HTTP_OTHER,
};

typedef struct mh_http_response {
    int outcome;
    long status;
    /// The body, in memory mode (free with mh_http_response_free).
    unsigned char *body;
    size_t body_length;
    unsigned long long received;
    long long declared_length;
    /// The server declared a Content-Length over the limit (nothing of the body was read).
    int declared_over_limit;
    long redirects;
    /// The URL last asked (after redirects) and where a refused redirect pointed.
    char last_url[2048];
    char redirect_url[2048];
    /// libcurl's own words for a failure.
    char error[512];
} mh_http_response;

/// Runs the request to the end; fills `response` (always: free it with mh_http_response_free).
void mh_http_get(const mh_http_request *request, mh_http_response *response);
void mh_http_response_free(mh_http_response *response);

/// libcurl's version, for logs and the note.
const char *mh_http_version(void);

#endif
