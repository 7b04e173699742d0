/*
 * kube/informer.c against the fake API server: the callbacks' view of the
 * pods (a small map kept here, as the cluster state keeps its own) must
 * end equal to the fake's store through paging, watch cuts, compaction,
 * 5xx bursts and bookmarks, with every watch event delivered once and no
 * relist where a resume is enough.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "kube/client.h"
#include "kube/informer.h"
#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/test_certs.h"

#define TOKEN    "informer-token"
#define VIEW_MAX 512
#define RV_MAX   4096

struct entry {
    bool used;
    bool seen; /* delivered since the last on_list_begin */
    char key[160];
    char rv[32];
};

/* What the callbacks saw; @lock guards it (they run on the informer's
 * thread, the test reads from its own). */
struct view {
    pthread_mutex_t lock;
    struct entry e[VIEW_MAX];
    bool in_list;
    unsigned list_begins, list_ends;
    unsigned rv_count[RV_MAX]; /* watch events (not list items) per resourceVersion */
    unsigned bad_rv;           /* events without a usable resourceVersion */
    unsigned health_ok, health_bad;
    bool last_ok;
    char last_bad[512];
};

static struct view view;
static struct test_pki pki;
static struct fake_apiserver *fake;
static struct kube_client *client;
static struct kube_informer *inf;

static struct entry *view_find(const char *key)
{
    for (size_t i = 0; i < VIEW_MAX; i++)
        if (view.e[i].used && strcmp(view.e[i].key, key) == 0)
            return &view.e[i];
    return NULL;
}

static void on_list_begin(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&view.lock);
    view.in_list = true;
    view.list_begins++;
    for (size_t i = 0; i < VIEW_MAX; i++)
        view.e[i].seen = false;
    pthread_mutex_unlock(&view.lock);
}

/* Objects not delivered by the list are gone (deleted while no watch ran). */
static void on_list_end(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&view.lock);
    view.in_list = false;
    view.list_ends++;
    for (size_t i = 0; i < VIEW_MAX; i++)
        if (!view.e[i].seen)
            view.e[i].used = false;
    pthread_mutex_unlock(&view.lock);
}

static void on_object(void *ctx, enum kube_event ev, const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    char key[160];
    (void)ctx;

    pthread_mutex_lock(&view.lock);
    if (!cJSON_IsString(ns) || !cJSON_IsString(name) || !cJSON_IsString(rv)) {
        view.bad_rv++;
        goto out_unlock;
    }
    snprintf(key, sizeof(key), "%s/%s", ns->valuestring, name->valuestring);
    if (!view.in_list) {
        unsigned long n = strtoul(rv->valuestring, NULL, 10);
        if (n == 0 || n >= RV_MAX)
            view.bad_rv++;
        else
            view.rv_count[n]++;
    }
    struct entry *e = view_find(key);
    if (ev == KUBE_DELETED) {
        if (e != NULL)
            e->used = false;
        goto out_unlock;
    }
    for (size_t i = 0; i < VIEW_MAX && e == NULL; i++)
        if (!view.e[i].used)
            e = &view.e[i];
    if (e == NULL) {
        view.bad_rv++; /* full: the comparison will fail */
        goto out_unlock;
    }
    e->used = true;
    e->seen = true;
    snprintf(e->key, sizeof(e->key), "%s", key);
    snprintf(e->rv, sizeof(e->rv), "%s", rv->valuestring);

out_unlock:
    pthread_mutex_unlock(&view.lock);
}

static void on_health(void *ctx, bool ok, const char *why)
{
    (void)ctx;
    pthread_mutex_lock(&view.lock);
    view.last_ok = ok;
    if (ok) {
        view.health_ok++;
    } else {
        view.health_bad++;
        snprintf(view.last_bad, sizeof(view.last_bad), "%s", why);
    }
    pthread_mutex_unlock(&view.lock);
}

static bool is_last_ok(void)
{
    pthread_mutex_lock(&view.lock);
    bool ok = view.last_ok;
    pthread_mutex_unlock(&view.lock);
    return ok;
}

