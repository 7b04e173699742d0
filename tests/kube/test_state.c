/* kube/state.c: per-node sums follow pod events exactly; usage, placements. */
#include <check.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/state.h"
#include "tests/suites.h"
#include "tests/support/skip.h"

#define GI (1024LL * 1024 * 1024)

static struct kube_state *st;

static void setup(void)
{
    st = kube_state_new();
    ck_assert_ptr_nonnull(st);
}

static void teardown(void)
{
    kube_state_free(st);
    st = NULL;
}

static void node(const char *name, int64_t cpu, int64_t mem)
{
    struct kube_node_info n = {.name = name, .alloc = {cpu, mem}};
    ck_assert_int_eq(kube_state_node_put(st, &n), 0);
}

static void pod(const char *uid, const char *node_name, int64_t cpu, int64_t cpu_nz, bool terminal,
                double now)
{
    struct kube_pod_info p = {.uid = uid,
                              .node = node_name,
                              .terminal = terminal,
                              .real = {cpu, GI},
                              .non_zero = {cpu_nz, GI}};
    ck_assert_int_eq(kube_state_pod_put(st, &p, now), 0);
}

static struct kube_node_view view(const char *name, double now)
{
    struct kube_node_view v;
    ck_assert_int_eq(kube_state_view(st, name, now, 60, &v), 0);
    return v;
}

/* The initial list: sums of assigned, non-terminal pods; nothing in flight. */
static void list_two_nodes(void)
{
    kube_state_nodes_begin(st);
    node("a", 4000, 8 * GI);
    node("b", 8000, 16 * GI);
    kube_state_nodes_end(st);
    kube_state_pods_begin(st);
    pod("p1", "a", 1000, 1000, false, 100);
    pod("p2", "a", 0, 100, false, 100);    /* no cpu request: 100m non-zero */
    pod("p3", "a", 2000, 2000, true, 100); /* Succeeded: not charged */
    pod("p4", "", 500, 500, false, 100);   /* pending */
    kube_state_pods_end(st);
}

START_TEST(state_list_sums_assigned_nonterminal_pods)
{
    list_two_nodes();
    struct kube_node_view a = view("a", 100);
    ck_assert(a.pods_synced);
    ck_assert_int_eq(a.req_real[SCORE_CPU], 1000);
    ck_assert_int_eq(a.req_non_zero[SCORE_CPU], 1100);
    ck_assert_int_eq(a.req_real[SCORE_MEMORY], 2 * GI);
    ck_assert_int_eq(a.n_pods, 2);
    ck_assert_int_eq(a.n_in_flight, 0); /* the first list is history, not placements */
    ck_assert_int_eq(view("b", 100).n_pods, 0);
    struct kube_node_view none;
    ck_assert_int_eq(kube_state_view(st, "c", 100, 60, &none), -ENOENT);
}
END_TEST

START_TEST(state_events_move_requests_exactly)
{
    list_two_nodes();
    pod("p4", "b", 500, 500, false, 200);   /* bound: b gains 500, in flight */
    pod("p1", "a", 1500, 1500, false, 200); /* resized in place: a +500 */
    pod("p2", "a", 0, 100, true, 200);      /* finished: a -100 non-zero */
    kube_state_pod_delete(st, "p3");        /* terminal, never charged */
    kube_state_pod_delete(st, "nope");      /* unknown: no effect */
    struct kube_node_view a = view("a", 200), b = view("b", 200);
    ck_assert_int_eq(a.req_real[SCORE_CPU], 1500);
    ck_assert_int_eq(a.req_non_zero[SCORE_CPU], 1500);
    ck_assert_int_eq(a.n_pods, 1);
    ck_assert_int_eq(b.req_real[SCORE_CPU], 500);
    ck_assert_int_eq(b.n_in_flight, 1);
    ck_assert_int_eq(b.in_flight[SCORE_CPU], 500);
    kube_state_pod_delete(st, "p4");
    kube_state_pod_delete(st, "p1");
    a = view("a", 200);
    b = view("b", 200);
    ck_assert_int_eq(a.req_real[SCORE_CPU], 0);
    ck_assert_int_eq(a.req_real[SCORE_MEMORY], 0);
    ck_assert_int_eq(b.req_real[SCORE_CPU], 0);
    ck_assert_int_eq(a.n_pods + b.n_pods, 0);
}
END_TEST

