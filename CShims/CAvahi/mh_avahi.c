// See mh_avahi.h. Everything below runs either before the poll thread starts, on the poll
// thread (callbacks), or under avahi_threaded_poll_lock.
#include "mh_avahi.h"

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <arpa/inet.h>
#include <avahi-common/defs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mh_strerror(int error) { return avahi_strerror(error); }

static void emit_simple(mh_event_callback cb, void *ctx, int kind, int error) {
    mh_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.interface_index = -1;
    ev.protocol = -1;
    ev.error = error;
    ev.error_message = error ? avahi_strerror(error) : NULL;
    cb(ctx, &ev);
}

static int protocol_out(AvahiProtocol p) {
    return p == AVAHI_PROTO_INET ? 0 : p == AVAHI_PROTO_INET6 ? 1 : -1;
}

// MARK: browse

typedef struct resolver_node {
    AvahiServiceResolver *resolver;
    AvahiRecordBrowser *addresses;  // every A or AAAA record of the resolved host
    char *host;
    AvahiIfIndex interface;
    AvahiProtocol protocol;
    char *name;
    char *type;    // the service type as the browser reported it (no subtype)
    char *domain;
    struct mh_browse *owner;
    struct resolver_node *next;
} resolver_node;

static void free_node(resolver_node *n) {
    if (n->addresses) avahi_record_browser_free(n->addresses);
    if (n->resolver) avahi_service_resolver_free(n->resolver);
    free(n->host);
    free(n->name);
    free(n->type);
    free(n->domain);
    free(n);
}

struct mh_browse {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiServiceBrowser *browser;
    resolver_node *resolvers;
    char *type;
    char *domain;
    mh_event_callback callback;
    mh_release_callback release;
    void *context;
    int reconnecting;
};

static void free_resolvers(mh_browse *b) {
    resolver_node *n = b->resolvers;
    while (n) {
        resolver_node *next = n->next;
        free_node(n);
        n = next;
    }
    b->resolvers = NULL;
}

static resolver_node **find_resolver(mh_browse *b, AvahiIfIndex i, AvahiProtocol p, const char *name) {
    for (resolver_node **link = &b->resolvers; *link; link = &(*link)->next) {
        resolver_node *n = *link;
        if (n->interface == i && n->protocol == p && strcmp(n->name, name) == 0) return link;
    }
    return NULL;
}

// TXT RDATA as on the wire: each string prefixed with its length (max 255).
static uint8_t *txt_wire(AvahiStringList *txt, size_t *length) {
    size_t total = 0;
    for (AvahiStringList *l = txt; l; l = avahi_string_list_get_next(l)) {
        size_t s = avahi_string_list_get_size(l);
        total += 1 + (s > 255 ? 255 : s);
    }
    uint8_t *out = malloc(total ? total : 1);
    if (!out) { *length = 0; return NULL; }
    size_t at = 0;
    for (AvahiStringList *l = txt; l; l = avahi_string_list_get_next(l)) {
        size_t s = avahi_string_list_get_size(l);
        if (s > 255) s = 255;
        out[at++] = (uint8_t)s;
        memcpy(out + at, avahi_string_list_get_text(l), s);
        at += s;
    }
    *length = at;
    return out;
}

int mh_address_text(uint16_t type, const void *rdata, size_t size, char *text, size_t text_size) {
    int family = type == AVAHI_DNS_TYPE_AAAA ? AF_INET6 : AF_INET;
    if ((family == AF_INET6 && size != 16) || (family == AF_INET && size != 4)) return -1;
    return inet_ntop(family, rdata, text, (socklen_t)text_size) ? 0 : -1;
}

static void address_callback(AvahiRecordBrowser *rb, AvahiIfIndex interface, AvahiProtocol protocol,
                             AvahiBrowserEvent event, const char *name, uint16_t clazz, uint16_t type,
                             const void *rdata, size_t size, AvahiLookupResultFlags flags,
                             void *userdata) {
    (void)rb; (void)name; (void)clazz; (void)flags;
    resolver_node *n = userdata;
    if (event != AVAHI_BROWSER_NEW && event != AVAHI_BROWSER_REMOVE) return;
    char text[INET6_ADDRSTRLEN];
    if (mh_address_text(type, rdata, size, text, sizeof text) < 0) return;
    mh_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = event == AVAHI_BROWSER_NEW ? MH_EVENT_ADDRESS_ADDED : MH_EVENT_ADDRESS_REMOVED;
    ev.interface_index = interface;
    ev.protocol = protocol_out(protocol);
    ev.name = n->name;
    ev.type = n->type;
    ev.domain = n->domain;
    ev.host = n->host;
    ev.address = text;
    n->owner->callback(n->owner->context, &ev);
}

