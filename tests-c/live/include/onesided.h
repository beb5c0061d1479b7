/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * onesided.h -- helpers shared by the live tests of the one-sided data path
 * (rpma_read.c, rpma_write.c, rpma_atomic_write.c, rpma_flush.c and the
 * scenarios about data integrity, access rights and completion order).
 *
 * The frame is conn.h's: the parent is the client and prints every
 * observation, the server runs in a forked child. The server registers its
 * regions (os_srv_reg()) and accepts with their descriptors, one after the
 * other, in the private data (os_srv_accept()); the client rebuilds them
 * with os_remotes(). The server reports the contents of a region as a hash
 * (os_srv_report()) whenever the client asks for it (os_checkpoint()); the
 * client keeps a model of what the region should hold and compares.
 *
 * Completions: os_wait_wc() polls the main CQ with a deadline.
 * OS_EXPECT_WC() checks the next completion; OS_EXPECT_FENCE() posts a
 * signalled 0-byte read and checks that it is the very next completion
 * and the last one: completions of one queue pair come in posting order, so
 * whatever was posted before the fence and gave no completion of its own
 * either completed without one or was never posted. OS_EXPECT_INVAL_RW()
 * is the RPMA_E_INVAL round rpma_read.c and rpma_write.c share.
 *
 * RPMA_E_PROVIDER from a healthy device: os_srv_vanish() on the server and
 * os_expect_full_sq() on the client fill the client's send queue (see
 * there why a live peer cannot).
 */
#ifndef ONESIDED_H
#define ONESIDED_H

#include <stdint.h>
#include <time.h>

#include "conn.h"

/* the op_context of the fence of OS_EXPECT_FENCE() */
#define OS_FENCE_ID 0xFE4CEULL
/* an op_context that must never come back as a wr_id */
#define OS_NEVER_ID 0xBADULL
/* op_context from a number */
#define OS_CTX(n) ((const void *)(uintptr_t)(n))

/* how long a completion may take */
#define OS_WC_WAIT_MS 10000

/*
 * the short names the one-sided tests write their calls with (printed as
 * written); a test may define them again, the same way
 */
#define ALWAYS RPMA_F_COMPLETION_ALWAYS
#define ON_ERROR RPMA_F_COMPLETION_ON_ERROR
#define NEVER OS_CTX(OS_NEVER_ID)

/* ---- contents ---- */

/* the deterministic contents of a region: byte i of pattern seed */
static T_UNUSED unsigned char
os_byte(unsigned seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 0x9E37u;

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	x ^= x >> 12;
	return (unsigned char)(x >> 8);
}

/* fills len bytes at p with pattern seed */
static T_UNUSED void
os_fill(void *p, size_t len, unsigned seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = os_byte(seed, i);
}

/* 1 when the len bytes at p are pattern seed, starting at pattern byte from */
static T_UNUSED int
os_is_pattern(const void *p, size_t len, unsigned seed, size_t from)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != os_byte(seed, from + i))
			return 0;
	return 1;
}

/* FNV-1a over len bytes, folded to a non-negative long long */
static T_UNUSED long long
os_hash(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xCBF29CE484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001B3ULL;
	}
	return (long long)(h >> 1);
}

/* ---- the server: regions, their descriptors, reports ---- */

#define OS_MAX_REGIONS 8

struct os_server {
	int n;
	void *buf[OS_MAX_REGIONS];
	size_t size[OS_MAX_REGIONS];
	struct rpma_mr_local *mr[OS_MAX_REGIONS];
	struct rpma_conn *conn;
};

/*
 * server: registers one more region of size bytes with usage, filled with
 * pattern seed; its index
 */
static T_UNUSED int
os_srv_reg(struct rpma_peer *peer, struct os_server *s, size_t size, int usage,
		unsigned seed)
{
	int k = s->n;

	if (!S_CHECK(k < OS_MAX_REGIONS))
		return 0;
	s->mr[k] = c_reg_buf(peer, size, usage, &s->buf[k]);
	s->size[k] = size;
	os_fill(s->buf[k], size, seed);
	s->n++;
	return k;
}

/*
 * server: accepts the next request with cfg (may be NULL) and the
 * descriptors of all regions, one after the other, as private data; then
 * the descriptor of a peer configuration declaring direct write to PMem
 * when direct is set. s->conn is the connection, or NULL.
 */
