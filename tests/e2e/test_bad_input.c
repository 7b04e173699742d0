/*
 * Bad input against the real binary: each row is the raw request and the
 * answer expected. After every row the server must still answer /healthz.
 * The server runs with small limits (64 KiB bodies, 3 nodes) so the limit
 * rows stay fast.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tests/suites.h"
#include "tests/support/fixtures.h"
#include "tests/support/http_client.h"
#include "tests/support/server_proc.h"

#define GOOD_POD "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"
#define POD_WITH_CPU(q)                                                                            \
    "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":" q                 \
    "}}}]}},\"NodeNames\":[\"n\"]}"

struct row {
    const char *name;
    const char *method;
    const char *path;
    const char *body; /* NULL: no body */
    int status;
    const char *error; /* substring of the JSON Error, or NULL */
};

static const struct row rows[] = {
    {"not json", "POST", "/scheduler/filter", "hello", 400, "malformed JSON"},
    {"empty body", "POST", "/scheduler/filter", "", 400, "empty body"},
    {"truncated object", "POST", "/scheduler/filter", "{\"Pod\":{\"metadata\":", 400,
     "malformed JSON"},
    {"trailing garbage", "POST", "/scheduler/filter", "{\"Pod\":" GOOD_POD ",\"NodeNames\":[]}x",
     400, "malformed JSON"},
    {"two documents", "POST", "/scheduler/prioritize", "{}{}", 400, "malformed JSON"},
    {"array at top", "POST", "/scheduler/filter", "[]", 400, "want a JSON object"},
    {"string at top", "POST", "/scheduler/prioritize", "\"Pod\"", 400, "want a JSON object"},
    {"pod missing", "POST", "/scheduler/filter", "{\"NodeNames\":[\"a\"]}", 400, "Pod: missing"},
    {"pod null", "POST", "/scheduler/filter", "{\"Pod\":null,\"NodeNames\":[\"a\"]}", 400,
     "Pod: missing"},
    {"pod string", "POST", "/scheduler/filter", "{\"Pod\":\"x\",\"NodeNames\":[\"a\"]}", 400,
     "Pod: want an object"},
    {"pod array", "POST", "/scheduler/prioritize", "{\"Pod\":[],\"NodeNames\":[\"a\"]}", 400,
     "Pod: want an object"},
    {"metadata array", "POST", "/scheduler/filter",
     "{\"Pod\":{\"metadata\":[]},\"NodeNames\":[\"a\"]}", 400, "Pod.metadata"},
    {"name number", "POST", "/scheduler/filter",
     "{\"Pod\":{\"metadata\":{\"name\":5}},\"NodeNames\":[\"a\"]}", 400, "Pod.metadata.name"},
    {"spec string", "POST", "/scheduler/filter", "{\"Pod\":{\"spec\":\"x\"},\"NodeNames\":[\"a\"]}",
     400, "Pod.spec"},
    {"containers object", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":{}}},\"NodeNames\":[\"a\"]}", 400,
     "Pod.spec.containers: want an array"},
    {"container number", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[1]}},\"NodeNames\":[\"a\"]}", 400,
     "Pod.spec.containers[0]"},
    {"resources array", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":[]}]}},\"NodeNames\":[\"a\"]}", 400,
     "resources"},
    {"requests string", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":\"1\"}}]}},"
     "\"NodeNames\":[\"a\"]}",
     400, "requests: want an object"},
    {"cpu number", "POST", "/scheduler/filter", POD_WITH_CPU("1"), 400, "want a quantity string"},
    {"cpu bool", "POST", "/scheduler/filter", POD_WITH_CPU("true"), 400, "quantity string"},
    {"cpu garbage", "POST", "/scheduler/prioritize", POD_WITH_CPU("\"abc\""), 400,
     "Pod.spec.containers[0].resources.requests.cpu"},
    {"cpu bad suffix", "POST", "/scheduler/filter", POD_WITH_CPU("\"1K\""), 400, "suffix"},
    {"cpu negative", "POST", "/scheduler/filter", POD_WITH_CPU("\"-1\""), 400, "negative"},
    {"cpu too large", "POST", "/scheduler/filter", POD_WITH_CPU("\"99999999999999999\""), 400,
     "does not fit"},
    {"cpu huge exponent", "POST", "/scheduler/filter", POD_WITH_CPU("\"1e99999999999\""), 400,
     "exponent"},
    {"memory overflow in sum", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"memory\":\"8Ei\"}}}]}},"
     "\"NodeNames\":[\"a\"]}",
     400, "memory"},
    {"init container bad", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"initContainers\":[{\"resources\":{\"requests\":{\"cpu\":\"x\"}}}]}},"
     "\"NodeNames\":[\"a\"]}",
     400, "initContainers[0]"},
    {"restartPolicy number", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"initContainers\":[{\"restartPolicy\":1}]}},\"NodeNames\":[\"a\"]}", 400,
     "restartPolicy"},
    {"overhead bad", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"overhead\":{\"cpu\":\"1.2.3\"}}},\"NodeNames\":[\"a\"]}", 400,
     "Pod.spec.overhead.cpu"},
    {"nodes array", "POST", "/scheduler/filter", "{\"Pod\":" GOOD_POD ",\"Nodes\":[]}", 400,
     "Nodes: want a NodeList"},
    {"items object", "POST", "/scheduler/filter", "{\"Pod\":" GOOD_POD ",\"Nodes\":{\"items\":{}}}",
     400, "Nodes.items"},
    {"node without name", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"Nodes\":{\"items\":[{\"metadata\":{}}]}}", 400, "metadata.name"},
    {"nodenames string", "POST", "/scheduler/filter", "{\"Pod\":" GOOD_POD ",\"NodeNames\":\"a\"}",
     400, "NodeNames: want an array"},
    {"nodenames number", "POST", "/scheduler/prioritize",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\",1]}", 400, "NodeNames[1]"},
    {"neither", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"Nodes\":null,\"NodeNames\":null}", 400, "neither"},
    {"both", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"Nodes\":{\"items\":[]},\"NodeNames\":[]}", 400, "both"},
    {"too many nodes", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\",\"b\",\"c\",\"d\"]}", 400, "max-nodes"},
    /* Go's decoder: keys fold case, the last duplicate wins */
    {"lower-case keys", "POST", "/scheduler/filter", "{\"pod\":" GOOD_POD ",\"nodenames\":[\"a\"]}",
     200, NULL},
    /* Go keeps a type error to the end of the body: a later good Pod does
     * not undo it */
    {"duplicate pod, last good", "POST", "/scheduler/filter",
     "{\"Pod\":\"bad\",\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\"]}", 400, "Pod: want an object"},
    {"duplicate pod, null first", "POST", "/scheduler/filter",
     "{\"Pod\":null,\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\"]}", 200, NULL},
    {"duplicate pod, both objects", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"pod\":" GOOD_POD ",\"NodeNames\":[\"a\"]}", 400, "Pod: given twice"},
    {"duplicate pod, last bad", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"POD\":\"bad\",\"NodeNames\":[\"a\"]}", 400, "Pod: want an object"},
    {"duplicate cpu, last wins", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"x\","
     "\"cpu\":\"1\"}}}]}},\"NodeNames\":[\"a\"]}",
     200, NULL},
    {"NUL escape in a node name", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\\u0000b\"]}", 400, "NUL"},
    {"NUL escape in a quantity", "POST", "/scheduler/filter", POD_WITH_CPU("\"1\\u0000junk\""), 400,
     "NUL"},
    {"escaped backslash before u0000 is text", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\\\\u0000b\"]}", 200, NULL},
    {"invalid UTF-8 in a name", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"a\xff\"]}", 400, "invalid UTF-8"},
    {"overlong UTF-8", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"\xc0\xaf\"]}", 400, "invalid UTF-8"},
    {"UTF-8 surrogate", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"\xed\xa0\x80\"]}", 400, "invalid UTF-8"},
    {"truncated UTF-8 at the end", "POST", "/scheduler/filter", "{\"Pod\":\"\xe2\x82", 400,
     "invalid UTF-8"},
    {"valid UTF-8 passes", "POST", "/scheduler/filter",
     "{\"Pod\":" GOOD_POD ",\"NodeNames\":[\"n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]}", 200, NULL},
    {"invalid \\u escape in a quantity", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\\uZZZZjunk\"}}}"
     "]}},"
     "\"NodeNames\":[\"a\"]}",
     400, "invalid \\u escape"},
    {"invalid \\u escape in a key", "POST", "/scheduler/filter",
     "{\"Pod\":{},\"Nodes\\uZZZZ\":{\"items\":[]}}", 400, "invalid \\u escape"},
    {"short \\u escape", "POST", "/scheduler/filter", "{\"Pod\":{},\"Nodes\\u0e9\":{}}", 400,
     "invalid \\u escape"},
    {"unknown escape", "POST", "/scheduler/filter", "{\"Pod\":{},\"NodeNames\":[\"a\\qb\"]}", 400,
     "invalid escape"},
    {"valid escapes pass", "POST", "/scheduler/filter",
     "{\"Pod\":{},\"NodeNames\":[\"\\u0061\\\\\\/\\\"\\b\\f\\n\\r\\t\"]}", 200, NULL},
    {"byte-order mark", "POST", "/scheduler/filter",
     "\xef\xbb\xbf{\"Pod\":{},\"Nodes\":{\"items\":[]}}", 400, "byte-order mark"},
    {"control byte as white space", "POST", "/scheduler/filter",
     "{\"Pod\":\x01{},\"Nodes\":{\"items\":[]}}", 400, "control character at byte 7"},
    {"vertical tab between nodes", "POST", "/scheduler/filter",
     "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},\v{\"metadata\":"
     "{\"name\":\"b\"}}]}}",
     400, "control character"},
    {"get on a verb", "GET", "/scheduler/filter", NULL, 405, "method not allowed"},
    {"put on a verb", "PUT", "/scheduler/prioritize", "{}", 405, "method not allowed"},
    {"post on healthz", "POST", "/healthz", "{}", 405, "method not allowed"},
    {"post on metrics", "POST", "/metrics", "{}", 405, "method not allowed"},
    {"unknown verb", "POST", "/scheduler/reserve", "{}", 404, "no such path"},
    {"preempt without Pod", "POST", "/scheduler/preempt", "{}", 400, "Pod: missing"},
    {"preempt with victims of a wrong type", "POST", "/scheduler/preempt",
     "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n\":{\"Pods\":{}}}}", 400, "Pods: want an array"},
    {"preempt victim without a UID", "POST", "/scheduler/preempt",
     "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n\":{\"Pods\":[{}]}}}", 400, "no UID"},
    {"bind without a node", "POST", "/scheduler/bind", "{\"PodName\":\"p\",\"PodNamespace\":\"d\"}",
     400, "Node: want a non-empty string"},
    {"bind with a path in the name", "POST", "/scheduler/bind",
     "{\"PodName\":\"a/b\",\"PodNamespace\":\"d\",\"Node\":\"n\"}", 400, "not a Kubernetes name"},
    {"bind truncated", "POST", "/scheduler/bind", "{\"PodName\":\"p\"", 400, "malformed JSON"},
    {"unknown path", "GET", "/", NULL, 404, "no such path"},
    {"prefix only", "POST", "/scheduler", "{}", 404, "no such path"},
    {"verb without prefix", "POST", "/filter", "{}", 404, "no such path"},
    {"pod labels not an object", "POST", "/scheduler/filter",
     "{\"Pod\":{\"metadata\":{\"labels\":[]}},\"NodeNames\":[\"n\"]}", 400,
     "Pod.metadata.labels: want an object"},
    {"pod priority a string", "POST", "/scheduler/prioritize",
     "{\"Pod\":{\"spec\":{\"priority\":\"1\"}},\"NodeNames\":[\"n\"]}", 400,
     "Pod.spec.priority: want a 32-bit integer"},
    {"pod priority fractional", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"priority\":1.5}},\"NodeNames\":[\"n\"]}", 400, "Pod.spec.priority"},
    {"pod priority beyond int32", "POST", "/scheduler/filter",
     "{\"Pod\":{\"spec\":{\"priority\":2147483648}},\"NodeNames\":[\"n\"]}", 400,
     "Pod.spec.priority"},
    {"pod priority 1e300", "POST", "/scheduler/preempt",
     "{\"Pod\":{\"spec\":{\"priority\":1e300}}}", 400, "Pod.spec.priority"},
    {"post on debug", "POST", "/debug", "{}", 405, "method not allowed"},
    {"debug id not a number", "GET", "/debug/decisions?id=x", NULL, 400, "id and limit"},
    {"debug limit zero", "GET", "/debug/decisions?limit=0", NULL, 400, "id and limit"},
    {"debug id past 2^63", "GET", "/debug/decisions?id=99999999999999999999", NULL, 400,
     "id and limit"},
    {"debug negative id", "GET", "/debug/decisions?id=-1", NULL, 400, "id and limit"},
    {"debug unknown page", "GET", "/debug/nodes", NULL, 404, "no such path"},
};