/* True when the view holds exactly the fake's pods, each at its version. */
static bool is_view_synced(void)
{
    char *dump = fake_dump(fake, FAKE_POD);
    cJSON *all = cJSON_Parse(dump);
    const cJSON *item;
    bool same = all != NULL;
    int n = 0;

    free(dump);
    pthread_mutex_lock(&view.lock);
    cJSON_ArrayForEach(item, all)
    {
        const cJSON *meta = cJSON_GetObjectItem(item, "metadata");
        char key[160];
        snprintf(key, sizeof(key), "%s/%s", cJSON_GetObjectItem(meta, "namespace")->valuestring,
                 cJSON_GetObjectItem(meta, "name")->valuestring);
        const struct entry *e = view_find(key);
        if (e == NULL ||
            strcmp(e->rv, cJSON_GetObjectItem(meta, "resourceVersion")->valuestring) != 0)
            same = false;
        n++;
    }
    for (size_t i = 0; i < VIEW_MAX; i++)
        n -= view.e[i].used ? 1 : 0;
    same = same && n == 0 && !view.in_list;
    pthread_mutex_unlock(&view.lock);
    cJSON_Delete(all);
    return same;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Polls @cond every 20 ms for up to 10 s. */
#define WAIT_UNTIL(cond, what)                                                                     \
    do {                                                                                           \
        double until_ = now_s() + 10;                                                              \
        while (!(cond) && now_s() < until_)                                                        \
            usleep(20 * 1000);                                                                     \
        ck_assert_msg((cond), "timed out waiting: %s", (what));                                    \
    } while (0)

static struct fake_counts counts(void)
{
    struct fake_counts n;
    fake_counts(fake, &n);
    return n;
}

static unsigned rv_count(uint64_t rv)
{
    ck_assert_uint_lt(rv, RV_MAX);
    pthread_mutex_lock(&view.lock);
    unsigned n = view.rv_count[rv];
    pthread_mutex_unlock(&view.lock);
    return n;
}

/* Every watch event was delivered at most once. */
static void assert_no_event_twice(void)
{
    pthread_mutex_lock(&view.lock);
    for (unsigned i = 0; i < RV_MAX; i++)
        ck_assert_msg(view.rv_count[i] <= 1, "resourceVersion %u delivered %u times", i,
                      view.rv_count[i]);
    ck_assert_uint_eq(view.bad_rv, 0);
    pthread_mutex_unlock(&view.lock);
}

static uint64_t put_pod(const char *ns, const char *name, const char *node)
{
    char json[256];
    uint64_t rv = 0;
    snprintf(json, sizeof(json),
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},\"spec\":{\"nodeName\":\"%s\"}}",
             name, ns, node);
    ck_assert_int_eq(fake_put(fake, FAKE_POD, json, &rv), 0);
    return rv;
}

static uint64_t delete_pod(const char *ns, const char *name)
{
    uint64_t rv = 0;
    ck_assert_int_eq(fake_delete(fake, FAKE_POD, ns, name, &rv), 0);
    return rv;
}

static void start_informer_paged(int page_limit, int backoff_max_ms)
{
    char err[ERR_LEN] = "";
    const struct kube_informer_params p = {
        .name = "pods",
        .path = "/api/v1/pods",
        .page_limit = page_limit,
        .watch_seconds = 60,
        .request_timeout = 5,
        .backoff_initial_ms = 50,
        .backoff_max_ms = backoff_max_ms,
    };
    const struct kube_informer_ops ops = {
        .on_list_begin = on_list_begin,
        .on_list_end = on_list_end,
        .on_object = on_object,
        .on_health = on_health,
    };
    ck_assert_msg(kube_informer_start(client, &p, &ops, NULL, &inf, err) == 0, "%s", err);
}

static void start_informer(int backoff_max_ms)
{
    start_informer_paged(2, backoff_max_ms);
}

/* Started, listed, converged and watching. */
static void start_and_sync(void)
{
    start_informer(400);
    WAIT_UNTIL(is_view_synced(), "the first list");
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 1, 10000), 0);
}