START_TEST(state_relist_drops_what_is_gone)
{
    list_two_nodes();
    kube_state_nodes_begin(st);
    node("a", 4000, 8 * GI);
    kube_state_nodes_end(st);
    kube_state_pods_begin(st);
    pod("p2", "a", 0, 100, false, 300);
    kube_state_pods_end(st);
    struct kube_node_view a = view("a", 300), none;
    ck_assert_int_eq(a.req_real[SCORE_CPU], 0);
    ck_assert_int_eq(a.req_non_zero[SCORE_CPU], 100);
    ck_assert_int_eq(kube_state_view(st, "b", 300, 60, &none), -ENOENT);
    size_t nodes, pods;
    kube_state_counts(st, &nodes, &pods);
    ck_assert_int_eq(nodes, 1);
    ck_assert_int_eq(pods, 1);
}
END_TEST

START_TEST(state_pod_before_node_is_kept)
{
    kube_state_pods_begin(st);
    pod("p1", "late", 700, 700, false, 10);
    kube_state_pods_end(st);
    struct kube_node_view v;
    ck_assert_int_eq(kube_state_view(st, "late", 10, 60, &v), -ENOENT);
    node("late", 2000, GI);
    v = view("late", 10);
    ck_assert_int_eq(v.req_real[SCORE_CPU], 700);
    kube_state_node_delete(st, "late");
    ck_assert_int_eq(kube_state_view(st, "late", 10, 60, &v), -ENOENT);
    kube_state_pod_delete(st, "p1");
    size_t nodes, pods;
    kube_state_counts(st, &nodes, &pods);
    ck_assert_int_eq(nodes, 0); /* nothing refers to it any more */
    ck_assert_int_eq(pods, 0);
}
END_TEST

/* The rules before usage windows: the newest sample alone. */
static const struct kube_usage_rules latest = {.min_samples = 1, .keep = 2};

START_TEST(state_in_flight_until_sample_or_expiry)
{
    list_two_nodes();
    const int64_t usage[SCORE_NRES] = {1200, 3 * GI};
    /* sample at t=1000 over 20 s: its window began at 980 */
    ck_assert_int_eq(kube_state_usage_put(st, "a", usage, 1000, 20, &latest), 0);
    pod("p9", "a", 300, 300, false, 990); /* placed inside the window: not fully in it */
    pod("p8", "a", 200, 200, false, 970); /* placed before the window: in the sample */
    struct kube_node_view a = view("a", 1005);
    ck_assert(a.has_usage);
    ck_assert_int_eq(a.usage[SCORE_CPU], 1200);
    ck_assert(a.usage_age > 4.9 && a.usage_age < 5.1);
    ck_assert_int_eq(a.n_in_flight, 1);
    ck_assert_int_eq(a.in_flight[SCORE_CPU], 300);
    /* a newer sample whose window starts after the placement includes it */
    ck_assert_int_eq(kube_state_usage_put(st, "a", usage, 1005, 20, &latest), 0);
    ck_assert_int_eq(view("a", 1006).n_in_flight, 1); /* window began 985: still out */
    ck_assert_int_eq(kube_state_usage_put(st, "a", usage, 1030, 20, &latest), 0);
    ck_assert_int_eq(view("a", 1031).n_in_flight, 0); /* window began 1010 */
    /* without new samples, placements expire after in_flight_seconds */
    pod("p7", "b", 400, 400, false, 2000);
    struct kube_node_view b;
    ck_assert_int_eq(kube_state_view(st, "b", 2059, 60, &b), 0);
    ck_assert_int_eq(b.in_flight[SCORE_CPU], 400);
    ck_assert_int_eq(kube_state_view(st, "b", 2060, 60, &b), 0);
    ck_assert_int_eq(b.n_in_flight, 0);
}
END_TEST

