/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.h -- the helpers every example program uses: error reports,
 * teardown bookkeeping, opening a peer, page-aligned buffers, and waits
 * that all have a deadline: for a connection request (next_request()), a
 * connection event (expect_event_within()) and completions (next_wc(),
 * expect_wc(), expect_wcs() for several in any order); setting up and
 * ending a connection (connect_to(), accept_and_wait(), accept_maybe_closed(),
 * disconnect_and_wait(), drop_connection()); plus the FNV-1a checksum the
 * examples put into their messages. Each function says what went wrong on stderr,
 * prefixed by "who" (the program's role), so a failed run explains itself.
 */
#ifndef EXAMPLES_COMMON_EXAMPLE_H
#define EXAMPLES_COMMON_EXAMPLE_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <librpma.h>

/* how long any one completion may take before a wait gives up */
#ifndef COMPLETION_TIMEOUT_MS
#define COMPLETION_TIMEOUT_MS 10000
#endif

/* "who: what failed: library's text" on stderr, for any failed librpma call */
static inline void
report(const char *who, const char *what, int ret)
{
	fprintf(stderr, "%s: %s failed: %s\n", who, what, rpma_err_2str(ret));
}

/*
 * For the teardown steps, which run whatever happened before them: reports
 * a step that failed and marks the whole run failed.
 */
static inline void
teardown_step(const char *who, const char *what, int ret, int *failed)
{
	if (ret) {
		report(who, what, ret);
		*failed = 1;
	}
}

/*
 * A peer for addr: the verbs context of the device behind it (type says
 * whether addr is this host's address or the other side's), then the peer
 * on that device. Returns 0, or the failed call's error code (reported).
 */
static inline int
open_peer(const char *who, const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer)
{
	struct ibv_context *ibv_ctx = NULL;
	int ret;

	ret = rpma_utils_get_ibv_context(addr, type, &ibv_ctx);
	if (ret) {
		report(who, "rpma_utils_get_ibv_context", ret);
		return ret;
	}
	ret = rpma_peer_new(ibv_ctx, peer);
	if (ret)
		report(who, "rpma_peer_new", ret);
	return ret;
}

/* size bytes aligned to a page, NULL (reported) when there is no memory */
static inline void *
page_alloc(const char *who, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *buf = NULL;

	if (page <= 0 || posix_memalign(&buf, (size_t)page, size)) {
		fprintf(stderr, "%s: cannot allocate a buffer\n", who);
		return NULL;
	}
	return buf;
}

/*
 * Takes the next event of conn; returns 0 when it is want (called name in
 * the message about any other event), else non-zero after saying what came
 * instead. rpma_conn_next_event() blocks until an event is there.
 */
static inline int
expect_event(const char *who, struct rpma_conn *conn, enum rpma_conn_event want,
		const char *name)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int ret;

	ret = rpma_conn_next_event(conn, &event);
	if (ret) {
		report(who, "rpma_conn_next_event", ret);
		return 1;
	}
	if (event != want) {
		fprintf(stderr, "%s: expected %s, got %s\n", who, name,
				rpma_utils_conn_event_2str(event));
		return 1;
	}
	return 0;
}

/*
 * A wait of ms milliseconds, stretched by EXAMPLE_WAIT_SCALE (a factor of
 * 1 to 100, default 1): a run under valgrind in an emulated guest may need
 * several times as long as a plain one.
 */
static inline int
scaled_ms(int ms)
{
	const char *s = getenv("EXAMPLE_WAIT_SCALE");
	int k = s ? atoi(s) : 1;

	return k >= 1 && k <= 100 && ms <= 20000000 ? ms * k : ms;
}

/* a point in time ms milliseconds from now */
static inline struct timespec
deadline_in(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/* milliseconds left until deadline, never negative */
static inline int
ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL +
		(deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/*
 * Waits until fd is readable or the deadline passed; a signal neither cuts
 * the wait short nor stretches it. Returns 0 when readable, 1 on timeout,
 * -1 on a poll error (reported).
 */
static inline int
wait_readable(const char *who, int fd, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	do
		ret = poll(&pfd, 1, ms_left(deadline));
	while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		fprintf(stderr, "%s: poll: %s\n", who, strerror(errno));
		return -1;
	}
	return ret == 0 ? 1 : 0;
}

/* names for the completion values the example may meet */
static inline const char *
wc_opcode_name(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_ATOMIC_WRITE: return "ATOMIC_WRITE";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "another opcode";
	}
}

static inline const char *
wc_status_name(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	default: return "another error";
	}
}

