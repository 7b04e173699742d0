/*
 * The fake kube-apiserver (tests/support/fake_apiserver.c) checked with
 * libcurl: the client and informer tests rely on it answering as a real
 * one does, so its paging, watch replay, bookmarks, compaction, auth and
 * binding answers are pinned here first.
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
#include <curl/curl.h>

#include "tests/suites.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/test_certs.h"

#define TOKEN "fake-token-1"

static struct test_pki pki;
static struct fake_apiserver *fake;

struct reply {
    CURLcode rc;
    long status;
    char *body; /* malloc'd, NUL-terminated */
    size_t len;
};

/* One request to the fake. Zero fields are defaults: GET, the right CA,
 * TOKEN, no client certificate. */
struct call {
    const char *method;
    const char *path;
    const char *token; /* "" for none */
    const char *body;
    const char *ca;   /* file in the PKI */
    const char *cert; /* file in the PKI, with @key */
    const char *key;
    long timeout; /* seconds, default 5 */
};

static size_t on_data(char *data, size_t size, size_t n, void *ud)
{
    struct reply *r = ud;
    char *p = realloc(r->body, r->len + size * n + 1);
    if (p == NULL)
        return 0;
    memcpy(p + r->len, data, size * n);
    r->len += size * n;
    p[r->len] = '\0';
    r->body = p;
    return size * n;
}

static void call(const struct call *c, struct reply *r)
{
    char url[512], auth[256], file[128], cert[128], key[128];
    struct curl_slist *headers = NULL;
    CURL *h = curl_easy_init();

    memset(r, 0, sizeof(*r));
    r->body = calloc(1, 1);
    ck_assert_ptr_nonnull(h);
    snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", fake_port(fake), c->path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CAINFO,
                     test_pki_path(&pki, c->ca != NULL ? c->ca : "ca.pem", file, sizeof(file)));
    if (c->cert != NULL) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, test_pki_path(&pki, c->cert, cert, sizeof(cert)));
        curl_easy_setopt(h, CURLOPT_SSLKEY, test_pki_path(&pki, c->key, key, sizeof(key)));
    }
    if (c->token == NULL || c->token[0] != '\0') {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
                 c->token != NULL ? c->token : TOKEN);
        headers = curl_slist_append(headers, auth);
    }
    if (c->body != NULL) {
        headers = curl_slist_append(headers, "Content-Type: application/json");
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->body);
    }
    if (c->method != NULL)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, c->method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout > 0 ? c->timeout : 5L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    r->rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
}

static void get(const char *path, struct reply *r)
{
    struct call c = {.path = path};
    call(&c, r);
    ck_assert_msg(r->rc == CURLE_OK, "%s: %s", path, curl_easy_strerror(r->rc));
}

static void reply_free(struct reply *r)
{
    free(r->body);
    r->body = NULL;
}

/* A Status body: checks code and reason. */
static void assert_status(const struct reply *r, long code, const char *reason)
{
    cJSON *j = cJSON_Parse(r->body);
    ck_assert_msg(r->status == code, "status %ld, want %ld: %s", r->status, code, r->body);
    ck_assert_msg(j != NULL, "not JSON: %s", r->body);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "kind")->valuestring, "Status");
    ck_assert_int_eq(cJSON_GetObjectItem(j, "code")->valueint, code);
    if (reason != NULL)
        ck_assert_str_eq(cJSON_GetObjectItem(j, "reason")->valuestring, reason);
    cJSON_Delete(j);
}

/* Splits a watch body into its lines, parsed; partial last line dropped. */
static cJSON *lines_of(const char *body)
{
    cJSON *all = cJSON_CreateArray();
    const char *p = body, *nl;
    while ((nl = strchr(p, '\n')) != NULL) {
        cJSON *line = cJSON_ParseWithLength(p, (size_t)(nl - p));
        ck_assert_msg(line != NULL, "bad line in %s", body);
        cJSON_AddItemToArray(all, line);
        p = nl + 1;
    }
    return all;
}