/* A window of 60 s at p90 over samples every 15 s: the same sample read
 * twice counts once, one out of order not at all, usage is stale (absent)
 * until min_samples, older samples leave the window, and a smaller keep
 * (a reload) keeps the newest. */
START_TEST(state_usage_window)
{
    const struct kube_usage_rules p90 = {.window_seconds = 60,
                                         .agg = {SCORE_AGG_P90, SCORE_AGG_MAX},
                                         .min_samples = 3,
                                         .keep = kube_usage_keep(60, 15)};
    list_two_nodes();
    ck_assert_uint_eq(p90.keep, 6);
    const int64_t cpu[] = {100, 900, 500, 300, 700};
    for (int i = 0; i < 5; i++) {
        const int64_t u[SCORE_NRES] = {cpu[i], (i + 1) * GI};
        ck_assert_int_eq(kube_state_usage_put(st, "a", u, 1000 + 15 * i, 15, &p90), 0);
        if (i == 1) {
            ck_assert_int_eq(kube_state_usage_put(st, "a", u, 1015, 15, &p90), 0); /* again */
            ck_assert_int_eq(kube_state_usage_put(st, "a", u, 1001, 15, &p90), 0); /* late */
            struct kube_node_view v = view("a", 1016);
            ck_assert(!v.has_usage); /* 2 of 3 samples */
            ck_assert_uint_eq(v.usage_samples, 2);
        }
    }
    /* window (1000, 1060]: 900 500 300 700 -> p90 = 700 + (900 - 700) x 0.7 = 840 */
    struct kube_node_view v = view("a", 1061);
    ck_assert(v.has_usage);
    ck_assert_uint_eq(v.usage_samples, 4);
    ck_assert_int_eq(v.usage[SCORE_CPU], 840);
    ck_assert_int_eq(v.usage[SCORE_MEMORY], 5 * GI);
    ck_assert(v.usage_age > 0.9 && v.usage_age < 1.1); /* from the newest sample */
    ck_assert_int_eq(v.usage_newest[SCORE_CPU], 700);  /* what /debug shows beside 840 */
    ck_assert_int_eq(v.usage_newest[SCORE_MEMORY], 5 * GI);
    /* a reload to the newest sample alone keeps 2 */
    const int64_t u[SCORE_NRES] = {50, GI};
    ck_assert_int_eq(kube_state_usage_put(st, "a", u, 1075, 15, &latest), 0);
    v = view("a", 1076);
    ck_assert_uint_eq(v.usage_samples, 1);
    ck_assert_int_eq(v.usage[SCORE_CPU], 50);
    /* a node that goes forgets its history */
    kube_state_node_delete(st, "a");
    ck_assert_int_eq(kube_state_usage_put(st, "a", u, 1090, 15, &latest), -ENOENT);
}
END_TEST

START_TEST(state_burst_of_placements_all_count)
{
    char uid[32];
    list_two_nodes();
    for (int i = 0; i < 200; i++) {
        snprintf(uid, sizeof(uid), "burst-%d", i);
        pod(uid, "b", 10, 10, false, 1000 + i * 0.1);
    }
    struct kube_node_view b = view("b", 1030);
    ck_assert_int_eq(b.n_in_flight, 200);
    ck_assert_int_eq(b.in_flight[SCORE_CPU], 2000);
    /* an hour later the old ones are forgotten at the next placement */
    pod("late", "b", 10, 10, false, 1000 + KUBE_PLACEMENT_KEEP_SECONDS + 100);
    b = view("b", 1000 + KUBE_PLACEMENT_KEEP_SECONDS + 101);
    ck_assert_int_eq(b.n_in_flight, 1);
}
END_TEST

