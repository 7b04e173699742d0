/* server/http/slots.c: which requests the guard cuts, and which it closes
 * to make room, with times given and socket pairs for connections. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/http/slots.h"
#include "server/ops/metrics.h"
#include "tests/suites.h"

static struct ops_metrics metrics;

static void reset_metrics(void)
{
    ops_metrics_init(&metrics);
}

static unsigned long long refused(enum ops_refusal r)
{
    return atomic_load(&metrics.refused[r]);
}

/* One tracked connection: the server's end is in the slots, the test
 * keeps the client's end to see whether it was cut. */
struct conn {
    int server_fd, client_fd;
    struct http_slot *slot;
};

static struct sockaddr_in addr_of(const char *ip)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    ck_assert_int_eq(inet_pton(AF_INET, ip, &a.sin_addr), 1);
    return a;
}

static void open_conn(struct http_slots *s, struct conn *c, const char *ip, double now)
{
    int sv[2];
    struct sockaddr_in a = addr_of(ip);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    c->server_fd = sv[0];
    c->client_fd = sv[1];
    c->slot = http_slots_add(s, c->server_fd, (const struct sockaddr *)&a, now);
    ck_assert_ptr_nonnull(c->slot);
}

/* The server's end was shut down: the client reads end-of-file. */
static int is_cut(const struct conn *c)
{
    char b;
    return recv(c->client_fd, &b, 1, MSG_DONTWAIT) == 0;
}

static void close_conns(struct http_slots *s, struct conn *cs, int n)
{
    for (int i = 0; i < n; i++) {
        http_slots_remove(s, cs[i].slot);
        close(cs[i].server_fd);
        close(cs[i].client_fd);
    }
    http_slots_destroy(s);
}

static int admit(struct http_slots *s, const char *ip, double now)
{
    struct sockaddr_in a = addr_of(ip);
    return http_slots_admit(s, (const struct sockaddr *)&a, now);
}

/* Headers and bodies get the deadline from the start of their phase;
 * answers and idle connections get none. */
START_TEST(slots_incomplete_requests_are_cut_at_the_deadline)
{
    struct http_slots s;
    struct conn c[4];
    ck_assert_int_eq(http_slots_init(&s, 64, 32, &metrics), 0);
    for (int i = 0; i < 4; i++)
        open_conn(&s, &c[i], "10.0.0.1", 0);
    http_slots_set_phase(&s, c[1].slot, HTTP_PHASE_BODY, 0.5);
    http_slots_set_phase(&s, c[2].slot, HTTP_PHASE_BUSY, 0.5);
    http_slots_set_phase(&s, c[3].slot, HTTP_PHASE_IDLE, 0.5);
    http_slots_tick(&s, 1.0, 1.0); /* exactly at the deadline: not past it */
    for (int i = 0; i < 4; i++)
        ck_assert_msg(!is_cut(&c[i]), "connection %d cut at 1.0 s", i);
    http_slots_tick(&s, 1.05, 1.0);
    ck_assert(is_cut(&c[0])); /* headers since 0 */
    ck_assert(!is_cut(&c[1]));
    http_slots_tick(&s, 1.55, 1.0);
    ck_assert(is_cut(&c[1])); /* body since 0.5 */
    http_slots_tick(&s, 1000, 1.0);
    ck_assert(!is_cut(&c[2]));
    ck_assert(!is_cut(&c[3]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_HEADERS_TIMEOUT), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_BODY_TIMEOUT), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 0);
    close_conns(&s, c, 4);
}
END_TEST

/* An address at its limit gets in when one of its requests has waited
 * half a second for its headers, the longest-waiting one making room;
 * other addresses are not touched. */