static const char *event_type(const cJSON *lines, int i)
{
    return cJSON_GetObjectItem(cJSON_GetArrayItem(lines, i), "type")->valuestring;
}

static const cJSON *event_object(const cJSON *lines, int i)
{
    return cJSON_GetObjectItem(cJSON_GetArrayItem(lines, i), "object");
}

static const char *meta(const cJSON *obj, const char *field)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "metadata"), field)->valuestring;
}

static uint64_t put(enum fake_kind kind, const char *json)
{
    uint64_t rv = 0;
    ck_assert_int_eq(fake_put(fake, kind, json, &rv), 0);
    return rv;
}

/* A request on its own thread, for streams that outlive a step. */
struct bg {
    pthread_t thread;
    struct call c;
    char path[256];
    struct reply r;
};

static void *bg_run(void *arg)
{
    struct bg *b = arg;
    call(&b->c, &b->r);
    return NULL;
}

static void bg_start(struct bg *b, const char *path, long timeout)
{
    memset(b, 0, sizeof(*b));
    snprintf(b->path, sizeof(b->path), "%s", path);
    b->c.path = b->path;
    b->c.timeout = timeout;
    ck_assert_int_eq(pthread_create(&b->thread, NULL, bg_run, b), 0);
}

static void bg_join(struct bg *b)
{
    ck_assert_int_eq(pthread_join(b->thread, NULL), 0);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void start_fake(const char *token, const char *client_ca)
{
    char cert[128], key[128], ca[128];
    struct fake_params p = {
        .cert_file = test_pki_path(&pki, "server.pem", cert, sizeof(cert)),
        .key_file = test_pki_path(&pki, "server.key", key, sizeof(key)),
        .token = token,
        .client_ca_file = client_ca != NULL ? test_pki_path(&pki, client_ca, ca, sizeof(ca)) : NULL,
    };
    ck_assert_int_eq(fake_start(&p, &fake), 0);
    ck_assert_int_gt(fake_port(fake), 0);
}

static void setup(void)
{
    ck_assert_int_eq(curl_global_init(CURL_GLOBAL_DEFAULT), 0);
    test_pki_make(&pki);
    start_fake(TOKEN, NULL);
}

static void teardown(void)
{
    fake_stop(fake);
    fake = NULL;
    test_pki_remove(&pki);
    curl_global_cleanup();
}

START_TEST(fake_list_pages_share_one_version)
{
    struct reply r;
    char path[256], json[128];
    for (int i = 0; i < 5; i++) {
        snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"n%d\"}}", i);
        put(FAKE_NODE, json);
    }
    uint64_t rv = fake_rv(fake);
    get("/api/v1/nodes?limit=2", &r);
    ck_assert_int_eq(r.status, 200);
    cJSON *page = cJSON_Parse(r.body);
    reply_free(&r);
    ck_assert_str_eq(cJSON_GetObjectItem(page, "kind")->valuestring, "NodeList");
    ck_assert_str_eq(cJSON_GetObjectItem(page, "apiVersion")->valuestring, "v1");
    ck_assert_int_eq(strtoull(meta(page, "resourceVersion"), NULL, 10), rv);
    cJSON *items = cJSON_GetObjectItem(page, "items");
    ck_assert_int_eq(cJSON_GetArraySize(items), 2);
    ck_assert_str_eq(meta(cJSON_GetArrayItem(items, 0), "name"), "n0");
    /* list items carry no kind, as a real server's */
    ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "kind"));
    snprintf(path, sizeof(path), "/api/v1/nodes?limit=2&continue=%s", meta(page, "continue"));
    cJSON_Delete(page);

    put(FAKE_NODE, "{\"metadata\":{\"name\":\"n-late\"}}"); /* after the list began */
    int total = 2;
    for (int pages = 1; path[0] != '\0'; pages++) {
        ck_assert_int_lt(pages, 5);
        get(path, &r);
        ck_assert_int_eq(r.status, 200);
        page = cJSON_Parse(r.body);
        reply_free(&r);
        ck_assert_int_eq(strtoull(meta(page, "resourceVersion"), NULL, 10), rv);
        total += cJSON_GetArraySize(cJSON_GetObjectItem(page, "items"));
        cJSON *cont = cJSON_GetObjectItem(cJSON_GetObjectItem(page, "metadata"), "continue");
        path[0] = '\0';
        if (cont != NULL)
            snprintf(path, sizeof(path), "/api/v1/nodes?limit=2&continue=%s", cont->valuestring);
        cJSON_Delete(page);
    }
    ck_assert_int_eq(total, 5); /* n-late belongs to a later version */

    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 1);
    ck_assert_uint_eq(n.list_pages[FAKE_NODE], 3);
    ck_assert_uint_eq(n.lists[FAKE_POD], 0);
}
END_TEST