static T_UNUSED void
os_srv_accept(struct rpma_ep *ep, struct os_server *s, const struct rpma_conn_cfg *cfg,
		int direct)
{
	char pdata[OS_MAX_REGIONS * 21 + 1];
	struct rpma_conn_private_data pd = {pdata, 0};
	struct rpma_peer_cfg *pcfg = NULL;
	size_t size = 0;

	for (int k = 0; k < s->n; k++) {
		S_CHECK(rpma_mr_get_descriptor_size(s->mr[k], &size) == 0 && size == 21);
		S_CHECK(rpma_mr_get_descriptor(s->mr[k], &pdata[pd.len]) == 0);
		pd.len += 21;
	}
	if (direct) {
		S_CHECK(rpma_peer_cfg_new(&pcfg) == 0);
		S_CHECK(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true) == 0);
		S_CHECK(rpma_peer_cfg_get_descriptor(pcfg, &pdata[pd.len]) == 0);
		pd.len += 1;
		S_CHECK(rpma_peer_cfg_delete(&pcfg) == 0);
	}
	s->conn = c_accept(ep, cfg, &pd);
}

/* server: waits for the client's disconnection and ends the connection */
static T_UNUSED void
os_srv_closed(struct os_server *s)
{
	if (s->conn != NULL)
		S_CHECK(c_closed(&s->conn));
}

/* server: deregisters and frees every region */
static T_UNUSED void
os_srv_dereg(struct os_server *s)
{
	for (int k = 0; k < s->n; k++)
		c_dereg_buf(&s->mr[k], s->buf[k]);
	s->n = 0;
}

/*
 * server: waits for the client's os_checkpoint() and reports the hash of
 * region k (or LLONG_MIN when the client did not ask)
 */
static T_UNUSED void
os_srv_report(struct os_server *s, int k)
{
	if (!S_CHECK(t_sync_wait() == 0)) {
		c_put(LLONG_MIN);
		return;
	}
	c_put(os_hash(s->buf[k], s->size[k]));
}

/* ---- the client ---- */

/* client: asks the server for its next os_srv_report(); the hash it sent */
static T_UNUSED long long
os_checkpoint(void)
{
	t_sync_send();
	return c_get();
}

/*
 * client: the remote regions of the server's private data (n of them) into
 * remote[]; 1 when all n were built
 */
static T_UNUSED int
os_remotes(struct rpma_conn *conn, int n, struct rpma_mr_remote **remote)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	const char *p;

	if (conn == NULL || rpma_conn_get_private_data(conn, &pd) != 0 || pd.ptr == NULL ||
			pd.len < (size_t)n * 21)
		return 0;
	p = pd.ptr;
	for (int k = 0; k < n; k++) {
		remote[k] = NULL;
		if (rpma_mr_remote_from_descriptor(p + 21 * k, 21, &remote[k]) != 0)
			return 0;
	}
	return 1;
}

/* client: deletes n remote regions; 1 when all went well */
static T_UNUSED int
os_remotes_delete(int n, struct rpma_mr_remote **remote)
{
	int ok = 1;

	for (int k = 0; k < n; k++)
		ok = rpma_mr_remote_delete(&remote[k]) == 0 && remote[k] == NULL && ok;
	return ok;
}

/*
 * client: applies the peer configuration that follows n descriptors in the
 * server's private data; 1 when it did
 */
static T_UNUSED int
os_apply_pcfg(struct rpma_conn *conn, int n)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_peer_cfg *pcfg = NULL;
	int ok;

	if (rpma_conn_get_private_data(conn, &pd) != 0 || pd.ptr == NULL ||
			pd.len < (size_t)n * 21 + 1)
		return 0;
	if (rpma_peer_cfg_from_descriptor((const char *)pd.ptr + 21 * n, 1, &pcfg) != 0)
		return 0;
	ok = rpma_conn_apply_remote_peer_cfg(conn, pcfg) == 0;
	return rpma_peer_cfg_delete(&pcfg) == 0 && ok;
}

/*
 * client: a local region of size bytes (page-aligned, *buf for free())
 * with usage, filled with pattern seed; NULL when a step failed
 */
static T_UNUSED struct rpma_mr_local *
os_local(struct rpma_peer *peer, size_t size, int usage, unsigned seed, void **buf)
{
	struct rpma_mr_local *mr = NULL;

	*buf = NULL;
	if (posix_memalign(buf, 4096, size) != 0)
		return NULL;
	os_fill(*buf, size, seed);
	if (rpma_mr_reg(peer, *buf, size, usage, &mr) != 0)
		return NULL;
	return mr;
}

