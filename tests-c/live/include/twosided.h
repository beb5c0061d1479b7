/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * twosided.h -- helpers shared by the live tests of the two-sided data path
 * (rpma_send.c, rpma_send_with_imm.c, rpma_write_with_imm.c, rpma_recv.c
 * and scenario_completion_flags.c).
 *
 * The frame is conn.h's: the parent is the client and prints every
 * observation, the server runs in a forked child. Here the server is a
 * remote-controlled peer: the parent writes commands into a pipe
 * (tw_cmd(), through the srv_*() wrappers) and the server carries each one
 * out on its side of the connection -- accept with a given configuration,
 * post a receive, send, send with immediate data, write with immediate
 * data, poll a CQ, fill or check its buffer, close -- and reports what it
 * got through conn.h's report pipe. So a test reads as one sequence of
 * steps on both ends, and both ends' observations are printed by the
 * parent, in a fixed order.
 *
 * Each side registers one TW_BUF_SIZE-byte buffer (zeroed, usable for
 * every operation) and hands its descriptor to the other in the private
 * data of the connection, so either side can write with immediate data
 * into the other's buffer.
 *
 * Completions: tw_wait() polls a CQ with a deadline; tw_quiet() counts what
 * arrives within TW_QUIET_MS (what must not arrive). TW_EXPECT_WC() and
 * TW_EXPECT_RECV() check a completion of either side; TW_EXPECT_NEXT_WC()
 * and TW_EXPECT_NEXT_RECV() wait for the parent's next one and check it,
 * srv_expect_wc() and srv_expect_recv() the server's, and
 * tw_expect_delivered() both ends of a message the parent sent. The pattern
 * of the buffers is onesided.h's (tw_fill(), tw_is()).
 *
 * Scenarios the tests share, for op = TW_SEND, TW_SEND_IMM or TW_WRITE_IMM
 * posted by the parent: tw_late_receive() (a message waits for the peer's
 * receive), tw_sq_overflow() (RPMA_E_PROVIDER on a full send queue, which
 * changes nothing) and tw_too_long() (a message longer than the receive);
 * and, with the test's own call printed, TW_CASES_ROUND() (sizes and
 * offsets) and TW_IDS_ROUND() (op_context as wr_id).
 *
 * What rxe adds: a queue asked for n entries holds the next power of two
 * minus one (10 -> 15), so a default connection takes 15 posts before a
 * full queue fails; and receiver-not-ready retries are endless (rnr_retry
 * 7, librpma's connection parameter), so a message waits for a receive as
 * long as it takes.
 */
#ifndef TWOSIDED_H
#define TWOSIDED_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "conn.h"
#include "onesided.h"

/* the buffer of each side */
#define TW_BUF_SIZE 65536
#define TW_USAGE (RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV | \
		RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST)
/* the size of a memory-region descriptor */
#define TW_DESC_SIZE 21

/* how long a test watches for a completion that must not come */
#define TW_QUIET_MS 300
/* the most posts a queue-overflow loop tries */
#define TW_MAX_POSTS 256

/* op_context from a number, and op_contexts a test uses */
#define TW_CTX(n) ((const void *)(uintptr_t)(n))
#define TW_ID_A 0x1122334455667788ULL
#define TW_ID_B 0x8877665544332211ULL
#define TW_ID_MAX 0xFFFFFFFFFFFFFFFFULL
/* the op_contexts of the server's receives (TW_RID + n) */
#define TW_RID 0x5EC0000000000000ULL

/* which CQ of a connection */
enum { TW_MAIN_CQ, TW_RCQ };

/* the immediate data the tests send most (their calls print it as IMM) */
#define IMM 0x12345678u

/* a case of a round of immediate data, sizes and offsets */
struct tw_imm_case {
	uint32_t imm;
	size_t src_off, dst_off, len;
};

/* ---- contents ---- */

/*
 * the pattern seed (onesided.h's) in len bytes at p; seed 0 is all zeros
 * (a fresh buffer)
 */
static T_UNUSED void
tw_fill(void *p, size_t len, unsigned seed)
{
	if (seed == 0)
		memset(p, 0, len);
	else
		os_fill(p, len, seed);
}

/* 1 when the len bytes at p are the pattern seed */
static T_UNUSED int
tw_is(const void *p, size_t len, unsigned seed)
{
	return seed == 0 ? c_all_zero(p, len) : os_is_pattern(p, len, seed, 0);
}

/* ---- completions ---- */