START_TEST(fake_continue_after_compaction_is_expired)
{
    struct reply r;
    char path[256];
    for (int i = 0; i < 3; i++)
        put(FAKE_POD, i == 0   ? "{\"metadata\":{\"name\":\"a\",\"namespace\":\"x\"}}"
                      : i == 1 ? "{\"metadata\":{\"name\":\"b\",\"namespace\":\"x\"}}"
                               : "{\"metadata\":{\"name\":\"c\",\"namespace\":\"y\"}}");
    get("/api/v1/namespaces/x/pods", &r);
    cJSON *page = cJSON_Parse(r.body);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(page, "items")), 2);
    cJSON_Delete(page);
    reply_free(&r);
    get("/api/v1/pods?limit=1", &r);
    page = cJSON_Parse(r.body);
    snprintf(path, sizeof(path), "/api/v1/pods?limit=1&continue=%s", meta(page, "continue"));
    cJSON_Delete(page);
    reply_free(&r);
    put(FAKE_POD, "{\"metadata\":{\"name\":\"d\",\"namespace\":\"x\"}}");
    fake_compact(fake);
    get(path, &r);
    assert_status(&r, 410, "Expired");
    ck_assert_ptr_nonnull(strstr(r.body, "continue parameter is too old"));
    reply_free(&r);
}
END_TEST

START_TEST(fake_watch_replays_after_a_version)
{
    struct reply r;
    char path[256];
    uint64_t rv1 = put(FAKE_POD, "{\"metadata\":{\"name\":\"a\"},\"spec\":{}}");
    uint64_t rv2 = put(FAKE_POD, "{\"metadata\":{\"name\":\"b\"}}");
    uint64_t rv3 = put(FAKE_POD, "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"nodeName\":\"n1\"}}");
    put(FAKE_NODE, "{\"metadata\":{\"name\":\"n1\"}}"); /* another resource: not in this watch */
    uint64_t rv4;
    ck_assert_int_eq(fake_delete(fake, FAKE_POD, NULL, "b", &rv4), 0);
    ck_assert_int_eq(fake_delete(fake, FAKE_POD, NULL, "b", NULL), -ENOENT);

    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=1",
             (unsigned long long)rv1);
    double t0 = now_s();
    get(path, &r);
    ck_assert_msg(now_s() - t0 < 3, "timeoutSeconds not honoured");
    ck_assert_int_eq(r.status, 200);
    cJSON *lines = lines_of(r.body);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 3);
    ck_assert_str_eq(event_type(lines, 0), "ADDED");
    ck_assert_str_eq(event_type(lines, 1), "MODIFIED");
    ck_assert_str_eq(event_type(lines, 2), "DELETED");
    const uint64_t want_rv[] = {rv2, rv3, rv4};
    const char *want_name[] = {"b", "a", "b"};
    for (int i = 0; i < 3; i++) {
        const cJSON *o = event_object(lines, i);
        ck_assert_str_eq(cJSON_GetObjectItem(o, "kind")->valuestring, "Pod");
        ck_assert_str_eq(cJSON_GetObjectItem(o, "apiVersion")->valuestring, "v1");
        ck_assert_str_eq(meta(o, "name"), want_name[i]);
        ck_assert_str_eq(meta(o, "namespace"), "default");
        ck_assert_int_eq(strtoull(meta(o, "resourceVersion"), NULL, 10), want_rv[i]);
    }
    /* a MODIFIED object keeps its uid */
    ck_assert_str_eq(meta(event_object(lines, 1), "uid"), "00000000-0000-4000-8000-000000000001");
    cJSON_Delete(lines);
    reply_free(&r);

    /* without a version: the current objects as ADDED */
    get("/api/v1/pods?watch=true&timeoutSeconds=1", &r);
    lines = lines_of(r.body);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 1);
    ck_assert_str_eq(event_type(lines, 0), "ADDED");
    ck_assert_str_eq(meta(event_object(lines, 0), "name"), "a");
    cJSON_Delete(lines);
    reply_free(&r);
}
END_TEST

