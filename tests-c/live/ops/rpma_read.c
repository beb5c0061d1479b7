/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_read.c -- mirrors rpma_read(3): RPMA_E_INVAL for a NULL conn, for
 * flags 0, for exactly one of dst and src NULL (whatever the offsets and
 * the length), for both NULL with a non-zero offset or length; a failed
 * call posts nothing and changes nothing. 0 otherwise: the remote bytes
 * land at dst + dst_offset and nowhere else; RPMA_F_COMPLETION_ALWAYS gives
 * one completion (IBV_WC_RDMA_READ, op_context bit-exact as wr_id),
 * RPMA_F_COMPLETION_ON_ERROR none on success (only the bit of ALWAYS that
 * ON_ERROR lacks asks for one: flags 2 does, an unknown bit alone does
 * not); the 0-byte forms (both regions NULL; regions with length 0)
 * complete too. Nothing is checked against the regions' sizes: reading
 * past the end of the remote region is a completion with
 * IBV_WC_REM_ACCESS_ERR, even with RPMA_F_COMPLETION_ON_ERROR, and what is
 * posted afterwards completes with IBV_WC_WR_FLUSH_ERR. RPMA_E_PROVIDER
 * when the device refuses the work request: a full send queue.
 */
#include "onesided.h"

#define RSIZE 4096 /* the server's region */
#define RSEED 1
#define LSIZE 8192 /* the client's region */
#define LSEED 2

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	os_serve_one_region(peer, ep, RSIZE, RPMA_MR_USAGE_READ_SRC, RSEED, 0);
}

static int
post_read(struct rpma_conn *conn, struct rpma_mr_remote *src, const void *ctx, void *dst)
{
	return rpma_read(conn, dst, 0, src, 0, 8, ALWAYS, ctx);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *src = NULL;
	struct rpma_mr_local *dst;
	unsigned char *lbuf = NULL;

	t_begin();
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	dst = os_local(peer, LSIZE, RPMA_MR_USAGE_READ_DST, LSEED, (void **)&lbuf);
	EXPECT_TRUE(dst != NULL);

	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, 1, &src), 1);

	t_note("ERRORS: RPMA_E_INVAL");
	OS_EXPECT_INVAL_RW(rpma_read, conn, dst, src);
	EXPECT_TRUE(os_is_pattern(lbuf, LSIZE, LSEED, 0));

	t_note("RETURN VALUE: 0; RPMA_F_COMPLETION_ALWAYS: one completion");
	EXPECT_INT(rpma_read(conn, dst, 100, src, 1000, 64, ALWAYS, OS_CTX(0x1001)), 0);
	OS_EXPECT_WC(conn, 0x1001, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(conn));
	/* the remote bytes 1000..1063 at 100..163, nothing else changed */
	EXPECT_TRUE(os_is_pattern(lbuf + 100, 64, RSEED, 1000));
	EXPECT_TRUE(os_is_pattern(lbuf, 100, LSEED, 0));
	EXPECT_TRUE(os_is_pattern(lbuf + 164, LSIZE - 164, LSEED, 164));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	EXPECT_INT(rpma_read(conn, dst, 4096, src, 0, RSIZE, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	EXPECT_TRUE(os_is_pattern(lbuf + 4096, RSIZE, RSEED, 0));
	EXPECT_TRUE(os_is_pattern(lbuf + 164, 4096 - 164, LSEED, 164));

	t_note("flags: only the bit ALWAYS adds to ON_ERROR asks for a completion");
	EXPECT_INT(rpma_read(conn, dst, 0, src, 0, 8, 2, OS_CTX(0x1002)), 0);
	OS_EXPECT_WC(conn, 0x1002, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_read(conn, dst, 0, src, 0, 8, 4, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	EXPECT_TRUE(os_is_pattern(lbuf, 8, RSEED, 0));

	t_note("op_context comes back bit-exact as wr_id");
	EXPECT_INT(rpma_read(conn, dst, 8, src, 8, 8, ALWAYS, OS_CTX(0xFEDCBA9876543210ULL)), 0);
	OS_EXPECT_WC(conn, 0xFEDCBA9876543210ULL, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_read(conn, dst, 16, src, 16, 8, ALWAYS, NULL), 0);
	OS_EXPECT_WC(conn, 0, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_is_pattern(lbuf, 24, RSEED, 0));

	t_note("0-byte reads");
	EXPECT_INT(rpma_read(conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x1003)), 0);
	OS_EXPECT_WC(conn, 0x1003, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_read(conn, NULL, 0, NULL, 0, 0, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	/* regions and offsets, length 0 */
	EXPECT_INT(rpma_read(conn, dst, 24, src, 512, 0, ALWAYS, OS_CTX(0x1004)), 0);
	OS_EXPECT_WC(conn, 0x1004, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_is_pattern(lbuf + 24, 76, LSEED, 24));
	EXPECT_INT(c_nlogs, 0);

	t_note("past the end of the remote region: a completion with an error");
	EXPECT_INT(rpma_read(conn, dst, 200, src, RSIZE - 4, 8, ON_ERROR, OS_CTX(0x1005)), 0);
	OS_EXPECT_WC(conn, 0x1005, IBV_WC_RDMA_READ, IBV_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(os_is_pattern(lbuf + 164, 4096 - 164, LSEED, 164));
	/* the queue pair is in the error state now */
	EXPECT_INT(rpma_read(conn, dst, 200, src, 0, 8, ON_ERROR, OS_CTX(0x1006)), 0);
	OS_EXPECT_WC(conn, 0x1006, IBV_WC_RDMA_READ, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_TRUE(os_is_pattern(lbuf + 164, 4096 - 164, LSEED, 164));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&src), 0);

	os_expect_full_sq(peer, 1, 0, post_read, dst, "ibv_post_send");

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_TRUE(os_local_delete(&dst, lbuf));
	return c_end(peer);
}