START_TEST(state_our_bind_counts_once)
{
    list_two_nodes();
    ck_assert_int_eq(kube_state_placed(st, "b", "p4", 500), 0); /* p4 is pending, 500m */
    ck_assert_int_eq(kube_state_placed(st, "b", "ghost", 500), -ENOENT);
    struct kube_node_view b = view("b", 501);
    ck_assert_int_eq(b.in_flight[SCORE_CPU], 500);
    ck_assert_int_eq(b.req_real[SCORE_CPU], 0); /* not charged until the watch says so */
    pod("p4", "b", 500, 500, false, 502);       /* the watch confirms */
    b = view("b", 503);
    ck_assert_int_eq(b.n_in_flight, 1);
    ck_assert_int_eq(b.req_real[SCORE_CPU], 500);
}
END_TEST

/* A pod known with an in-flight estimate (inFlightEstimate limits or
 * factor) counts the estimate when placed, by our bind as by the watch;
 * its requests stay what the node is charged. */
START_TEST(state_in_flight_counts_the_estimate)
{
    list_two_nodes();
    struct kube_pod_info p = {.uid = "est",
                              .node = "",
                              .real = {500, GI},
                              .non_zero = {500, GI},
                              .estimated = true,
                              .estimate = {1200, 2 * GI}};
    ck_assert_int_eq(kube_state_pod_put(st, &p, 500), 0);
    ck_assert_int_eq(kube_state_placed(st, "b", "est", 500), 0);
    struct kube_node_view b = view("b", 501);
    ck_assert_int_eq(b.in_flight[SCORE_CPU], 1200);
    ck_assert_int_eq(b.in_flight[SCORE_MEMORY], 2 * GI);
    /* the watch: assigned to a now, a placement of its own on a */
    p.node = "a";
    ck_assert_int_eq(kube_state_pod_put(st, &p, 502), 0);
    struct kube_node_view a = view("a", 503);
    ck_assert_int_eq(a.in_flight[SCORE_CPU], 1200);
    ck_assert_int_eq(a.req_real[SCORE_CPU], 1000 + 500);
}
END_TEST

/* The heap the usage histories of @n nodes take under @rules: the
 * difference mallinfo2 sees once each node has had two samples (the
 * history is allocated at its full keep with the first). */
static size_t window_heap(size_t n, const struct kube_usage_rules *rules)
{
    char name[32];
    kube_state_nodes_begin(st);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "node-%05zu", i);
        node(name, 4000, 8 * GI);
    }
    kube_state_nodes_end(st);
    size_t before = mallinfo2().uordblks;
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "node-%05zu", i);
        const int64_t u[SCORE_NRES] = {(int64_t)i, GI};
        ck_assert_int_eq(kube_state_usage_put(st, name, u, 1000, 15, rules), 0);
        ck_assert_int_eq(kube_state_usage_put(st, name, u, 1015, 15, rules), 0);
    }
    return mallinfo2().uordblks - before;
}

/* What the usage window costs for 5000 nodes, measured on the heap (the
 * figures docs/configuration.md gives): at the most a node keeps (256
 * samples) and at the default (usageWindowSeconds 0: 2 samples). */
START_TEST(state_usage_window_memory_for_5000_nodes)
{
#if defined(__SANITIZE_ADDRESS__)
    /* ASan's allocator is not glibc's: mallinfo2 does not see it. */
    test_skip_unsupported("under ASan (the heap is measured on the release build)");
    return;
#endif
    const struct kube_usage_rules most = {.window_seconds = 3600,
                                          .agg = {SCORE_AGG_P90, SCORE_AGG_P90},
                                          .min_samples = 1,
                                          .keep = SCORE_USAGE_MAX_SAMPLES};
    const struct kube_usage_rules dflt = {.min_samples = 1, .keep = kube_usage_keep(0, 15)};
    size_t at_most = window_heap(5000, &most);
    kube_state_free(st);
    st = kube_state_new();
    size_t at_default = window_heap(5000, &dflt);
    fprintf(stderr, "usage window heap, 5000 nodes: %zu bytes at keep 256, %zu at keep %zu\n",
            at_most, at_default, dflt.keep);
    /* 24 bytes a sample and malloc's 16-byte header, rounded to 16 */
    ck_assert_uint_le(at_most, 5000 * (256 * 24 + 16));
    ck_assert_uint_ge(at_most, 5000 * 256 * 24);
    ck_assert_uint_le(at_default, 5000 * 64);
}
END_TEST

