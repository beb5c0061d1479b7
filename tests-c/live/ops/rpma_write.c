/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_write.c -- mirrors rpma_write(3): RPMA_E_INVAL for a NULL conn, for
 * flags 0, for exactly one of dst and src NULL (whatever the offsets and
 * the length), for both NULL with a non-zero offset or length; a failed
 * call posts nothing and changes nothing. 0 otherwise: the local bytes
 * land at the remote dst + dst_offset and nowhere else (the server checks
 * its memory); RPMA_F_COMPLETION_ALWAYS gives one completion
 * (IBV_WC_RDMA_WRITE, op_context bit-exact as wr_id),
 * RPMA_F_COMPLETION_ON_ERROR none on success (only the bit of ALWAYS that
 * ON_ERROR lacks asks for one: flags 2 does, an unknown bit alone does
 * not); the 0-byte forms (both regions NULL; regions with length 0)
 * complete too and change nothing. Nothing is checked against the regions'
 * sizes: writing past the end of the remote region is a completion with
 * IBV_WC_REM_ACCESS_ERR, even with RPMA_F_COMPLETION_ON_ERROR, nothing is
 * written, and what is posted afterwards completes with
 * IBV_WC_WR_FLUSH_ERR without being written either. RPMA_E_PROVIDER when
 * the device refuses the work request: a full send queue.
 */
#include "onesided.h"

#define RSIZE 4096 /* the server's region */
#define RSEED 1
#define LSIZE 8192 /* the client's region */
#define LSEED 2

/* how many times the client asks for the contents of the server's region */
#define CHECKPOINTS 6

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	os_serve_one_region(peer, ep, RSIZE, RPMA_MR_USAGE_WRITE_DST, RSEED, CHECKPOINTS);
}

static int
post_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, const void *ctx, void *src)
{
	return rpma_write(conn, dst, 0, src, 0, 8, ALWAYS, ctx);
}

/* what the server's region should hold */
static unsigned char model[RSIZE];
static unsigned char *lbuf;

/* the model of rpma_write(dst_offset, src_offset, len) */
static void
wrote(size_t dst_offset, size_t src_offset, size_t len)
{
	memcpy(model + dst_offset, lbuf + src_offset, len);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *dst = NULL;
	struct rpma_mr_local *src;

	t_begin();
	os_fill(model, RSIZE, RSEED);
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	src = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC, LSEED, (void **)&lbuf);
	EXPECT_TRUE(src != NULL);

	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, 1, &dst), 1);

	t_note("ERRORS: RPMA_E_INVAL");
	OS_EXPECT_INVAL_RW(rpma_write, conn, dst, src);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("RETURN VALUE: 0; RPMA_F_COMPLETION_ALWAYS: one completion");
	EXPECT_INT(rpma_write(conn, dst, 1000, src, 100, 64, ALWAYS, OS_CTX(0x2001)), 0);
	OS_EXPECT_WC(conn, 0x2001, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(conn));
	wrote(1000, 100, 64);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	EXPECT_INT(rpma_write(conn, dst, 2048, src, 4096, 2048, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	wrote(2048, 4096, 2048);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("flags: only the bit ALWAYS adds to ON_ERROR asks for a completion");
	EXPECT_INT(rpma_write(conn, dst, 0, src, 0, 8, 2, OS_CTX(0x2002)), 0);
	OS_EXPECT_WC(conn, 0x2002, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_write(conn, dst, 8, src, 8, 8, 4, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	wrote(0, 0, 16);

	t_note("op_context comes back bit-exact as wr_id");
	EXPECT_INT(rpma_write(conn, dst, 16, src, 16, 8, ALWAYS, OS_CTX(0xFEDCBA9876543210ULL)), 0);
	OS_EXPECT_WC(conn, 0xFEDCBA9876543210ULL, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_write(conn, dst, 24, src, 24, 8, ALWAYS, NULL), 0);
	OS_EXPECT_WC(conn, 0, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	wrote(16, 16, 16);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("0-byte writes change nothing");
	EXPECT_INT(rpma_write(conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x2003)), 0);
	OS_EXPECT_WC(conn, 0x2003, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_write(conn, NULL, 0, NULL, 0, 0, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	/* regions and offsets, length 0 */
	EXPECT_INT(rpma_write(conn, dst, 512, src, 24, 0, ALWAYS, OS_CTX(0x2004)), 0);
	OS_EXPECT_WC(conn, 0x2004, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	EXPECT_INT(c_nlogs, 0);

	t_note("past the end of the remote region: a completion with an error");
	EXPECT_INT(rpma_write(conn, dst, RSIZE - 4, src, 0, 8, ON_ERROR, OS_CTX(0x2005)), 0);
	OS_EXPECT_WC(conn, 0x2005, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR);
	/* the queue pair is in the error state now */
	EXPECT_INT(rpma_write(conn, dst, 200, src, 0, 8, ON_ERROR, OS_CTX(0x2006)), 0);
	OS_EXPECT_WC(conn, 0x2006, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	/* neither was written */
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&dst), 0);

	os_expect_full_sq(peer, 1, 0, post_write, src, "ibv_post_send");

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_TRUE(os_local_delete(&src, lbuf));
	return c_end(peer);
}
