/*
 * The process_* families of /metrics as the Prometheus client libraries
 * define them (client_golang's process collector): CPU time, memory,
 * file descriptors and start time, read from /proc/self at each scrape.
 */
#ifndef SERVER_OPS_PROCESS_H
#define SERVER_OPS_PROCESS_H

#include <stdio.h>

/* Writes the six families with their HELP and TYPE lines to @f, read
 * now; nothing when /proc cannot be read. Thread-safe. */
void ops_process_print(FILE *f);

#endif