START_TEST(state_pod_request_only_on_its_node)
{
    list_two_nodes();
    int64_t real[SCORE_NRES], nz[SCORE_NRES];
    ck_assert_int_eq(kube_state_pod_request(st, "p2", "a", real, nz), 0);
    ck_assert_int_eq(real[SCORE_CPU], 0);
    ck_assert_int_eq(nz[SCORE_CPU], 100);
    ck_assert_int_eq(kube_state_pod_request(st, "p2", "b", real, nz), -ENOENT);
    ck_assert_int_eq(kube_state_pod_request(st, "p3", "a", real, nz), -ENOENT); /* terminal */
}
END_TEST

/* A binding is the first event with a node name: pending, unknown and
 * deleted pods are not assigned; terminal ones that had a node are. */
START_TEST(state_pod_is_assigned_from_its_first_node_name)
{
    node("a", 4000, 8 * GI);
    ck_assert(!kube_state_pod_is_assigned(st, "p"));
    pod("p", "", 100, 100, false, 1);
    ck_assert(!kube_state_pod_is_assigned(st, "p"));
    pod("p", "a", 100, 100, false, 2);
    ck_assert(kube_state_pod_is_assigned(st, "p"));
    pod("p", "a", 100, 100, true, 3); /* Succeeded: uncharged, still bound */
    ck_assert(kube_state_pod_is_assigned(st, "p"));
    kube_state_pod_delete(st, "p");
    ck_assert(!kube_state_pod_is_assigned(st, "p"));
    pod("q", "elsewhere", 100, 100, false, 4); /* a node with no Node object yet */
    ck_assert(kube_state_pod_is_assigned(st, "q"));
}
END_TEST

START_TEST(state_requests_age_while_watch_broken)
{
    list_two_nodes();
    kube_state_pods_health(st, false, 1000);
    kube_state_pods_health(st, false, 1100); /* still broken since 1000 */
    ck_assert(view("a", 1400).requests_age > 399.9);
    kube_state_pods_health(st, true, 1500);
    ck_assert(view("a", 1600).requests_age == 0);
}
END_TEST

START_TEST(state_many_pods_grow_the_table)
{
    char uid[32];
    node("a", 1000000, GI);
    for (int i = 0; i < 5000; i++) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        pod(uid, "a", 10, 10, false, 1);
    }
    ck_assert_int_eq(view("a", 1).req_real[SCORE_CPU], 50000);
    for (int i = 0; i < 5000; i += 2) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        kube_state_pod_delete(st, uid);
    }
    ck_assert_int_eq(view("a", 1).req_real[SCORE_CPU], 25000);
    ck_assert_int_eq(view("a", 1).n_pods, 2500);
}
END_TEST

/* A reference model: what each pod is, recomputed from scratch. */
struct model_pod {
    int node; /* -1 pending */
    bool terminal;
    bool live;
    int64_t cpu, cpu_nz;
};

/* Random puts, moves, phase changes, deletes and relists against the
 * incremental sums: after every step each node's sums equal the sums over
 * the model's charged pods, exactly. */
