#include "server/http/slots.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "server/ops/access_log.h"

/* TCP_INFO's last-received time has the kernel's tick as its grain. */
#define RECV_SLACK 0.01

struct http_slot {
    int fd;
    struct sockaddr_storage addr;
    enum http_phase phase;
    double since; /* when the phase began (HEAD: the request's first byte, at most) */
    bool cut;     /* shut down; gone once removed */
    /* The request's reservation in the memory budget, and its upload. */
    bool holds_memory;
    size_t announced, received; /* body bytes: announced (or charged), received so far */
    double progress;            /* the last body byte, or the last answer byte taken */
    int unsent;                 /* the answer's bytes in the kernel at the last look */
    struct http_slot *prev, *next;
};

int http_slots_init(struct http_slots *s, int connection_limit, int per_ip_limit,
                    struct ops_metrics *metrics)
{
    int rc = pthread_mutex_init(&s->lock, NULL);
    if (rc != 0)
        return -rc;
    s->head = NULL;
    s->connection_limit = connection_limit;
    s->per_ip_limit = per_ip_limit;
    s->metrics = metrics;
    return 0;
}

void http_slots_destroy(struct http_slots *s)
{
    while (s->head != NULL) {
        struct http_slot *next = s->head->next;
        free(s->head);
        s->head = next;
    }
    pthread_mutex_destroy(&s->lock);
}

static bool is_same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return false;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    return false;
}

/* With the lock held. The descriptor is still open: libmicrohttpd closes
 * it only after NOTIFY_CLOSED, which takes the lock to remove the entry;
 * its thread then reads end-of-file and closes the connection as usual. */
static void cut(struct http_slots *s, struct http_slot *c, double now, enum ops_refusal reason,
                const char *why)
{
    c->cut = true;
    shutdown(c->fd, SHUT_RDWR);
    ops_metrics_refused(s->metrics, reason);
    ops_access_log_refused(reason, 0, why, (const struct sockaddr *)&c->addr, now - c->since);
}

/* With the lock held: an idle connection that received bytes after its
 * last request ended has a new request under way, its headers not yet
 * complete (else the handler would have moved it on). libmicrohttpd has
 * read those bytes already; the kernel still knows when they came. */
static void notice_new_request(struct http_slot *c, double now)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
        return; /* not TCP: nothing to notice */
    double last = now - ti.tcpi_last_data_recv / 1000.0;
    if (last > c->since + RECV_SLACK) {
        c->phase = HTTP_PHASE_HEAD;
        c->since = last; /* its last byte so far: the deadline errs late, by a drip */
    }
}

/* With the lock held: the order in which @c is closed to make room, lowest
 * first (-1: never). Idle connections go first, oldest idle first: a
 * kept-alive connection costs its client only a new connect; then
 * incomplete requests, headers before bodies; then answers left unread. */
static int evict_rank(struct http_slot *c, double now)
{
    static const int rank[] = {[HTTP_PHASE_IDLE] = 0,
                               [HTTP_PHASE_HEAD] = 1,
                               [HTTP_PHASE_BODY] = 2,
                               [HTTP_PHASE_SEND] = 3,
                               [HTTP_PHASE_BUSY] = -1}; /* being decided */
    if (c->cut)
        return -1;
    if (c->phase == HTTP_PHASE_IDLE)
        notice_new_request(c, now); /* bytes since: a request under way */
    if (now - c->since < HTTP_SLOTS_EVICT_MIN_AGE)
        return -1;
    return rank[c->phase];
}

static const char *const evict_why[] = {
    [HTTP_PHASE_IDLE] = "closed to make room, slots full: idle keep-alive connection",
    [HTTP_PHASE_HEAD] = "closed to make room, slots full: headers not complete",
    [HTTP_PHASE_BODY] = "closed to make room, slots full: body not complete",
    [HTTP_PHASE_SEND] = "closed to make room, slots full: answer not read by the client",
};

/* With the lock held: the connections not cut, from @from (NULL: all). */
static int count_live(const struct http_slots *s, const struct sockaddr *from)
{
    int n = 0;
    for (const struct http_slot *c = s->head; c != NULL; c = c->next)
        n += !c->cut && (from == NULL || is_same_ip((const struct sockaddr *)&c->addr, from));
    return n;
}