// Browses the host's A (IPv4) or AAAA (IPv6) records on the resolver's interface, so a host with
// several addresses (link-local, ULA, global) is reported with all of them.
static void watch_addresses(resolver_node *n, AvahiClient *c, const char *host) {
    if (n->host && strcmp(n->host, host) == 0) return;
    if (n->addresses) avahi_record_browser_free(n->addresses);
    n->addresses = NULL;
    free(n->host);
    n->host = strdup(host);
    if (!n->host) return;
    uint16_t type = n->protocol == AVAHI_PROTO_INET6 ? AVAHI_DNS_TYPE_AAAA : AVAHI_DNS_TYPE_A;
    n->addresses = avahi_record_browser_new(c, n->interface, n->protocol, host, AVAHI_DNS_CLASS_IN,
                                            type, 0, address_callback, n);
}

uint8_t *mh_txt_wire_from_items(const uint8_t *const *items, const size_t *lengths, size_t count,
                                size_t *length) {
    AvahiStringList *list = NULL;
    // avahi_string_list_add prepends: add in reverse to keep the caller's order.
    for (size_t i = count; i > 0; i--) {
        AvahiStringList *next = avahi_string_list_add_arbitrary(list, items[i - 1], lengths[i - 1]);
        if (!next) { avahi_string_list_free(list); *length = 0; return NULL; }
        list = next;
    }
    uint8_t *wire = txt_wire(list, length);
    avahi_string_list_free(list);
    return wire;
}

static void resolve_callback(AvahiServiceResolver *r, AvahiIfIndex interface, AvahiProtocol protocol,
                             AvahiResolverEvent event, const char *name, const char *type,
                             const char *domain, const char *host, const AvahiAddress *address,
                             uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags,
                             void *userdata) {
    (void)flags;
    mh_browse *b = userdata;
    mh_event ev;
    memset(&ev, 0, sizeof ev);
    ev.interface_index = interface;
    ev.protocol = protocol_out(protocol);
    ev.name = name;
    ev.type = type;
    ev.domain = domain;
    if (event == AVAHI_RESOLVER_FOUND) {
        char text[AVAHI_ADDRESS_STR_MAX];
        text[0] = 0;
        if (address) avahi_address_snprint(text, sizeof text, address);
        size_t length = 0;
        uint8_t *wire = txt_wire(txt, &length);
        ev.kind = MH_EVENT_FOUND;
        ev.host = host;
        ev.address = text;
        ev.port = port;
        ev.txt = wire;
        ev.txt_length = length;
        b->callback(b->context, &ev);
        free(wire);
        // The resolver stays alive: Avahi calls again when the SRV, TXT or address changes.
        resolver_node **link = find_resolver(b, interface, protocol, name);
        if (link && host) watch_addresses(*link, avahi_service_resolver_get_client(r), host);
    } else {
        ev.kind = MH_EVENT_RESOLVE_FAILED;
        ev.error = avahi_client_errno(avahi_service_resolver_get_client(r));
        ev.error_message = avahi_strerror(ev.error);
        b->callback(b->context, &ev);
        resolver_node **link = find_resolver(b, interface, protocol, name);
        if (link) {
            resolver_node *n = *link;
            *link = n->next;
            n->resolver = NULL;  // freed below, by us
            free_node(n);
        }
        avahi_service_resolver_free(r);
    }
}