START_TEST(state_random_events_match_reference_model)
{
    enum { NODES = 5, PODS = 60, STEPS = 20000 };
    static const char *const names[NODES] = {"n0", "n1", "n2", "n3", "n4"};
    struct model_pod m[PODS] = {{0}};
    unsigned seed = 12345;
    char uid[16];

    kube_state_nodes_begin(st);
    for (int n = 0; n < NODES; n++)
        node(names[n], 64000, 64 * GI);
    kube_state_nodes_end(st);
    kube_state_pods_begin(st);
    kube_state_pods_end(st);
    for (int step = 0; step < STEPS; step++) {
        int i = rand_r(&seed) % PODS, op = rand_r(&seed) % 10;
        snprintf(uid, sizeof(uid), "p%d", i);
        if (op < 6) { /* add or update, maybe moving node or phase */
            m[i].live = true;
            m[i].node = rand_r(&seed) % (NODES + 1) - 1;
            m[i].terminal = rand_r(&seed) % 5 == 0;
            m[i].cpu = rand_r(&seed) % 3 == 0 ? 0 : rand_r(&seed) % 4000;
            m[i].cpu_nz = m[i].cpu == 0 ? 100 : m[i].cpu;
            pod(uid, m[i].node < 0 ? "" : names[m[i].node], m[i].cpu, m[i].cpu_nz, m[i].terminal,
                step);
        } else if (op < 9) {
            m[i].live = false;
            kube_state_pod_delete(st, uid);
        } else { /* a relist of the live pods */
            kube_state_pods_begin(st);
            for (int k = 0; k < PODS; k++) {
                if (!m[k].live)
                    continue;
                snprintf(uid, sizeof(uid), "p%d", k);
                pod(uid, m[k].node < 0 ? "" : names[m[k].node], m[k].cpu, m[k].cpu_nz,
                    m[k].terminal, step);
            }
            kube_state_pods_end(st);
        }
        for (int n = 0; n < NODES; n++) {
            int64_t cpu = 0, nz = 0, mem = 0;
            size_t count = 0;
            for (int k = 0; k < PODS; k++) {
                if (m[k].live && m[k].node == n && !m[k].terminal) {
                    cpu += m[k].cpu;
                    nz += m[k].cpu_nz;
                    mem += GI;
                    count++;
                }
            }
            struct kube_node_view v = view(names[n], step);
            ck_assert_msg(v.req_real[SCORE_CPU] == cpu && v.req_non_zero[SCORE_CPU] == nz &&
                              v.req_real[SCORE_MEMORY] == mem && v.n_pods == count,
                          "step %d node %s: %lld/%lld/%zu, model %lld/%lld/%zu", step, names[n],
                          (long long)v.req_real[SCORE_CPU], (long long)v.req_non_zero[SCORE_CPU],
                          v.n_pods, (long long)cpu, (long long)nz, count);
        }
    }
}
END_TEST

/* Many names under one lock per batch: the same views as one by one, in
 * order, unknown names marked, across batch boundaries. */
START_TEST(state_view_many_matches_single_views)
{
    enum { N = 3 * KUBE_VIEW_BATCH + 5 };
    static char names[N][24];
    static const char *list[N];
    static struct kube_node_view views[N];
    static bool found[N];
    kube_state_nodes_begin(st);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "n%d", i);
        list[i] = names[i];
        if (i % 7 != 3)
            node(names[i], 1000 + i, GI);
    }
    kube_state_nodes_end(st);
    for (int i = 0; i < N; i += 2)
        pod(names[i], names[i], 10 * i, 10 * i, false, 100);
    kube_state_view_list(st, list, N, 0, 0, 100, 60, views, found);
    for (int i = 0; i < N; i++) {
        struct kube_node_view one;
        int rc = kube_state_view(st, names[i], 100, 60, &one);
        ck_assert_int_eq(found[i], rc == 0);
        ck_assert_int_eq(found[i], i % 7 != 3);
        if (!found[i])
            continue;
        ck_assert_int_eq(views[i].alloc[SCORE_CPU], 1000 + i);
        ck_assert_int_eq(views[i].req_real[SCORE_CPU], one.req_real[SCORE_CPU]);
        ck_assert_int_eq(views[i].n_pods, one.n_pods);
        ck_assert_ptr_eq(views[i].invalid, one.invalid);
    }
}
END_TEST

/* The names of a list of @n as kube_state_view_list() sees them, in two
 * calls (positions [0, n / 2) and [n / 2, n)), each view's CPU allocatable
 * in @cpu (-1 for a name the state does not know): what a request thread
 * remembered must never answer for a list, a node or a state that moved. */