/* client: the end of os_local(); 1 when the region was deregistered */
static T_UNUSED int
os_local_delete(struct rpma_mr_local **mr, void *buf)
{
	int ok = rpma_mr_dereg(mr) == 0 && *mr == NULL;

	free(buf);
	return ok;
}

/* a connection configuration with the given queue sizes; NULL on failure */
static T_UNUSED struct rpma_conn_cfg *
os_cfg(uint32_t sq, uint32_t cq)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (rpma_conn_cfg_set_sq_size(cfg, sq) != 0 || rpma_conn_cfg_set_cq_size(cfg, cq) != 0)
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

/* ---- completions ---- */

/*
 * the next completion of conn's main CQ into *wc, polling for up to
 * OS_WC_WAIT_MS: rpma_cq_get_wc()'s result (RPMA_E_NO_COMPLETION when none
 * came), or -1 when the CQ cannot be had
 */
static T_UNUSED int
os_wait_wc(struct rpma_conn *conn, struct ibv_wc *wc)
{
	struct rpma_cq *cq = NULL;

	memset(wc, 0, sizeof(*wc));
	if (conn == NULL || rpma_conn_get_cq(conn, &cq) != 0 || cq == NULL)
		return -1;
	return t_cq_wait_ms(cq, 1, wc, NULL, OS_WC_WAIT_MS);
}

/* 1 when conn's main CQ holds no completion right now */
static T_UNUSED int
os_cq_empty(struct rpma_conn *conn)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;

	if (rpma_conn_get_cq(conn, &cq) != 0 || cq == NULL)
		return 0;
	return rpma_cq_get_wc(cq, 1, &wc, NULL) == RPMA_E_NO_COMPLETION;
}

/*
 * the next completion of conn is (id, status) and, when it succeeded, of
 * opcode op (the opcode of a failed completion is not defined)
 */
#define OS_EXPECT_WC(conn, id, op, st) do { \
	struct ibv_wc wc; \
	EXPECT_INT(os_wait_wc(conn, &wc), 0); \
	EXPECT_INT(wc.wr_id, id); \
	EXPECT_INT(wc.status, st); \
	if ((st) == IBV_WC_SUCCESS) \
		EXPECT_INT(wc.opcode, op); \
} while (0)

/*
 * a signalled 0-byte read goes through conn and its completion is the next
 * one and the last one (OS_EXPECT_FENCE_ST: with status st)
 */
#define OS_EXPECT_FENCE_ST(conn, st) do { \
	EXPECT_INT(rpma_read(conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, \
			OS_CTX(OS_FENCE_ID)), 0); \
	OS_EXPECT_WC(conn, OS_FENCE_ID, IBV_WC_RDMA_READ, st); \
	EXPECT_TRUE(os_cq_empty(conn)); \
} while (0)
#define OS_EXPECT_FENCE(conn) OS_EXPECT_FENCE_ST(conn, IBV_WC_SUCCESS)

/*
 * The RPMA_E_INVAL cases that rpma_read(3) and rpma_write(3) (fn) share,
 * printed as fn's calls: a NULL conn, flags 0, exactly one of dst and src
 * NULL (whatever the offsets and the length), both NULL with an offset or
 * the length not 0. None logs anything, and none posts anything: a fence
 * is the next completion.
 */
