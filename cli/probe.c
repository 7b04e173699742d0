#include "cli/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "config/load.h"
#include "server/http/probe.h"

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

/* GETs /healthz (or /readyz when @ready) from the listener @cfg names,
 * within 2 s. Returns 0 on 200, or -errno with the reason in @err. */
static int probe(const struct cfg *cfg, bool ready, char *err)
{
    const char *listen = cfg->metrics_listen[0] != '\0' ? cfg->metrics_listen : cfg->listen;
    const char *path = ready ? "/readyz" : "/healthz";
    struct http_probe_answer a;
    char host[CFG_STR_LEN];
    int port;

    if (cfg_listen_split(listen, host, &port) != 0 || port == 0) {
        err_set(err, "%s %s: need a fixed port to probe",
                listen == cfg->listen ? "listen" : "metrics-listen", listen);
        return -EINVAL;
    }
    int rc = http_probe_get(probe_host(host), port, cfg->tls_cert[0] != '\0', path,
                            PROBE_TIMEOUT_MS, &a, err);
    if (rc != 0)
        return rc;
    if (a.status != 200) {
        err_set(err, "%s answered %d %s", path, a.status, a.body);
        return -EAGAIN;
    }
    return 0;
}

int cli_probe_main(int argc, char **argv)
{
    struct cfg c;
    char err[ERR_LEN];
    bool ready = false;
    char *rest[64];
    int n = 0;

    if (cfg_wants_help(argc, argv)) {
        cli_probe_help(stdout);
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--ready") == 0)
            ready = true;
        else if (n < 64)
            rest[n++] = argv[i];
    }
    if (cfg_load_options(&c, n, rest) != 0)
        return 2;
    if (probe(&c, ready, err) != 0) {
        fprintf(stderr, "cpu-extender probe: %s\n", err);
        return 1;
    }
    return 0;
}