static void browse_callback(AvahiServiceBrowser *sb, AvahiIfIndex interface, AvahiProtocol protocol,
                            AvahiBrowserEvent event, const char *name, const char *type,
                            const char *domain, AvahiLookupResultFlags flags, void *userdata) {
    (void)flags;
    mh_browse *b = userdata;
    AvahiClient *c = avahi_service_browser_get_client(sb);
    switch (event) {
    case AVAHI_BROWSER_NEW: {
        if (find_resolver(b, interface, protocol, name)) break;
        resolver_node *n = calloc(1, sizeof *n);
        if (!n) break;
        n->interface = interface;
        n->protocol = protocol;
        n->owner = b;
        n->name = strdup(name);
        n->type = strdup(type);
        n->domain = strdup(domain);
        n->resolver = avahi_service_resolver_new(c, interface, protocol, name, type, domain,
                                                 protocol, 0, resolve_callback, b);
        if (!n->resolver || !n->name || !n->type || !n->domain) {
            int error = avahi_client_errno(c);
            free_node(n);
            mh_event ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = MH_EVENT_RESOLVE_FAILED;
            ev.interface_index = interface;
            ev.protocol = protocol_out(protocol);
            ev.name = name;
            ev.type = type;
            ev.domain = domain;
            ev.error = error;
            ev.error_message = avahi_strerror(error);
            b->callback(b->context, &ev);
            break;
        }
        n->next = b->resolvers;
        b->resolvers = n;
        break;
    }
    case AVAHI_BROWSER_REMOVE: {
        resolver_node **link = find_resolver(b, interface, protocol, name);
        if (link) {
            resolver_node *n = *link;
            *link = n->next;
            free_node(n);
        }
        mh_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = MH_EVENT_REMOVED;
        ev.interface_index = interface;
        ev.protocol = protocol_out(protocol);
        ev.name = name;
        ev.type = type;
        ev.domain = domain;
        b->callback(b->context, &ev);
        break;
    }
    case AVAHI_BROWSER_ALL_FOR_NOW:
        emit_simple(b->callback, b->context, MH_EVENT_ALL_FOR_NOW, 0);
        break;
    case AVAHI_BROWSER_CACHE_EXHAUSTED:
        break;
    case AVAHI_BROWSER_FAILURE:
        emit_simple(b->callback, b->context, MH_EVENT_FAILED, avahi_client_errno(c));
        break;
    }
}

static void browse_client_callback(AvahiClient *c, AvahiClientState state, void *userdata) {
    mh_browse *b = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        if (!b->browser) {
            b->browser = avahi_service_browser_new(c, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, b->type,
                                                   b->domain, 0, browse_callback, b);
            if (!b->browser) {
                emit_simple(b->callback, b->context, MH_EVENT_FAILED, avahi_client_errno(c));
                break;
            }
            if (b->reconnecting) {
                b->reconnecting = 0;
                emit_simple(b->callback, b->context, MH_EVENT_RECONNECTED, 0);
            }
        }
        break;
    case AVAHI_CLIENT_FAILURE: {
        int error = avahi_client_errno(c);
        if (error != AVAHI_ERR_DISCONNECTED) {
            emit_simple(b->callback, b->context, MH_EVENT_FAILED, error);
            break;
        }
        // The daemon went away (restart): the browser and resolvers died with the client. Make a
        // new client that waits for the daemon, as avahi-browse does.
        emit_simple(b->callback, b->context, MH_EVENT_DISCONNECTED, error);
        free_resolvers(b);
        b->browser = NULL;
        avahi_client_free(c);
        b->client = NULL;
        b->reconnecting = 1;
        int e = 0;
        b->client = avahi_client_new(avahi_threaded_poll_get(b->poll), AVAHI_CLIENT_NO_FAIL,
                                     browse_client_callback, b, &e);
        if (!b->client) emit_simple(b->callback, b->context, MH_EVENT_FAILED, e);
        break;
    }
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
    case AVAHI_CLIENT_CONNECTING:
        break;
    }
}

mh_browse *mh_browse_new(const char *type, const char *domain, mh_event_callback callback,
                         mh_release_callback release, void *context, int *error) {
    mh_browse *b = calloc(1, sizeof *b);
    if (!b) { *error = AVAHI_ERR_NO_MEMORY; return NULL; }
    b->type = strdup(type);
    b->domain = domain ? strdup(domain) : NULL;
    b->callback = callback;
    b->release = release;
    b->context = context;
    b->poll = avahi_threaded_poll_new();
    if (!b->type || !b->poll) {
        *error = AVAHI_ERR_NO_MEMORY;
        goto fail;
    }
    b->client = avahi_client_new(avahi_threaded_poll_get(b->poll), 0, browse_client_callback, b, error);
    if (!b->client) goto fail;
    if (avahi_threaded_poll_start(b->poll) < 0) {
        *error = AVAHI_ERR_FAILURE;
        goto fail;
    }
    return b;
fail:
    free_resolvers(b);
    if (b->client) avahi_client_free(b->client);
    if (b->poll) avahi_threaded_poll_free(b->poll);
    free(b->type);
    free(b->domain);
    free(b);
    return NULL;
}

