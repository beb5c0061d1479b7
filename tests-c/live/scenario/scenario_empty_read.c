/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_empty_read.c -- a read of nothing (rpma_read(3) with no regions,
 * offsets and length 0: the fence of rpma_read(3)) after reads of
 * something on the same connection. The client first reads 64 bytes of
 * the server's region into its own, SLOTS times, so that every slot of its
 * send queue (SQ_SIZE requests, rounded up by the provider) has held a
 * read with a local buffer. The server then fills its region anew and the
 * client zeroes its own; then it posts SLOTS reads of nothing. Checked:
 * each completes with IBV_WC_SUCCESS, and the client's region is still all
 * zero: a read of nothing moved no byte.
 *
 * rxe passes this with both libraries. siw builds a read request from the
 * first entry of the send queue slot whatever the request's entry count,
 * so a read posted without entries (the C library's, for a read of
 * nothing) goes out with the length and local buffer of the slot's last
 * request, and no remote key: the server refuses it and the connection
 * breaks. This library posts one empty entry for it on iWARP
 * (rpma_read(3), NOTES); tests.toml lists the C library's failure.
 */
#include "onesided.h"

#define RSIZE 4096
#define LSIZE 4096
#define LEN 64
#define SQ_SIZE 8
#define SLOTS 32 /* reads of each kind: every slot, more than once */
#define SEED1 31
#define SEED2 32

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};
	int k = os_srv_reg(peer, &s, RSIZE, RPMA_MR_USAGE_READ_SRC, SEED1);

	os_srv_accept(ep, &s, NULL, 0);
	/* the client has read; new bytes, which no read of nothing may bring */
	if (S_CHECK(t_sync_wait() == 0))
		os_fill(s.buf[k], RSIZE, SEED2);
	c_put(1);
	os_srv_closed(&s);
	os_srv_dereg(&s);
}

/*
 * client: the next completion is id's, a successful read; 1 when it is (a
 * broken connection fails every read behind it: the caller stops)
 */
static int
read_done(struct rpma_conn *conn, uint64_t id)
{
	struct ibv_wc wc;
	int ok = os_wait_wc(conn, &wc) == 0;

	EXPECT_TRUE(ok);
	if (!ok)
		return 0;
	EXPECT_INT(wc.wr_id, id);
	EXPECT_INT(wc.opcode, IBV_WC_RDMA_READ);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	return wc.wr_id == id && wc.status == IBV_WC_SUCCESS;
}

static int
all_zero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *conn;
	struct rpma_mr_local *local;
	struct rpma_mr_remote *remote[1] = {NULL};
	unsigned char *lbuf;
	void *buf;

	t_begin();
	peer = c_start_serving(serve);
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_READ_DST, 0, &buf);
	lbuf = buf;
	cfg = os_cfg(SQ_SIZE, SQ_SIZE);
	conn = c_connect(peer, cfg, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_TRUE(os_remotes(conn, 1, remote));
	if (conn == NULL || remote[0] == NULL)
		return c_end(peer);

	t_note("%d reads of %d bytes, one at a time", SLOTS, LEN);
	for (int i = 0; i < SLOTS; i++) {
		EXPECT_INT(rpma_read(conn, local, 0, remote[0], 0, LEN, RPMA_F_COMPLETION_ALWAYS,
				OS_CTX(0x100 + i)), 0);
		if (!read_done(conn, 0x100 + (unsigned)i))
			break;
	}
	EXPECT_TRUE(os_is_pattern(lbuf, LEN, SEED1, 0));

	t_note("the server's region filled anew, ours zeroed: %d reads of nothing", SLOTS);
	t_sync_send();
	EXPECT_INT(c_get(), 1);
	memset(lbuf, 0, LSIZE);
	for (int i = 0; i < SLOTS; i++) {
		EXPECT_INT(rpma_read(conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				OS_CTX(0x200 + i)), 0);
		if (!read_done(conn, 0x200 + (unsigned)i)) {
			t_note("read of nothing %d failed: the connection is broken", i);
			break;
		}
	}
	EXPECT_TRUE(all_zero(lbuf, LSIZE));
	EXPECT_TRUE(os_cq_empty(conn));

	EXPECT_TRUE(os_remotes_delete(1, remote));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	os_local_delete(&local, buf);
	return c_end(peer);
}
