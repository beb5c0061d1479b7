/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock.h -- helpers shared by the live tests of the "mock" group
 * (mock_*.c: provider failures injected through common/rpma_mock.c).
 *
 * The usual pair: the server (a child, never armed) registers a region,
 * accepts one connection with the region's descriptor as private data and
 * waits for the client to close it; the client (the parent, where the
 * mocks are armed) connects, turns the private data into a remote region
 * and works on it.
 *
 * Each test is registered with add_live_test(NAME <name> MOCK) (see
 * live/mock/CMakeLists.txt): that is what links it with the mocks.
 */
#ifndef MOCK_H
#define MOCK_H

#include <errno.h>
#include <poll.h>
#include <time.h>

#include "conn.h"
#include "rpma_mock.h"

/* the size of every buffer */
#define M_BUF_SIZE 4096
/* what the server's region allows */
#define M_SERVER_USAGE (RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | \
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)
/* what the client's region allows */
#define M_CLIENT_USAGE (RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST | \
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* sentinels for "output untouched" */
static char m_sentinel_objs[2] T_UNUSED;
#define M_SENTINEL_CQ ((struct rpma_cq *)&m_sentinel_objs[0])
#define M_SENTINEL_SRQ ((struct rpma_srq *)&m_sentinel_objs[1])
#define M_SENTINEL_INT 0x5EADBEEF

/* ---- server ---- */

/*
 * server body for c_start_serving(): a region with M_SERVER_USAGE whose
 * descriptor goes to the client as the private data of the accept; then
 * waits for the client to close the connection
 */
static T_UNUSED void
m_serve_region(struct rpma_peer *peer, struct rpma_ep *ep)
{
	void *buf = NULL;
	struct rpma_mr_local *mr = c_reg_buf(peer, M_BUF_SIZE, M_SERVER_USAGE, &buf);
	unsigned char desc[64];
	size_t desc_size = 0;
	struct rpma_conn *conn;

	S_CHECK(rpma_mr_get_descriptor_size(mr, &desc_size) == 0);
	S_CHECK(desc_size <= sizeof(desc));
	S_CHECK(rpma_mr_get_descriptor(mr, desc) == 0);

	struct rpma_conn_private_data pdata = {desc, (uint8_t)desc_size};

	conn = c_accept(ep, NULL, &pdata);
	if (conn != NULL)
		S_CHECK(c_closed(&conn));
	c_dereg_buf(&mr, buf);
}

/* ---- client ---- */

/* the client's side of m_serve_region() */
struct m_client {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *remote; /* the server's region */
	struct rpma_mr_local *mr; /* the client's own region */
	void *buf;
	struct rpma_peer *peer; /* the peer it connected with */
};

/*
 * client: connects with cfg (may be NULL), takes the server's region from
 * the private data and registers a region of its own with M_CLIENT_USAGE;
 * 1 when all of it worked (checked as one observation)
 */
static T_UNUSED int
m_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg, struct m_client *c)
{
	struct rpma_conn_private_data pdata = {NULL, 0};
	int ok;

	memset(c, 0, sizeof(*c));
	c->peer = peer;
	c->conn = c_connect(peer, cfg, NULL);
	ok = c->conn != NULL &&
		rpma_conn_get_cq(c->conn, &c->cq) == 0 &&
		rpma_conn_get_private_data(c->conn, &pdata) == 0 &&
		pdata.ptr != NULL &&
		rpma_mr_remote_from_descriptor(pdata.ptr, pdata.len, &c->remote) == 0 &&
		posix_memalign(&c->buf, 4096, M_BUF_SIZE) == 0 &&
		rpma_mr_reg(peer, c->buf, M_BUF_SIZE, M_CLIENT_USAGE, &c->mr) == 0;
	EXPECT_TRUE(ok);
	if (ok)
		memset(c->buf, 0, M_BUF_SIZE);
	return ok;
}

/* client: closes and releases what m_connect() made; 1 when all went well */
static T_UNUSED int
m_close(struct m_client *c)
{
	int ok = 1;

	if (c->conn != NULL)
		ok = c_close(&c->conn) && ok;
	if (c->remote != NULL)
		ok = rpma_mr_remote_delete(&c->remote) == 0 && ok;
	if (c->mr != NULL)
		ok = rpma_mr_dereg(&c->mr) == 0 && ok;
	free(c->buf);
	c->buf = NULL;
	return ok;
}