static void setup(void)
{
    char cert[128], key[128], ca[128], err[ERR_LEN] = "";
    struct kube_target t;

    memset(&view, 0, sizeof(view));
    pthread_mutex_init(&view.lock, NULL);
    ck_assert_int_eq(kube_global_init(), 0);
    test_pki_make(&pki);
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
        .key_file = test_pki_path(&pki, "server.key", key, sizeof(key)),
        .token = TOKEN,
    };
    ck_assert_int_eq(fake_start(&p, &fake), 0);
    memset(&t, 0, sizeof(t));
    snprintf(t.server, sizeof(t.server), "https://127.0.0.1:%d", fake_port(fake));
    snprintf(t.ca_file, sizeof(t.ca_file), "%s", test_pki_path(&pki, "ca.pem", ca, sizeof(ca)));
    t.token = strdup(TOKEN);
    ck_assert_msg(kube_client_new(&t, &client, err) == 0, "%s", err);
    kube_target_destroy(&t);
}

static void teardown(void)
{
    kube_informer_stop(inf);
    inf = NULL;
    kube_client_free(client);
    client = NULL;
    fake_stop(fake);
    fake = NULL;
    test_pki_remove(&pki);
    kube_global_cleanup();
    pthread_mutex_destroy(&view.lock);
}

START_TEST(informer_converges_on_scripted_changes)
{
    uint64_t rvs[64];
    size_t n_rvs = 0;
    char name[32];

    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        put_pod(i % 2 ? "a" : "b", name, "");
    }
    start_and_sync();
    struct fake_counts c = counts();
    ck_assert_uint_eq(c.lists[FAKE_POD], 1);
    ck_assert_uint_eq(c.list_pages[FAKE_POD], 3); /* 5 pods, 2 a page */
    pthread_mutex_lock(&view.lock);
    ck_assert_uint_eq(view.list_begins, 1);
    ck_assert_uint_eq(view.list_ends, 1);
    pthread_mutex_unlock(&view.lock);

    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof(name), "q%d", i);
        rvs[n_rvs++] = put_pod("a", name, "");
        if (i % 3 == 0)
            rvs[n_rvs++] = put_pod("a", name, "n1"); /* MODIFIED */
        if (i % 4 == 1)
            rvs[n_rvs++] = delete_pod("a", name);
        if (i % 5 == 2)
            ck_assert_int_eq(fake_put(fake, FAKE_NODE, "{\"metadata\":{\"name\":\"n1\"}}", NULL),
                             0);
    }
    rvs[n_rvs++] = delete_pod("b", "p0");
    rvs[n_rvs++] = put_pod("a", "p1", "n2");
    WAIT_UNTIL(is_view_synced() && rv_count(rvs[n_rvs - 1]) > 0, "the scripted changes");
    for (size_t i = 0; i < n_rvs; i++)
        ck_assert_msg(rv_count(rvs[i]) == 1, "event %llu delivered %u times",
                      (unsigned long long)rvs[i], rv_count(rvs[i]));
    assert_no_event_twice();
    c = counts();
    ck_assert_uint_eq(c.lists[FAKE_POD], 1);
    ck_assert_uint_eq(c.watches[FAKE_POD], 1);
}
END_TEST

START_TEST(informer_resumes_a_cut_watch_without_loss_or_relist)
{
    uint64_t rvs[8];
    put_pod("a", "p1", "");
    put_pod("a", "p2", "");
    start_and_sync();
    struct fake_counts before = counts();
    uint64_t resume_at = fake_rv(fake);

    fake_drop_watches(fake, FAKE_DROP_MID_LINE);
    rvs[0] = put_pod("a", "p3", ""); /* goes out half, then the connection */
    rvs[1] = put_pod("a", "p4", "");
    rvs[2] = put_pod("a", "p3", "n1");
    rvs[3] = delete_pod("a", "p1");
    WAIT_UNTIL(is_view_synced() && rv_count(rvs[3]) > 0, "the resumed watch");
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(rv_count(rvs[i]) == 1, "event %llu delivered %u times",
                      (unsigned long long)rvs[i], rv_count(rvs[i]));
    assert_no_event_twice();

    struct fake_counts after = counts();
    ck_assert_uint_eq(after.lists[FAKE_POD], before.lists[FAKE_POD]); /* no relist */
    ck_assert_uint_eq(after.watches[FAKE_POD], before.watches[FAKE_POD] + 1);
    ck_assert_uint_eq(after.last_watch_rv[FAKE_POD], resume_at); /* the last whole event */
    pthread_mutex_lock(&view.lock);
    ck_assert_uint_ge(view.health_bad, 1); /* the cut was a failure, reported */
    pthread_mutex_unlock(&view.lock);
}
END_TEST