/*
 * the next completion of cq into *wc within OS_WC_WAIT_MS: the return value
 * of the last rpma_cq_get_wc() (RPMA_E_NO_COMPLETION when none came in time)
 */
static T_UNUSED int
tw_wait(struct rpma_cq *cq, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	return t_cq_wait_ms(cq, 1, wc, NULL, OS_WC_WAIT_MS);
}

/* how many completions cq gives within TW_QUIET_MS (they are consumed) */
static T_UNUSED int
tw_quiet(struct rpma_cq *cq)
{
	struct ibv_wc wc;
	long long end = t_now_ms() + TW_QUIET_MS;
	int n = 0;

	while (t_now_ms() < end) {
		if (rpma_cq_get_wc(cq, 1, &wc, NULL) == 0)
			n++;
		else
			t_sleep_ms(1);
	}
	return n;
}

/*
 * A completion, the same on both sides: the parent's struct ibv_wc or what
 * the server reported (struct tw_wc, same field names).
 * TW_EXPECT_WC: status, op_context and opcode. TW_EXPECT_RECV: a successful
 * receive: opcode, op_context, byte_len and (with_imm) the immediate data,
 * both in host order and as it is stored (network order).
 */
#define TW_EXPECT_WC(wc, st, id, op) do { \
	EXPECT_INT((wc).status, st); \
	EXPECT_INT((wc).wr_id, id); \
	if ((wc).status == IBV_WC_SUCCESS) \
		EXPECT_INT((wc).opcode, op); \
} while (0)

#define TW_EXPECT_RECV(wc, id, op, len, with_imm, imm) do { \
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, id, op); \
	EXPECT_INT((wc).byte_len, len); \
	EXPECT_INT(((wc).wc_flags & IBV_WC_WITH_IMM) != 0, with_imm); \
	if (with_imm) { \
		EXPECT_INT(ntohl((wc).imm_data), imm); \
		EXPECT_INT((wc).imm_data, htonl(imm)); \
	} \
} while (0)

/*
 * the parent's next completion on cq (tw.cq or tw.rcq, printed as written)
 * is as TW_EXPECT_WC() / TW_EXPECT_RECV() say
 */
#define TW_EXPECT_NEXT_WC(cq, st, id, op) do { \
	struct ibv_wc wc; \
	EXPECT_INT(tw_wait(cq, &wc), 0); \
	TW_EXPECT_WC(wc, st, id, op); \
} while (0)

#define TW_EXPECT_NEXT_RECV(cq, id, op, len, with_imm, imm) do { \
	struct ibv_wc wc; \
	EXPECT_INT(tw_wait(cq, &wc), 0); \
	TW_EXPECT_RECV(wc, id, op, len, with_imm, imm); \
} while (0)

/*
 * exactly one message was logged (see tw_log_capture()): an ERROR from
 * the function fn, starting with the n characters of the string literal
 * prefix (printed as written)
 */
#define TW_EXPECT_ONE_ERROR(fn, prefix, n) do { \
	EXPECT_INT(c_nlogs, 1); \
	EXPECT_INT(c_logs[0].level, RPMA_LOG_LEVEL_ERROR); \
	EXPECT_STR(c_logs[0].function, fn); \
	EXPECT_TRUE(strncmp(c_logs[0].message, prefix, n) == 0); \
} while (0)

/* ---- the commands the parent gives the server ---- */

enum tw_op {
	TW_ACCEPT,	/* sq, rq, cq, rcq sizes (0: default) */
	TW_RECV,	/* as TW_SEND (flags not used) */
	TW_SEND,	/* offset (-1: src NULL, offset and len 0), len, flags, op_context */
	TW_SEND_IMM,	/* as TW_SEND, then imm */
	TW_WRITE_IMM,	/* as TW_SEND, then imm; dst: the client's buffer at offset */
	TW_POLL,	/* which CQ: reports ret and the completion (see struct tw_wc) */
	TW_QUIET,	/* which CQ: reports tw_quiet() */
	TW_FILL,	/* offset, len, seed */
	TW_CHECK,	/* offset, len, seed: reports tw_is() */
	TW_FIND,	/* offset, len, first seed, last seed: reports the seed found or -1 */
	TW_CLOSE,	/* c_closed() */
	TW_EXIT,
};

struct tw_cmd {
	int op;
	long long a[6];
};

/* what the server reports of a completion (see TW_POLL) */
struct tw_wc {
	long long ret;
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t byte_len;
	unsigned wc_flags;
	uint32_t imm_data;
};

/* parent -> server */
static int tw_cmdp[2] = {-1, -1};

