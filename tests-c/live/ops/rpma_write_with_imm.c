/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_write_with_imm.c -- mirrors rpma_write_with_imm(3): RPMA_E_INVAL for
 * a NULL conn, for flags 0, for exactly one of dst and src NULL (even with
 * offsets and len 0), and for both NULL with a non-zero offset or len
 * (nothing is posted); the data lands in the remote region at dst_offset,
 * nothing else written, at several sizes and offsets, and the write
 * consumes one of the peer's receives (a 0-byte receive is enough, and a
 * receive buffer stays untouched) whose completion is
 * IBV_WC_RECV_RDMA_WITH_IMM with IBV_WC_WITH_IMM, byte_len the length
 * written and the immediate data in network byte order; the 0-byte form
 * (both NULL) carries the immediate data too; op_context comes back
 * bit-exact as wr_id of an IBV_WC_RDMA_WRITE completion;
 * RPMA_F_COMPLETION_ON_ERROR gives no completion on success; a write posted
 * before the peer has a receive waits for one; RPMA_E_PROVIDER from
 * ibv_post_send() on a full send queue, changing nothing; a range beyond the
 * remote region is not checked by the library and fails at the peer.
 */
#include "twosided.h"

/* what rxe reports for a write beyond the remote region */
#define OUT_OF_RANGE_AT_WRITER IBV_WC_REM_ACCESS_ERR
#define OUT_OF_RANGE_AT_PEER IBV_WC_REM_ACCESS_ERR

/* immediate data, sizes and offsets */
static const struct tw_imm_case cases[] = {
	{0, 0, 0, 1},
	{1, 7, 4093, 9},
	{0x80000000u, 4095, 8191, 1500},
	{0xFFFFFFFFu, 0, 16384, 4096},
	{0x01020304u, 17, 24576, 40000},
};

/* the op_contexts of TW_IDS_ROUND() */
static const uint64_t ids[] = {0, TW_ID_A, TW_ID_MAX};

int
main(void)
{
	struct tw_wc swc;
	char *b;

	t_begin();
	b = tw_start_connect(NULL, &tw_overflow_server);

	t_note("ERRORS: RPMA_E_INVAL");
	srv_recv(-1, 0, TW_RID);
	EXPECT_INT(rpma_write_with_imm(NULL, tw.rmr, 0, tw.mr, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(NULL, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, tw.mr, 0, 8, 0, IMM,
			TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, NULL, 0, 0, 0, IMM, NULL),
			RPMA_E_INVAL);
	/* exactly one of the regions NULL */
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, tw.mr, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, tw.mr, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, NULL, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	/* both NULL, but an offset or len */
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 8, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, NULL, 8, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, NULL, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			IMM, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	/* nothing was posted: no completion anywhere, the receive still waits */
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);

	t_note("RETURN VALUE: 0; the data lands, the peer's receive completes");
	tw_fill(b, 100, 1);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, tw.mr, 0, 100,
			RPMA_F_COMPLETION_ALWAYS, IMM, TW_CTX(TW_ID_A)), 0);
	/* the receive posted before the rejected calls: they consumed nothing */
	swc = tw_expect_delivered(TW_WRITE_IMM, TW_ID_A, TW_RID, 100, IMM);
	EXPECT_INT(((unsigned char *)&swc.imm_data)[0], 0x12);
	EXPECT_INT(((unsigned char *)&swc.imm_data)[3], 0x78);
	EXPECT_INT(srv_only(0, 100, 1), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("immediate data, sizes and offsets");
	TW_CASES_ROUND(TW_WRITE_IMM, cases[i].imm, rpma_write_with_imm(tw.conn, tw.rmr,
			cases[i].dst_off, tw.mr, cases[i].src_off, cases[i].len,
			RPMA_F_COMPLETION_ALWAYS, cases[i].imm, TW_CTX(TW_ID_B + i)),
			"imm 0x%08x, src_offset %zu, len %zu, dst_offset %zu",
			(unsigned)cases[i].imm, cases[i].src_off, cases[i].len, cases[i].dst_off);

	t_note("the receive's own buffer stays untouched");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_fill(61440, 64, 3);
	srv_recv(61440, 64, TW_RID + 1);
	tw_fill(b, 200, 2);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, tw.mr, 0, 200,
			RPMA_F_COMPLETION_ALWAYS, IMM, TW_CTX(TW_ID_A)), 0);
	tw_expect_delivered(TW_WRITE_IMM, TW_ID_A, TW_RID + 1, 200, IMM);
	EXPECT_INT(srv_is(0, 200, 2), 1);
	EXPECT_INT(srv_is(200, 61440 - 200, 0), 1);
	EXPECT_INT(srv_is(61440, 64, 3), 1);
	EXPECT_INT(srv_is(61440 + 64, TW_BUF_SIZE - 61440 - 64, 0), 1);

	t_note("0-byte writes: both regions NULL, or regions and len 0");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_recv(-1, 0, TW_RID + 2);
	EXPECT_INT(rpma_write_with_imm(tw.conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			0xCAFE, TW_CTX(TW_ID_A)), 0);
	tw_expect_delivered(TW_WRITE_IMM, TW_ID_A, TW_RID + 2, 0, 0xCAFE);
	srv_recv(-1, 0, TW_RID + 3);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 64, tw.mr, 64, 0,
			RPMA_F_COMPLETION_ALWAYS, 0, TW_CTX(TW_ID_B)), 0);
	tw_expect_delivered(TW_WRITE_IMM, TW_ID_B, TW_RID + 3, 0, 0);
	EXPECT_INT(srv_is(0, TW_BUF_SIZE, 0), 1);

	TW_IDS_ROUND(TW_WRITE_IMM, rpma_write_with_imm(tw.conn, NULL, 0, NULL, 0, 0,
			RPMA_F_COMPLETION_ALWAYS, (uint32_t)i, TW_CTX(ids[i])));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_recv(-1, 0, TW_RID + 4);
	tw_fill(b + 512, 48, 4);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 512, tw.mr, 512, 48,
			RPMA_F_COMPLETION_ON_ERROR, IMM, TW_CTX(TW_ID_A)), 0);
	srv_expect_recv(TW_RID + 4, IBV_WC_RECV_RDMA_WITH_IMM, 48, 1, IMM);
	EXPECT_INT(srv_only(512, 48, 4), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("a write posted before the peer posts a receive waits for one");
	tw_late_receive(TW_WRITE_IMM);

	tw_sq_overflow(TW_WRITE_IMM);

	t_note("a range beyond the remote region: posted, fails at the peer");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_recv(-1, 0, TW_RID + 5);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, TW_BUF_SIZE - 4, tw.mr, 0, 8,
			RPMA_F_COMPLETION_ON_ERROR, IMM, TW_CTX(TW_ID_A)), 0);
	TW_EXPECT_NEXT_WC(tw.cq, OUT_OF_RANGE_AT_WRITER, TW_ID_A, 0);
	srv_expect_wc(OUT_OF_RANGE_AT_PEER, TW_RID + 5, 0);
	EXPECT_INT(srv_is(0, TW_BUF_SIZE, 0), 1);
	tw_close();

	return tw_end();
}