void mh_browse_free(mh_browse *b) {
    if (!b) return;
    avahi_threaded_poll_stop(b->poll);
    free_resolvers(b);
    if (b->client) avahi_client_free(b->client);  // frees the browser too
    avahi_threaded_poll_free(b->poll);
    b->release(b->context);
    free(b->type);
    free(b->domain);
    free(b);
}

// MARK: publish

struct mh_publisher {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiEntryGroup *group;
    mh_event_callback callback;
    mh_release_callback release;
    void *context;
    int reconnecting;
    // The advert, kept to re-register after a collision or a daemon restart.
    int active;
    char *name;
    char *type;
    char *host;
    uint16_t port;
    AvahiIfIndex interface;
    char **subtypes;
    size_t subtype_count;
    AvahiStringList *txt;
};

static void clear_advert(mh_publisher *p) {
    free(p->name);
    free(p->type);
    free(p->host);
    for (size_t i = 0; i < p->subtype_count; i++) free(p->subtypes[i]);
    free(p->subtypes);
    avahi_string_list_free(p->txt);
    p->name = p->type = p->host = NULL;
    p->subtypes = NULL;
    p->subtype_count = 0;
    p->txt = NULL;
    p->active = 0;
}

static int register_advert(mh_publisher *p, AvahiClient *c);

static void group_callback(AvahiEntryGroup *g, AvahiEntryGroupState state, void *userdata) {
    mh_publisher *p = userdata;
    mh_event ev;
    memset(&ev, 0, sizeof ev);
    ev.interface_index = p->interface;
    ev.protocol = -1;
    ev.name = p->name;
    ev.type = p->type;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        ev.kind = MH_EVENT_PUBLISHED;
        p->callback(p->context, &ev);
        break;
    case AVAHI_ENTRY_GROUP_COLLISION: {
        char *next = avahi_alternative_service_name(p->name);
        if (!next) break;
        free(p->name);
        p->name = strdup(next);
        avahi_free(next);
        ev.kind = MH_EVENT_RENAMED;
        ev.name = p->name;
        p->callback(p->context, &ev);
        int e = register_advert(p, avahi_entry_group_get_client(g));
        if (e < 0) emit_simple(p->callback, p->context, MH_EVENT_FAILED, e);
        break;
    }
    case AVAHI_ENTRY_GROUP_FAILURE:
        emit_simple(p->callback, p->context, MH_EVENT_FAILED,
                    avahi_client_errno(avahi_entry_group_get_client(g)));
        break;
    case AVAHI_ENTRY_GROUP_UNCOMMITED:
    case AVAHI_ENTRY_GROUP_REGISTERING:
        break;
    }
}

// (Re)registers the stored advert in the entry group. Poll thread or poll lock held.
static int register_advert(mh_publisher *p, AvahiClient *c) {
    if (!p->active || avahi_client_get_state(c) != AVAHI_CLIENT_S_RUNNING) return 0;
    if (!p->group) {
        p->group = avahi_entry_group_new(c, group_callback, p);
        if (!p->group) return avahi_client_errno(c);
    } else {
        avahi_entry_group_reset(p->group);
    }
    AvahiIfIndex iface = p->interface >= 0 ? p->interface : AVAHI_IF_UNSPEC;
    int e = avahi_entry_group_add_service_strlst(p->group, iface, AVAHI_PROTO_UNSPEC, 0, p->name,
                                                 p->type, NULL, p->host, p->port, p->txt);
    if (e == AVAHI_ERR_COLLISION) {
        char *next = avahi_alternative_service_name(p->name);
        if (!next) return AVAHI_ERR_NO_MEMORY;
        free(p->name);
        p->name = strdup(next);
        avahi_free(next);
        mh_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = MH_EVENT_RENAMED;
        ev.interface_index = p->interface;
        ev.protocol = -1;
        ev.name = p->name;
        ev.type = p->type;
        p->callback(p->context, &ev);
        return register_advert(p, c);
    }
    if (e < 0) return e;
    for (size_t i = 0; i < p->subtype_count; i++) {
        size_t n = strlen(p->subtypes[i]) + strlen(p->type) + 8;
        char *full = malloc(n);
        if (!full) return AVAHI_ERR_NO_MEMORY;
        snprintf(full, n, "%s._sub.%s", p->subtypes[i], p->type);
        e = avahi_entry_group_add_service_subtype(p->group, iface, AVAHI_PROTO_UNSPEC, 0, p->name,
                                                  p->type, NULL, full);
        free(full);
        if (e < 0) return e;
    }
    return avahi_entry_group_commit(p->group);
}