/* @_i is the fake's enum fake_gone: the 410 as an ERROR event or as HTTP. */
START_TEST(informer_relists_after_compaction_and_prunes)
{
    fake_set_gone_mode(fake, (enum fake_gone)_i);
    put_pod("a", "keep", "");
    put_pod("a", "gone", "");
    put_pod("b", "changed", "");
    start_and_sync();
    struct fake_counts before = counts();

    /* Hold the reconnects back (503) until the gap is compacted. */
    fake_fail_next(fake, 1000, 503);
    fake_drop_watches(fake, FAKE_DROP_CLOSE);
    WAIT_UNTIL(counts().injected >= 1, "a reconnect attempt");
    uint64_t deleted = delete_pod("a", "gone");
    put_pod("b", "changed", "n1");
    put_pod("b", "new", "");
    fake_compact(fake);
    fake_fail_next(fake, 0, 503);

    WAIT_UNTIL(is_view_synced(), "the relist");
    struct fake_counts after = counts();
    ck_assert_uint_eq(after.lists[FAKE_POD], before.lists[FAKE_POD] + 1);
    ck_assert_uint_eq(rv_count(deleted), 0); /* known gone from the list, not an event */
    pthread_mutex_lock(&view.lock);
    ck_assert_uint_eq(view.list_ends, 2);
    ck_assert_ptr_null(view_find("a/gone"));
    pthread_mutex_unlock(&view.lock);
    /* the list's end is delivered before the health it restores */
    WAIT_UNTIL(is_last_ok(), "the relist reported healthy");
    assert_no_event_twice();

    /* and it watches again from the new list */
    uint64_t rv = put_pod("a", "later", "");
    WAIT_UNTIL(is_view_synced() && rv_count(rv) == 1, "an event after the relist");
}
END_TEST

static unsigned bad_reports(void)
{
    pthread_mutex_lock(&view.lock);
    unsigned n = view.health_bad;
    pthread_mutex_unlock(&view.lock);
    return n;
}

static unsigned ok_reports(void)
{
    pthread_mutex_lock(&view.lock);
    unsigned n = view.health_ok;
    pthread_mutex_unlock(&view.lock);
    return n;
}

/* A dropped watch is a failure until the reconnect is answered; then it is
 * healthy at once, although a quiet resource sends no event for minutes. */
START_TEST(informer_healthy_as_soon_as_a_quiet_watch_reopens)
{
    put_pod("a", "p1", "");
    start_and_sync();
    pthread_mutex_lock(&view.lock);
    unsigned bad = view.health_bad, good = view.health_ok;
    pthread_mutex_unlock(&view.lock);
    fake_drop_watches(fake, FAKE_DROP_MID_LINE);
    put_pod("a", "p2", ""); /* cut in half: the watch breaks */
    WAIT_UNTIL(bad_reports() > bad, "the broken watch reported");
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 1, 10000), 0);
    /* p2 is replayed by the new watch: health would come back with it, so
     * wait for the report itself and check it came with no event after p2 */
    WAIT_UNTIL(is_last_ok() && ok_reports() > good, "health back with the reopened watch");
    fake_drop_watches(fake, FAKE_DROP_CLOSE); /* now truly quiet: no event follows */
    WAIT_UNTIL(bad_reports() > bad + 1, "the second drop reported");
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 1, 10000), 0);
    WAIT_UNTIL(is_last_ok(), "health back with no event at all");
}
END_TEST

START_TEST(informer_reports_5xx_and_recovers)
{
    put_pod("a", "p1", "");
    fake_fail_next(fake, 3, 503);
    start_informer(400);
    WAIT_UNTIL(is_view_synced(), "the list after the 503s");
    struct fake_counts c = counts();
    ck_assert_uint_eq(c.injected, 3);
    ck_assert_uint_eq(c.lists[FAKE_POD], 1);
    pthread_mutex_lock(&view.lock);
    ck_assert_uint_ge(view.health_bad, 1);
    ck_assert_msg(strstr(view.last_bad, "503") != NULL, "why: %s", view.last_bad);
    ck_assert_uint_ge(view.health_ok, 1);
    ck_assert(view.last_ok);
    pthread_mutex_unlock(&view.lock);
}
END_TEST

