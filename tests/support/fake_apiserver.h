/*
 * A fake kube-apiserver for the kube client and informer tests, in the test
 * process: HTTPS on 127.0.0.1 (port 0), bearer tokens and optionally client
 * certificates, nodes and pods with list (paged), get and watch (replay from
 * a resourceVersion, bookmarks, timeoutSeconds), pod binding, and
 * metrics.k8s.io node metrics; and the faults a real one shows: compaction
 * (410 Expired), dropped or half-sent watch streams, a rotated token, a burst
 * of 5xx answers.
 *
 * Every resourceVersion comes from one counter; every change is an event in
 * a log that watches replay from, until fake_compact forgets it.
 *
 * All functions are thread-safe (one lock over the store); the test thread
 * drives the store while the server's threads answer.
 */
#ifndef TESTS_SUPPORT_FAKE_APISERVER_H
#define TESTS_SUPPORT_FAKE_APISERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fake_kind {
    FAKE_NODE = 0, /* cluster-scoped, /api/v1/nodes */
    FAKE_POD,      /* namespaced, /api/v1/pods and /api/v1/namespaces/NS/pods */
    FAKE_KINDS,
};

/* How a watch from a compacted resourceVersion is refused. */
enum fake_gone {
    FAKE_GONE_ERROR_EVENT = 0, /* 200, then one ERROR event (410 Expired), then the end */
    FAKE_GONE_HTTP_410,        /* HTTP 410 with a Status body */
};

/* How fake_drop_watches ends the open watch streams. */
enum fake_drop {
    FAKE_DROP_CLOSE = 0, /* close each connection now, no terminating chunk */
    FAKE_DROP_MID_LINE,  /* send half of each stream's next event line, then close */
};

struct fake_params {
    const char *cert_file; /* server certificate (PEM), required */
    const char *key_file;  /* its key (PEM), required */
    const char *token;     /* the bearer token accepted; NULL: none is */
    /* When set, a client certificate verified against this CA (PEM file)
     * and meant for TLS clients is accepted in place of the token. With
     * neither a token nor a client CA, every request is let in. */
    const char *client_ca_file;
};

struct fake_counts {
    unsigned lists[FAKE_KINDS];         /* list requests without continue= (a fresh list) */
    unsigned list_pages[FAKE_KINDS];    /* every list request, continued pages included */
    unsigned watches[FAKE_KINDS];       /* watch requests, refused ones included */
    unsigned open_watches[FAKE_KINDS];  /* watch streams open now */
    unsigned bindings;                  /* binding POSTs, whatever the answer */
    unsigned metrics;                   /* metrics.k8s.io requests, whatever the answer */
    unsigned unauthorized;              /* requests answered 401 */
    unsigned injected;                  /* requests answered by fake_fail_next */
    unsigned injected_watches;          /* those of them that were watch requests */
    unsigned bookmarks_sent;            /* BOOKMARK lines handed to streams */
    uint64_t last_watch_rv[FAKE_KINDS]; /* resourceVersion of the latest watch, 0: none */
};

struct fake_apiserver;

/*
 * Starts serving on 127.0.0.1, on a free port. @p and its strings are
 * read during the call only. Returns 0 and the server in *@out, or
 * -ENOENT (a file cannot be read), -ENOMEM, -EIO (libmicrohttpd refused,
 * e.g. the key does not match the certificate).
 */
int fake_start(const struct fake_params *p, struct fake_apiserver **out);

/* Wakes and ends every open stream, stops the server (joining its
 * threads, in well under a second) and frees everything. NULL is fine. */
void fake_stop(struct fake_apiserver *f);

/* The port served on. */
int fake_port(const struct fake_apiserver *f);

/* The current (latest) resourceVersion; 1 before anything was stored. */
uint64_t fake_rv(struct fake_apiserver *f);

/*
 * Stores object @json (text; kind and apiVersion in it are ignored): new
 * by namespace/name (pods without a namespace go to "default") is ADDED,
 * else MODIFIED. The server sets metadata.resourceVersion, and
 * metadata.uid and metadata.creationTimestamp when absent (a MODIFIED
 * object keeps the stored uid). Returns 0 with the new resourceVersion in
 * *@rv (when not NULL), or -EINVAL (not an object with metadata.name) or
 * -ENOMEM.
 */
