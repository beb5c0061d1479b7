/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.h -- helpers shared by the live tests of the "conn" group
 * (rpma_conn_*.c and the scenario_*.c programs about connections).
 *
 * The pattern: the parent is the client (active side) and prints every
 * observation; the server (passive side) runs in a child started with
 * t_server_start(). The server checks its own steps with S_CHECK(), which
 * writes what went wrong to stderr and makes the server's exit status 1,
 * and it hands values the parent should print over a report pipe
 * (c_put() in the server, c_get() in the parent). c_report_open() and
 * t_port() must be called before t_server_start(), so both processes share
 * the pipe and the port: c_start() does all three, c_start_serving() and
 * c_start_one() with a server frame around a body of the test's own, and
 * c_end() collects the server at the end.
 *
 * Nothing here touches the RDMA stack before the fork: the parent must not
 * open the device before t_server_start() either.
 */
#ifndef CONN_H
#define CONN_H

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpma_test.h"
#include "rpma_live.h"

/* how long any single wait for the other side may take */
#define C_WAIT_MS 10000

/* ---- checks made by the server (reported through its exit status) ---- */

static int c_failed;

static inline int
c_fail(const char *file, int line, const char *expr)
{
	fprintf(stderr, "server: check failed at %s:%d: %s\n", file, line, expr);
	c_failed = 1;
	return 0;
}

/* S_CHECK(cond): evaluates to cond; a false cond fails the server */
#define S_CHECK(cond) ((cond) ? 1 : c_fail(__FILE__, __LINE__, #cond))

/* the server's exit status: 0 only when every S_CHECK() held */
static inline int
c_server_status(void)
{
	return c_failed ? 1 : 0;
}

/* ---- the report pipe: server -> parent, one long long at a time ---- */

static int c_rep[2] = {-1, -1};

static inline void
c_report_open(void)
{
	t_chan_open(c_rep);
}

static inline void
c_put(long long v)
{
	if (t_chan_put(c_rep[1], &v, sizeof(v)) != 0)
		c_fail(__FILE__, __LINE__, "write to the report pipe");
}

/*
 * the next value the server reported; LLONG_MIN if none came in time (and
 * for every later call: a server that stopped reporting is not waited for
 * again)
 */
static inline long long
c_get(void)
{
	static int silent;
	long long v;

	if (silent || t_chan_get(c_rep[0], &v, sizeof(v), 3 * C_WAIT_MS) != 0) {
		if (!silent)
			fprintf(stderr, "conn.h: the server reported nothing\n");
		silent = 1;
		return LLONG_MIN;
	}
	return v;
}

/*
 * parent: the server's next report, named for the observation line:
 * EXPECT_INT(SERVER(rpma_conn_delete), 0) prints "SERVER(rpma_conn_delete) = 0"
 */
#define SERVER(...) c_get()

/*
 * ---- the gate: server -> client, "this side saw ESTABLISHED" ----
 *
 * A client that disconnects or deletes its connection as soon as it sees
 * ESTABLISHED can have its disconnect request handled by the server's
 * kernel before its ready-to-use message: the kernel's connection manager
 * takes incoming messages on a per-CPU work queue, so two that arrive on
 * different CPUs may be handled in either order, and a ready-to-use message
 * handled after the disconnect request is dropped. The server then sees
 * CLOSED and never ESTABLISHED. The tests here close that window: when
 * the server sees ESTABLISHED through c_event_is() or c_next_event() it
 * opens the gate, and when the client does, it waits for the gate before
 * it goes on. A client that takes ESTABLISHED by other means calls
 * c_server_established() itself. c_start() opens the gate's pipe; without
 * it (other harnesses) nothing waits. c_end() checks that no opening went
 * unawaited, so a missing wait cannot hide.
 */

static int c_gate[2] = {-1, -1};

/* 1 in the server's process (set by c_start()) */
static int c_in_server;

/* server: the client may go on; the gate is shut in other harnesses */
static inline void
c_gate_open(void)
{
	char b = 'E';

	if (c_gate[1] >= 0 && t_chan_put(c_gate[1], &b, 1) != 0)
		c_fail(__FILE__, __LINE__, "write to the gate");
}