/* one side of the connection; the parent's is tw, the server's is local */
struct tw_side {
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	void *buf;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	struct rpma_mr_remote *rmr; /* the other side's buffer */
	struct rpma_cq *cq, *rcq;
};

static struct tw_side tw;

/* a configuration with the given sizes (0: leave the default); NULL on failure */
static T_UNUSED struct rpma_conn_cfg *
tw_cfg(long long sq, long long rq, long long cq, long long rcq)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (sq)
		(void) rpma_conn_cfg_set_sq_size(cfg, (uint32_t)sq);
	if (rq)
		(void) rpma_conn_cfg_set_rq_size(cfg, (uint32_t)rq);
	if (cq)
		(void) rpma_conn_cfg_set_cq_size(cfg, (uint32_t)cq);
	(void) rpma_conn_cfg_set_rcq_size(cfg, (uint32_t)rcq);
	return cfg;
}

/* the other side's buffer, from the private data of conn; NULL on failure */
static T_UNUSED struct rpma_mr_remote *
tw_remote_of(struct rpma_conn *conn)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_mr_remote *rmr = NULL;

	if (rpma_conn_get_private_data(conn, &pd) != 0 || pd.ptr == NULL ||
			pd.len < TW_DESC_SIZE)
		return NULL;
	if (rpma_mr_remote_from_descriptor(pd.ptr, TW_DESC_SIZE, &rmr) != 0)
		return NULL;
	return rmr;
}

/* both CQs of the connection of s */
static T_UNUSED void
tw_get_cqs(struct tw_side *s)
{
	s->cq = NULL;
	s->rcq = NULL;
	(void) rpma_conn_get_cq(s->conn, &s->cq);
	(void) rpma_conn_get_rcq(s->conn, &s->rcq);
}

/* ---- the server ---- */

static int
tw_read_cmd(struct tw_cmd *c)
{
	return t_chan_get(tw_cmdp[0], c, sizeof(*c), 6 * C_WAIT_MS) == 0;
}

static void
tw_srv_accept(struct tw_side *s, const long long *a)
{
	char desc[TW_DESC_SIZE];
	struct rpma_conn_private_data pd = {desc, TW_DESC_SIZE};
	struct rpma_conn_cfg *cfg = tw_cfg(a[0], a[1], a[2], a[3]);

	S_CHECK(cfg != NULL);
	S_CHECK(rpma_mr_get_descriptor(s->mr, desc) == 0);
	s->conn = c_accept(s->ep, cfg, &pd);
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
	if (!S_CHECK(s->conn != NULL))
		return;
	s->rmr = tw_remote_of(s->conn);
	S_CHECK(s->rmr != NULL);
	tw_get_cqs(s);
}

/*
 * side s posts op (TW_RECV, TW_SEND, TW_SEND_IMM or TW_WRITE_IMM) of len
 * bytes of its buffer at off (TW_WRITE_IMM: into the other side's buffer
 * at off too); off -1: the 0-byte form with NULL regions. Its return value.
 */
static int
tw_side_post(struct tw_side *s, int op, long long off, long long len, int flags, uint64_t id,
		uint32_t imm)
{
	int null = off < 0;
	size_t o = null ? 0 : (size_t)off, l = null ? 0 : (size_t)len;
	struct rpma_mr_local *mr = null ? NULL : s->mr;

	switch (op) {
	case TW_RECV:
		return rpma_recv(s->conn, mr, o, l, TW_CTX(id));
	case TW_SEND:
		return rpma_send(s->conn, mr, o, l, flags, TW_CTX(id));
	case TW_SEND_IMM:
		return rpma_send_with_imm(s->conn, mr, o, l, flags, imm, TW_CTX(id));
	default:
		return rpma_write_with_imm(s->conn, null ? NULL : s->rmr, o, mr, o, l, flags,
				imm, TW_CTX(id));
	}
}

static void
tw_srv_poll(struct tw_side *s, int which)
{
	struct ibv_wc wc;
	struct rpma_cq *cq = which == TW_RCQ ? s->rcq : s->cq;
	int ret;

	S_CHECK(cq != NULL);
	ret = tw_wait(cq, &wc);
	c_put(ret);
	c_put((long long)wc.wr_id);
	c_put(wc.status);
	c_put(wc.opcode);
	c_put(wc.byte_len);
	c_put(wc.wc_flags);
	c_put(wc.imm_data);
}

