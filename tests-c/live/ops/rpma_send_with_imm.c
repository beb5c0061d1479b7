/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_send_with_imm.c -- mirrors rpma_send_with_imm(3): RPMA_E_INVAL for a
 * NULL conn, for flags 0 and for a NULL src with a non-zero offset or len
 * (nothing is posted); a message lands in the peer's receive with its
 * bytes, byte_len, IBV_WC_WITH_IMM and the immediate data, which the
 * receiver finds in network byte order (ntohl(wc.imm_data) is the value
 * sent) for several values, sizes and offsets; the 0-byte forms carry the
 * immediate data too; op_context comes back bit-exact as wr_id (IBV_WC_SEND
 * at the sender, IBV_WC_RECV at the receiver); RPMA_F_COMPLETION_ON_ERROR
 * gives no completion on success; a message sent before the peer has a
 * receive waits for one; RPMA_E_PROVIDER from ibv_post_send() on a full send
 * queue, changing nothing; a message longer than the receive fails on both
 * sides.
 */
#include "twosided.h"

/* immediate data, sizes and offsets */
static const struct tw_imm_case cases[] = {
	{0, 0, 0, 1},
	{1, 7, 4096, 9},
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
	srv_recv(0, TW_BUF_SIZE, TW_RID);
	EXPECT_INT(rpma_send_with_imm(NULL, tw.mr, 0, 8, RPMA_F_COMPLETION_ALWAYS, IMM,
			TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(NULL, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, IMM, NULL),
			RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(tw.conn, tw.mr, 0, 8, 0, IMM, TW_CTX(TW_ID_A)),
			RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(tw.conn, NULL, 0, 0, 0, IMM, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(tw.conn, NULL, 8, 0, RPMA_F_COMPLETION_ALWAYS, IMM,
			TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(tw.conn, NULL, 0, 8, RPMA_F_COMPLETION_ALWAYS, IMM,
			TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_send_with_imm(tw.conn, NULL, 8, 8, RPMA_F_COMPLETION_ON_ERROR, IMM,
			TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	/* nothing was posted: no completion anywhere, the receive still waits */
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);

	t_note("RETURN VALUE: 0, and the message arrives with its immediate data");
	tw_fill(b, 100, 1);
	EXPECT_INT(rpma_send_with_imm(tw.conn, tw.mr, 0, 100, RPMA_F_COMPLETION_ALWAYS, IMM,
			TW_CTX(TW_ID_A)), 0);
	/* the receive posted before the rejected calls: they consumed nothing */
	swc = tw_expect_delivered(TW_SEND_IMM, TW_ID_A, TW_RID, 100, IMM);
	/* the value as it travels: big-endian */
	EXPECT_INT(((unsigned char *)&swc.imm_data)[0], 0x12);
	EXPECT_INT(((unsigned char *)&swc.imm_data)[3], 0x78);
	EXPECT_INT(srv_only(0, 100, 1), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("immediate data, sizes and offsets");
	TW_CASES_ROUND(TW_SEND_IMM, cases[i].imm, rpma_send_with_imm(tw.conn, tw.mr,
			cases[i].src_off, cases[i].len, RPMA_F_COMPLETION_ALWAYS, cases[i].imm,
			TW_CTX(TW_ID_B + i)),
			"imm 0x%08x, src_offset %zu, len %zu, into a receive at %zu",
			(unsigned)cases[i].imm, cases[i].src_off, cases[i].len, cases[i].dst_off);

	t_note("0-byte messages with immediate data: src NULL, or a region and len 0");
	srv_fill(0, 64, 3);
	srv_recv(0, 64, TW_RID + 1);
	EXPECT_INT(rpma_send_with_imm(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, 0xCAFE,
			TW_CTX(TW_ID_A)), 0);
	tw_expect_delivered(TW_SEND_IMM, TW_ID_A, TW_RID + 1, 0, 0xCAFE);
	EXPECT_INT(srv_is(0, 64, 3), 1);
	srv_recv(-1, 0, TW_RID + 2);
	EXPECT_INT(rpma_send_with_imm(tw.conn, tw.mr, 64, 0, RPMA_F_COMPLETION_ALWAYS, 0,
			TW_CTX(TW_ID_B)), 0);
	tw_expect_delivered(TW_SEND_IMM, TW_ID_B, TW_RID + 2, 0, 0);

	TW_IDS_ROUND(TW_SEND_IMM, rpma_send_with_imm(tw.conn, NULL, 0, 0,
			RPMA_F_COMPLETION_ALWAYS, (uint32_t)i, TW_CTX(ids[i])));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_recv(0, 64, TW_RID + 4);
	tw_fill(b, 48, 4);
	EXPECT_INT(rpma_send_with_imm(tw.conn, tw.mr, 0, 48, RPMA_F_COMPLETION_ON_ERROR, IMM,
			TW_CTX(TW_ID_A)), 0);
	srv_expect_recv(TW_RID + 4, IBV_WC_RECV, 48, 1, IMM);
	EXPECT_INT(srv_only(0, 48, 4), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("a message sent before the peer posts a receive waits for one");
	tw_late_receive(TW_SEND_IMM);

	tw_sq_overflow(TW_SEND_IMM);
	tw_too_long(TW_SEND_IMM);
	tw_close();

	return tw_end();
}