/* The server of this suite, shared by the rows (started per test). */
static struct server_proc srv;
static const char *const limits[] = {"--max-body-bytes",  "65536", "--max-nodes", "3",
                                     "--debug-endpoints", NULL};

static void assert_alive(void)
{
    struct http_response r;
    int fd = http_connect(srv.port);
    ck_assert_msg(fd >= 0, "server no longer accepts connections");
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/healthz", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    close(fd);
}

static void assert_error_body(const struct http_response *r, const char *needle, const char *row)
{
    cJSON *j = cJSON_Parse(r->body);
    ck_assert_msg(j != NULL, "%s: body is not JSON: %s", row, r->body);
    cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "Error");
    ck_assert_msg(cJSON_IsString(e), "%s: no Error in %s", row, r->body);
    ck_assert_msg(strstr(e->valuestring, needle) != NULL, "%s: Error \"%s\" lacks \"%s\"", row,
                  e->valuestring, needle);
    ck_assert_msg(strchr(e->valuestring, '%') == NULL, "%s: '%%' in Error", row);
    cJSON_Delete(j);
}

START_TEST(bad_input_table)
{
    const struct row *row = &rows[_i];
    struct http_response r;
    server_start(&srv, limits);
    int fd = http_connect(srv.port);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(http_roundtrip(fd, row->method, row->path, row->body,
                                    row->body ? strlen(row->body) : 0, &r),
                     0);
    ck_assert_msg(r.status == row->status, "%s: status %d, want %d: %s", row->name, r.status,
                  row->status, r.body);
    if (row->error != NULL)
        assert_error_body(&r, row->error, row->name);
    http_response_free(&r);
    /* a rejected request leaves the connection usable */
    ck_assert_int_eq(http_roundtrip(fd, "GET", "/healthz", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    close(fd);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* A real request cut at several points: every prefix is malformed. */
START_TEST(bad_input_truncated_fixture)
{
    size_t len;
    char *body = fixture_read("nocache-3nodes/raw/000001-filter.req.json", &len);
    const size_t cuts[] = {1, 7, len / 3, len / 2, len - 2, len - 1};
    struct http_response r;
    const char *const args[] = {NULL};
    server_start(&srv, args);
    int fd = http_connect(srv.port);
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/filter", body, cuts[i], &r), 0);
        ck_assert_msg(r.status == 400, "cut at %zu: status %d", cuts[i], r.status);
        assert_error_body(&r, "malformed JSON", "truncated");
        http_response_free(&r);
    }
    close(fd);
    free(body);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* {"Pod": then @arrays nested arrays: @arrays + 1 levels of nesting. */
static char *nested_body(size_t arrays, size_t *len)
{
    size_t n = 0;
    char *body = malloc(2 * arrays + 32);
    ck_assert_ptr_nonnull(body);
    n += (size_t)sprintf(body, "{\"Pod\":");
    for (size_t i = 0; i < arrays; i++)
        body[n++] = '[';
    for (size_t i = 0; i < arrays; i++)
        body[n++] = ']';
    body[n++] = '}';
    *len = n;
    return body;
}

/* Valid JSON nested deeper than the parser's limit (1000 levels, cJSON's
 * CJSON_NESTING_LIMIT) is refused for that reason, not as "malformed"; at
 * the limit it parses and the decoder has its say. */
START_TEST(bad_input_deep_nesting)
{
    static const struct {
        size_t arrays;
        const char *error;
    } cases[] = {
        {999, "Pod: want an object"}, /* 1000 levels: parsed */
        {1000, "nested too deeply"},  /* 1001 levels */
        {10000, "nested too deeply"},
    };
    struct http_response r;
    server_start(&srv, limits);
    int fd = http_connect(srv.port);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n;
        char *body = nested_body(cases[i].arrays, &n);
        ck_assert_int_eq(http_roundtrip(fd, "POST", "/scheduler/filter", body, n, &r), 0);
        ck_assert_int_eq(r.status, 400);
        assert_error_body(&r, cases[i].error, "deep nesting");
        http_response_free(&r);
        free(body);
    }
    close(fd);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* Over the cap with Content-Length: refused before the body is read, and the
 * connection is closed. */
START_TEST(bad_input_body_over_cap_with_length)
{
    size_t len = 100000;
    char *body = malloc(len);
    struct http_response r;
    memset(body, ' ', len);
    server_start(&srv, limits);
    int fd = http_connect(srv.port);
    char head[256];
    int n =
        snprintf(head, sizeof(head),
                 "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n", len);
    ck_assert_int_eq(http_send_raw(fd, head, (size_t)n), 0);
    ck_assert_int_eq(http_read(fd, &r, 5000), 0);
    ck_assert_int_eq(r.status, 413);
    assert_error_body(&r, "larger than 65536 bytes", "413");
    http_response_free(&r);
    close(fd);
    free(body);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* Over the cap without Content-Length (chunked): drained, then 413. */
START_TEST(bad_input_body_over_cap_chunked)
{
    struct http_response r;
    char chunk[8192 + 16];
    server_start(&srv, limits);
    int fd = http_connect(srv.port);
    const char *head = "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n";
    ck_assert_int_eq(http_send_raw(fd, head, strlen(head)), 0);
    int n = sprintf(chunk, "2000\r\n");
    memset(chunk + n, ' ', 8192);
    memcpy(chunk + n + 8192, "\r\n", 2);
    for (int i = 0; i < 12; i++) /* 96 KiB */
        ck_assert_int_eq(http_send_raw(fd, chunk, (size_t)n + 8192 + 2), 0);
    ck_assert_int_eq(http_send_raw(fd, "0\r\n\r\n", 5), 0);
    ck_assert_int_eq(http_read(fd, &r, 5000), 0);
    ck_assert_int_eq(r.status, 413);
    assert_error_body(&r, "larger than", "413 chunked");
    http_response_free(&r);
    close(fd);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* A Content-Length that promises more than is sent, then the client goes
 * away: the server frees the request and keeps serving. */
START_TEST(bad_input_lying_length_then_close)
{
    server_start(&srv, limits);
    int fd = http_connect(srv.port);
    const char *req =
        "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"Pod\":";
    ck_assert_int_eq(http_send_raw(fd, req, strlen(req)), 0);
    usleep(100000);
    close(fd);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* Headers larger than the connection's memory: 431, or the connection is
 * closed; either way the server goes on. */
START_TEST(bad_input_huge_headers)
{
    const char *const args[] = {NULL};
    size_t n = 200 * 1024;
    char *req = malloc(n + 256);
    int k = sprintf(req, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + k, 'a', n);
    memcpy(req + k + n, "\r\n\r\n", 5);
    server_start(&srv, args);
    int fd = http_connect(srv.port);
    struct http_response r;
    http_send_raw(fd, req, (size_t)k + n + 4); /* may fail half way: the server hung up */
    int rc = http_read(fd, &r, 3000);
    ck_assert_msg(rc != 0 || r.status == 431, "status %d", r.status);
    if (rc == 0)
        http_response_free(&r);
    close(fd);
    free(req);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* A body dripping in, one byte every 300 ms: cut at the total deadline
 * (2 s here), long before the idle timeout, and nothing else suffers. */
START_TEST(bad_input_slow_drip_is_cut_at_the_deadline)
{
    const char *const args[] = {"--request-timeout-seconds", "2", NULL};
    server_start(&srv, args);
    int fd = http_connect(srv.port);
    const char *head = "POST /scheduler/filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n";
    ck_assert_int_eq(http_send_raw(fd, head, strlen(head)), 0);
    bool closed = false;
    for (int i = 0; i < 20 && !closed; i++) { /* at most 6 s */
        if (http_send_raw(fd, " ", 1) != 0)
            break;
        closed = http_closed(fd, 300);
    }
    ck_assert_msg(closed || http_closed(fd, 1000), "slow body was not cut");
    close(fd);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* 1000 idle connections from 127.0.0.1: those over the limits are refused,
 * the per-IP limit leaves room for another client (127.0.0.2), and all is
 * served again as soon as they close. */
START_TEST(bad_input_thousand_idle_connections)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
    setrlimit(RLIMIT_NOFILE, &rl);
    ck_assert_msg(rl.rlim_cur >= 1100, "need 1100 descriptors, have %lu",
                  (unsigned long)rl.rlim_cur);

    const char *const args[] = {NULL};
    server_start(&srv, args);
    static int fds[1000];
    int open_fds = 0;
    for (int i = 0; i < 1000; i++) {
        fds[i] = http_connect(srv.port);
        open_fds += fds[i] >= 0;
    }
    usleep(300000);
    struct http_response r;
    int other = http_connect_from("127.0.0.2", srv.port);
    ck_assert_int_ge(other, 0);
    ck_assert_int_eq(http_roundtrip(other, "GET", "/healthz", NULL, 0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_response_free(&r);
    close(other);
    /* the default per-IP limit (32) left the others closed by the server */
    int refused = 0;
    for (int i = 0; i < 1000; i++)
        refused += fds[i] >= 0 && http_closed(fds[i], 0);
    ck_assert_msg(refused >= 1000 - 64, "only %d of %d connections were refused", refused,
                  open_fds);
    for (int i = 0; i < 1000; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    usleep(200000);
    assert_alive();
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

Suite *bad_input_suite(void)
{
    Suite *s = suite_create("bad_input");
    TCase *tc = tcase_create("bad_input");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, bad_input_table, 0, (int)(sizeof(rows) / sizeof(rows[0])));
    tcase_add_test(tc, bad_input_truncated_fixture);
    tcase_add_test(tc, bad_input_deep_nesting);
    tcase_add_test(tc, bad_input_body_over_cap_with_length);
    tcase_add_test(tc, bad_input_body_over_cap_chunked);
    tcase_add_test(tc, bad_input_lying_length_then_close);
    tcase_add_test(tc, bad_input_huge_headers);
    tcase_add_test(tc, bad_input_slow_drip_is_cut_at_the_deadline);
    tcase_add_test(tc, bad_input_thousand_idle_connections);
    suite_add_tcase(s, tc);
    return s;
}