static long long
tw_srv_find(struct tw_side *s, const long long *a)
{
	for (long long seed = a[2]; seed <= a[3]; seed++)
		if (tw_is((char *)s->buf + a[0], (size_t)a[1], (unsigned)seed))
			return seed;
	return -1;
}

static int
tw_server(void *arg)
{
	struct tw_side s;
	struct tw_cmd c;

	(void) arg;
	close(tw_cmdp[1]);
	memset(&s, 0, sizeof(s));
	s.peer = t_peer();
	s.ep = c_listen(s.peer);
	if (s.ep == NULL)
		return 1;
	s.mr = c_reg_buf(s.peer, TW_BUF_SIZE, TW_USAGE, &s.buf);
	for (;;) {
		if (!S_CHECK(tw_read_cmd(&c)))
			break;
		if (c.op == TW_EXIT)
			break;
		switch (c.op) {
		case TW_ACCEPT:
			tw_srv_accept(&s, c.a);
			break;
		case TW_RECV:
		case TW_SEND:
		case TW_SEND_IMM:
		case TW_WRITE_IMM:
			c_put(tw_side_post(&s, c.op, c.a[0], c.a[1], (int)c.a[2],
					(uint64_t)c.a[3], (uint32_t)c.a[4]));
			break;
		case TW_POLL:
			tw_srv_poll(&s, (int)c.a[0]);
			break;
		case TW_QUIET:
			c_put(tw_quiet(c.a[0] == TW_RCQ ? s.rcq : s.cq));
			break;
		case TW_FILL:
			tw_fill((char *)s.buf + c.a[0], (size_t)c.a[1], (unsigned)c.a[2]);
			break;
		case TW_CHECK:
			c_put(tw_is((char *)s.buf + c.a[0], (size_t)c.a[1], (unsigned)c.a[2]));
			break;
		case TW_FIND:
			c_put(tw_srv_find(&s, c.a));
			break;
		case TW_CLOSE:
			S_CHECK(rpma_mr_remote_delete(&s.rmr) == 0);
			S_CHECK(c_closed(&s.conn));
			break;
		default:
			S_CHECK(!"a known command");
		}
	}
	if (s.conn != NULL) {
		(void) rpma_mr_remote_delete(&s.rmr);
		(void) rpma_conn_delete(&s.conn);
	}
	c_dereg_buf(&s.mr, s.buf);
	S_CHECK(c_server_end(&s.ep, &s.peer));
	return c_server_status();
}

/* ---- the parent ---- */

/* parent: gives the server a command (the arguments not named are 0) */
#define tw_cmd(op, ...) tw_cmd_((op), (long long[6]){__VA_ARGS__})

static T_UNUSED void
tw_cmd_(int op, const long long *a)
{
	struct tw_cmd c;

	memset(&c, 0, sizeof(c));
	c.op = op;
	memcpy(c.a, a, sizeof(c.a));
	if (t_chan_put(tw_cmdp[1], &c, sizeof(c)) != 0) {
		fprintf(stderr, "twosided.h: the server takes no commands\n");
		exit(2);
	}
}

/*
 * parent: starts the server (see tw_server()) and fills tw with a peer of
 * its own and a registered, zeroed buffer
 */
static T_UNUSED void
tw_start(void)
{
	t_chan_open(tw_cmdp);
	memset(&tw, 0, sizeof(tw));
	tw.peer = c_start(tw_server);
	close(tw_cmdp[0]);
	if (posix_memalign(&tw.buf, 4096, TW_BUF_SIZE) != 0) {
		fprintf(stderr, "twosided.h: no memory\n");
		exit(2);
	}
	memset(tw.buf, 0, TW_BUF_SIZE);
	if (rpma_mr_reg(tw.peer, tw.buf, TW_BUF_SIZE, TW_USAGE, &tw.mr) != 0) {
		fprintf(stderr, "twosided.h: rpma_mr_reg failed\n");
		exit(2);
	}
}

/* sizes of a connection's queues; 0: the default (rcq: 0 is the default) */
struct tw_sizes {
	long long sq, rq, cq, rcq;
};

/*
 * parent: a connection to the server, the client's side configured with
 * cfg (NULL: the defaults), the server's with its own sizes (NULL: the
 * defaults); tw.conn, tw.rmr, tw.cq and tw.rcq are set. A connection that
 * cannot be had ends the test (status 2: it says nothing about the data
 * path).
 */