START_TEST(fake_watch_streams_live_events_and_bookmarks)
{
    struct bg with, without;
    char path[256];
    uint64_t rv0 = put(FAKE_POD, "{\"metadata\":{\"name\":\"a\"}}");
    snprintf(path, sizeof(path),
             "/api/v1/pods?watch=1&resourceVersion=%llu&allowWatchBookmarks=true&timeoutSeconds=2",
             (unsigned long long)rv0);
    bg_start(&with, path, 8);
    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=2",
             (unsigned long long)rv0);
    bg_start(&without, path, 8);
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 2, 5000), 0);
    uint64_t rv1 = put(FAKE_POD, "{\"metadata\":{\"name\":\"b\"}}");
    uint64_t rv2 = put(FAKE_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
    fake_bookmark(fake);
    bg_join(&with);
    bg_join(&without);

    ck_assert_int_eq(with.r.rc, CURLE_OK);
    cJSON *lines = lines_of(with.r.body);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 2);
    ck_assert_str_eq(event_type(lines, 0), "ADDED");
    ck_assert_int_eq(strtoull(meta(event_object(lines, 0), "resourceVersion"), NULL, 10), rv1);
    ck_assert_str_eq(event_type(lines, 1), "BOOKMARK");
    ck_assert_str_eq(cJSON_GetObjectItem(event_object(lines, 1), "kind")->valuestring, "Pod");
    ck_assert_int_eq(strtoull(meta(event_object(lines, 1), "resourceVersion"), NULL, 10), rv2);
    cJSON_Delete(lines);
    lines = lines_of(without.r.body);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 1); /* no bookmark unasked */
    cJSON_Delete(lines);
    reply_free(&with.r);
    reply_free(&without.r);

    /* The server lets go of a stream just after its client read the end:
     * wait (bounded) for the count to drop rather than race it. */
    struct fake_counts n;
    for (int i = 0; i < 100; i++) {
        fake_counts(fake, &n);
        if (n.open_watches[FAKE_POD] == 0)
            break;
        usleep(20000);
    }
    ck_assert_uint_eq(n.watches[FAKE_POD], 2);
    ck_assert_uint_eq(n.open_watches[FAKE_POD], 0);
    ck_assert_uint_eq(n.bookmarks_sent, 1);
    ck_assert_uint_eq(n.last_watch_rv[FAKE_POD], rv0);
}
END_TEST