START_TEST(informer_bookmark_spares_a_relist_after_compaction)
{
    put_pod("a", "p1", "");
    start_and_sync();
    /* Other resources move the version on; this watch sees no event. */
    ck_assert_int_eq(fake_put(fake, FAKE_NODE, "{\"metadata\":{\"name\":\"n1\"}}", NULL), 0);
    ck_assert_int_eq(fake_put(fake, FAKE_NODE, "{\"metadata\":{\"name\":\"n2\"}}", NULL), 0);
    uint64_t bookmark_rv = fake_rv(fake);
    struct fake_counts before = counts();

    fake_bookmark(fake);
    WAIT_UNTIL(counts().bookmarks_sent >= 1, "the bookmark");
    fake_compact(fake); /* up to the bookmark */
    fake_drop_watches(fake, FAKE_DROP_CLOSE);
    WAIT_UNTIL(counts().watches[FAKE_POD] >= before.watches[FAKE_POD] + 1 &&
                   counts().open_watches[FAKE_POD] >= 1,
               "the reconnect");
    struct fake_counts after = counts();
    ck_assert_uint_eq(after.last_watch_rv[FAKE_POD], bookmark_rv);

    uint64_t rv = put_pod("a", "p2", "");
    WAIT_UNTIL(is_view_synced() && rv_count(rv) == 1, "an event after the reconnect");
    after = counts();
    ck_assert_uint_eq(after.lists[FAKE_POD], before.lists[FAKE_POD]); /* no relist */
    assert_no_event_twice();
}
END_TEST

START_TEST(informer_stops_promptly)
{
    put_pod("a", "p1", "");
    start_and_sync();
    double t0 = now_s();
    kube_informer_stop(inf); /* in a watch that sends nothing */
    inf = NULL;
    ck_assert_msg(now_s() - t0 < 2.0, "stop took %.2f s", now_s() - t0);

    /* and in a long backoff */
    fake_fail_next(fake, 1000, 503);
    start_informer(30000);
    WAIT_UNTIL(counts().injected >= 3, "failing lists");
    t0 = now_s();
    kube_informer_stop(inf);
    inf = NULL;
    ck_assert_msg(now_s() - t0 < 2.0, "stop took %.2f s", now_s() - t0);
}
END_TEST

START_TEST(informer_restarts_a_list_whose_continue_expired)
{
    char name[32];
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof(name), "p%03d", i);
        put_pod("a", name, "");
    }
    start_informer_paged(1, 400);
    /* Compact while the pages are being read (one pod a page). */
    WAIT_UNTIL(counts().list_pages[FAKE_POD] >= 2, "the list to begin");
    put_pod("a", "late", "");
    fake_compact(fake);
    WAIT_UNTIL(is_view_synced(), "the list started again");
    struct fake_counts c = counts();
    ck_assert_uint_eq(c.lists[FAKE_POD], 2); /* the expired one and its restart */
    pthread_mutex_lock(&view.lock);
    ck_assert_uint_eq(view.list_begins, 2);
    ck_assert_uint_eq(view.list_ends, 1);
    pthread_mutex_unlock(&view.lock);
}
END_TEST

Suite *informer_suite(void)
{
    Suite *s = suite_create("informer");
    TCase *tc = tcase_create("informer");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, informer_converges_on_scripted_changes);
    tcase_add_test(tc, informer_resumes_a_cut_watch_without_loss_or_relist);
    tcase_add_loop_test(tc, informer_relists_after_compaction_and_prunes, FAKE_GONE_ERROR_EVENT,
                        FAKE_GONE_HTTP_410 + 1);
    tcase_add_test(tc, informer_reports_5xx_and_recovers);
    tcase_add_test(tc, informer_healthy_as_soon_as_a_quiet_watch_reopens);
    tcase_add_test(tc, informer_bookmark_spares_a_relist_after_compaction);
    tcase_add_test(tc, informer_stops_promptly);
    tcase_add_test(tc, informer_restarts_a_list_whose_continue_expired);
    suite_add_tcase(s, tc);
    return s;
}