/*
 * client: m_connect() with cfg (may be NULL); when it worked, body(c, ctx)
 * runs with the ops table of the device's context mocked; then m_close()
 * (checked)
 */
static T_UNUSED void
m_run(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		void (*body)(struct m_client *c, struct ibv_context *ctx))
{
	struct m_client c;

	if (m_connect(peer, cfg, &c)) {
		struct ibv_context *ctx = t_ibv_ctx();

		t_mock_ops_install(ctx);
		body(&c, ctx);
		t_mock_ops_uninstall();
	}
	EXPECT_TRUE(m_close(&c));
}

/* the main of a test that is one m_run() of body against m_serve_region() */
#define M_RUN_MAIN(body) \
int \
main(void) \
{ \
	struct rpma_peer *peer; \
\
	t_begin(); \
	peer = c_start_serving(m_serve_region); \
	m_run(peer, NULL, body); \
	return c_end(peer); \
}

/*
 * the next completion of cq into *wc, polled for up to C_WAIT_MS;
 * rpma_cq_get_wc()'s last result (RPMA_E_NO_COMPLETION when none came)
 */
static T_UNUSED int
m_wait_wc(struct rpma_cq *cq, struct ibv_wc *wc)
{
	return t_cq_wait_ms(cq, 1, wc, NULL, C_WAIT_MS);
}

/* 1 when cq stays without a completion for ms milliseconds */
static T_UNUSED int
m_quiet(struct rpma_cq *cq, int ms)
{
	long long end = t_now_ms() + ms;
	struct ibv_wc wc;
	int ret;

	do {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret != RPMA_E_NO_COMPLETION) {
			fprintf(stderr, "mock.h: unexpected rpma_cq_get_wc() %d (wr_id %llu)\n",
					ret, (unsigned long long)wc.wr_id);
			return 0;
		}
		t_sleep_ms(5);
	} while (t_now_ms() < end);
	return 1;
}

/* 1 when fd becomes readable within ms milliseconds */
static T_UNUSED int
m_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

/*
 * client: an 8-byte RDMA write from the client's region to the server's,
 * with a completion; then its completion is the next one of c->cq (polled)
 * and a success with op_context; 1 when all of it held
 */
static T_UNUSED int
m_write_completes(struct m_client *c, const void *op_context)
{
	struct ibv_wc wc;

	if (rpma_write(c->conn, c->remote, 0, c->mr, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			op_context) != 0)
		return 0;
	if (m_wait_wc(c->cq, &wc) != 0)
		return 0;
	return wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RDMA_WRITE &&
		wc.wr_id == (uint64_t)(uintptr_t)op_context;
}

/* ---- a failure armed for one call ---- */

/*
 * The next call of fn fails with err (t_mock_fail(), or t_mock_fail_after()
 * which fails after the real work); call returns want, and the failure was
 * used (t_mock_pending(fn) is 0). call is printed as written: t_int() with
 * #call, as EXPECT_INT() would get call macro-expanded (NULL) from here.
 */
#define M_FAIL(fn, err, call, want) do { \
	t_mock_fail((fn), 0, (err)); \
	t_int(__FILE__, __LINE__, #call, (long long)(call), (long long)(want)); \
	EXPECT_INT(t_mock_pending(fn), 0); \
} while (0)
#define M_FAIL_AFTER(fn, err, call, want) do { \
	t_mock_fail_after((fn), 0, (err)); \
	t_int(__FILE__, __LINE__, #call, (long long)(call), (long long)(want)); \
	EXPECT_INT(t_mock_pending(fn), 0); \
} while (0)
/* the same for the ops-table entry op of ctx, armed with ret */
#define M_OP_FAIL(ctx, op, ret, call, want) do { \
	t_mock_op_fail((ctx), (op), 0, (ret)); \
	t_int(__FILE__, __LINE__, #call, (long long)(call), (long long)(want)); \
	EXPECT_INT(t_mock_op_pending(op), 0); \
} while (0)

#endif /* MOCK_H */