START_TEST(fake_watch_from_compacted_version_is_gone)
{
    struct reply r;
    char path[256];
    uint64_t rv1 = put(FAKE_POD, "{\"metadata\":{\"name\":\"a\"}}");
    put(FAKE_POD, "{\"metadata\":{\"name\":\"b\"}}");
    fake_compact(fake);
    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=5",
             (unsigned long long)rv1);
    double t0 = now_s();
    get(path, &r);
    ck_assert_msg(now_s() - t0 < 2, "the stream did not end after the ERROR event");
    ck_assert_int_eq(r.status, 200);
    cJSON *lines = lines_of(r.body);
    ck_assert_int_eq(cJSON_GetArraySize(lines), 1);
    ck_assert_str_eq(event_type(lines, 0), "ERROR");
    const cJSON *st = event_object(lines, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(st, "kind")->valuestring, "Status");
    ck_assert_str_eq(cJSON_GetObjectItem(st, "reason")->valuestring, "Expired");
    ck_assert_int_eq(cJSON_GetObjectItem(st, "code")->valueint, 410);
    ck_assert_ptr_nonnull(
        strstr(cJSON_GetObjectItem(st, "message")->valuestring, "too old resource version"));
    cJSON_Delete(lines);
    reply_free(&r);

    fake_set_gone_mode(fake, FAKE_GONE_HTTP_410);
    get(path, &r);
    assert_status(&r, 410, "Expired");
    reply_free(&r);

    /* the current version survives a compaction */
    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=1",
             (unsigned long long)fake_rv(fake));
    get(path, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "");
    reply_free(&r);
}
END_TEST

START_TEST(fake_wrong_token_is_unauthorized)
{
    struct reply r;
    struct call c = {.path = "/api/v1/nodes", .token = "wrong"};
    call(&c, &r);
    assert_status(&r, 401, "Unauthorized");
    reply_free(&r);
    c.token = "";
    call(&c, &r);
    assert_status(&r, 401, "Unauthorized");
    reply_free(&r);

    fake_set_token(fake, "rotated");
    get("/api/v1/nodes", &r); /* the old one */
    assert_status(&r, 401, "Unauthorized");
    reply_free(&r);
    c.token = "rotated";
    call(&c, &r);
    ck_assert_int_eq(r.status, 200);
    reply_free(&r);

    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.unauthorized, 3);
    ck_assert_uint_eq(n.lists[FAKE_NODE], 1); /* refused ones are not lists */
}
END_TEST

START_TEST(fake_binding_answers_like_the_real_server)
{
    struct reply r;
    struct call c = {.method = "POST",
                     .path = "/api/v1/namespaces/default/pods/p/binding",
                     .body = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":"
                             "\"p\",\"namespace\":\"default\",\"uid\":\"other-uid\"},\"target\":{"
                             "\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\"}}"};
    call(&c, &r);
    assert_status(&r, 404, "NotFound");
    reply_free(&r);

    uint64_t rv = put(FAKE_POD, "{\"metadata\":{\"name\":\"p\",\"uid\":\"u-1\"},\"spec\":{}}");
    call(&c, &r);
    assert_status(&r, 409, "Conflict"); /* uid precondition */
    reply_free(&r);

    c.body = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\","
             "\"namespace\":\"default\",\"uid\":\"u-1\"},\"target\":{\"apiVersion\":\"v1\","
             "\"kind\":\"Node\",\"name\":\"n1\"}}";
    call(&c, &r);
    ck_assert_int_eq(r.status, 201);
    cJSON *st = cJSON_Parse(r.body);
    ck_assert_str_eq(cJSON_GetObjectItem(st, "status")->valuestring, "Success");
    ck_assert_int_eq(cJSON_GetObjectItem(st, "code")->valueint, 201);
    cJSON_Delete(st);
    reply_free(&r);
    ck_assert_int_eq(fake_rv(fake), rv + 1); /* a MODIFIED event */
    char *pod = fake_get(fake, FAKE_POD, "default", "p");
    ck_assert_ptr_nonnull(strstr(pod, "\"nodeName\":\"n1\""));
    free(pod);

    call(&c, &r);
    assert_status(&r, 409, "Conflict");
    ck_assert_ptr_nonnull(strstr(r.body, "Operation cannot be fulfilled on pods/binding "
                                         "\\\"p\\\": pod p is already assigned to node "
                                         "\\\"n1\\\""));
    reply_free(&r);

    c.method = NULL;
    c.body = NULL;
    call(&c, &r);
    assert_status(&r, 405, "MethodNotAllowed");
    reply_free(&r);
    get("/api/v1/nope", &r);
    assert_status(&r, 404, "NotFound");
    reply_free(&r);

    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.bindings, 4);
    char *body = fake_binding_body(fake, 2);
    ck_assert_ptr_nonnull(strstr(body, "\"uid\":\"u-1\""));
    free(body);
    ck_assert_ptr_null(fake_binding_body(fake, 4));
}
END_TEST

