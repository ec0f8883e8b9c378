#include "mh_curl.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mh_http_cancel { atomic_int cancelled; };

mh_http_cancel *mh_http_cancel_new(void) { return calloc(1, sizeof(mh_http_cancel)); }
void mh_http_cancel_set(mh_http_cancel *cancel) { if (cancel) atomic_store(&cancel->cancelled, 1); }
void mh_http_cancel_free(mh_http_cancel *cancel) { free(cancel); }

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

const char *mh_http_version(void) {
    pthread_once(&global_once, global_init);
    return curl_version();
}

typedef struct {
    const mh_http_request *request;
    mh_http_response *response;
    CURL *curl;
    size_t capacity;
    int too_large;
    int write_failed;
} transfer;

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t n = size * count;
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    // Only a 200's body is kept (and counted against the limit); another status's is dropped.
    if (status != 200) return n;
    if (t->response->received + n > (unsigned long long)t->request->limit) {
        t->too_large = 1;
        return 0;
    }
    if (t->request->out_fd >= 0) {
        size_t written = 0;
        while (written < n) {
            ssize_t w = write(t->request->out_fd, data + written, n - written);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) { t->write_failed = 1; return 0; }
            written += (size_t)w;
        }
    } else {
        size_t needed = t->response->body_length + n;
        if (needed > t->capacity) {
            size_t grown = t->capacity ? t->capacity * 2 : 16384;
            while (grown < needed) grown *= 2;
            unsigned char *body = realloc(t->response->body, grown);
            if (!body) { t->write_failed = 1; return 0; }
            t->response->body = body;
            t->capacity = grown;
        }
        memcpy(t->response->body + t->response->body_length, data, n);
        t->response->body_length = needed;
    }
    t->response->received += n;
    return n;
}

static int on_progress(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    transfer *t = context;
    return t->request->cancel && atomic_load(&t->request->cancel->cancelled) ? 1 : 0;
}

static void copy(char *to, size_t size, const char *from) {
    if (!from) { to[0] = 0; return; }
    strncpy(to, from, size - 1);
    to[size - 1] = 0;
}

static int outcome_of(CURLcode code, const transfer *t) {
    switch (code) {
    case CURLE_OK: return MH_HTTP_OK;
    case CURLE_WRITE_ERROR: return t->too_large ? MH_HTTP_TOO_LARGE : MH_HTTP_WRITE_FAILED;
    case CURLE_FILESIZE_EXCEEDED: return MH_HTTP_TOO_LARGE;
    case CURLE_ABORTED_BY_CALLBACK: return MH_HTTP_CANCELLED;
    case CURLE_COULDNT_RESOLVE_HOST: return MH_HTTP_RESOLVE;
    case CURLE_COULDNT_CONNECT: return MH_HTTP_CONNECT;
    case CURLE_PEER_FAILED_VERIFICATION: return MH_HTTP_TLS_VERIFY;
    case CURLE_SSL_CONNECT_ERROR: return MH_HTTP_TLS_HANDSHAKE;
    case CURLE_TOO_MANY_REDIRECTS: return MH_HTTP_TOO_MANY_REDIRECTS;
    case CURLE_UNSUPPORTED_PROTOCOL: return t->response->redirects > 0 || t->response->redirect_url[0] ? MH_HTTP_REDIRECT_REFUSED : MH_HTTP_MALFORMED;
    case CURLE_PARTIAL_FILE: return MH_HTTP_CLOSED_EARLY;
    case CURLE_GOT_NOTHING: return MH_HTTP_NOTHING;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return MH_HTTP_MALFORMED;
    case CURLE_RECV_ERROR: return MH_HTTP_RECEIVE;
    case CURLE_OUT_OF_MEMORY: return MH_HTTP_HEAD_TOO_LARGE;
    default: return MH_HTTP_OTHER;
    }
}

void mh_http_get(const mh_http_request *request, mh_http_response *response) {
    memset(response, 0, sizeof *response);
    response->declared_length = -1;
    pthread_once(&global_once, global_init);
    CURL *curl = curl_easy_init();
    if (!curl) {
        response->outcome = MH_HTTP_OTHER;
        copy(response->error, sizeof response->error, "libcurl could not make a handle");
        return;
    }
    transfer t = { .request = request, .response = response, .curl = curl };
    int https = strncmp(request->url, "https:", 6) == 0 || strncmp(request->url, "HTTPS:", 6) == 0;
    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, response->error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "MatterHub");
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    // Redirects stay on http(s), and never go from https to http.
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, request->max_redirects);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request->stall_seconds);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, request->stall_seconds);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, request->total_seconds);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->limit);
    curl_easy_setopt(curl, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
    if (request->extra_ca_file) {
        // The file and the system's hashed folder, both trusted (OpenSSL reads each).
        curl_easy_setopt(curl, CURLOPT_CAINFO, request->extra_ca_file);
        curl_easy_setopt(curl, CURLOPT_CAPATH, "/etc/ssl/certs");
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);

    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_COUNT, &response->redirects);
    curl_off_t declared = -1;
    if (curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) == CURLE_OK) response->declared_length = declared;
    char *last = NULL;
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &last);
    copy(response->last_url, sizeof response->last_url, last);
    char *next = NULL;
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &next);
    copy(response->redirect_url, sizeof response->redirect_url, next);
    if (code == CURLE_OPERATION_TIMEDOUT) {
        double total = 0;
        curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME, &total);
        response->outcome = total >= (double)request->total_seconds - 0.5 ? MH_HTTP_DEADLINE : MH_HTTP_STALLED;
    } else {
        response->outcome = outcome_of(code, &t);
    }
    response->declared_over_limit = code == CURLE_FILESIZE_EXCEEDED;
    if (response->outcome == MH_HTTP_OK && response->status != 200) response->outcome = MH_HTTP_STATUS;
    if (!response->error[0] && code != CURLE_OK) copy(response->error, sizeof response->error, curl_easy_strerror(code));
    curl_easy_cleanup(curl);
}

void mh_http_response_free(mh_http_response *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = 0;
}