/*
 * Takes the next completion from cq into *wc. While the CQ is empty it
 * sleeps in rpma_cq_wait(), but only once the CQ's fd says an event is
 * there, so a completion that never comes ends in an error message after
 * COMPLETION_TIMEOUT_MS instead of a hang. A wait may wake up without a
 * new completion (an event left from one already taken): the loop simply
 * looks again. hangup_fd, when not -1, is a connection's event fd: an
 * event there while nothing completed means the peer gave up (receives on
 * a shared RQ are not flushed when a connection breaks), and ends the wait
 * at once. Returns 0, 2 (quietly) for such a hang-up, or 1 after
 * reporting; the completion's status is not looked at here.
 */
static inline int
wc_or_hangup(const char *who, struct rpma_cq *cq, int hangup_fd, struct ibv_wc *wc)
{
	struct timespec deadline = deadline_in(scaled_ms(COMPLETION_TIMEOUT_MS));
	struct pollfd pfd[2] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = hangup_fd, .events = POLLIN },	/* poll() skips fd -1 */
	};
	int ret;

	ret = rpma_cq_get_fd(cq, &pfd[0].fd);
	if (ret) {
		report(who, "rpma_cq_get_fd", ret);
		return 1;
	}
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret == 0)
			return 0;
		if (ret != RPMA_E_NO_COMPLETION) {
			report(who, "rpma_cq_get_wc", ret);
			return 1;
		}
		if (pfd[1].revents)
			return 2;
		/* a signal neither cuts the wait short nor stretches it */
		do
			ret = poll(pfd, 2, ms_left(&deadline));
		while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			fprintf(stderr, "%s: poll: %s\n", who, strerror(errno));
			return 1;
		}
		if (ret == 0) {
			fprintf(stderr, "%s: no completion within %d s\n", who,
					scaled_ms(COMPLETION_TIMEOUT_MS) / 1000);
			return 1;
		}
		/* a connection event: look at the CQ once more, then give up */
		if (!pfd[0].revents)
			continue;
		/* readable, so this does not block; it also re-arms the CQ */
		ret = rpma_cq_wait(cq);
		if (ret) {
			report(who, "rpma_cq_wait", ret);
			return 1;
		}
	}
}

/* wc_or_hangup(), a hang-up reported as a failure: 0, or 1 after reporting */
static inline int
next_wc(const char *who, struct rpma_cq *cq, int hangup_fd, struct ibv_wc *wc)
{
	int ret = wc_or_hangup(who, cq, hangup_fd, wc);

	if (ret == 2)
		fprintf(stderr, "%s: the connection ended while a completion was awaited\n", who);
	return ret != 0;
}

/*
 * Checks that the completion wc belongs to the operation posted with
 * op_context, succeeded and has the opcode want (or alt, for operations a
 * library may carry out natively or emulate). Returns 0 when it does, else
 * non-zero after saying what is wrong.
 */
static inline int
expect_wc_is(const char *who, const struct ibv_wc *wc, const void *op_context,
		enum ibv_wc_opcode want, enum ibv_wc_opcode alt, const char *what)
{
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: %s completed with status %s (%d)\n", who, what,
				wc_status_name(wc->status), (int)wc->status);
		return 1;
	}
	if (wc->wr_id != (uint64_t)(uintptr_t)op_context) {
		fprintf(stderr, "%s: %s: the completion carries wr_id 0x%llx, not 0x%llx\n",
				who, what, (unsigned long long)wc->wr_id,
				(unsigned long long)(uintptr_t)op_context);
		return 1;
	}
	if (wc->opcode != want && wc->opcode != alt) {
		fprintf(stderr, "%s: %s: the completion has opcode %s (%d), not %s\n",
				who, what, wc_opcode_name(wc->opcode), (int)wc->opcode,
				wc_opcode_name(want));
		return 1;
	}
	return 0;
}

/*
 * Takes the next completion from cq (hangup_fd as for next_wc()) and checks
 * it with expect_wc_is(). Returns 0 when it passes, else non-zero after
 * saying what is wrong.
 */
static inline int
expect_wc(const char *who, struct rpma_cq *cq, int hangup_fd, const void *op_context,
		enum ibv_wc_opcode want, enum ibv_wc_opcode alt, const char *what,
		struct ibv_wc *wc)
{
	if (next_wc(who, cq, hangup_fd, wc))
		return 1;
	return expect_wc_is(who, wc, op_context, want, alt, what);
}