START_TEST(fake_fail_next_answers_the_injected_status)
{
    struct reply r;
    fake_fail_next(fake, 2, 503);
    get("/api/v1/pods", &r);
    assert_status(&r, 503, "ServiceUnavailable");
    reply_free(&r);
    get("/api/v1/nodes", &r);
    assert_status(&r, 503, NULL);
    reply_free(&r);
    get("/api/v1/pods", &r);
    ck_assert_int_eq(r.status, 200);
    reply_free(&r);
    struct fake_counts n;
    fake_counts(fake, &n);
    ck_assert_uint_eq(n.injected, 2);
    ck_assert_uint_eq(n.lists[FAKE_POD], 1);
}
END_TEST

START_TEST(fake_drop_mid_line_cuts_an_event)
{
    struct bg w;
    char path[256];
    uint64_t rv = put(FAKE_POD, "{\"metadata\":{\"name\":\"a\"}}");
    snprintf(path, sizeof(path), "/api/v1/pods?watch=1&resourceVersion=%llu&timeoutSeconds=8",
             (unsigned long long)rv);
    bg_start(&w, path, 9);
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 1, 5000), 0);
    fake_drop_watches(fake, FAKE_DROP_MID_LINE); /* armed: the stream has nothing to send */
    double t0 = now_s();
    put(FAKE_POD, "{\"metadata\":{\"name\":\"c\"}}");
    bg_join(&w);
    ck_assert_msg(now_s() - t0 < 3, "the stream was not cut");
    ck_assert_int_ne(w.r.rc, CURLE_OK); /* no terminating chunk */
    ck_assert_int_eq(w.r.status, 200);
    ck_assert_msg(w.r.len > 0 && strchr(w.r.body, '\n') == NULL &&
                      strncmp(w.r.body, "{\"type\":\"ADDED\"", 15) == 0,
                  "not half a line (%zu bytes, newline %d): %.40s", w.r.len,
                  strchr(w.r.body, '\n') != NULL, w.r.body);
    reply_free(&w.r);

    /* a plain drop ends the stream with no more data */
    bg_start(&w, path, 9);
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_POD, 1, 5000), 0);
    fake_drop_watches(fake, FAKE_DROP_CLOSE);
    bg_join(&w);
    ck_assert_int_ne(w.r.rc, CURLE_OK);
    reply_free(&w.r);
}
END_TEST

START_TEST(fake_stop_ends_blocked_watches_promptly)
{
    struct bg w;
    bg_start(&w, "/api/v1/nodes?watch=1", 9);
    ck_assert_int_eq(fake_wait_open_watches(fake, FAKE_NODE, 1, 5000), 0);
    double t0 = now_s();
    fake_stop(fake);
    fake = NULL;
    ck_assert_msg(now_s() - t0 < 2.0, "stop took %.1f s", now_s() - t0);
    bg_join(&w);
    ck_assert_int_ne(w.r.rc, CURLE_OK);
    reply_free(&w.r);
}
END_TEST

