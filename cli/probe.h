/*
 * `cpu-extender probe [--ready]`: kubelet's exec probe. Kubelet's HTTP
 * probes reach the pod IP, not the loopback the extender listens on, so the
 * binary itself asks its own listener for /healthz (or /readyz).
 */
#ifndef CLI_PROBE_H
#define CLI_PROBE_H

#include <stdbool.h>
#include <stdio.h>

#include "config/config.h"

/* `probe --help`: what it asks, where, and over what. */
void cli_probe_help(FILE *out);

/* `cpu-extender probe [--ready] [options]`: exit status 0 when healthy
 * (or ready), 1 when not, 2 for a bad configuration. */
int cli_probe_main(int argc, char **argv);

#endif
