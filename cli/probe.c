#include "cli/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "base/err.h"
#include "config/load.h"

#define PROBE_TIMEOUT_MS 2000

/* A wildcard listen address is probed on the matching loopback. */
static const char *probe_host(const char *host)
{
    if (strcmp(host, "0.0.0.0") == 0)
        return "127.0.0.1";
    if (strcmp(host, "::") == 0)
        return "::1";
    return host;
}

void cli_probe_help(FILE *out)
{
    fprintf(out,
            "Usage: cpu-extender probe [--ready] [options]\n\n"
            "Asks the running extender whether it is healthy (GET /healthz) or, with --ready,\n"
            "ready (GET /readyz: serving and, with a cluster, its first lists are in), and\n"
            "exits 0 if it answers 200, 1 otherwise (the reason on stderr): for the kubelet's\n"
            "exec probes. It reads the same configuration as the server (give it the same\n"
            "--config, flags and environment) and asks the address the server listens on:\n"
            "metrics-listen when set (a wildcard address on loopback), else listen. With\n"
            "tls-cert set it speaks HTTPS, without verifying the certificate (it asks its own\n"
            "pod over loopback) and without a client certificate: /healthz and /readyz need\n"
            "none, even with client-ca. Gives up after %d ms.\n\n"
            "  --ready    probe /readyz instead of /healthz\n"
            "  --help     this text\n\n"
            "Every server option is accepted (cpu-extender --help lists them); those that\n"
            "say where and how it listens are the ones that matter here.\n",
            PROBE_TIMEOUT_MS);
}

/* The start of an answer's body: enough to say why it is not 200. */
struct answer {
    char body[512];
    size_t len;
};

static size_t keep_start(char *p, size_t size, size_t n, void *cls)
{
    struct answer *a = cls;
    size_t room = sizeof(a->body) - 1 - a->len, take = n < room ? n : room;
    memcpy(a->body + a->len, p, take);
    a->len += take;
    a->body[a->len] = '\0';
    return size * n;
}

/*
 * GETs @path from @host:@port over TLS 1.2 or later when @tls, within
 * PROBE_TIMEOUT_MS; *@status is the HTTP status. The server's certificate
 * is not verified: the probe asks the listener of its own pod, over
 * loopback, and the certificate may name only the address kube-scheduler
 * dials. No client certificate is sent (/healthz and /readyz never need
 * one); a name (not an address) is sent as the TLS server name. Returns 0,
 * or -errno with the reason in @err.
 */
static int get(const char *host, int port, bool tls, const char *path, long *status,
               struct answer *a, char *err)
{
    char url[CFG_STR_LEN + 64], curl_err[CURL_ERROR_SIZE] = "";
    bool v6 = strchr(host, ':') != NULL;
    snprintf(url, sizeof(url), "%s://%s%s%s:%d%s", tls ? "https" : "http", v6 ? "[" : "", host,
             v6 ? "]" : "", port, path);
    CURL *h = curl_easy_init();
    if (h == NULL)
        return err_fail(err, -ENOMEM, "out of memory");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*"); /* its own pod: never through a proxy */
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)PROBE_TIMEOUT_MS);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cpu-extender-probe");
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_start);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(h);
    const char *why = curl_err[0] != '\0' ? curl_err : curl_easy_strerror(rc);
    switch (rc) {
    case CURLE_OK:
        return 0;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
        return err_fail(err, -ECONNREFUSED, "cannot connect to %s port %d", host, port);
    case CURLE_OPERATION_TIMEDOUT:
        return err_fail(err, -ETIMEDOUT, "no HTTP answer from %s port %d within %d ms%s", host,
                        port, PROBE_TIMEOUT_MS,
                        tls ? "" : " (is it serving HTTPS? tls-cert is not set here)");
    case CURLE_SSL_CONNECT_ERROR:
        return err_fail(err, -EPROTO, "TLS handshake with %s failed: %s", host, why);
    default:
        return err_fail(err, -EPROTO, "no HTTP answer from %s port %d: %s%s", host, port, why,
                        tls ? "" : " (is it serving HTTPS? tls-cert is not set here)");
    }
}

/* GETs /healthz (or /readyz when @ready) from the listener @cfg names.
 * Returns 0 on 200, or -errno with the reason in @err. */
static int probe(const struct cfg *cfg, bool ready, char *err)
{
    const char *listen = cfg->metrics_listen[0] != '\0' ? cfg->metrics_listen : cfg->listen;
    const char *path = ready ? "/readyz" : "/healthz";
    struct answer a = {.len = 0};
    char host[CFG_STR_LEN];
    long status = 0;
    int port;

    if (cfg_listen_split(listen, host, &port) != 0 || port == 0)
        return err_fail(err, -EINVAL, "%s %s: need a fixed port to probe",
                        listen == cfg->listen ? "listen" : "metrics-listen", listen);
    int rc = get(probe_host(host), port, cfg->tls_cert[0] != '\0', path, &status, &a, err);
    if (rc != 0)
        return rc;
    if (status != 200)
        return err_fail(err, -EAGAIN, "%s answered %ld %s", path, status, a.body);
    return 0;
}

int cli_probe_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];
    bool ready = false;
    char *rest[64];
    int n = 0;

    /* --help is main()'s. */
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--ready") == 0)
            ready = true;
        else if (n < 64)
            rest[n++] = argv[i];
    }
    if (cfg_load_options(&c, n, rest) != 0)
        return 2;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = probe(&c, ready, err);
    curl_global_cleanup();
    if (rc != 0) {
        fprintf(stderr, "cpu-extender probe: %s\n", err);
        return 1;
    }
    return 0;
}