/* client: 1 once the server saw ESTABLISHED (at once without a gate) */
static inline int
c_server_established(void)
{
	char b;

	if (c_gate[0] < 0)
		return 1;
	if (t_chan_get(c_gate[0], &b, 1, C_WAIT_MS) != 0) {
		fprintf(stderr, "conn.h: the server did not see ESTABLISHED\n");
		return 0;
	}
	return 1;
}

/* either side, on seeing ESTABLISHED: 1 when it may go on */
static inline int
c_saw_established(void)
{
	if (c_in_server) {
		c_gate_open();
		return 1;
	}
	return c_server_established();
}

/* client: 1 when no opening of the gate is left unawaited */
static inline int
c_gate_empty(void)
{
	return c_gate[0] < 0 || t_readable(c_gate[0], 0) != 1;
}

/* ---- events ---- */

/* an event no call returns: "*event untouched" */
#define EV_SENTINEL ((enum rpma_conn_event)42)

/* what c_next_event() returns when no event came within the timeout */
#define C_TIMEOUT 1

/*
 * t_conn_event() with this header's codes: rpma_conn_next_event()'s return
 * value, C_TIMEOUT when nothing came within timeout_ms, or -1 when the
 * event fd cannot be had or the gate stayed shut after ESTABLISHED.
 */
static inline int
c_next_event(struct rpma_conn *conn, int timeout_ms, enum rpma_conn_event *ev)
{
	int fd = -1, r;

	if (rpma_conn_get_event_fd(conn, &fd) != 0)
		return -1;
	r = t_conn_event(conn, timeout_ms, ev);
	if (r == 0 && *ev == RPMA_CONN_ESTABLISHED && !c_saw_established())
		return -1;
	return r == T_NO_EVENT ? C_TIMEOUT : r;
}

/* 1 when the next event (within C_WAIT_MS) is want */
static inline int
c_event_is(struct rpma_conn *conn, enum rpma_conn_event want)
{
	return t_event_is("conn.h", conn, want, C_WAIT_MS) &&
		(want != RPMA_CONN_ESTABLISHED || c_saw_established());
}

/* 1 when the connection's event fd becomes readable within timeout_ms */
static inline int
c_event_pending(struct rpma_conn *conn, int timeout_ms)
{
	int fd = -1;

	if (rpma_conn_get_event_fd(conn, &fd) != 0)
		return 0;
	return t_readable(fd, timeout_ms) == 1;
}

/* ---- setting connections up and down ---- */

/* server: listen on t_ip():t_port() and tell the parent; NULL on failure */
static inline struct rpma_ep *
c_listen(struct rpma_peer *peer)
{
	struct rpma_ep *ep = NULL;

	if (!S_CHECK(t_listen(peer, t_port(), &ep) == 0))
		return NULL;
	return ep;
}

/*
 * server: takes the next connection request (cfg may be NULL) and accepts
 * it with pdata (may be NULL), without waiting for ESTABLISHED; NULL on
 * failure
 */
static inline struct rpma_conn *
c_take(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn *conn = NULL;

	if (!S_CHECK(t_accept(ep, cfg, pdata, -1, &conn) == 0))
		return NULL;
	return conn;
}

/* server: c_take() and ESTABLISHED; NULL on failure */
static inline struct rpma_conn *
c_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn *conn = c_take(ep, cfg, pdata);

	if (conn == NULL)
		return NULL;
	if (!S_CHECK(c_event_is(conn, RPMA_CONN_ESTABLISHED))) {
		(void) rpma_conn_delete(&conn);
		return NULL;
	}
	return conn;
}

/* client: requests a connection to the server; the connection or NULL */
static inline struct rpma_conn *
c_request(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn *conn = NULL;

	if (t_request(peer, t_port(), cfg, pdata, &conn) != 0)
		return NULL;
	return conn;
}

/* client: c_request() and ESTABLISHED; the connection or NULL */
static inline struct rpma_conn *
c_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn *conn = c_request(peer, cfg, pdata);

	if (conn != NULL && !c_event_is(conn, RPMA_CONN_ESTABLISHED))
		(void) rpma_conn_delete(&conn);
	return conn;
}

