/*
 * cluster-informer-probe: kube/informer.c against a real kube-apiserver,
 * for tests/cluster/run.sh. It runs one informer with the page size and
 * watch length given on the command line (the service's own are fixed at
 * 500 and 300 s, too large to page or end within a test) and prints every
 * callback as one JSON line on stdout, with the time it came, so that the
 * shell tests can assert on what the informer saw and when:
 *
 *   {"t":1733221234.123,"cb":"list_begin"}
 *   {"t":…,"cb":"object","event":"ADDED","namespace":"","name":"n1","rv":"123","nodeName":"",
 *    "deletionTimestamp":""}
 *   {"t":…,"cb":"list_end","objects":7}
 *   {"t":…,"cb":"health","ok":false,"why":"…"}
 *
 * --pause-after N stops the informer's thread in the callback of the Nth
 * object of the first list (printing {"cb":"paused"}) until the file
 * --pause-file exists: the next page is asked for only then, which lets a
 * test compact etcd between two pages of one list.
 *
 * Usage: cluster-informer-probe --kubeconfig FILE --path /api/v1/nodes
 *            [--limit N] [--watch-seconds N] [--pause-after N --pause-file F]
 * Runs until SIGTERM or SIGINT, then stops the informer and exits 0; 2 on
 * bad usage or when the informer cannot start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/kubeconfig.h"
#include "kube/target.h"

#define PAUSE_MAX_SECONDS 120

struct probe {
    unsigned objects;    /* since the last list_begin */
    unsigned lists_done; /* list_end seen */
    unsigned pause_after;
    const char *pause_file;
    bool paused_once;
};

static volatile sig_atomic_t stop_asked;

static void on_signal(int sig)
{
    (void)sig;
    stop_asked = 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints @line with the time added ("t") and flushes: the tests read
 * the file as it grows. */
static void emit(cJSON *line)
{
    cJSON_AddNumberToObject(line, "t", now());
    char *text = cJSON_PrintUnformatted(line);
    if (text != NULL) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    cJSON_free(text);
    cJSON_Delete(line);
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void on_list_begin(void *ctx)
{
    struct probe *p = ctx;
    p->objects = 0;
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "list_begin");
    emit(l);
}

static void on_list_end(void *ctx)
{
    struct probe *p = ctx;
    p->lists_done++;
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "list_end");
    cJSON_AddNumberToObject(l, "objects", p->objects);
    emit(l);
}

static void pause_here(const struct probe *p)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "paused");
    emit(l);
    for (int i = 0; i < PAUSE_MAX_SECONDS * 20 && !stop_asked; i++) {
        if (access(p->pause_file, F_OK) == 0)
            break;
        struct timespec t = {0, 50 * 1000 * 1000};
        nanosleep(&t, NULL);
    }
    l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "resumed");
    emit(l);
}

static void on_object(void *ctx, enum kube_event ev, const cJSON *obj)
{
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    struct probe *p = ctx;
    p->objects++;
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "object");
    cJSON_AddStringToObject(l, "event", names[ev]);
    cJSON_AddStringToObject(l, "namespace", str_at(obj, "metadata", "namespace"));
    cJSON_AddStringToObject(l, "name", str_at(obj, "metadata", "name"));
    cJSON_AddStringToObject(l, "rv", str_at(obj, "metadata", "resourceVersion"));
    cJSON_AddStringToObject(l, "nodeName", str_at(obj, "spec", "nodeName"));
    cJSON_AddStringToObject(l, "deletionTimestamp", str_at(obj, "metadata", "deletionTimestamp"));
    emit(l);
    if (p->pause_file != NULL && !p->paused_once && p->lists_done == 0 &&
        p->objects == p->pause_after) {
        p->paused_once = true;
        pause_here(p);
    }
}

static void on_health(void *ctx, bool ok, const char *why)
{
    (void)ctx;
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "cb", "health");
    cJSON_AddBoolToObject(l, "ok", ok);
    cJSON_AddStringToObject(l, "why", why != NULL ? why : "");
    emit(l);
}

static int usage(void)
{
    fprintf(stderr, "usage: cluster-informer-probe --kubeconfig FILE --path PATH [--limit N] "
                    "[--watch-seconds N] [--pause-after N --pause-file FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *kubeconfig = NULL;
    struct kube_informer_params params = {
        .name = "probe",
        .page_limit = 500,
        .watch_seconds = 300,
        .request_timeout = 30,
        /* Short backoff: the tests time what the informer does once the
         * server is back, not how long it waits to ask. */
        .backoff_initial_ms = 100,
        .backoff_max_ms = 500,
    };
    struct probe probe = {0};
    struct kube_informer_ops ops = {
        .on_list_begin = on_list_begin,
        .on_list_end = on_list_end,
        .on_object = on_object,
        .on_health = on_health,
    };
    struct kube_target t = {0};
    struct kube_client *c = NULL;
    struct kube_informer *inf = NULL;
    char err[ERR_LEN];
    int rc = 2;

    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "--kubeconfig") == 0)
            kubeconfig = v;
        else if (strcmp(k, "--path") == 0)
            params.path = v;
        else if (strcmp(k, "--limit") == 0)
            params.page_limit = atoi(v);
        else if (strcmp(k, "--watch-seconds") == 0)
            params.watch_seconds = atoi(v);
        else if (strcmp(k, "--pause-after") == 0)
            probe.pause_after = (unsigned)atoi(v);
        else if (strcmp(k, "--pause-file") == 0)
            probe.pause_file = v;
        else
            return usage();
    }
    if (argc % 2 != 1 || kubeconfig == NULL || params.path == NULL ||
        (probe.pause_file != NULL) != (probe.pause_after > 0))
        return usage();

    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
        return 2;
    if (kube_global_init() != 0)
        return 2;
    if (kube_load_kubeconfig(kubeconfig, NULL, &t, err) != 0 || kube_client_new(&t, &c, err) != 0 ||
        kube_informer_start(c, &params, &ops, &probe, &inf, err) != 0) {
        fprintf(stderr, "cluster-informer-probe: %s\n", err);
        goto out_free;
    }
    while (!stop_asked) {
        struct timespec tenth = {0, 100 * 1000 * 1000};
        nanosleep(&tenth, NULL);
    }
    rc = 0;
    kube_informer_stop(inf);
out_free:
    kube_client_free(c);
    kube_target_destroy(&t);
    kube_global_cleanup();
    return rc;
}
