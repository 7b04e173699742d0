/*
 * The memory budget (issue 14): every verb request reserves, at its
 * headers and before its body is read, the memory it may use
 * (verb_memory_charge(): its arena, body included), and gives it back when
 * its answer has been sent. When the reservations of the requests in
 * flight leave no room, a request waits briefly for one to end, else it is
 * refused with 503 and Retry-After: concurrent large requests are admitted
 * against the budget instead of taking the process past its container's
 * limit, where the kernel would kill it and fail every pod being
 * scheduled. A request's arena that needs more than it reserved takes more
 * from the budget without waiting (http_budget_try); when there is none,
 * the request fails, alone.
 *
 * The budget is memoryBudgetBytes, or by default derived from the
 * cgroup's memory limit (http_budget_derive), or none (every request
 * admitted, only counted) when there is no limit or memoryBudgetBytes is -1.
 *
 * Thread-safe: one mutex and one condition variable.
 */
#ifndef SERVER_HTTP_BUDGET_H
#define SERVER_HTTP_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "server/ops/metrics.h"

struct http_budget;

/* What a default budget leaves outside it: the process at rest (about
 * 10 MiB, more with a cluster's state: 34 MiB for 5000 nodes and 150 000
 * pods), the arenas kept warm (8 MiB), thread stacks and libmicrohttpd's
 * connection buffers (64 connections: about 12 MiB), the decisions ring
 * (up to decisionsMaxBytes): the larger of 64 MiB and a quarter of the
 * limit (docs/reliability.md, "Memory"). */
#define HTTP_BUDGET_HEADROOM_MIN ((uint64_t)64 << 20)

/* The budget for a cgroup memory limit of @limit bytes (UINT64_MAX: none,
 * and then 0: no budget): @limit less the larger of
 * HTTP_BUDGET_HEADROOM_MIN and @limit / 4; 0 when that leaves nothing. */
uint64_t http_budget_derive(uint64_t limit);

/*
 * The memory limit of the cgroup this process is in, read as the kernel
 * applies it: the smallest memory.max (cgroup v2) or memory.limit_in_bytes
 * (v1) of its cgroup and the cgroups above it, as listed in @proc_cgroup
 * (/proc/self/cgroup) and found under @root (/sys/fs/cgroup); in a
 * container whose cgroup is mounted as the root, the root's own file.
 * Sets *@limit (UINT64_MAX when there is none) and returns 0, or -ENOENT
 * when no limit file could be read (not in a cgroup with memory
 * accounting). @source gets the file that set the limit ("" for none),
 * @n bytes.
 */
int http_budget_cgroup_limit(const char *proc_cgroup, const char *root, uint64_t *limit,
                             char *source, size_t n);

/* A budget of @bytes (0: none, every reservation granted), its gauges and
 * refusals counted in @metrics (borrowed, must outlive it). Returns 0 and
 * the budget in *@out, or -ENOMEM. */
int http_budget_new(uint64_t bytes, struct ops_metrics *metrics, struct http_budget **out);

/* Frees @b (NULL is fine); nothing may be reserved any more. */
void http_budget_free(struct http_budget *b);

/* A new size (reload): later reservations are admitted against it; those
 * in flight stay. Wakes the waiting requests. */
void http_budget_resize(struct http_budget *b, uint64_t bytes);

/* The size, 0 for none. */
uint64_t http_budget_size(struct http_budget *b);

/*
 * Reserves @bytes, waiting until @deadline (CLOCK_MONOTONIC) for the
 * requests in flight to leave room. Returns 0; -E2BIG at once when @bytes
 * is more than the whole budget (no wait could help); -ETIMEDOUT when
 * there was no room by @deadline. With no budget, 0 at once.
 */
int http_budget_reserve(struct http_budget *b, uint64_t bytes, const struct timespec *deadline);

/* Reserves @bytes only if there is room now. Returns 0 or -ENOSPC. */
int http_budget_try(struct http_budget *b, uint64_t bytes);

/* Gives back @bytes reserved before, and wakes the waiting requests. */
void http_budget_release(struct http_budget *b, uint64_t bytes);

/* Bytes reserved now (the gauge). */
uint64_t http_budget_reserved(struct http_budget *b);

#endif
