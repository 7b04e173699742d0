#include "server/cluster/prom_usage.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/heap.h"
#include "base/table.h"
#include "kube/client.h"
#include "server/cluster/usage.h"
#include "server/codec/prom_vector.h"

struct cluster_prom {
    struct kube_client *client;
    char made_of[6 * CFG_STR_LEN]; /* the options the client was made from */
    int asked;                     /* the resources queried last round, a bit each; -1: none */
};

static int client_for(struct cluster_prom **pp, const struct cfg *c, char *why)
{
    char key[sizeof((*pp)->made_of)];
    /* The options the client depends on, joined: a change makes a new one. */
    snprintf(key, sizeof(key), "%s\n%s\n%s\n%s\n%s", c->prometheus_url,
             c->prometheus_bearer_token_file, c->prometheus_ca_file, c->prometheus_client_cert_file,
             c->prometheus_client_key_file);
    if (*pp != NULL && strcmp((*pp)->made_of, key) == 0)
        return 0;
    int asked = *pp != NULL ? (*pp)->asked : -1; /* outlives the client */
    cluster_prom_free(*pp);
    *pp = calloc(1, sizeof(**pp));
    if (*pp == NULL)
        return err_fail(why, -ENOMEM, "out of memory");
    /* The kube-apiserver client does what a Prometheus client needs: its
     * deadlines, bounded bodies, CA, client certificate and a token file
     * re-read when it rotates. */
    struct kube_target t = {0};
    snprintf(t.source, sizeof(t.source), "prometheusURL %s", c->prometheus_url);
    snprintf(t.server, sizeof(t.server), "%s", c->prometheus_url);
    size_t len = strlen(t.server);
    while (len > 0 && t.server[len - 1] == '/')
        t.server[--len] = '\0';
    snprintf(t.token_file, sizeof(t.token_file), "%s", c->prometheus_bearer_token_file);
    snprintf(t.ca_file, sizeof(t.ca_file), "%s", c->prometheus_ca_file);
    snprintf(t.cert_file, sizeof(t.cert_file), "%s", c->prometheus_client_cert_file);
    snprintf(t.key_file, sizeof(t.key_file), "%s", c->prometheus_client_key_file);
    int rc = kube_client_new(&t, &(*pp)->client, why);
    if (rc != 0) {
        free(*pp);
        *pp = NULL;
        return rc;
    }
    memcpy((*pp)->made_of, key, sizeof(key));
    (*pp)->asked = asked;
    return 0;
}

void cluster_prom_free(struct cluster_prom *p)
{
    if (p == NULL)
        return;
    kube_client_free(p->client);
    free(p);
}

/* ---- the nodes, by the key the label holds ---- */

struct pnode {
    struct table_entry h; /* key: the node's name, or its InternalIP */
    const char *name;     /* the node's name, right after the struct */
    int64_t value[SCORE_NRES];
    bool have[SCORE_NRES];
    bool twice; /* named by two series, or two nodes share the IP: no sample */
};

struct nodes {
    struct table t;
    /* With by_ip, the nodes by name too: kube-prometheus relabels
     * node-exporter's instance to the node's name. */
    struct table names;
    bool by_ip;
    bool no_memory;
};

struct alias {
    struct table_entry h; /* key: the node's name */
    struct pnode *p;
};

static void add_node(void *ctx, const char *name, const char *ip)
{
    struct nodes *ns = ctx;
    const char *key = ns->by_ip ? ip : name;
    if (key[0] == '\0' || ns->no_memory)
        return; /* no InternalIP: no series can name it; it goes stale */
    struct pnode *dup = (struct pnode *)(void *)table_find(&ns->t, key);
    if (dup != NULL) {
        dup->twice = true;
        return;
    }
    size_t nlen = strlen(name) + 1;
    /* The name right after the struct; table_entry_new puts the key after it. */
    struct pnode *p = table_entry_new(sizeof(*p) + nlen, key);
    if (p == NULL) {
        ns->no_memory = true;
        return;
    }
    char *nm = (char *)(p + 1);
    memcpy(nm, name, nlen);
    p->name = nm;
    if (table_insert(&ns->t, &p->h) != 0) {
        free(p);
        ns->no_memory = true;
        return;
    }
    if (ns->by_ip) {
        struct alias *al = table_entry_new(sizeof(*al), name);
        if (al == NULL || table_insert(&ns->names, &al->h) != 0) {
            free(al);
            ns->no_memory = true;
            return;
        }
        al->p = p;
    }
}