START_TEST(slots_per_ip_limit_makes_room_from_the_same_address)
{
    struct http_slots s;
    struct conn c[4];
    ck_assert_int_eq(http_slots_init(&s, 64, 3, &metrics), 0);
    open_conn(&s, &c[0], "10.0.0.9", 0); /* another address, older than all */
    open_conn(&s, &c[1], "10.0.0.1", 0.1);
    open_conn(&s, &c[2], "10.0.0.1", 0.2);
    open_conn(&s, &c[3], "10.0.0.1", 0.05);
    http_slots_set_phase(&s, c[3].slot, HTTP_PHASE_BUSY, 0.05); /* being answered */
    ck_assert_int_eq(admit(&s, "10.0.0.2", 0.3), 0);
    ck_assert_int_eq(admit(&s, "10.0.0.1", 0.55), -EBUSY); /* none waited 0.5 s yet */
    for (int i = 0; i < 4; i++)
        ck_assert(!is_cut(&c[i]));
    ck_assert_int_eq(admit(&s, "10.0.0.1", 0.65), 0);
    ck_assert(is_cut(&c[1]));
    ck_assert(!is_cut(&c[0]) && !is_cut(&c[2]) && !is_cut(&c[3]));
    /* the cut one no longer counts: room without another cut */
    ck_assert_int_eq(admit(&s, "10.0.0.1", 0.66), 0);
    ck_assert(!is_cut(&c[2]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_PER_IP_LIMIT), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_HEADERS_TIMEOUT), 0);
    close_conns(&s, c, 4);
}
END_TEST

/* The connection that takes the last slot closes the longest-waiting
 * incomplete request, headers before bodies, for the next one. */
START_TEST(slots_last_slot_makes_room_headers_first)
{
    struct http_slots s;
    struct conn c[3];
    ck_assert_int_eq(http_slots_init(&s, 4, 4, &metrics), 0);
    open_conn(&s, &c[0], "10.0.0.1", 0);
    http_slots_set_phase(&s, c[0].slot, HTTP_PHASE_BODY, 0); /* oldest, but a body */
    open_conn(&s, &c[1], "10.0.0.2", 0.3);
    open_conn(&s, &c[2], "10.0.0.3", 0.2);
    ck_assert_int_eq(admit(&s, "10.0.0.4", 1.0), 0); /* 3 + 1 = 4: the last slot */
    ck_assert(is_cut(&c[2]));
    ck_assert(!is_cut(&c[0]) && !is_cut(&c[1]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_PER_IP_LIMIT), 0);
    close_conns(&s, c, 3);
}
END_TEST

/* Every slot taken and nothing old enough at the last accept: the
 * watchdog makes the room once one is, deadline or not. */