/*
 * parent: conn = c_request() / c_connect(), and a check that it is there;
 * macros, so that the check names the caller's variable
 */
#define C_REQUEST(conn, peer, cfg, pdata) do { \
	conn = c_request(peer, cfg, pdata); \
	EXPECT_TRUE(conn != NULL); \
} while (0)
#define C_CONNECT(conn, peer, cfg, pdata) do { \
	conn = c_connect(peer, cfg, pdata); \
	EXPECT_TRUE(conn != NULL); \
} while (0)

/*
 * Ends a connection the way upstream's examples do: disconnect, wait for
 * CLOSED, delete. 1 when all three behaved.
 */
static inline int
c_close(struct rpma_conn **conn)
{
	int ok = rpma_conn_disconnect(*conn) == 0;

	ok = c_event_is(*conn, RPMA_CONN_CLOSED) && ok;
	ok = rpma_conn_delete(conn) == 0 && *conn == NULL && ok;
	return ok;
}

/*
 * The other end of c_close(): wait for CLOSED, disconnect (as upstream's
 * examples do after CLOSED), delete. 1 when all three behaved.
 */
static inline int
c_closed(struct rpma_conn **conn)
{
	int ok = c_event_is(*conn, RPMA_CONN_CLOSED);

	ok = rpma_conn_disconnect(*conn) == 0 && ok;
	ok = rpma_conn_delete(conn) == 0 && *conn == NULL && ok;
	return ok;
}

/* server: shuts the endpoint down and deletes the peer; 1 when both did */
static inline int
c_server_end(struct rpma_ep **ep, struct rpma_peer **peer)
{
	int ok = rpma_ep_shutdown(ep) == 0;

	ok = rpma_peer_delete(peer) == 0 && ok;
	return ok;
}

/*
 * server: a zeroed, page-aligned buffer of size bytes (*buf, for free())
 * registered with usage; the region, or NULL when a step failed
 */
static inline struct rpma_mr_local *
c_reg_buf(struct rpma_peer *peer, size_t size, int usage, void **buf)
{
	struct rpma_mr_local *mr = NULL;

	S_CHECK(posix_memalign(buf, 4096, size) == 0);
	memset(*buf, 0, size);
	S_CHECK(rpma_mr_reg(peer, *buf, size, usage, &mr) == 0);
	return mr;
}

/* server: the end of c_reg_buf(): deregisters the region, frees buf */
static inline void
c_dereg_buf(struct rpma_mr_local **mr, void *buf)
{
	S_CHECK(rpma_mr_dereg(mr) == 0);
	free(buf);
}

/* server: takes the next request and deletes it, which rejects the client */
static inline void
c_reject(struct rpma_ep *ep)
{
	struct rpma_conn_req *req = NULL;

	S_CHECK(rpma_ep_next_conn_req(ep, NULL, &req) == 0);
	S_CHECK(rpma_conn_req_delete(&req) == 0);
}

/* ---- the two processes of a test ---- */

static int (*c_server_fn)(void *arg);

static inline int
c_server_main(void *arg)
{
	c_in_server = 1;
	return c_server_fn(arg);
}

/*
 * parent: fixes t_port(), opens the report pipe and the gate, starts
 * server() in a child and returns a peer of the parent's own
 */
static inline struct rpma_peer *
c_start(int (*server)(void *arg))
{
	(void) t_port();
	c_report_open();
	t_chan_open(c_gate);
	c_server_fn = server;
	t_server_start(c_server_main, NULL);
	return t_peer();
}

/* the body of the usual server, see c_start_serving() */
static void (*c_body)(struct rpma_peer *peer, struct rpma_ep *ep);

static inline int
c_serve(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = c_listen(peer);

	(void) arg;
	if (ep == NULL)
		return 1;
	c_body(peer, ep);
	S_CHECK(c_server_end(&ep, &peer));
	return c_server_status();
}

/*
 * parent: c_start() with the usual server: a peer, c_listen(), body(peer,
 * ep), c_server_end(); its exit status is c_server_status(), or 1 when it
 * could not listen
 */
