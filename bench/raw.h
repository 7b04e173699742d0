/*
 * The raw loopback floor of the benchmark: what moving a body's bytes over
 * a TCP connection on 127.0.0.1 and getting a small answer back costs, with
 * no HTTP and no work on the bytes. The HTTP round trip is compared with
 * the handler plus this (issue 25, item 1).
 */
#ifndef BENCH_RAW_H
#define BENCH_RAW_H

#include <stddef.h>

/* p50 in ms of @rounds round trips: @len bytes of @body sent over one
 * loopback connection to a reader thread in this process, which receives
 * them into one buffer of @len bytes (as the server receives a body into
 * its arena) and answers 64 bytes. Returns a negative value on failure. */
double bench_raw_roundtrip_ms(const char *body, size_t len, int rounds);

#endif