/*
 * The next connection request of ep, built with cfg (NULL: defaults).
 * rpma_ep_next_conn_req() alone would wait for ever; this gives up after
 * timeout_ms, so a server whose client never comes says so. Returns 0, or
 * non-zero after reporting.
 */
static inline int
next_request(const char *who, struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		int timeout_ms, struct rpma_conn_req **req)
{
	struct timespec deadline;
	int fd = -1;
	int ret;

	timeout_ms = scaled_ms(timeout_ms);
	deadline = deadline_in(timeout_ms);
	ret = rpma_ep_get_fd(ep, &fd);
	if (ret) {
		report(who, "rpma_ep_get_fd", ret);
		return 1;
	}
	ret = wait_readable(who, fd, &deadline);
	if (ret) {
		if (ret > 0)
			fprintf(stderr, "%s: no client within %d s\n", who, timeout_ms / 1000);
		return 1;
	}
	ret = rpma_ep_next_conn_req(ep, cfg, req);
	if (ret) {
		report(who, "rpma_ep_next_conn_req", ret);
		return 1;
	}
	return 0;
}

/*
 * Waits at most timeout_ms for the next event of conn to arrive, without
 * taking it (name says which one is awaited, for the message). Returns 0
 * when it is there, or non-zero after reporting.
 */