/* With the lock held: the most connections one address holds. */
static int heaviest(const struct http_slots *s)
{
    int most = 0;
    for (const struct http_slot *c = s->head; c != NULL; c = c->next) {
        int n = c->cut ? 0 : count_live(s, (const struct sockaddr *)&c->addr);
        most = n > most ? n : most;
    }
    return most;
}

/* With the lock held: closes the connection first in evict_rank's order,
 * from @from only when not NULL, and only from an address holding @holding
 * connections when that is not 0. Returns whether one was closed. */
static bool evict_oldest(struct http_slots *s, const struct sockaddr *from, int holding, double now)
{
    struct http_slot *best = NULL;
    int best_rank = -1;
    for (struct http_slot *c = s->head; c != NULL; c = c->next) {
        const struct sockaddr *a = (const struct sockaddr *)&c->addr;
        if (from != NULL && !is_same_ip(a, from))
            continue;
        int rank = evict_rank(c, now);
        if (rank < 0 || (holding != 0 && count_live(s, a) != holding))
            continue;
        if (best == NULL || rank < best_rank || (rank == best_rank && c->since < best->since)) {
            best = c;
            best_rank = rank;
        }
    }
    if (best == NULL)
        return false;
    cut(s, best, now, OPS_REFUSAL_EVICTED, evict_why[best->phase]);
    return true;
}

int http_slots_admit(struct http_slots *s, const struct sockaddr *addr, double now)
{
    const char *why = NULL;
    pthread_mutex_lock(&s->lock);
    int mine = count_live(s, addr);
    bool last = count_live(s, NULL) + 1 >= s->connection_limit;
    if (mine >= s->per_ip_limit) {
        /* Its own connections make room, or it is refused. */
        why = "connection refused: its address is at its connection limit with requests in "
              "progress";
    } else if (last && mine > 0 && mine >= s->connection_limit / HTTP_SLOTS_HEAVY_SHARE) {
        /* Nearly full, and it holds many already: it makes room from its
         * own, else it is refused at once. Making room for it elsewhere
         * would only let it churn the slots while the backlog, where
         * kube-scheduler's and the kubelet's connections wait, stands. */
        why = "connection refused: the slots are nearly full and its address holds many of "
              "them, with requests in progress";
    } else if (last && !evict_oldest(s, NULL, heaviest(s), now)) {
        /* Room for the next one, from the address that holds the most. */
        evict_oldest(s, NULL, 0, now);
    }
    if (why != NULL && evict_oldest(s, addr, 0, now))
        why = NULL;
    if (why != NULL) {
        ops_metrics_refused(s->metrics, OPS_REFUSAL_PER_IP_LIMIT);
        ops_access_log_refused(OPS_REFUSAL_PER_IP_LIMIT, 0, why, addr, 0);
    }
    pthread_mutex_unlock(&s->lock);
    return why != NULL ? -EBUSY : 0;
}

struct http_slot *http_slots_add(struct http_slots *s, int fd, const struct sockaddr *addr,
                                 double now)
{
    struct http_slot *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->fd = fd;
    memcpy(&c->addr, addr,
           addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    c->phase = HTTP_PHASE_HEAD;
    c->since = now;
    pthread_mutex_lock(&s->lock);
    c->next = s->head;
    if (s->head != NULL)
        s->head->prev = c;
    s->head = c;
    pthread_mutex_unlock(&s->lock);
    return c;
}

void http_slots_remove(struct http_slots *s, struct http_slot *c)
{
    pthread_mutex_lock(&s->lock);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        s->head = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&s->lock);
    free(c);
}

void http_slots_set_phase(struct http_slots *s, struct http_slot *c, enum http_phase phase,
                          double now)
{
    pthread_mutex_lock(&s->lock);
    c->phase = phase;
    c->since = now;
    c->progress = now;
    c->unsent = 0;
    if (phase == HTTP_PHASE_HEAD || phase == HTTP_PHASE_IDLE)
        c->holds_memory = false; /* the request ended: its memory is back */
    if (phase == HTTP_PHASE_BODY)
        c->announced = c->received = 0;
    pthread_mutex_unlock(&s->lock);
}

void http_slots_set_body(struct http_slots *s, struct http_slot *c, size_t announced, double now)
{
    pthread_mutex_lock(&s->lock);
    c->holds_memory = true;
    c->announced = announced;
    c->received = 0;
    c->progress = now;
    pthread_mutex_unlock(&s->lock);
}