/* "10.0.0.1:9100" -> "10.0.0.1", "[fd00::1]:9100" -> "fd00::1"; a value
 * without a port is the address itself. @out has KUBE_IP_LEN bytes. */
static void strip_port(const char *instance, char *out)
{
    const char *colon = strrchr(instance, ':');
    size_t n;
    if (instance[0] == '[') {
        const char *end = strchr(instance, ']');
        n = end != NULL ? (size_t)(end - instance - 1) : 0;
        instance++;
    } else if (colon != NULL && strchr(instance, ':') == colon) {
        n = (size_t)(colon - instance); /* one colon: IPv4 or a name, and a port */
    } else {
        n = strlen(instance); /* none, or a bare IPv6 address */
    }
    if (n >= KUBE_IP_LEN)
        n = 0; /* too long to be an address: matches nothing */
    memcpy(out, instance, n);
    out[n] = '\0';
}

struct answer {
    struct nodes *ns;
    int res;
    size_t unknown; /* series naming no known node */
};

static void on_series(void *ctx, const struct codec_prom_sample *s)
{
    struct answer *a = ctx;
    char ip[KUBE_IP_LEN];
    const char *key = s->node;
    if (a->ns->by_ip) {
        strip_port(s->node, ip);
        key = ip;
    }
    struct pnode *p = (struct pnode *)(void *)table_find(&a->ns->t, key);
    unsigned char bin[sizeof(struct in6_addr)];
    if (p == NULL && a->ns->by_ip && inet_pton(AF_INET, ip, bin) != 1 &&
        inet_pton(AF_INET6, ip, bin) != 1) {
        /* not an address: an instance relabelled to the node's name */
        const struct alias *al = (const struct alias *)(const void *)table_find(&a->ns->names, ip);
        p = al != NULL ? al->p : NULL;
    }
    if (p == NULL) {
        a->unknown++;
        return;
    }
    if (p->have[a->res])
        p->twice = true; /* two series for one node: which is its usage? */
    p->have[a->res] = true;
    p->value[a->res] = s->value;
}

/* @q percent-encoded into @out (@n bytes): everything but RFC 3986's
 * unreserved characters. Returns -E2BIG when it does not fit. */
static int url_encode(const char *q, char *out, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)q; *p != '\0'; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '~';
        if (j + (plain ? 1 : 3) >= n)
            return -E2BIG;
        if (plain) {
            out[j++] = (char)*p;
        } else {
            out[j++] = '%';
            out[j++] = hex[*p >> 4];
            out[j++] = hex[*p & 15];
        }
    }
    out[j] = '\0';
    return 0;
}

