// A small C shim over libavahi-client for MatterDiscovery. Every Avahi object lives on one
// AvahiThreadedPoll per browse or publisher; callbacks arrive on that poll thread. The shim hides
// the client life cycle: it recreates the client and its browser or entry group when the daemon
// restarts, and it releases the caller's context exactly once, after the poll thread has stopped.
#ifndef MH_AVAHI_H
#define MH_AVAHI_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MH_EVENT_FOUND = 1,          // a resolved instance (or an update of one): all fields set
    MH_EVENT_REMOVED = 2,        // name/type/domain/interface/protocol set
    MH_EVENT_ALL_FOR_NOW = 3,    // the cache has been dumped and the first answers are in
    MH_EVENT_FAILED = 4,         // the browse or publisher cannot continue: error set
    MH_EVENT_DISCONNECTED = 5,   // the daemon went away; the shim is reconnecting
    MH_EVENT_RECONNECTED = 6,    // the daemon is back and the browse/advert was recreated
    MH_EVENT_RESOLVE_FAILED = 7, // one instance did not resolve: name and error set
    MH_EVENT_PUBLISHED = 8,      // the advert is established under `name`
    MH_EVENT_RENAMED = 9,        // a name collision: the advert is re-registered as `name`
    MH_EVENT_ADDRESS_ADDED = 10, // the resolved host of instance `name` has `address` (A/AAAA) on
                                 // interface/protocol; besides the one the resolver reports
    MH_EVENT_ADDRESS_REMOVED = 11,
} mh_event_kind;

/// One event. Pointers are valid only during the callback.
typedef struct {
    int kind;
    int interface_index;     // Avahi interface index (-1: unspecified)
    int protocol;            // 0: IPv4, 1: IPv6, -1: unspecified
    const char *name;
    const char *type;
    const char *domain;
    const char *host;
    const char *address;     // textual IP address, no scope
    uint16_t port;
    const uint8_t *txt;      // TXT RDATA: length-prefixed strings
    size_t txt_length;
    int error;               // Avahi error code (negative), 0 if none
    const char *error_message;
} mh_event;

typedef void (*mh_event_callback)(void *context, const mh_event *event);
typedef void (*mh_release_callback)(void *context);

const char *mh_strerror(int error);

// MARK: browse and resolve

typedef struct mh_browse mh_browse;

/// Browses `type` (e.g. "_matterc._udp" or "_L3840._sub._matterc._udp") and resolves every
/// instance, on IPv4 and IPv6, on every interface. Returns NULL with `*error` set when there is no
/// D-Bus or no daemon; `release` is then never called and the caller still owns `context`.
mh_browse *mh_browse_new(const char *type, const char *domain, mh_event_callback callback,
                         mh_release_callback release, void *context, int *error);

/// Stops the poll thread, frees every Avahi object and calls `release(context)` once. Must not be
/// called on the poll thread (from inside a callback).
void mh_browse_free(mh_browse *browse);

// MARK: publish

typedef struct mh_publisher mh_publisher;

/// A publisher for one service instance. NULL with `*error` set when the daemon is unavailable.
mh_publisher *mh_publisher_new(mh_event_callback callback, mh_release_callback release,
                               void *context, int *error);

/// Registers (or replaces) the advert. `subtypes` are bare labels such as "_L3840"; `txt` items are
/// raw "key=value" byte strings. `host` may be NULL (the daemon's own host name).
/// Returns 0 or an Avahi error code.
int mh_publisher_set(mh_publisher *publisher, const char *name, const char *type,
                     const char *host, uint16_t port, int interface_index,
                     const char *const *subtypes, size_t subtype_count,
                     const uint8_t *const *txt, const size_t *txt_lengths, size_t txt_count);

/// Withdraws the advert (the publisher can be set again later).
int mh_publisher_withdraw(mh_publisher *publisher);

/// Withdraws, stops the poll thread, frees everything and calls `release(context)` once. Not from
/// the poll thread.
void mh_publisher_free(mh_publisher *publisher);

// MARK: the callbacks' decoding of what the daemon reports (exposed for the fuzz-avahi target)

/// TXT RDATA as a FOUND event carries it, built from `count` raw strings the way the resolver
/// callback builds it from avahi-client's string list: each string prefixed with its length and
/// cut to 255 bytes. Release with free(); NULL (and *length 0) when out of memory.
uint8_t *mh_txt_wire_from_items(const uint8_t *const *items, const size_t *lengths, size_t count,
                                size_t *length);

/// The textual address of an A (`type` 1, 4 bytes) or AAAA (`type` 28, 16 bytes) record's RDATA,
/// as ADDRESS_ADDED/REMOVED events carry it (any other type is read as A). 0, or -1 when the
/// size does not match the type or the text does not fit `text_size`.
int mh_address_text(uint16_t type, const void *rdata, size_t size, char *text, size_t text_size);

#endif