START_TEST(fake_serves_node_metrics)
{
    struct reply r;
    ck_assert_int_eq(fake_set_node_metrics(fake, "n1", "1500m", "2Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(fake, "n2", "1", "1Gi"), 0);
    ck_assert_int_eq(fake_set_node_metrics(fake, "n2", NULL, NULL), 0);
    get("/apis/metrics.k8s.io/v1beta1/nodes", &r);
    ck_assert_int_eq(r.status, 200);
    cJSON *got = cJSON_Parse(r.body);
    cJSON *want = cJSON_Parse(
        "{\"kind\":\"NodeMetricsList\",\"apiVersion\":\"metrics.k8s.io/v1beta1\",\"metadata\":{},"
        "\"items\":[{\"metadata\":{\"name\":\"n1\",\"creationTimestamp\":\"2026-12-02T16:00:00Z\"},"
        "\"timestamp\":\"2026-12-02T16:00:00Z\",\"window\":\"20s\",\"usage\":{\"cpu\":\"1500m\","
        "\"memory\":\"2Gi\"}}]}");
    ck_assert_msg(cJSON_Compare(got, want, 1), "got %s", r.body);
    cJSON_Delete(got);
    cJSON_Delete(want);
    reply_free(&r);
    fake_set_metrics_time(fake, "2026-12-02T16:05:00Z", "10s");
    get("/apis/metrics.k8s.io/v1beta1/nodes/n1", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"timestamp\":\"2026-12-02T16:05:00Z\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\"kind\":\"NodeMetrics\""));
    reply_free(&r);
    fake_set_metrics_status(fake, 503);
    get("/apis/metrics.k8s.io/v1beta1/nodes", &r);
    assert_status(&r, 503, NULL);
    reply_free(&r);
    fake_set_metrics_status(fake, 404);
    get("/apis/metrics.k8s.io/v1beta1/nodes", &r);
    assert_status(&r, 404, "NotFound");
    reply_free(&r);
}
END_TEST

START_TEST(fake_stream_route_sends_lines_and_tail)
{
    struct reply r;
    get("/fake/stream?line=3&count=2&tail=4", &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "xxx\nxxx\nxxxx");
    reply_free(&r);
}
END_TEST

START_TEST(fake_client_certificate_replaces_the_token)
{
    struct reply r;
    struct call c = {.path = "/api/v1/nodes", .token = ""};
    fake_stop(fake);
    start_fake(NULL, "ca.pem");
    call(&c, &r);
    assert_status(&r, 401, "Unauthorized");
    reply_free(&r);
    c.cert = "client.pem";
    c.key = "client.key";
    call(&c, &r);
    ck_assert_msg(r.rc == CURLE_OK, "%s", curl_easy_strerror(r.rc));
    ck_assert_int_eq(r.status, 200);
    reply_free(&r);
    c.cert = "other-client.pem";
    c.key = "other-client.key";
    call(&c, &r);
    /* refused in the handshake or with 401: never served */
    ck_assert_int_ne(r.status, 200);
    reply_free(&r);
}
END_TEST

Suite *fake_apiserver_suite(void)
{
    Suite *s = suite_create("fake_apiserver");
    TCase *tc = tcase_create("fake_apiserver");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fake_list_pages_share_one_version);
    tcase_add_test(tc, fake_continue_after_compaction_is_expired);
    tcase_add_test(tc, fake_watch_replays_after_a_version);
    tcase_add_test(tc, fake_watch_streams_live_events_and_bookmarks);
    tcase_add_test(tc, fake_watch_from_compacted_version_is_gone);
    tcase_add_test(tc, fake_wrong_token_is_unauthorized);
    tcase_add_test(tc, fake_binding_answers_like_the_real_server);
    tcase_add_test(tc, fake_fail_next_answers_the_injected_status);
    tcase_add_test(tc, fake_drop_mid_line_cuts_an_event);
    tcase_add_test(tc, fake_stop_ends_blocked_watches_promptly);
    tcase_add_test(tc, fake_serves_node_metrics);
    tcase_add_test(tc, fake_stream_route_sends_lines_and_tail);
    tcase_add_test(tc, fake_client_certificate_replaces_the_token);
    suite_add_tcase(s, tc);
    return s;
}
