/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ep-req.h -- shared helpers of the live tests of the endpoint and the
 * connection request (rpma_ep_*, rpma_conn_req_*, scenario_*); static
 * functions only, each test includes it once.
 *
 * - er_server_start()/er_server_join(): t_server_start()/t_server_join()
 *   plus a port of its own for each server (er_port(), the same string in
 *   both processes), an alarm that kills a server stuck for 30 s, and a
 *   report pipe: the server sends tagged values with er_put(), the parent
 *   reads them in the same order with er_get() and prints them with the
 *   EXPECT_* macros, so the observations of both sides are on stdout.
 * - er_listen(), er_server_end(): a server's first and last steps;
 *   er_put_conn_life() and er_expect_conn_up()/er_expect_conn_down(): an
 *   accepted connection's events as the server reports them and as the
 *   parent checks them; er_connect(): a client of the current server.
 * - er_next_event(): rpma_conn_next_event() that never blocks longer than
 *   the given time.
 * - er_readable(): whether a file descriptor becomes readable in time.
 * - er_log_*, er_logged_prefix(): a log function that records what the
 *   library logs, and searches of what it recorded.
 */
#ifndef EP_REQ_H
#define EP_REQ_H

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpma_test.h"
#include "rpma_live.h"

/* the longest any test waits for something that is expected to happen */
#define ER_WAIT_MS 5000

/* sentinels: "the output was not written" */
static char er_sentinel_obj[4] T_UNUSED;
#define ER_SENTINEL_EP ((struct rpma_ep *)&er_sentinel_obj[0])
#define ER_SENTINEL_REQ ((struct rpma_conn_req *)&er_sentinel_obj[1])
#define ER_SENTINEL_CONN ((struct rpma_conn *)&er_sentinel_obj[2])
#define ER_SENTINEL_PTR ((void *)&er_sentinel_obj[3])

/*
 * t_readable(): 1 when fd becomes readable within ms, 0 when not, -1 on a
 * poll error (a name the tests print)
 */
T_UNUSED static int
er_readable(int fd, int ms)
{
	return t_readable(fd, ms);
}

/* whether the endpoint's event channel becomes readable within ms */
T_UNUSED static int
er_ep_readable(const struct rpma_ep *ep, int ms)
{
	int fd = -1;

	if (rpma_ep_get_fd(ep, &fd) != 0)
		return -1;
	return er_readable(fd, ms);
}

/*
 * The next connection event, waiting at most ms for it: the event
 * (RPMA_CONN_*), the negative error code of rpma_conn_next_event(), or
 * ER_NO_EVENT when nothing arrived in time.
 */
#define ER_NO_EVENT T_NO_EVENT
T_UNUSED static int
er_next_event(struct rpma_conn *conn, int ms)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int r = t_conn_event(conn, ms, &ev);

	return r ? r : (int)ev;
}

/* a name for what er_next_event() returned */
T_UNUSED static const char *
er_ev(int ev)
{
	switch (ev) {
	case RPMA_CONN_UNDEFINED: return "RPMA_CONN_UNDEFINED";
	case RPMA_CONN_ESTABLISHED: return "RPMA_CONN_ESTABLISHED";
	case RPMA_CONN_CLOSED: return "RPMA_CONN_CLOSED";
	case RPMA_CONN_LOST: return "RPMA_CONN_LOST";
	case RPMA_CONN_REJECTED: return "RPMA_CONN_REJECTED";
	case RPMA_CONN_UNREACHABLE: return "RPMA_CONN_UNREACHABLE";
	case ER_NO_EVENT: return "no event in time";
	case RPMA_E_PROVIDER: return "RPMA_E_PROVIDER";
	case RPMA_E_INVAL: return "RPMA_E_INVAL";
	case RPMA_E_NOMEM: return "RPMA_E_NOMEM";
	case RPMA_E_UNKNOWN: return "RPMA_E_UNKNOWN";
	case RPMA_E_NO_EVENT: return "RPMA_E_NO_EVENT";
	default: return "something else";
	}
}

/*
 * 1 when a client whose request the server failed to build saw what it
 * may see: nothing (the C library leaves the request unanswered) or
 * REJECTED (ours rejects it) -- never an established connection
 */
