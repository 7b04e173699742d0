/*
 * The process_* families of /metrics as the Prometheus client libraries
 * define them (client_golang's process collector): CPU time, memory,
 * file descriptors and start time, read from /proc/self at each scrape.
 */
#ifndef SERVER_OPS_PROCESS_H
#define SERVER_OPS_PROCESS_H

#include <stdbool.h>
#include <stdio.h>

struct ops_process {
    double cpu_seconds;        /* user + system, /proc/self/stat utime + stime */
    double resident_bytes;     /* rss pages x page size */
    double virtual_bytes;      /* vsize */
    double open_fds;           /* entries of /proc/self/fd */
    double max_fds;            /* the soft RLIMIT_NOFILE */
    double start_time_seconds; /* since the epoch: boot time + starttime */
};

/* Reads the process's figures now. Returns 0, or -errno when /proc cannot
 * be read (then nothing is shown). Thread-safe. */
int ops_process_read(struct ops_process *p);

/* Writes the six families with their HELP and TYPE lines to @f. */
void ops_process_print(FILE *f, const struct ops_process *p);

#endif
