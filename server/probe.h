/*
 * `cpu-extender probe [--ready]`: kubelet's exec probe. Kubelet's HTTP
 * probes reach the pod IP, not the loopback the extender listens on, so the
 * binary itself asks its own listener for /healthz (or /readyz).
 */
#ifndef SERVER_PROBE_H
#define SERVER_PROBE_H

#include <stdbool.h>

#include "config/config.h"

/*
 * GETs /healthz (or /readyz when @ready) from cfg->listen, a wildcard
 * address being probed on loopback, within 2 s.
 * Returns 0 on 200, or -errno with the reason in @err.
 */
int srv_probe(const struct cfg *cfg, bool ready, char err[CFG_ERR_LEN]);

#endif