static T_UNUSED void
tw_connect_cfg(const struct rpma_conn_cfg *cfg, const struct tw_sizes *server)
{
	static const struct tw_sizes none;
	char desc[TW_DESC_SIZE];
	struct rpma_conn_private_data pd = {desc, TW_DESC_SIZE};

	if (server == NULL)
		server = &none;
	tw_cmd(TW_ACCEPT, server->sq, server->rq, server->cq, server->rcq);
	if (rpma_mr_get_descriptor(tw.mr, desc) != 0) {
		fprintf(stderr, "twosided.h: no descriptor\n");
		exit(2);
	}
	tw.conn = c_connect(tw.peer, cfg, &pd);
	if (tw.conn == NULL) {
		fprintf(stderr, "twosided.h: no connection to the server\n");
		exit(2);
	}
	tw.rmr = tw_remote_of(tw.conn);
	if (tw.rmr == NULL) {
		fprintf(stderr, "twosided.h: no descriptor from the server\n");
		exit(2);
	}
	tw_get_cqs(&tw);
}

/* tw_connect_cfg() with the client's sizes (NULL: the defaults) */
static T_UNUSED void
tw_connect(const struct tw_sizes *client, const struct tw_sizes *server)
{
	static const struct tw_sizes none;
	struct rpma_conn_cfg *cfg;

	if (client == NULL)
		client = &none;
	cfg = tw_cfg(client->sq, client->rq, client->cq, client->rcq);
	if (cfg == NULL) {
		fprintf(stderr, "twosided.h: no configuration\n");
		exit(2);
	}
	tw_connect_cfg(cfg, server);
	(void) rpma_conn_cfg_delete(&cfg);
}

/* parent: tw_start(), then tw_connect(); the parent's buffer */
static T_UNUSED char *
tw_start_connect(const struct tw_sizes *client, const struct tw_sizes *server)
{
	tw_start();
	tw_connect(client, server);
	return tw.buf;
}

/* parent: ends the connection on both sides */
static T_UNUSED void
tw_close(void)
{
	tw_cmd(TW_CLOSE);
	EXPECT_INT(rpma_mr_remote_delete(&tw.rmr), 0);
	EXPECT_TRUE(c_close(&tw.conn));
}

/* parent: the end of a test */
static T_UNUSED int
tw_end(void)
{
	tw_cmd(TW_EXIT);
	EXPECT_INT(rpma_mr_dereg(&tw.mr), 0);
	free(tw.buf);
	return c_end(tw.peer);
}

/* ---- the server's steps, from the parent ---- */

/* the server posts a receive of len bytes at off (off -1: the 0-byte form) */
static T_UNUSED void
srv_recv(long long off, long long len, uint64_t id)
{
	tw_cmd(TW_RECV, off, len, 0, (long long)id);
	EXPECT_INT(SERVER(rpma_recv), 0);
}

/* the server sends / sends with imm / writes with imm (op); returns its result */
static T_UNUSED long long
srv_post(int op, long long off, long long len, int flags, uint64_t id, uint32_t imm)
{
	tw_cmd(op, off, len, flags, (long long)id, imm);
	return SERVER(post);
}

/* the server's next completion on its main CQ or its receive CQ */
static T_UNUSED struct tw_wc
srv_wc(int which)
{
	struct tw_wc wc;

	tw_cmd(TW_POLL, which);
	wc.ret = SERVER(ret);
	wc.wr_id = (uint64_t)SERVER(wr_id);
	wc.status = (int)SERVER(status);
	wc.opcode = (int)SERVER(opcode);
	wc.byte_len = (uint32_t)SERVER(byte_len);
	wc.wc_flags = (unsigned)SERVER(wc_flags);
	wc.imm_data = (uint32_t)SERVER(imm_data);
	return wc;
}

/* the server's next completion on its main CQ is as TW_EXPECT_WC() says */
static T_UNUSED struct tw_wc
srv_expect_wc(int st, uint64_t id, int op)
{
	struct tw_wc swc = srv_wc(TW_MAIN_CQ);

	EXPECT_INT(swc.ret, 0);
	TW_EXPECT_WC(swc, st, id, op);
	return swc;
}

/* ... is a receive, as TW_EXPECT_RECV() says */
static T_UNUSED struct tw_wc
srv_expect_recv(uint64_t id, int op, long long len, int with_imm, uint32_t imm)
{
	struct tw_wc swc = srv_wc(TW_MAIN_CQ);

	EXPECT_INT(swc.ret, 0);
	TW_EXPECT_RECV(swc, id, op, len, with_imm, imm);
	return swc;
}

/* how many completions the server's CQ gives within TW_QUIET_MS */
static T_UNUSED long long
srv_quiet(int which)
{
	tw_cmd(TW_QUIET, which);
	return SERVER(quiet);
}