#define OS_EXPECT_INVAL_RW(fn, conn, dst, src) do { \
	c_nlogs = 0; \
	EXPECT_INT(fn(NULL, dst, 0, src, 0, 64, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(NULL, NULL, 0, NULL, 0, 0, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, dst, 0, src, 0, 64, 0, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 0, NULL, 0, 0, 0, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 0, src, 0, 64, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 0, src, 0, 0, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, dst, 0, NULL, 0, 64, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, dst, 0, NULL, 0, 0, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 8, NULL, 0, 0, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 0, NULL, 8, 0, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(fn(conn, NULL, 0, NULL, 0, 8, ALWAYS, NEVER), RPMA_E_INVAL); \
	EXPECT_INT(c_nlogs, 0); \
	t_note("... posted nothing and changed nothing"); \
	OS_EXPECT_FENCE(conn); \
} while (0)

/* ---- a full send queue: RPMA_E_PROVIDER from the device ---- */

/*
 * On rxe a work request leaves the send queue as soon as the peer has
 * acknowledged it, signalled or not, and the peer's side runs right in the
 * posting call: against a live peer the queue never fills, however many
 * requests are posted without polling. It does fill when nothing ever
 * acknowledges: the server deletes its connection without disconnecting
 * (os_srv_vanish()), the client's queue pair stays ready to send, and
 * every request it posts stays queued. The queue of the default
 * configuration (10) holds 15 of them on rxe (10 + 1 rounded up to a power
 * of two, one slot kept free); the 16th post fails in the provider.
 */
#define OS_SQ_HOLDS 15

/*
 * server: accepts (as os_srv_accept() without a peer configuration), waits
 * for the client, deletes the connection without disconnecting, tells the
 * client
 */
static T_UNUSED void
os_srv_vanish(struct rpma_ep *ep, struct os_server *s)
{
	os_srv_accept(ep, s, NULL, 0);
	if (s->conn == NULL)
		return;
	S_CHECK(t_sync_wait() == 0);
	S_CHECK(rpma_conn_delete(&s->conn) == 0);
	t_sync_send();
}

/*
 * server of a test of one operation on one region (size bytes, usage,
 * filled from seed): 1: one connection with everything but the full send
 * queue, reports times os_srv_report() of the region, then the client's
 * close; 2: the full send queue (os_srv_vanish())
 */
static T_UNUSED void
os_serve_one_region(struct rpma_peer *peer, struct rpma_ep *ep, size_t size, int usage,
		unsigned seed, int reports)
{
	struct os_server s = {0};

	os_srv_reg(peer, &s, size, usage, seed);
	os_srv_accept(ep, &s, NULL, 0);
	for (int i = 0; i < reports; i++)
		os_srv_report(&s, 0);
	os_srv_closed(&s);
	os_srv_vanish(ep, &s);
	os_srv_dereg(&s);
}

/* one post of the operation under test, with op_context ctx */
typedef int (*os_post_fn)(struct rpma_conn *conn, struct rpma_mr_remote *remote,
		const void *ctx, void *arg);

/*
 * client, against os_srv_vanish() (whose private data holds nremotes
 * descriptors): posts with post(conn, remote[which], ctx, arg), ctx 1, 2,
 * ..., until a post fails: it is post number OS_SQ_HOLDS + 1, it fails
 * with RPMA_E_PROVIDER and logs one ERROR about call (ibv_post_send(3), or
 * ibv_wr_complete(3) for a native atomic write or flush). It posted
 * nothing: once the client disconnects, which moves its queue pair to the
 * error state, exactly the OS_SQ_HOLDS requests before it complete, in
 * order, with IBV_WC_WR_FLUSH_ERR, and then a fence. The log function must
 * be c_log.
 */
static T_UNUSED void
os_expect_full_sq(struct rpma_peer *peer, int nremotes, int which, os_post_fn post, void *arg,
		const char *call)
{
	/* the default send queue; room in the CQ for every flushed request */
	struct rpma_conn_cfg *cfg = os_cfg(10, 32);
	struct rpma_mr_remote *remote[OS_MAX_REGIONS] = {NULL};
	struct rpma_conn *conn;
	struct ibv_wc wc;
	int posted, ret = 0, in_order = 0;

	t_note("a peer that never acknowledges: the send queue fills");
	EXPECT_TRUE(cfg != NULL);
	conn = c_connect(peer, cfg, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, nremotes, remote), 1);
	t_sync_send();
	EXPECT_INT(t_sync_wait(), 0); /* the server's side is gone */
	if (conn == NULL || remote[which] == NULL)
		return;

	c_nlogs = 0;
	for (posted = 0; posted < 64; posted++) {
		ret = post(conn, remote[which], OS_CTX(posted + 1), arg);
		if (ret != 0)
			break;
	}
	EXPECT_INT(posted, OS_SQ_HOLDS);
	/* ERRORS: RPMA_E_PROVIDER: ibv_post_send(3) (ibv_wr_complete(3)) failed */
	EXPECT_INT(ret, RPMA_E_PROVIDER);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(c_logs[0].level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_TRUE(strncmp(c_logs[0].message, call, strlen(call)) == 0);

	t_note("the failed post added nothing to the queue");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	for (int k = 1; k <= posted; k++) {
		if (os_wait_wc(conn, &wc) != 0)
			break;
		if (wc.wr_id == (uint64_t)k && wc.status == IBV_WC_WR_FLUSH_ERR)
			in_order++;
	}
	EXPECT_INT(in_order, OS_SQ_HOLDS);
	OS_EXPECT_FENCE_ST(conn, IBV_WC_WR_FLUSH_ERR);

	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_CLOSED));
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(os_remotes_delete(nremotes, remote));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
}

#endif /* ONESIDED_H */