static void list_cpus(struct kube_state *s, const char *const *names, size_t n, int64_t *cpu)
{
    struct kube_node_view v[16];
    bool found[16];
    ck_assert_uint_le(n, 16);
    kube_state_view_list(s, names, n / 2, 0, n, 100, 60, v, found);
    kube_state_view_list(s, names + n / 2, n - n / 2, n / 2, n, 100, 60, v + n / 2, found + n / 2);
    for (size_t i = 0; i < n; i++)
        cpu[i] = found[i] ? v[i].alloc[SCORE_CPU] : -1;
}

START_TEST(state_view_list_memo_is_never_stale)
{
    static const char *const list[] = {"m0", "m1", "m2", "m3", "m4", "m5"};
    static const char *const reversed[] = {"m5", "m4", "m3", "m2", "m1", "m0"};
    static const char *const other[] = {"m0", "m1", "x", "m3", "m9", "m5"};
    int64_t cpu[6];
    kube_state_nodes_begin(st);
    for (int i = 0; i < 6; i++)
        node(list[i], 1000 + i, GI);
    kube_state_nodes_end(st);
    list_cpus(st, list, 6, cpu);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(cpu[i], 1000 + i);

    /* The same list again, then reordered, then other names at the same
     * positions: each name gets its own node. */
    list_cpus(st, list, 6, cpu);
    ck_assert_int_eq(cpu[2], 1002);
    list_cpus(st, reversed, 6, cpu);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(cpu[i], 1005 - i);
    list_cpus(st, other, 6, cpu);
    ck_assert_int_eq(cpu[2], -1);
    ck_assert_int_eq(cpu[4], -1);
    ck_assert_int_eq(cpu[5], 1005);

    /* A changed node is read as it is now, pods included. */
    list_cpus(st, list, 6, cpu);
    node("m3", 3333, GI);
    pod("p1", "m1", 250, 250, false, 100);
    struct kube_node_view v[6];
    bool found[6];
    kube_state_view_list(st, list, 6, 0, 6, 100, 60, v, found);
    ck_assert_int_eq(v[3].alloc[SCORE_CPU], 3333);
    ck_assert_int_eq(v[1].req_real[SCORE_CPU], 250);

    /* Removed, between the two halves of one list and before it; then
     * put again (its entry may be a new one at the old address). */
    kube_state_view_list(st, list, 3, 0, 6, 100, 60, v, found);
    kube_state_node_delete(st, "m4");
    kube_state_node_delete(st, "m0");
    kube_state_view_list(st, list + 3, 3, 3, 6, 100, 60, v + 3, found + 3);
    ck_assert(!found[4]);
    list_cpus(st, list, 6, cpu);
    ck_assert_int_eq(cpu[0], -1);
    ck_assert_int_eq(cpu[4], -1);
    node("m4", 4444, GI);
    list_cpus(st, list, 6, cpu);
    ck_assert_int_eq(cpu[4], 4444);
    ck_assert_int_eq(cpu[0], -1);

    /* Added: a name unknown the last time is known now. */
    node("m9", 9999, GI);
    list_cpus(st, other, 6, cpu);
    ck_assert_int_eq(cpu[4], 9999);

    /* Gone from a relist while only a pod keeps its entry: not a node. */
    kube_state_nodes_begin(st);
    for (int i = 2; i < 6; i++)
        node(list[i], 1000 + i, GI);
    kube_state_nodes_end(st);
    list_cpus(st, list, 6, cpu);
    ck_assert_int_eq(cpu[1], -1);
    ck_assert_int_eq(cpu[2], 1002);
}
END_TEST

/* What one state's lists resolved to is never used in another, a new state
 * at a freed one's address included. */
START_TEST(state_view_list_memo_is_per_state)
{
    static const char *const list[] = {"s0", "s1", "s2", "s3"};
    int64_t cpu[4];
    struct kube_state *other = kube_state_new();
    ck_assert_ptr_nonnull(other);
    for (int i = 0; i < 4; i++) {
        node(list[i], 100 + i, GI);
        struct kube_node_info n = {.name = list[i], .alloc = {200 + i, GI}};
        ck_assert_int_eq(kube_state_node_put(other, &n), 0);
    }
    for (int round = 0; round < 3; round++) {
        list_cpus(st, list, 4, cpu);
        ck_assert_int_eq(cpu[3], 103);
        list_cpus(other, list, 4, cpu);
        ck_assert_int_eq(cpu[3], 203);
        kube_state_free(other);
        other = kube_state_new();
        ck_assert_ptr_nonnull(other);
        for (int i = 0; i < 4; i++) {
            struct kube_node_info n = {.name = list[i], .alloc = {200 + i, GI}};
            ck_assert_int_eq(kube_state_node_put(other, &n), 0);
        }
    }
    kube_state_free(other);
}
END_TEST