/* One query's answer into the nodes' values for @res. */
static int query(struct cluster_prom *p, const struct cfg *c, const char *q, int res, size_t known,
                 const atomic_bool *stop, struct answer *a, size_t *skipped, char *why)
{
    static const char *const what[SCORE_NRES] = {"prometheusCpuQuery", "prometheusMemoryQuery"};
    char path[3 * CFG_QUERY_LEN + 32], err[ERR_LEN];
    struct kube_response r = {0};
    memcpy(path, "/api/v1/query?query=", 21);
    if (url_encode(q, path + 20, sizeof(path) - 20) != 0)
        return err_fail(why, -E2BIG, "%s: too long once URL-encoded", what[res]);
    const struct kube_bounds b = {.body_max = codec_prom_vector_bound(known), .stop = stop};
    int rc = kube_get_bounded(p->client, path, c->prometheus_timeout_seconds, &b, &r, err);
    if (rc != 0)
        return err_fail(why, rc, "%s: %s", what[res], err);
    a->res = res;
    size_t skip = 0;
    int n = codec_prom_vector(r.body, r.len, c->prometheus_node_label,
                              res == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE, on_series, a,
                              &skip, err);
    if (r.status < 200 || r.status > 299) {
        /* Prometheus says why in the body (bad_data for bad PromQL). */
        err_set(why, "%s: HTTP %ld from Prometheus%s%s", what[res], r.status, n < 0 ? ": " : "",
                n < 0 ? err : "");
        rc = -EIO;
    } else if (n < 0) {
        err_set(why, "%s: %s", what[res], err);
        rc = -EINVAL;
    }
    *skipped += skip;
    free(r.body);
    if (r.len > (1u << 20))
        heap_trim();
    return rc;
}

int cluster_prom_round(struct cluster_prom **pp, const struct cfg *c, struct kube_state *st,
                       const struct kube_usage_rules *rules, const atomic_bool *stop,
                       struct cluster_prom_round *out, char *why)
{
    memset(out, 0, sizeof(*out));
    int rc = client_for(pp, c, why);
    if (rc != 0)
        return rc;
    struct nodes ns = {.by_ip = strcmp(c->prometheus_node_label, "instance") == 0};
    kube_state_each_node(st, add_node, &ns);
    if (ns.no_memory) {
        table_free_all(&ns.t, NULL);
        table_free_all(&ns.names, NULL);
        return err_fail(why, -ENOMEM, "out of memory");
    }
    /* A resource not asked for is 0 in the samples (below): when a reload
     * asks for it, those zeros must not read as its usage. The histories
     * start again, stale until usageMinSamples. */
    int asked = (cluster_usage_reads(c, SCORE_CPU) ? 1 : 0) |
                (cluster_usage_reads(c, SCORE_MEMORY) ? 2 : 0);
    if ((*pp)->asked >= 0 && (*pp)->asked != asked)
        kube_state_usage_forget(st);
    (*pp)->asked = asked;
    struct answer a = {.ns = &ns};
    const char *q[SCORE_NRES] = {c->prometheus_cpu_query, c->prometheus_memory_query};
    /* A resource scored from requests is not asked for: its query may be
     * left failing without costing the other its samples. */
    for (int r = 0; r < SCORE_NRES && rc == 0; r++)
        if (cluster_usage_reads(c, r))
            rc = query(*pp, c, q[r], r, ns.t.count, stop, &a, &out->skipped, why);
    out->skipped += a.unknown;
    /* The sample is the usage as of this round, on our clock: an instant
     * query is evaluated at Prometheus's now, and a Prometheus whose clock
     * lags ours by usageMaxAgeSeconds must not make every sample stale. */
    double taken = clock_wall();
    for (size_t i = 0; rc == 0 && i < ns.t.n_buckets; i++) {
        for (const struct table_entry *e = ns.t.buckets[i]; e != NULL; e = e->next) {
            const struct pnode *p = (const struct pnode *)(const void *)e;
            bool whole = !p->twice;
            for (int r = 0; r < SCORE_NRES; r++)
                whole = whole && (!cluster_usage_reads(c, r) || p->have[r]);
            if (!whole) {
                out->missing++;
                continue;
            }
            /* A resource not asked for is 0 in the sample and never read:
             * the used source of that resource is not usage. */
            /* What an answer covers is unknown (the query's range, [2m]
             * by default, plus the scrape's lag): a placement counts in
             * flight its whole inFlightSeconds, never cut short by a
             * sample taken to include it. */
            if (kube_state_usage_put(st, p->name, p->value, taken, c->in_flight_seconds, rules) ==
                0) {
                out->stored++;
                out->newest = taken;
            }
        }
    }
    table_free_all(&ns.t, NULL);
    table_free_all(&ns.names, NULL);
    return rc;
}