T_UNUSED static int
er_not_accepted(int ev)
{
	return ev == ER_NO_EVENT || ev == RPMA_CONN_REJECTED;
}

/* whether n bytes at p are all zero */
T_UNUSED static int
er_all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/*
 * Private data as a single comparable value: its length when the first
 * want_len bytes equal want and every byte after them is zero, -1 when a
 * byte differs, -2 when ptr is NULL while len is not 0.
 */
T_UNUSED static long long
er_pdata_check(const struct rpma_conn_private_data *pd, const void *want, size_t want_len)
{
	if (pd->len == 0)
		return 0;
	if (pd->ptr == NULL)
		return -2;
	if (want_len > pd->len)
		return -1;
	if (want_len && memcmp(pd->ptr, want, want_len) != 0)
		return -1;
	if (!er_all_zero((const char *)pd->ptr + want_len, pd->len - want_len))
		return -1;
	return pd->len;
}

/* --- forked servers with a report pipe --------------------------------- */

static int er_pipe[2] T_UNUSED = {-1, -1};
static int (*er_fn)(void *arg) T_UNUSED;
static char er_port_str[16] T_UNUSED;
static int er_servers T_UNUSED;

/* the port of the current server (the same in the parent and the server) */
T_UNUSED static const char *
er_port(void)
{
	return er_port_str;
}

T_UNUSED static int
er_trampoline(void *arg)
{
	close(er_pipe[0]);
	/* a server that hangs must not hang the test: SIGALRM ends it */
	alarm(30);
	return er_fn(arg);
}

/*
 * Forks a server running fn(arg) on a port of its own (er_port(): t_port()
 * plus the number of servers started so far, so consecutive servers never
 * meet a listener or a connection of the previous one). fn must call
 * t_server_ready() once it listens.
 */
T_UNUSED static void
er_server_start(int (*fn)(void *arg), void *arg)
{
	er_servers++;
	snprintf(er_port_str, sizeof(er_port_str), "%d", atoi(t_port()) + er_servers);
	t_chan_open(er_pipe);
	er_fn = fn;
	t_server_start(er_trampoline, arg);
	close(er_pipe[1]);
	er_pipe[1] = -1;
}

/* t_server_join(), then closes the report pipe */
T_UNUSED static int
er_server_join(void)
{
	int r = t_server_join();

	close(er_pipe[0]);
	er_pipe[0] = -1;
	return r;
}

/* in the server: send one tagged value to the parent */
struct er_rec {
	char tag[56];
	long long value;
};

T_UNUSED static void
er_put(const char *tag, long long value)
{
	struct er_rec rec;

	memset(&rec, 0, sizeof(rec));
	snprintf(rec.tag, sizeof(rec.tag), "%s", tag);
	rec.value = value;
	if (t_chan_put(er_pipe[1], &rec, sizeof(rec)) != 0)
		_exit(3);
}

/*
 * In the parent: the next value the server sent, which must carry tag;
 * LLONG_MIN (no check expects it) when it does not, or when nothing came
 * in 30 s or the server ended first.
 */
T_UNUSED static long long
er_get(const char *tag)
{
	struct er_rec rec;

	if (t_chan_get(er_pipe[0], &rec, sizeof(rec), 30000) != 0) {
		fprintf(stderr, "ep-req: the server sent nothing for \"%s\"\n", tag);
		return LLONG_MIN;
	}
	rec.tag[sizeof(rec.tag) - 1] = '\0';
	if (strcmp(rec.tag, tag) != 0) {
		fprintf(stderr, "ep-req: expected \"%s\" from the server, got \"%s\"\n", tag, rec.tag);
		return LLONG_MIN;
	}
	return rec.value;
}

/* SRV(tag): the server's next value, named in the observation line */
#define SRV(tag) er_get(tag)

/* --- the steps most servers and their parents share -------------------- */

/* server: listens on t_ip():er_port() and tells the parent; 0, or -1 */
T_UNUSED static int
er_listen(struct rpma_peer *peer, struct rpma_ep **ep)
{
	return t_listen(peer, er_port(), ep) ? -1 : 0;
}

/*
 * server: shuts the endpoint down (reported as "ep_shutdown") and deletes
 * the peer; the server's exit status: 0, or status when the peer could not
 * be deleted
 */