/* An invalid node's reason is the static text it was put with. */
START_TEST(state_keeps_the_static_invalid_text)
{
    static const char reason[] = "invalid allocatable cpu";
    struct kube_node_info n = {.name = "bad", .invalid = reason};
    ck_assert_int_eq(kube_state_node_put(st, &n), 0);
    ck_assert_ptr_eq(view("bad", 1).invalid, reason);
    node("bad", 1000, GI); /* fixed */
    ck_assert_ptr_null(view("bad", 1).invalid);
}
END_TEST

struct reader {
    struct kube_state *st;
    const char **names;
    size_t n;
    volatile int stop;
};

static void *read_all_the_time(void *arg)
{
    struct reader *r = arg;
    struct kube_node_view *v = malloc(r->n * sizeof(*v));
    bool *found = malloc(r->n);
    while (!r->stop)
        kube_state_view_list(r->st, r->names, r->n, 0, 0, 1, 60, v, found);
    free(v);
    free(found);
    return NULL;
}

/* Two threads reading 5000 names back to back do not keep the writer out:
 * readers let go every KUBE_VIEW_BATCH names (and the lock prefers
 * writers, which this test alone cannot tell apart on two cores). Each put
 * must get in within 50 ms (microseconds on an idle machine; the bound
 * leaves room for a loaded CI machine). */
START_TEST(state_writer_gets_in_between_readers)
{
    enum { N = 5000 };
    static char names[N][24]; /* room for any int: -O0 cannot see i < N */
    static const char *list[N];
    kube_state_nodes_begin(st);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "node-%05d", i);
        list[i] = names[i];
        node(names[i], 4000, 8 * GI);
    }
    kube_state_nodes_end(st);
    struct reader r = {st, list, N, 0};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, read_all_the_time, &r), 0);
    double worst = 0;
    for (int i = 0; i < 200; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        node(names[i], 4000 + i, 8 * GI);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        worst = ms > worst ? ms : worst;
    }
    r.stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ck_assert_msg(worst < 50, "a put waited %.1f ms", worst);
}
END_TEST

Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("state");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, state_list_sums_assigned_nonterminal_pods);
    tcase_add_test(tc, state_events_move_requests_exactly);
    tcase_add_test(tc, state_relist_drops_what_is_gone);
    tcase_add_test(tc, state_pod_before_node_is_kept);
    tcase_add_test(tc, state_in_flight_until_sample_or_expiry);
    tcase_add_test(tc, state_usage_window);
    tcase_add_test(tc, state_burst_of_placements_all_count);
    tcase_add_test(tc, state_our_bind_counts_once);
    tcase_add_test(tc, state_in_flight_counts_the_estimate);
    tcase_add_test(tc, state_usage_window_memory_for_5000_nodes);
    tcase_add_test(tc, state_pod_request_only_on_its_node);
    tcase_add_test(tc, state_pod_is_assigned_from_its_first_node_name);
    tcase_add_test(tc, state_requests_age_while_watch_broken);
    tcase_add_test(tc, state_many_pods_grow_the_table);
    tcase_add_test(tc, state_random_events_match_reference_model);
    tcase_add_test(tc, state_view_many_matches_single_views);
    tcase_add_test(tc, state_view_list_memo_is_never_stale);
    tcase_add_test(tc, state_view_list_memo_is_per_state);
    tcase_add_test(tc, state_keeps_the_static_invalid_text);
    tcase_add_test(tc, state_writer_gets_in_between_readers);
    suite_add_tcase(s, tc);
    return s;
}