static T_UNUSED void
srv_fill(long long off, long long len, unsigned seed)
{
	tw_cmd(TW_FILL, off, len, seed);
}

/* 1 when the server's buffer holds pattern seed at off */
static T_UNUSED long long
srv_is(long long off, long long len, unsigned seed)
{
	tw_cmd(TW_CHECK, off, len, seed);
	return SERVER(check);
}

/* the seed in first..last whose pattern the server holds at off, or -1 */
static T_UNUSED long long
srv_find(long long off, long long len, unsigned first, unsigned last)
{
	tw_cmd(TW_FIND, off, len, first, last);
	return SERVER(find);
}

/*
 * 1 when the server's buffer holds pattern seed in [off, off + len) and
 * zeros everywhere else (the buffer was zeroed before the message came)
 */
static T_UNUSED int
srv_only(long long off, long long len, unsigned seed)
{
	int ok = srv_is(off, len, seed) == 1;

	ok = srv_is(0, off, 0) == 1 && ok;
	ok = srv_is(off + len, TW_BUF_SIZE - off - len, 0) == 1 && ok;
	return ok;
}

/* the same for the parent's buffer */
static T_UNUSED int
tw_only(size_t off, size_t len, unsigned seed)
{
	char *b = tw.buf;

	return tw_is(b + off, len, seed) && tw_is(b, off, 0) &&
		tw_is(b + off + len, TW_BUF_SIZE - off - len, 0);
}

/* ---- what the library logs ---- */

/* parent: start recording the library's messages (conn.h's c_log) */
static T_UNUSED void
tw_log_capture(void)
{
	c_nlogs = 0;
	EXPECT_INT(rpma_log_set_function(c_log), 0);
}

static T_UNUSED void
tw_log_restore(void)
{
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
}

/* ---- the parent's posts and scenarios shared by the tests ---- */

/* parent: posts op (TW_SEND, TW_SEND_IMM or TW_WRITE_IMM), see tw_side_post() */
static T_UNUSED int
tw_post(int op, long long off, long long len, int flags, uint64_t id, uint32_t imm)
{
	return tw_side_post(&tw, op, off, len, flags, id, imm);
}

/* the completion opcode of op at the sender */
static T_UNUSED int
tw_send_opcode(int op)
{
	return op == TW_WRITE_IMM ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;
}

/* the completion opcode of op at the receiver */
static T_UNUSED int
tw_recv_opcode(int op)
{
	return op == TW_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
}

/*
 * the message of op that the parent posted with op_context id arrived: its
 * completion at the parent, then the server's receive rid of len bytes
 * (with imm when op carries immediate data); the server's completion
 */
static T_UNUSED struct tw_wc
tw_expect_delivered(int op, uint64_t id, uint64_t rid, long long len, uint32_t imm)
{
	TW_EXPECT_NEXT_WC(tw.cq, IBV_WC_SUCCESS, id, tw_send_opcode(op));
	return srv_expect_recv(rid, tw_recv_opcode(op), len, op != TW_SEND, imm);
}

/*
 * The round of sizes and offsets, over the test's cases[] (src_off,
 * dst_off, len): for case i, a note (the printf arguments after call), the
 * server's buffer zeroed with a receive TW_RID + i posted (at dst_off; for
 * TW_WRITE_IMM a 0-byte one), the bytes of seed 10 + i at src_off of the
 * parent's buffer, then call (printed as written: it posts op of case i
 * with op_context TW_ID_B + i) returns 0, both ends of the message
 * complete (with immediate data imm) and the server's buffer holds the
 * bytes at dst_off and zeros elsewhere.
 */
#define TW_CASES_ROUND(op, imm, call, ...) do { \
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) { \
		unsigned seed = 10 + (unsigned)i; \
		long long at = (op) == TW_WRITE_IMM ? -1 : (long long)cases[i].dst_off; \
		\
		t_note(__VA_ARGS__); \
		srv_fill(0, TW_BUF_SIZE, 0); \
		srv_recv(at, at < 0 ? 0 : TW_BUF_SIZE - at, TW_RID + i); \
		tw_fill((char *)tw.buf + cases[i].src_off, cases[i].len, seed); \
		t_int(__FILE__, __LINE__, #call, (long long)(call), 0); \
		tw_expect_delivered(op, TW_ID_B + i, TW_RID + i, cases[i].len, imm); \
		EXPECT_INT(srv_only((long long)cases[i].dst_off, (long long)cases[i].len, seed), \
				1); \
	} \
} while (0)