static inline int
event_within(const char *who, struct rpma_conn *conn, const char *name, int timeout_ms)
{
	struct timespec deadline;
	int fd = -1;
	int ret;

	timeout_ms = scaled_ms(timeout_ms);
	deadline = deadline_in(timeout_ms);
	ret = rpma_conn_get_event_fd(conn, &fd);
	if (ret) {
		report(who, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = wait_readable(who, fd, &deadline);
	if (ret > 0)
		fprintf(stderr, "%s: no %s within %d s\n", who, name, timeout_ms / 1000);
	return ret != 0;
}

/*
 * expect_event() with a deadline: waits at most timeout_ms for the next
 * event of conn, takes it and checks it is want. Returns 0 when it is,
 * else non-zero after saying what happened instead.
 */
static inline int
expect_event_within(const char *who, struct rpma_conn *conn, enum rpma_conn_event want,
		const char *name, int timeout_ms)
{
	if (event_within(who, conn, name, timeout_ms))
		return 1;
	return expect_event(who, conn, want, name);
}

/*
 * The connection plumbing both sides share. Each helper's name says which
 * librpma calls it makes; each reports what failed on stderr.
 */

/*
 * How long a connection event (ESTABLISHED, CLOSED) may take to come. The
 * kernel's connection manager resends a lost message only after about
 * 6.4 s on rxe, so on a lossy network a disconnect may need several of
 * those before it is answered.
 */
#ifndef CONN_EVENT_TIMEOUT_MS
#define CONN_EVENT_TIMEOUT_MS 60000
#endif

/*
 * After the wait for a server's last send failed, while conn's event fd
 * was watched for a hang-up: on a lossy link that is how it goes when the
 * client hung up before the send was acknowledged (see last_send_done()).
 * Returns 0 when the client has hung up by CONN_EVENT_TIMEOUT_MS (the event
 * is left for the caller), else non-zero.
 */
static inline int
hung_up_meanwhile(const char *who, struct rpma_conn *conn, const char *what)
{
	if (event_within(who, conn, "hang-up", CONN_EVENT_TIMEOUT_MS))
		return 1;
	printf("%s: the client hung up before %s was acknowledged (the failure above is explained)\n",
			who, what);
	return 0;
}

/*
 * The end of a server's last send, after which the client may hang up at
 * once. On a healthy link the send completes first. On a lossy one the
 * acknowledgement of a message that did arrive can be lost: the resend
 * then finds the client's queue pair closed, and the send ends in an error
 * (IBV_WC_RETRY_EXC_ERR once the library's retries run out) or not at all
 * (the C library retries without end). So the send's successful
 * completion ends it, and so does a hang-up of the client (an event on
 * conn) while the send has not completed or has failed; the client checks
 * what it received. The hang-up itself is left for the caller to take.
 * Returns 0, or non-zero after reporting.
 */
static inline int
last_send_done(const char *who, struct rpma_conn *conn, struct rpma_cq *cq,
		const void *op_context, enum ibv_wc_opcode want, const char *what)
{
	struct ibv_wc wc;
	int fd = -1;
	int ret;

	ret = rpma_conn_get_event_fd(conn, &fd);
	if (ret) {
		report(who, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = wc_or_hangup(who, cq, fd, &wc);
	if (ret == 1)
		return 1;
	if (ret == 0) {
		if (wc.status == IBV_WC_SUCCESS)
			return expect_wc_is(who, &wc, op_context, want, want, what);
		printf("%s: %s completed with status %s: the client may have hung up first\n",
				who, what, wc_status_name(wc.status));
		if (event_within(who, conn, "hang-up", CONN_EVENT_TIMEOUT_MS))
			return 1;
	}
	printf("%s: the client hung up before %s was acknowledged\n", who, what);
	return 0;
}

/*
 * Client: rpma_conn_req_new(peer, addr, port, cfg) then
 * rpma_conn_req_connect() with pdata (NULL: no private data). ESTABLISHED
 * is still to come: wait for it with expect_event_within(). Returns 0 with
 * *conn set, or non-zero with nothing left to delete.
 */
static inline int
connect_to(const char *who, struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn)
{
	struct rpma_conn_req *req = NULL;
	int ret;

	ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		report(who, "rpma_conn_req_new", ret);
		return 1;
	}
	ret = rpma_conn_req_connect(&req, pdata, conn);
	if (ret) {
		report(who, "rpma_conn_req_connect", ret);
		return 1;
	}
	return 0;
}

/*
 * Server: rpma_conn_req_connect() accepts *req with pdata (NULL: no private
 * data), then waits at most timeout_ms for ESTABLISHED; when that does not
 * come, rpma_conn_delete(). Returns 0 with *conn established, or non-zero
 * (reported) with *req consumed and nothing left to delete.
 */
static inline int
accept_and_wait(const char *who, struct rpma_conn_req **req,
		struct rpma_conn_private_data *pdata, int timeout_ms, struct rpma_conn **conn)
{
	int ret;

	ret = rpma_conn_req_connect(req, pdata, conn);
	if (ret) {
		report(who, "rpma_conn_req_connect", ret);
		return 1;
	}
	if (expect_event_within(who, *conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED", timeout_ms)) {
		ret = rpma_conn_delete(conn);
		if (ret)
			report(who, "rpma_conn_delete", ret);
		return 1;
	}
	return 0;
}

/*
 * The side that ends the connection: rpma_conn_disconnect(), then waits at
 * most timeout_ms for CLOSED and says "connection closed". Any failure sets
 * *failed. The connection stays for the caller's rpma_conn_delete().
 */
static inline void
disconnect_and_wait(const char *who, struct rpma_conn *conn, int timeout_ms, int *failed)
{
	int ret;

	ret = rpma_conn_disconnect(conn);
	if (ret) {
		report(who, "rpma_conn_disconnect", ret);
		*failed = 1;
		return;
	}
	if (expect_event_within(who, conn, RPMA_CONN_CLOSED, "CLOSED", timeout_ms))
		*failed = 1;
	else
		printf("%s: connection closed\n", who);
}

/*
 * Teardown of a connection the peer closed (after CLOSED) or that is
 * given up on: rpma_conn_disconnect() (it completes the disconnection on
 * this side, also after CLOSED), then rpma_conn_delete(); a failed step
 * sets *failed.
 */
static inline void
drop_connection(const char *who, struct rpma_conn **conn, int *failed)
{
	teardown_step(who, "rpma_conn_disconnect", rpma_conn_disconnect(*conn), failed);
	teardown_step(who, "rpma_conn_delete", rpma_conn_delete(conn), failed);
}

/*
 * Server, for a client that may hang up as soon as it has the accept's
 * private data: accept_and_wait(), except that a CLOSED in place of
 * ESTABLISHED also ends it well. The connection manager may take the
 * client's disconnection request before its last handshake message, and
 * then CLOSED is the connection's first event (rpma_conn_next_event(3)).
 * Returns 0 with *conn set and *closed saying whether CLOSED came (the
 * caller still disconnects and deletes), or non-zero (reported) with
 * nothing left to delete.
 */
static inline int
accept_maybe_closed(const char *who, struct rpma_conn_req **req,
		struct rpma_conn_private_data *pdata, int timeout_ms, struct rpma_conn **conn,
		int *closed)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int failed = 1;
	int ret;

	ret = rpma_conn_req_connect(req, pdata, conn);
	if (ret) {
		report(who, "rpma_conn_req_connect", ret);
		return 1;
	}
	if (event_within(who, *conn, "ESTABLISHED", timeout_ms))
		goto err_drop;
	ret = rpma_conn_next_event(*conn, &event);
	if (ret) {
		report(who, "rpma_conn_next_event", ret);
		goto err_drop;
	}
	if (event == RPMA_CONN_ESTABLISHED || event == RPMA_CONN_CLOSED) {
		*closed = event == RPMA_CONN_CLOSED;
		return 0;
	}
	fprintf(stderr, "%s: waited for ESTABLISHED, got %s\n", who,
			rpma_utils_conn_event_2str(event));
err_drop:
	drop_connection(who, conn, &failed);
	return 1;
}

/* 32-bit FNV-1a over a payload */
static inline uint32_t
checksum(const uint8_t *data, size_t len)
{
	uint32_t sum = 0x811c9dc5u;
	size_t i;

	for (i = 0; i < len; i++)
		sum = (sum ^ data[i]) * 0x01000193u;
	return sum;
}

/*
 * One completion a step waits for: the op_context its operation was posted
 * with, the opcode it must carry and its name for messages.
 */
struct wc_want {
	const void *op_context;
	enum ibv_wc_opcode opcode;
	const char *what;
};

/*
 * Takes n completions (n <= 32) from cq, in whatever order they come: a
 * send's completion and the receive of the peer's answer to it may come
 * either way round. Each must succeed and belong to a different want[i]
 * (by wr_id) with its opcode; got[i] is then the one for want[i].
 * hangup_fd as for next_wc(). Returns 0 when every want was met once.
 */
static inline int
expect_wcs(const char *who, struct rpma_cq *cq, int hangup_fd, int n,
		const struct wc_want *want, struct ibv_wc *got)
{
	uint32_t seen = 0;
	struct ibv_wc wc;
	int k, i;

	for (k = 0; k < n; k++) {
		if (next_wc(who, cq, hangup_fd, &wc))
			return 1;
		for (i = 0; i < n; i++)
			if (!(seen & (1u << i)) &&
					wc.wr_id == (uint64_t)(uintptr_t)want[i].op_context)
				break;
		if (i == n) {
			fprintf(stderr, "%s: a completion (status %s, opcode %s) carries wr_id 0x%llx, which names no awaited operation\n",
					who, wc_status_name(wc.status), wc_opcode_name(wc.opcode),
					(unsigned long long)wc.wr_id);
			return 1;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: %s completed with status %s (%d)\n", who,
					want[i].what, wc_status_name(wc.status), (int)wc.status);
			return 1;
		}
		if (wc.opcode != want[i].opcode) {
			fprintf(stderr, "%s: %s: the completion has opcode %s (%d), not %s\n",
					who, want[i].what, wc_opcode_name(wc.opcode), (int)wc.opcode,
					wc_opcode_name(want[i].opcode));
			return 1;
		}
		seen |= 1u << i;
		got[i] = wc;
	}
	return 0;
}

/*
 * Server of a client that works alone (one-sided operations) and hangs up
 * when done: accepts *req (consumed in every case) with pdata, the accept
 * data the client reads, waits at most timeout_ms for ESTABLISHED and then
 * for CLOSED, and drops the connection. On a lossy link CLOSED may come
 * first: the client's confirmation of the connection (the RTU) was lost,
 * the client went ahead on its own, and was done before the connection
 * manager resent anything. That is the end of a session too. Returns 0,
 * or non-zero after reporting.
 */
static inline int
serve_one_sided(const char *who, struct rpma_conn_req **req,
		struct rpma_conn_private_data *pdata, int timeout_ms)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	struct rpma_conn *conn = NULL;
	int failed = 1;
	int ret;

	ret = rpma_conn_req_connect(req, pdata, &conn);
	if (ret) {
		report(who, "rpma_conn_req_connect", ret);
		return 1;
	}
	if (event_within(who, conn, "ESTABLISHED", timeout_ms))
		goto out;
	if ((ret = rpma_conn_next_event(conn, &event)) != 0) {
		report(who, "rpma_conn_next_event", ret);
		goto out;
	}
	if (event == RPMA_CONN_CLOSED) {
		printf("%s: the client was done before its connection was confirmed here\n", who);
	} else if (event != RPMA_CONN_ESTABLISHED) {
		fprintf(stderr, "%s: expected ESTABLISHED, got %s\n", who,
				rpma_utils_conn_event_2str(event));
		goto out;
	} else {
		printf("%s: connection established, WELCOME of %u bytes sent with the accept\n",
				who, (unsigned)pdata->len);
		if (expect_event_within(who, conn, RPMA_CONN_CLOSED, "CLOSED", timeout_ms))
			goto out;
	}
	printf("%s: the client closed the connection\n", who);
	failed = 0;
out:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(who, &conn, &failed);
	return failed;
}

#endif /* EXAMPLES_COMMON_EXAMPLE_H */