START_TEST(slots_full_slots_make_room_at_the_tick)
{
    struct http_slots s;
    struct conn c[2];
    ck_assert_int_eq(http_slots_init(&s, 2, 2, &metrics), 0);
    open_conn(&s, &c[0], "10.0.0.1", 0);
    open_conn(&s, &c[1], "10.0.0.2", 0.2);
    http_slots_tick(&s, 0.4, 30);
    ck_assert(!is_cut(&c[0]) && !is_cut(&c[1]));
    http_slots_tick(&s, 0.6, 30);
    ck_assert(is_cut(&c[0]));
    ck_assert(!is_cut(&c[1]));
    http_slots_tick(&s, 0.8, 30); /* one slot free now: nothing more */
    ck_assert(!is_cut(&c[1]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 1);
    close_conns(&s, c, 2);
}
END_TEST

/* Idle keep-alive connections make room before incomplete requests,
 * the one idle longest first, once idle half a second (issue 23: sixteen
 * idle connections after a GET /healthz held every slot). */
START_TEST(slots_idle_connections_make_room_oldest_first)
{
    struct http_slots s;
    struct conn c[3];
    ck_assert_int_eq(http_slots_init(&s, 4, 4, &metrics), 0);
    open_conn(&s, &c[0], "10.0.0.1", 0); /* headers, oldest of all */
    open_conn(&s, &c[1], "10.0.0.2", 0);
    open_conn(&s, &c[2], "10.0.0.3", 0);
    http_slots_set_phase(&s, c[1].slot, HTTP_PHASE_IDLE, 0.3);
    http_slots_set_phase(&s, c[2].slot, HTTP_PHASE_IDLE, 0.1);
    ck_assert_int_eq(admit(&s, "10.0.0.4", 1.0), 0); /* the last slot */
    ck_assert(is_cut(&c[2]));
    ck_assert(!is_cut(&c[0]) && !is_cut(&c[1]));
    close_conns(&s, c, 3);
}
END_TEST

/* An address whose slots are all idle keep-alive connections is not
 * refused: its connection idle longest makes room; one idle for less
 * than half a second does not. */
START_TEST(slots_per_ip_limit_of_idle_connections_makes_room)
{
    struct http_slots s;
    struct conn c[2];
    ck_assert_int_eq(http_slots_init(&s, 16, 2, &metrics), 0);
    open_conn(&s, &c[0], "10.0.0.1", 0);
    open_conn(&s, &c[1], "10.0.0.1", 0);
    http_slots_set_phase(&s, c[0].slot, HTTP_PHASE_IDLE, 0.2);
    http_slots_set_phase(&s, c[1].slot, HTTP_PHASE_IDLE, 0.1);
    ck_assert_int_eq(admit(&s, "10.0.0.1", 0.5), -EBUSY);
    ck_assert_int_eq(admit(&s, "10.0.0.1", 0.7), 0);
    ck_assert(is_cut(&c[1]) && !is_cut(&c[0]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 1);
    close_conns(&s, c, 2);
}
END_TEST

/* An answer its client does not take is cut at the write deadline from
 * its queueing; idle connections and requests being decided are not. */
START_TEST(slots_unread_answer_is_cut_at_the_write_deadline)
{
    struct http_slots s;
    struct conn c[3];
    ck_assert_int_eq(http_slots_init(&s, 64, 32, &metrics), 0);
    for (int i = 0; i < 3; i++)
        open_conn(&s, &c[i], "10.0.0.1", 0);
    http_slots_set_phase(&s, c[0].slot, HTTP_PHASE_SEND, 1.0);
    http_slots_set_phase(&s, c[1].slot, HTTP_PHASE_BUSY, 1.0);
    http_slots_set_phase(&s, c[2].slot, HTTP_PHASE_IDLE, 1.0);
    http_slots_tick(&s, 1.0 + HTTP_SLOTS_WRITE_DEADLINE - 0.1, 30);
    ck_assert(!is_cut(&c[0]));
    http_slots_tick(&s, 1.0 + HTTP_SLOTS_WRITE_DEADLINE + 0.1, 30);
    ck_assert(is_cut(&c[0]));
    ck_assert(!is_cut(&c[1]) && !is_cut(&c[2]));
    close_conns(&s, c, 3);
}
END_TEST

/* The memory budget short: the upload stalled longest goes first (a
 * byte of 32 MiB), then the answer left unread; a steady upload, one
 * that would finish within the deadline, a request being decided and
 * anything younger than half a second stay; a dripping upload that could
 * not finish within the deadline goes. */
START_TEST(slots_memory_short_closes_the_stalled_upload_first)
{
    struct http_slots s;
    struct conn c[5];
    ck_assert_int_eq(http_slots_init(&s, 64, 32, &metrics), 0);
    for (int i = 0; i < 5; i++)
        open_conn(&s, &c[i], "10.0.0.1", 0);
    http_slots_set_phase(&s, c[0].slot, HTTP_PHASE_BODY, 0.1); /* a byte of 32 MiB */
    http_slots_set_body(&s, c[0].slot, 32u << 20, 0.1);
    http_slots_body_progress(&s, c[0].slot, 1, 0.2);
    http_slots_set_phase(&s, c[1].slot, HTTP_PHASE_BODY, 0.3); /* steady: 90 % in 0.7 s */
    http_slots_set_body(&s, c[1].slot, 1000000, 0.3);
    http_slots_body_progress(&s, c[1].slot, 900000, 0.99);
    http_slots_set_phase(&s, c[2].slot, HTTP_PHASE_BUSY, 0.1); /* being decided */
    http_slots_set_body(&s, c[2].slot, 1000, 0.1);
    http_slots_set_phase(&s, c[3].slot, HTTP_PHASE_SEND, 0.2); /* answer unread */
    http_slots_set_body(&s, c[3].slot, 1000, 0.2);
    http_slots_set_phase(&s, c[4].slot, HTTP_PHASE_BODY, 0.9); /* too young */
    http_slots_set_body(&s, c[4].slot, 32u << 20, 0.9);
    ck_assert(http_slots_evict_for_memory(&s, 1.0, 30));
    ck_assert(is_cut(&c[0]));
    for (int i = 1; i < 5; i++)
        ck_assert_msg(!is_cut(&c[i]), "connection %d cut", i);
    ck_assert(http_slots_evict_for_memory(&s, 1.0, 30));
    ck_assert(is_cut(&c[3]));
    ck_assert(!http_slots_evict_for_memory(&s, 1.0, 30));
    ck_assert(!is_cut(&c[1]) && !is_cut(&c[2]) && !is_cut(&c[4]));
    /* a byte every 0.4 s of 32 MiB: never stalled half a second, hopeless */
    http_slots_body_progress(&s, c[4].slot, 3, 1.4);
    ck_assert(http_slots_evict_for_memory(&s, 1.5, 30));
    ck_assert(is_cut(&c[4]));
    ck_assert(!is_cut(&c[1]) && !is_cut(&c[2]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 3);
    close_conns(&s, c, 5);
}
END_TEST

/* Nearly full: an address holding a heavy share (a quarter) gets a new
 * connection only for one of its own, else it is refused at once; a new
 * address gets room from the address that holds the most. So an attacker
 * reconnecting from a few addresses is turned away at accept speed and
 * the backlog, where kube-scheduler waits, keeps moving. */
START_TEST(slots_nearly_full_heavy_address_makes_room_from_its_own)
{
    struct http_slots s;
    struct conn c[8];
    ck_assert_int_eq(http_slots_init(&s, 8, 8, &metrics), 0);
    for (int i = 0; i < 3; i++)
        open_conn(&s, &c[i], "10.0.0.1", 0);
    for (int i = 3; i < 7; i++)
        open_conn(&s, &c[i], "10.0.0.2", 0);
    for (int i = 0; i < 7; i++)
        http_slots_set_phase(&s, c[i].slot, HTTP_PHASE_IDLE, i < 3 ? 0.8 + 0.01 * i : 0.1 * i);
    /* 10.0.0.1's own are too young: refused, though 10.0.0.2's are old */
    ck_assert_int_eq(admit(&s, "10.0.0.1", 1.0), -EBUSY);
    for (int i = 0; i < 7; i++)
        ck_assert_msg(!is_cut(&c[i]), "connection %d cut", i);
    /* once they are old enough, its own idle longest makes room */
    ck_assert_int_eq(admit(&s, "10.0.0.1", 1.4), 0);
    ck_assert(is_cut(&c[0]));
    for (int i = 1; i < 7; i++)
        ck_assert_msg(!is_cut(&c[i]), "connection %d cut", i);
    open_conn(&s, &c[7], "10.0.0.1", 1.4); /* the one admitted: 7 again */
    /* a new address: the one holding the most (10.0.0.2, 4) makes room */
    ck_assert_int_eq(admit(&s, "10.0.0.3", 1.5), 0);
    ck_assert(is_cut(&c[3]));
    ck_assert(!is_cut(&c[1]) && !is_cut(&c[2]));
    ck_assert_uint_eq(refused(OPS_REFUSAL_PER_IP_LIMIT), 1);
    ck_assert_uint_eq(refused(OPS_REFUSAL_EVICTED), 2);
    close_conns(&s, c, 8);
}
END_TEST

Suite *slots_suite(void)
{
    Suite *s = suite_create("slots");
    TCase *tc = tcase_create("slots");
    tcase_add_checked_fixture(tc, reset_metrics, NULL);
    tcase_add_test(tc, slots_incomplete_requests_are_cut_at_the_deadline);
    tcase_add_test(tc, slots_per_ip_limit_makes_room_from_the_same_address);
    tcase_add_test(tc, slots_last_slot_makes_room_headers_first);
    tcase_add_test(tc, slots_full_slots_make_room_at_the_tick);
    tcase_add_test(tc, slots_idle_connections_make_room_oldest_first);
    tcase_add_test(tc, slots_per_ip_limit_of_idle_connections_makes_room);
    tcase_add_test(tc, slots_unread_answer_is_cut_at_the_write_deadline);
    tcase_add_test(tc, slots_memory_short_closes_the_stalled_upload_first);
    tcase_add_test(tc, slots_nearly_full_heavy_address_makes_room_from_its_own);
    suite_add_tcase(s, tc);
    return s;
}