/*
 * op_context comes back as wr_id, bit for bit: for each of ids[] (the
 * test's), a 0-byte receive of that op_context at the server, then call
 * (printed as written: a 0-byte post of op with op_context ids[i] and, if
 * op carries any, immediate data i) returns 0 and both ends complete.
 */
#define TW_IDS_ROUND(op, call) do { \
	t_note("op_context comes back as wr_id, bit for bit"); \
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) { \
		srv_recv(-1, 0, ids[i]); \
		t_int(__FILE__, __LINE__, #call, (long long)(call), 0); \
		tw_expect_delivered(op, ids[i], ids[i], 0, (uint32_t)i); \
	} \
} while (0)

/* how many entries a queue of the default configuration (10) holds on rxe */
#define TW_DEFAULT_CAPACITY 15

/* the server's sizes for tw_sq_overflow(): its queues hold every message */
static T_UNUSED const struct tw_sizes tw_overflow_server = {.rq = 64, .cq = 64};

/* the slot of message n in the buffers of tw_sq_overflow() */
#define TW_SLOT 64
/* the seed and the immediate data of message n */
#define TW_SEED(n) (100u + (unsigned)(n))
#define TW_IMM(n) (0xA0000000u + (uint32_t)(n))

/*
 * The PROVIDER of a post on a full send queue (a default one), with the
 * failure changing nothing. The server has posted no receive, so the first
 * message waits (receiver not ready, retried for ever) and every later one
 * stays queued behind it: the unsignalled 8-byte posts of op succeed until
 * the send queue is full (TW_DEFAULT_CAPACITY posts), and the next one
 * fails with RPMA_E_PROVIDER and one ERROR message. Then the server posts
 * as many receives: exactly the messages posted before the failure arrive,
 * each once, each into one receive, with its data (and immediate data);
 * nothing more arrives and the unsignalled posts give the sender no
 * completion. The server needs tw_overflow_server's sizes.
 */
static T_UNUSED void
tw_sq_overflow(int op)
{
	const int capacity = TW_DEFAULT_CAPACITY;
	char *b = tw.buf;
	int posted, ret = 0, completed = 0, receives_used = 0, messages_intact = 0;
	unsigned char seen_r[TW_MAX_POSTS], seen_m[TW_MAX_POSTS];
	struct tw_wc swc;

	t_note("ERRORS: RPMA_E_PROVIDER on a full send queue; it changes nothing");
	tw_log_capture();
	for (posted = 0; posted < TW_MAX_POSTS; posted++) {
		tw_fill(b + posted * TW_SLOT, 8, TW_SEED(posted));
		ret = tw_post(op, posted * TW_SLOT, 8, RPMA_F_COMPLETION_ON_ERROR,
				TW_ID_A + (uint64_t)posted, TW_IMM(posted));
		if (ret != 0)
			break;
	}
	EXPECT_INT(ret, RPMA_E_PROVIDER);
	EXPECT_INT(posted, capacity);
	if (op == TW_WRITE_IMM) {
		/*
		 * upstream describes the work request, with addresses and keys
		 * (not printed here), the 64-bit values cut to their low 32 bits
		 * and the opcode of a plain write
		 */
		char tail[128];

		snprintf(tail, sizeof(tail), ", wr_id=0x%x, opcode=IBV_WR_RDMA_WRITE, "
				"send_flags=0) failed: ", (unsigned)(TW_ID_A + (uint64_t)posted));
		TW_EXPECT_ONE_ERROR("rpma_mr_write", "ibv_post_send(dst_addr=0x", 25);
		EXPECT_TRUE(strstr(c_logs[0].message, ", length=8, lkey=0x") != NULL);
		EXPECT_TRUE(strstr(c_logs[0].message, tail) != NULL);
	} else {
		TW_EXPECT_ONE_ERROR("rpma_mr_send", "ibv_post_send failed: ", 22);
	}
	fprintf(stderr, "logged: %s", c_logs[0].message); /* not an observation */
	tw_log_restore();
	EXPECT_INT(tw_quiet(tw.cq), 0);

	memset(seen_r, 0, sizeof(seen_r));
	memset(seen_m, 0, sizeof(seen_m));
	for (int j = 0; j < posted; j++) {
		if (op == TW_WRITE_IMM)
			srv_recv(-1, 0, TW_RID + (uint64_t)j);
		else
			srv_recv(j * TW_SLOT, TW_SLOT, TW_RID + (uint64_t)j);
	}
	for (int j = 0; j < posted; j++) {
		long long r, m;

		swc = srv_wc(TW_MAIN_CQ);
		if (swc.ret != 0 || swc.status != IBV_WC_SUCCESS ||
				swc.opcode != tw_recv_opcode(op) || swc.byte_len != 8)
			continue;
		completed++;
		r = (long long)(swc.wr_id - TW_RID);
		if (r < 0 || r >= posted)
			continue;
		if (!seen_r[r]++)
			receives_used++;
		/* which message: by its immediate data or by the bytes received */
		if (op == TW_SEND)
			m = srv_find(r * TW_SLOT, 8, TW_SEED(0), TW_SEED(posted - 1)) - TW_SEED(0);
		else
			m = (long long)ntohl(swc.imm_data) - TW_IMM(0);
		if (m < 0 || m >= posted)
			continue;
		/* its data: in the receive, or where it was written */
		if (srv_is((op == TW_WRITE_IMM ? m : r) * TW_SLOT, 8, TW_SEED(m)) == 1 &&
				!seen_m[m]++)
			messages_intact++;
	}
	EXPECT_INT(completed, capacity);
	EXPECT_INT(receives_used, capacity);
	EXPECT_INT(messages_intact, capacity);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("the send queue takes posts again");
	srv_recv(-1, 0, TW_RID);
	EXPECT_INT(tw_post(op, -1, 0, RPMA_F_COMPLETION_ALWAYS, TW_ID_B, 7), 0);
	tw_expect_delivered(op, TW_ID_B, TW_RID, 0, 7);
}