int fake_put(struct fake_apiserver *f, enum fake_kind kind, const char *json, uint64_t *rv);

/* Deletes an object (@ns ignored for nodes, NULL for pods means
 * "default"): a DELETED event carrying the last state with a new
 * resourceVersion. Returns 0 with it in *@rv (when not NULL), or -ENOENT. */
int fake_delete(struct fake_apiserver *f, enum fake_kind kind, const char *ns, const char *name,
                uint64_t *rv);

/* The stored object (with kind and apiVersion) as malloc'd JSON text the
 * caller frees, or NULL when there is none. */
char *fake_get(struct fake_apiserver *f, enum fake_kind kind, const char *ns, const char *name);

/* Every stored object of @kind as one malloc'd JSON array, sorted by
 * namespace/name, for comparing with what a client saw. NULL when out of
 * memory. */
char *fake_dump(struct fake_apiserver *f, enum fake_kind kind);

/* Forgets the event log and the list snapshots up to now: a watch or a
 * continue from an older resourceVersion gets 410 Expired; from the current
 * one it still works (as etcd after a compaction at the current revision). */
void fake_compact(struct fake_apiserver *f);

/* Sends a BOOKMARK at the current resourceVersion on every open watch that
 * asked for allowWatchBookmarks (after the events it has not sent yet). */
void fake_bookmark(struct fake_apiserver *f);

/* Ends every open watch stream as @how says (FAKE_DROP_MID_LINE waits for a
 * stream's next line when it has none to send). New watches are not
 * affected. */
void fake_drop_watches(struct fake_apiserver *f, enum fake_drop how);

/* How a watch from a compacted version is refused (default error event). */
void fake_set_gone_mode(struct fake_apiserver *f, enum fake_gone mode);

/* Replaces the accepted bearer token (NULL: none is); other tokens get 401. */
void fake_set_token(struct fake_apiserver *f, const char *token);

/* The next @n requests, whatever they are, answer @status (e.g. 503) with
 * a Status body. */
void fake_fail_next(struct fake_apiserver *f, unsigned n, int status);

/* Sets (or, with @cpu NULL, removes) the usage metrics.k8s.io reports for
 * node @name, Quantity texts such as "1500m" and "2Gi". Returns 0 or
 * -ENOMEM / -EINVAL (texts too long). */
int fake_set_node_metrics(struct fake_apiserver *f, const char *name, const char *cpu,
                          const char *memory);

/* The timestamp (RFC 3339 text) and window ("20s") of every metrics item. */
void fake_set_metrics_time(struct fake_apiserver *f, const char *timestamp, const char *window);

/* 0 serves the metrics API; 404 or 503 (or any status) answers that, as a
 * cluster without (a working) metrics-server does. */
void fake_set_metrics_status(struct fake_apiserver *f, int status);

/* With @hang, binding POSTs are counted and then never answered (a hung
 * API server) until hanging is switched off again or the fake stops. */
void fake_hang_bindings(struct fake_apiserver *f, bool hang);

/* Every metrics.k8s.io item carries a label of @bytes bytes (0: none), as
 * metrics-server copies the node's labels: an answer as large as a test
 * needs. Returns 0 or -ENOMEM. */
int fake_set_metrics_padding(struct fake_apiserver *f, size_t bytes);

/* With @ignore, a list answers every object in one page whatever its
 * limit= (as a server or proxy that ignores it would). */
void fake_ignore_limit(struct fake_apiserver *f, bool ignore);

/* The counters, copied at one instant. */
void fake_counts(struct fake_apiserver *f, struct fake_counts *out);

/* Waits up to @timeout_ms until at least @n watch streams of @kind are open.
 * Returns 0 or -ETIMEDOUT. */
int fake_wait_open_watches(struct fake_apiserver *f, enum fake_kind kind, unsigned n,
                           int timeout_ms);

/* The body of the @i-th binding POST received (0 first), as malloc'd text
 * the caller frees; NULL when there are not that many. */
char *fake_binding_body(struct fake_apiserver *f, unsigned i);

/*
 * Besides the Kubernetes paths, GET /fake/stream?line=N&count=K&tail=T
 * answers a chunked 200 of K lines of N 'x' (each with its '\n') and then
 * T more 'x' without one, for the line limits of a streaming client.
 */

#endif