T_UNUSED static int
er_server_end(struct rpma_ep **ep, struct rpma_peer **peer, int status)
{
	er_put("ep_shutdown", rpma_ep_shutdown(ep));
	return rpma_peer_delete(peer) ? status : 0;
}

/*
 * server: an accepted connection until the client has closed it: both
 * events (ESTABLISHED, then CLOSED), this side's disconnect and delete
 */
T_UNUSED static void
er_put_conn_life(struct rpma_conn **conn)
{
	er_put("event", er_next_event(*conn, ER_WAIT_MS));
	er_put("event", er_next_event(*conn, ER_WAIT_MS));
	er_put("disconnect", rpma_conn_disconnect(*conn));
	er_put("conn_delete", rpma_conn_delete(conn));
}

/*
 * server: takes the next request and accepts it without private data,
 * reporting both steps ("next_conn_req", "connect"); the connection, or
 * NULL
 */
T_UNUSED static struct rpma_conn *
er_accept(struct rpma_ep *ep)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	return conn;
}

/* server: a peer, er_listen(), the first request ("next_conn_req"); 0, or 10, 11 */
T_UNUSED static int
er_server_begin(struct rpma_peer **peer, struct rpma_ep **ep, struct rpma_conn_req **req)
{
	*peer = t_peer();
	if (er_listen(*peer, ep))
		return 10;
	er_put("next_conn_req", rpma_ep_next_conn_req(*ep, NULL, req));
	return *req == NULL ? 11 : 0;
}

/* server: the same, but with the request accepted (er_accept()) into *conn */
T_UNUSED static int
er_server_accept(struct rpma_peer **peer, struct rpma_ep **ep, struct rpma_conn **conn)
{
	*peer = t_peer();
	if (er_listen(*peer, ep))
		return 10;
	*conn = er_accept(*ep);
	return *conn == NULL ? 11 : 0;
}

/* parent: ESTABLISHED on conn, then on the server's side */
T_UNUSED static void
er_expect_conn_up(struct rpma_conn *conn)
{
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_ESTABLISHED");
}

/*
 * parent: disconnects conn; CLOSED on both sides, and the server's
 * disconnect and delete (the rest of er_put_conn_life())
 */
T_UNUSED static void
er_expect_conn_down(struct rpma_conn *conn)
{
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_CLOSED");
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("disconnect"), 0);
	EXPECT_INT(SRV("conn_delete"), 0);
}

/* parent: what the server's er_server_accept() reported, then er_expect_conn_up() */
T_UNUSED static void
er_expect_accepted(struct rpma_conn *conn)
{
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("connect"), 0);
	er_expect_conn_up(conn);
}

/* parent: the end of a case: er_server_end()'s shutdown, *conn_ptr deleted, the join */
T_UNUSED static void
er_expect_server_end(struct rpma_conn **conn_ptr)
{
	struct rpma_conn *conn = *conn_ptr;

	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_INT(er_server_join(), 0);
	*conn_ptr = conn;
}

/* a destructor fn(&var): INVAL for NULL, 0 for var NULL (a macro: it names var) */
#define ER_EXPECT_DESTRUCTOR_NULLS(fn, var) do { \
	t_note("NULL " #var "_ptr"); \
	EXPECT_INT(fn(NULL), RPMA_E_INVAL); \
	t_note("*" #var "_ptr NULL"); \
	var = NULL; \
	EXPECT_INT(fn(&var), 0); \
	EXPECT_TRUE(var == NULL); \
} while (0)

/* parent: a client of the current server, without private data */
T_UNUSED static struct rpma_conn *
er_connect(struct rpma_peer *peer)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	return conn;
}

/*
 * parent: what is left of a client's connection once it has been
 * rejected: no private data, no further event, not even after
 * rpma_conn_disconnect(3); then deletes it (*conn_ptr NULL)
 */
T_UNUSED static void
er_expect_after_reject(struct rpma_conn **conn_ptr)
{
	struct rpma_conn *conn = *conn_ptr;
	struct rpma_conn_private_data pd = {ER_SENTINEL_PTR, 9};

	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
	EXPECT_STR(er_ev(er_next_event(conn, 300)), "no event in time");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_STR(er_ev(er_next_event(conn, 300)), "no event in time");
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	*conn_ptr = conn;
}