/*
 * A message posted before the server has a receive waits: it is retried
 * (receiver not ready, for ever by default) until the server posts one, and
 * only then completes on both sides.
 */
static T_UNUSED void
tw_late_receive(int op)
{
	tw_fill(tw.buf, 32, 5);
	srv_fill(0, TW_BUF_SIZE, 0);
	EXPECT_INT(tw_post(op, 0, 32, RPMA_F_COMPLETION_ALWAYS, TW_ID_A, 0x01020304), 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);
	srv_recv(op == TW_WRITE_IMM ? -1 : 0, 64, TW_RID + 1);
	srv_expect_recv(TW_RID + 1, tw_recv_opcode(op), 32, op != TW_SEND, 0x01020304);
	EXPECT_INT(srv_only(0, 32, 5), 1);
	TW_EXPECT_NEXT_WC(tw.cq, IBV_WC_SUCCESS, TW_ID_A, tw_send_opcode(op));
}

/*
 * What rxe reports for a message longer than the receive it lands in, at
 * the receiver and at the sender (both queue pairs go to the error state).
 * The verbs specification has IBV_WC_LOC_LEN_ERR and IBV_WC_REM_INV_REQ_ERR;
 * rxe in Debian's kernel 6.1 treats the overflow as a malformed receive
 * request instead.
 */
#define TW_TOO_LONG_AT_RECEIVER IBV_WC_LOC_QP_OP_ERR
#define TW_TOO_LONG_AT_SENDER IBV_WC_REM_OP_ERR

/*
 * A message longer than the server's receive: an error completion on both
 * sides, and both queue pairs in the error state, where every later post
 * of the sender completes with IBV_WC_WR_FLUSH_ERR -- with a completion
 * even when posted with RPMA_F_COMPLETION_ON_ERROR, as an error is always
 * reported.
 * Must be the last step on its connection.
 */
static T_UNUSED void
tw_too_long(int op)
{
	t_note("a message longer than the receive");
	srv_recv(0, 16, TW_RID);
	tw_fill(tw.buf, 64, 6);
	EXPECT_INT(tw_post(op, 0, 64, RPMA_F_COMPLETION_ON_ERROR, TW_ID_A, 9), 0);
	srv_expect_wc(TW_TOO_LONG_AT_RECEIVER, TW_RID, 0);
	TW_EXPECT_NEXT_WC(tw.cq, TW_TOO_LONG_AT_SENDER, TW_ID_A, 0);

	t_note("after the error, work requests are flushed");
	EXPECT_INT(tw_post(op, 0, 8, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, 9), 0);
	TW_EXPECT_NEXT_WC(tw.cq, IBV_WC_WR_FLUSH_ERR, TW_ID_B, 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	/*
	 * (A receive the server posts now is not flushed on rxe: the kernel
	 * never sees a receive posted after the error. Not a library matter.)
	 */
}

#endif /* TWOSIDED_H */