void http_slots_body_progress(struct http_slots *s, struct http_slot *c, size_t received,
                              double now)
{
    pthread_mutex_lock(&s->lock);
    c->received = received;
    c->progress = now;
    pthread_mutex_unlock(&s->lock);
}

/* With the lock held: how far @c, holding memory, is from giving it back
 * (seconds; negative: not to be closed for memory). An upload counts when
 * no byte came for HTTP_SLOTS_EVICT_MIN_AGE, or when at its rate so far it
 * would not be complete within the request @deadline of its headers (it
 * would be cut then anyway); an answer when its client took nothing for
 * HTTP_SLOTS_EVICT_MIN_AGE. A steady upload that will make it stays. */
static double memory_stall(const struct http_slot *c, double now, double deadline)
{
    if (c->cut || !c->holds_memory || now - c->since < HTTP_SLOTS_EVICT_MIN_AGE)
        return -1;
    double stall = now - c->progress;
    if (c->phase == HTTP_PHASE_SEND)
        return stall >= HTTP_SLOTS_EVICT_MIN_AGE ? stall : -1;
    if (c->phase != HTTP_PHASE_BODY)
        return -1; /* being decided: its memory is at work */
    if (stall >= HTTP_SLOTS_EVICT_MIN_AGE)
        return stall;
    double rest = (double)(c->announced > c->received ? c->announced - c->received : 0);
    double need = c->received > 0 ? rest * (now - c->since) / (double)c->received : 1e9;
    return now - c->since + need > deadline ? need : -1;
}

bool http_slots_evict_for_memory(struct http_slots *s, double now, double deadline)
{
    struct http_slot *best = NULL;
    double best_stall = HTTP_SLOTS_EVICT_MIN_AGE;
    pthread_mutex_lock(&s->lock);
    for (struct http_slot *c = s->head; c != NULL; c = c->next) {
        double stall = memory_stall(c, now, deadline);
        if (stall >= best_stall) {
            best = c;
            best_stall = stall;
        }
    }
    if (best != NULL)
        cut(s, best, now, OPS_REFUSAL_EVICTED,
            best->phase == HTTP_PHASE_BODY
                ? "closed to make room in the memory budget: body arriving too slowly"
                : "closed to make room in the memory budget: answer not read by the client");
    pthread_mutex_unlock(&s->lock);
    return best != NULL;
}

/* With the lock held: the client of an answer being written took some of
 * it since the last look (the kernel's send queue, the answer's bytes sent
 * and not yet acknowledged or not sent, moved). */
static void notice_answer_taken(struct http_slot *c, double now)
{
    int unsent = 0;
    if (ioctl(c->fd, SIOCOUTQ, &unsent) == -1)
        unsent = 0;
    if (unsent != c->unsent)
        c->progress = now;
    c->unsent = unsent;
}

void http_slots_tick(struct http_slots *s, double now, double deadline)
{
    pthread_mutex_lock(&s->lock);
    for (struct http_slot *c = s->head; c != NULL; c = c->next) {
        if (c->cut)
            continue;
        if (c->phase == HTTP_PHASE_IDLE)
            notice_new_request(c, now);
        if (c->phase == HTTP_PHASE_HEAD && now - c->since > deadline)
            cut(s, c, now, OPS_REFUSAL_HEADERS_TIMEOUT,
                "request headers not complete within the request timeout, connection closed");
        else if (c->phase == HTTP_PHASE_BODY && now - c->since > deadline)
            cut(s, c, now, OPS_REFUSAL_BODY_TIMEOUT,
                "request body not complete within the request timeout, connection closed");
        else if (c->phase == HTTP_PHASE_SEND)
            notice_answer_taken(c, now);
        if (!c->cut && c->phase == HTTP_PHASE_SEND && now - c->since > HTTP_SLOTS_WRITE_DEADLINE)
            cut(s, c, now, OPS_REFUSAL_WRITE_TIMEOUT,
                "answer not read by the client within the write deadline, connection closed");
    }
    /* Full, and the last accept could make no room (nothing was old enough
     * then): make it now, so the backlog moves. */
    if (count_live(s, NULL) >= s->connection_limit)
        evict_oldest(s, NULL, 0, now);
    pthread_mutex_unlock(&s->lock);
}