/* --- receives posted on an incoming request ----------------------------- */

/* op_context values of posted receives (they come back as wr_id) */
#define CTX_A ((const void *)(uintptr_t)0x77)
#define CTX_B ((const void *)(uintptr_t)0x78)

/* what the servers of the receive tests register for receiving */
static char er_recv_buf[64] T_UNUSED;

/*
 * server of the receive tests: listens on er_port(), registers
 * er_recv_buf for receiving, tells the parent and takes the first request
 * (reported as "next_conn_req"). 0, or the exit status for the step that
 * failed: 10 listening or registering, 11 taking the request.
 */
T_UNUSED static int
er_recv_server_begin(struct rpma_peer *peer, struct rpma_ep **ep,
		struct rpma_mr_local **mr, struct rpma_conn_req **req)
{
	if (rpma_ep_listen(peer, t_ip(), er_port(), ep) ||
			rpma_mr_reg(peer, er_recv_buf, sizeof(er_recv_buf), RPMA_MR_USAGE_RECV, mr))
		return 10;
	t_server_ready();
	er_put("next_conn_req", rpma_ep_next_conn_req(*ep, NULL, req));
	return *req == NULL ? 11 : 0;
}

/*
 * server: posts three receives on req, each reported: op_context NULL, a
 * 0-byte one (CTX_A) and one beyond the region (CTX_B)
 */
T_UNUSED static void
er_put_recvs(struct rpma_conn_req *req, struct rpma_mr_local *mr)
{
	er_put("recv op_context NULL", rpma_conn_req_recv(req, mr, 0, 8, NULL));
	er_put("recv len 0", rpma_conn_req_recv(req, mr, 8, 0, CTX_A));
	er_put("recv beyond the region", rpma_conn_req_recv(req, mr, 1000, 8, CTX_B));
}

/* parent: each receive of er_put_recvs() was posted */
T_UNUSED static void
er_expect_recvs(void)
{
	EXPECT_INT(SRV("recv op_context NULL"), 0);
	EXPECT_INT(SRV("recv len 0"), 0);
	EXPECT_INT(SRV("recv beyond the region"), 0);
}

/* --- what the library logs --------------------------------------------- */

#define ER_MAX_LOGS 32
static struct {
	int level;
	char message[256];
} er_logs[ER_MAX_LOGS] T_UNUSED;
static int er_nlogs T_UNUSED;

T_UNUSED static void
er_log_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void) file_name;
	(void) line_no;
	(void) function_name;
	if (er_nlogs < ER_MAX_LOGS) {
		er_logs[er_nlogs].level = level;
		va_start(ap, message_format);
		vsnprintf(er_logs[er_nlogs].message, sizeof(er_logs[er_nlogs].message),
				message_format, ap);
		va_end(ap);
	}
	er_nlogs++;
}

/* routes the library's messages up to NOTICE into er_logs */
T_UNUSED static void
er_log_begin(void)
{
	if (rpma_log_set_function(er_log_fn) != 0 ||
			rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE) != 0) {
		fprintf(stderr, "ep-req: cannot set the log function\n");
		exit(2);
	}
	er_nlogs = 0;
}

/* how many messages of the given level were logged since er_nlogs = 0 */
T_UNUSED static int
er_log_count(int level)
{
	int n = 0;

	for (int i = 0; i < er_nlogs && i < ER_MAX_LOGS; i++)
		if (er_logs[i].level == level)
			n++;
	return n;
}

/* how many messages of the given level and exact text were logged */
T_UNUSED static int
er_log_has(int level, const char *message)
{
	int n = 0;

	for (int i = 0; i < er_nlogs && i < ER_MAX_LOGS; i++)
		if (er_logs[i].level == level && strcmp(er_logs[i].message, message) == 0)
			n++;
	return n;
}

/* whether a message of the given level starting with prefix was logged */
T_UNUSED static int
er_logged_prefix(int level, const char *prefix)
{
	for (int i = 0; i < er_nlogs && i < ER_MAX_LOGS; i++)
		if (er_logs[i].level == level &&
				strncmp(er_logs[i].message, prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

#endif /* EP_REQ_H */