static void publisher_client_callback(AvahiClient *c, AvahiClientState state, void *userdata) {
    mh_publisher *p = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING: {
        int e = register_advert(p, c);
        if (e < 0) emit_simple(p->callback, p->context, MH_EVENT_FAILED, e);
        if (p->reconnecting) {
            p->reconnecting = 0;
            emit_simple(p->callback, p->context, MH_EVENT_RECONNECTED, 0);
        }
        break;
    }
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        // The host name is being (re)announced: withdraw and re-register once running again.
        if (p->group) avahi_entry_group_reset(p->group);
        break;
    case AVAHI_CLIENT_FAILURE: {
        int error = avahi_client_errno(c);
        if (error != AVAHI_ERR_DISCONNECTED) {
            emit_simple(p->callback, p->context, MH_EVENT_FAILED, error);
            break;
        }
        emit_simple(p->callback, p->context, MH_EVENT_DISCONNECTED, error);
        p->group = NULL;  // freed with the client
        avahi_client_free(c);
        p->reconnecting = 1;
        int e = 0;
        p->client = avahi_client_new(avahi_threaded_poll_get(p->poll), AVAHI_CLIENT_NO_FAIL,
                                     publisher_client_callback, p, &e);
        if (!p->client) emit_simple(p->callback, p->context, MH_EVENT_FAILED, e);
        break;
    }
    case AVAHI_CLIENT_CONNECTING:
        break;
    }
}

mh_publisher *mh_publisher_new(mh_event_callback callback, mh_release_callback release,
                               void *context, int *error) {
    mh_publisher *p = calloc(1, sizeof *p);
    if (!p) { *error = AVAHI_ERR_NO_MEMORY; return NULL; }
    p->callback = callback;
    p->release = release;
    p->context = context;
    p->interface = -1;
    p->poll = avahi_threaded_poll_new();
    if (!p->poll) { *error = AVAHI_ERR_NO_MEMORY; free(p); return NULL; }
    p->client = avahi_client_new(avahi_threaded_poll_get(p->poll), 0, publisher_client_callback, p, error);
    if (!p->client || avahi_threaded_poll_start(p->poll) < 0) {
        if (p->client) { avahi_client_free(p->client); *error = AVAHI_ERR_FAILURE; }
        avahi_threaded_poll_free(p->poll);
        free(p);
        return NULL;
    }
    return p;
}

int mh_publisher_set(mh_publisher *p, const char *name, const char *type, const char *host,
                     uint16_t port, int interface_index, const char *const *subtypes,
                     size_t subtype_count, const uint8_t *const *txt, const size_t *txt_lengths,
                     size_t txt_count) {
    avahi_threaded_poll_lock(p->poll);
    clear_advert(p);
    p->name = strdup(name);
    p->type = strdup(type);
    p->host = host ? strdup(host) : NULL;
    p->port = port;
    p->interface = interface_index;
    p->subtypes = subtype_count ? calloc(subtype_count, sizeof(char *)) : NULL;
    p->subtype_count = subtype_count;
    for (size_t i = 0; i < subtype_count; i++) p->subtypes[i] = strdup(subtypes[i]);
    // avahi_string_list_add prepends: add in reverse to keep the caller's order.
    for (size_t i = txt_count; i > 0; i--)
        p->txt = avahi_string_list_add_arbitrary(p->txt, txt[i - 1], txt_lengths[i - 1]);
    p->active = 1;
    int e = p->client ? register_advert(p, p->client) : 0;
    avahi_threaded_poll_unlock(p->poll);
    return e < 0 ? e : 0;
}

int mh_publisher_withdraw(mh_publisher *p) {
    avahi_threaded_poll_lock(p->poll);
    p->active = 0;
    if (p->group) avahi_entry_group_reset(p->group);
    avahi_threaded_poll_unlock(p->poll);
    return 0;
}

void mh_publisher_free(mh_publisher *p) {
    if (!p) return;
    avahi_threaded_poll_stop(p->poll);
    if (p->client) avahi_client_free(p->client);  // frees the entry group, withdrawing the advert
    avahi_threaded_poll_free(p->poll);
    clear_advert(p);
    p->release(p->context);
    free(p);
}
