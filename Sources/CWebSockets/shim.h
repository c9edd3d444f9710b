// Umbrella header for the system library libwebsockets (4.1), plus the few static inline helpers Swift
// cannot write itself. Every symbol of ours carries the prefix afe_ws_.
#ifndef AFE_WS_SHIM_H
#define AFE_WS_SHIM_H

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <string.h>

/// A client TLS context set up as lws 4.1 sets up its own (no compression, moving write buffers, released
/// buffers, OpenSSL's default verify paths: the OS store or SSL_CERT_FILE/SSL_CERT_DIR) plus `ca_file` (PEM) when
/// given; NULL when it cannot be made or `ca_file` cannot be loaded. Peer and host-name verification are set per
/// connection by lws (SSL_VERIFY_PEER, X509_VERIFY_PARAM_set1_host).
///
/// Why our own: lws 4.1 keeps its client SSL_CTX's bookkeeping under an OpenSSL ex-data index that every new
/// context with LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT re-allocates into one global, so a context destroyed after
/// another was created looks its SSL_CTX up under the wrong index and never frees it (about 0.8 MB, the X509
/// store, per context: one per dialog). A context passed as provided_client_ssl_ctx is never freed by lws: the
/// caller frees it after lws_context_destroy.
static inline SSL_CTX *afe_ws_client_tls_context(const char *ca_file) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (!context) return NULL;
    SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(context, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    if (SSL_CTX_set_default_verify_paths(context) != 1 ||
        (ca_file && SSL_CTX_load_verify_locations(context, ca_file, NULL) != 1)) {
        SSL_CTX_free(context);
        return NULL;
    }
    return context;
}

/// LWS_PRE is a macro: the headroom lws_write needs in front of every payload.
static inline size_t afe_ws_pre(void) { return LWS_PRE; }

/// LWS_SERVER_OPTION_* are macros built from casts and shifts, which Swift does not import.
static inline uint64_t afe_ws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }

/// CONTEXT_PORT_NO_LISTEN is a macro with a cast.
static inline int afe_ws_port_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }

/// Adds one "name: value" header while lws builds the client handshake.
///
/// Call only from LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER with that callback's `in` and `len`: `in` is an
/// `unsigned char **` cursor, a pointer-to-pointer Swift would otherwise have to rebind. `name` ends with ':'.
/// Returns 0 on success, nonzero when the header does not fit.
static inline int afe_ws_append_header(struct lws *wsi, void *in, size_t len, const char *name, const char *value) {
    unsigned char **p = (unsigned char **)in;
    unsigned char *end = (*p) + len;
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       (int)strlen(value), p, end);
}

/// A one-shot timer on the lws service loop (lws "sorted usec list").
///
/// lws calls back with a pointer to the embedded list element only; this struct carries the user pointer
/// next to it so the callback can find its owner (lws_container_of is a macro). Allocate it zeroed, keep it
/// alive while scheduled, and use it only on the service thread.
typedef struct afe_ws_timer {
    lws_sorted_usec_list_t sul;
    void *user;
    void (*fire)(void *user);
} afe_ws_timer;

static void afe_ws_timer_callback(lws_sorted_usec_list_t *sul) {
    afe_ws_timer *timer = lws_container_of(sul, afe_ws_timer, sul);
    if (timer->fire) timer->fire(timer->user);
}

/// (Re)schedules `timer` to fire `microseconds` from now. The corresponding C function is `lws_sul_schedule`.
static inline void afe_ws_timer_schedule(struct lws_context *context, afe_ws_timer *timer, int64_t microseconds) {
    lws_sul_schedule(context, 0, &timer->sul, afe_ws_timer_callback, (lws_usec_t)microseconds);
}

/// Cancels `timer` if it is scheduled. The corresponding C function is `lws_sul_cancel`.
static inline void afe_ws_timer_cancel(afe_ws_timer *timer) { lws_sul_cancel(&timer->sul); }

#endif