static inline struct rpma_peer *
c_start_serving(void (*body)(struct rpma_peer *peer, struct rpma_ep *ep))
{
	c_body = body;
	return c_start(c_serve);
}

/* parent: the end of a test: the server's exit status, the peer, t_end() */
static inline int
c_end(struct rpma_peer *peer)
{
	EXPECT_INT(t_server_join(), 0);
	EXPECT_TRUE(c_gate_empty() /* every ESTABLISHED of the server awaited */);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}

/* ---- events, as observations ---- */

/* parent: the next event of conn comes within C_WAIT_MS and is want */
static inline void
c_expect_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, want);
}

/* server: reports c_next_event() (within C_WAIT_MS) and the event it gave */
static inline void
c_put_event(struct rpma_conn *conn)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	c_put(c_next_event(conn, C_WAIT_MS, &ev));
	c_put(ev);
}

/* parent: what the server's c_put_event() reported is want */
static inline void
c_expect_server_event(enum rpma_conn_event want)
{
	EXPECT_INT(SERVER(next event), 0);
	EXPECT_INT(SERVER(the event), want);
}

/* ---- a server of one connection ---- */

static void (*c_one_body)(struct rpma_conn *conn);

/*
 * the server of c_start_one(): takes one connection (c_take(), no
 * configuration or private data) and reports its first event
 * (c_put_event()), runs the body on it, then deletes it, shuts the
 * endpoint down and deletes the peer, reporting each step
 */
static inline int
c_serve_one(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = c_listen(peer);
	struct rpma_conn *conn;

	(void) arg;
	if (ep == NULL)
		return 1;
	conn = c_take(ep, NULL, NULL);
	c_put_event(conn);
	c_one_body(conn);
	c_put(rpma_conn_delete(&conn));
	c_put(conn == NULL);
	c_put(rpma_ep_shutdown(&ep));
	c_put(rpma_peer_delete(&peer));
	return c_server_status();
}

/* parent: c_start() with c_serve_one() around body */
static inline struct rpma_peer *
c_start_one(void (*body)(struct rpma_conn *conn))
{
	c_one_body = body;
	return c_start(c_serve_one);
}

/* parent: each step of the end of c_serve_one() went well */
static inline void
c_expect_server_teardown(void)
{
	EXPECT_INT(SERVER(rpma_conn_delete), 0);
	EXPECT_INT(SERVER(conn NULL), 1);
	EXPECT_INT(SERVER(rpma_ep_shutdown), 0);
	EXPECT_INT(SERVER(rpma_peer_delete), 0);
}

/* ---- what the library logs (install with rpma_log_set_function(c_log)) ---- */

#define C_MAX_LOGS 16
static struct {
	int level;
	char function[64];
	char message[256];
} c_logs[C_MAX_LOGS];
static int c_nlogs;

static inline void
c_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void) file_name;
	(void) line_no;
	if (c_nlogs < C_MAX_LOGS) {
		c_logs[c_nlogs].level = level;
		snprintf(c_logs[c_nlogs].function, sizeof(c_logs[c_nlogs].function), "%s",
				function_name ? function_name : "(null)");
		va_start(ap, message_format);
		vsnprintf(c_logs[c_nlogs].message, sizeof(c_logs[c_nlogs].message),
				message_format, ap);
		va_end(ap);
	}
	c_nlogs++;
}

/*
 * parent only: exactly one message was logged since c_nlogs was reset, at
 * level, by function, starting with prefix (the whole message when
 * whole is set)
 */
static inline void
c_expect_log(int level, const char *function, const char *prefix, int whole)
{
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(c_logs[0].level, level);
	EXPECT_STR(c_logs[0].function, function);
	if (whole)
		EXPECT_STR(c_logs[0].message, prefix);
	else
		EXPECT_TRUE(strncmp(c_logs[0].message, prefix, strlen(prefix)) == 0);
}

/* 1 when fd is an open file descriptor of this process */
static inline int
c_fd_open(int fd)
{
	return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

/* 1 when the len bytes at p are all zero */
static inline int
c_all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

#endif /* CONN_H */
