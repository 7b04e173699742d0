/*
 * List + watch of one resource (client-go's reflector): a full list, paged,
 * then a watch from the list's resourceVersion with bookmarks requested;
 * every event moves the resourceVersion on, so a dropped watch resumes
 * where it stopped with no event lost or repeated. 410 Gone (as an HTTP
 * status or as an ERROR event) means the version is too old: list again.
 * Failures reconnect after a capped exponential backoff with jitter.
 *
 * One thread per informer. The callbacks run on that thread, one at a
 * time; the objects they receive are borrowed for the call.
 */
#ifndef KUBE_INFORMER_H
#define KUBE_INFORMER_H

#include <cjson/cJSON.h>

#include "kube/client.h"

enum kube_event {
    KUBE_ADDED = 0,
    KUBE_MODIFIED,
    KUBE_DELETED,
};

/* The callbacks; only on_object is required, the others may be NULL. */
struct kube_informer_ops {
    /* A list starts: every object follows through on_object (KUBE_ADDED),
     * then on_list_end. Objects not delivered since on_list_begin are
     * gone. Pages are delivered as they arrive, so a list that fails part
     * way (or restarts because its continue token expired) is followed by
     * another on_list_begin without an on_list_end in between: act on
     * on_list_end, not before. */
    void (*on_list_begin)(void *ctx);
    void (*on_list_end)(void *ctx);
    /* One object, from a list or a watch event. */
    void (*on_object)(void *ctx, enum kube_event ev, const cJSON *obj);
    /* Health for /readyz and the log: @ok after each successful list and
     * when a watch works again after a failure; false with @why after each
     * failure (then it retries after the backoff). A malformed watch event
     * is reported here (it is not logged otherwise). */
    void (*on_health)(void *ctx, bool ok, const char *why);
};

struct kube_informer_params {
    const char *name;       /* "nodes": for messages */
    const char *path;       /* "/api/v1/nodes" */
    int page_limit;         /* list page size (limit=, continue=), e.g. 500 */
    int watch_seconds;      /* timeoutSeconds of each watch, e.g. 300 */
    int request_timeout;    /* seconds for one list page */
    int backoff_initial_ms; /* first retry delay, e.g. 200 */
    int backoff_max_ms;     /* cap, e.g. 30000; jitter adds up to 50 % */
};

struct kube_informer;

/*
 * Starts the informer thread on @c (borrowed; must outlive the informer),
 * with @p (and its strings) copied and @ops/@ctx called from that thread.
 * Every number in @p must be positive, backoff_max_ms >= backoff_initial_ms,
 * and path must begin with '/' (a query is allowed).
 * Returns 0, -EINVAL for bad parameters, or -errno with @err.
 */
int kube_informer_start(struct kube_client *c, const struct kube_informer_params *p,
                        const struct kube_informer_ops *ops, void *ctx, struct kube_informer **out,
                        char *err);

/* What an informer has gone through, for /metrics. */
struct kube_informer_counts {
    unsigned long long watch_restarts; /* watches started again from the last resourceVersion */
    unsigned long long relists;        /* lists after the first: the version was gone (410) */
    unsigned long long errors;         /* list or watch requests that failed */
    unsigned long long
        pages_shrunk; /* list pages refused as over their bound, asked again smaller */
};

/* The most a list page of @limit objects may weigh (its body): the
 * limit's worth of the largest objects etcd stores (3 MiB as JSON), never
 * over 8 MiB. A watch event line is bounded by one such object. A
 * page over it is refused and asked for again with half the limit
 * (counted in pages_shrunk and logged); at limit 1 the list fails. */
size_t kube_informer_page_bound(int limit);

/* The counts so far. Thread-safe (atomics). */
void kube_informer_get_counts(const struct kube_informer *inf, struct kube_informer_counts *out);

/* Stops and joins the thread (within about a second) and frees @inf
 * (NULL is fine). Not from a callback. */
void kube_informer_stop(struct kube_informer *inf);

#endif
