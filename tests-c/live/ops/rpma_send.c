/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_send.c -- mirrors rpma_send(3): RPMA_E_INVAL for a NULL conn, for
 * flags 0 and for a NULL src with a non-zero offset or len (nothing is
 * posted: the server's receive waits for the next real message); a message
 * lands in the peer's receive with its byte_len and its bytes, at several
 * sizes and offsets, nothing outside it written; the 0-byte forms (NULL src,
 * or a region and len 0) consume a receive and complete with byte_len 0;
 * op_context comes back bit-exact as wr_id (IBV_WC_SEND at the sender,
 * IBV_WC_RECV without IBV_WC_WITH_IMM at the receiver);
 * RPMA_F_COMPLETION_ON_ERROR gives no completion on success,
 * RPMA_F_COMPLETION_ALWAYS does; a message sent before the peer has a
 * receive waits for one; RPMA_E_PROVIDER from ibv_post_send() on a full
 * send queue, changing nothing; a message longer than the receive fails on
 * both sides and puts the connection in the error state; a range beyond the
 * region is not checked by the library and fails at the sender.
 */
#include "twosided.h"

/*
 * what rxe reports for a message from beyond the local region: Linux 6.1
 * says IBV_WC_LOC_PROT_ERR, Linux 6.12 IBV_WC_WR_FLUSH_ERR (measured, with
 * both C libraries and ours alike)
 */
#define OUT_OF_RANGE_AT_SENDER \
	(t_kernel() >= 6012 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_PROT_ERR)

/* the sizes and offsets of the data-integrity round */
static const struct {
	size_t src_off, dst_off, len;
} cases[] = {
	{0, 0, 1},
	{3, 4097, 7},
	{4095, 8190, 2},
	{1, 12288, 1024},
	{5, 20000, 1025},
	{100, 24576, 4096},
	{0, 32768, 32768},
};

/* the op_contexts of TW_IDS_ROUND() */
static const uint64_t ids[] = {0, 1, TW_ID_A, TW_ID_B, TW_ID_MAX};

int
main(void)
{
	char *b;

	t_begin();
	b = tw_start_connect(NULL, &tw_overflow_server);

	t_note("ERRORS: RPMA_E_INVAL");
	srv_recv(0, TW_BUF_SIZE, TW_RID);
	EXPECT_INT(rpma_send(NULL, tw.mr, 0, 8, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_A)),
			RPMA_E_INVAL);
	EXPECT_INT(rpma_send(NULL, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 8, 0, TW_CTX(TW_ID_A)), RPMA_E_INVAL);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_send(tw.conn, NULL, 8, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_A)),
			RPMA_E_INVAL);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 8, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_A)),
			RPMA_E_INVAL);
	EXPECT_INT(rpma_send(tw.conn, NULL, 8, 8, RPMA_F_COMPLETION_ON_ERROR, TW_CTX(TW_ID_A)),
			RPMA_E_INVAL);
	/* nothing was posted: no completion anywhere, the receive still waits */
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);

	t_note("RETURN VALUE: 0, and the message arrives");
	tw_fill(b, 100, 1);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 100, RPMA_F_COMPLETION_ALWAYS,
			TW_CTX(TW_ID_A)), 0);
	/* the receive posted before the rejected calls: they consumed nothing */
	tw_expect_delivered(TW_SEND, TW_ID_A, TW_RID, 100, 0);
	EXPECT_INT(srv_only(0, 100, 1), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("sizes and offsets");
	TW_CASES_ROUND(TW_SEND, 0, rpma_send(tw.conn, tw.mr, cases[i].src_off, cases[i].len,
			RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_B + i)),
			"src_offset %zu, len %zu, into a receive at %zu", cases[i].src_off,
			cases[i].len, cases[i].dst_off);

	t_note("0-byte messages: src NULL, or a region and len 0");
	srv_fill(0, 64, 3);
	srv_recv(0, 64, TW_RID + 1);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_A)), 0);
	tw_expect_delivered(TW_SEND, TW_ID_A, TW_RID + 1, 0, 0);
	EXPECT_INT(srv_is(0, 64, 3), 1);
	srv_recv(0, 64, TW_RID + 2);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 128, 0, RPMA_F_COMPLETION_ALWAYS,
			TW_CTX(TW_ID_B)), 0);
	tw_expect_delivered(TW_SEND, TW_ID_B, TW_RID + 2, 0, 0);
	EXPECT_INT(srv_is(0, 64, 3), 1);
	/* a 0-byte message needs no bytes at the receiver either */
	srv_recv(-1, 0, TW_RID + 3);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_A)), 0);
	tw_expect_delivered(TW_SEND, TW_ID_A, TW_RID + 3, 0, 0);

	TW_IDS_ROUND(TW_SEND, rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			TW_CTX(ids[i])));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	srv_fill(0, TW_BUF_SIZE, 0);
	srv_recv(0, 64, TW_RID + 4);
	tw_fill(b, 48, 4);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 48, RPMA_F_COMPLETION_ON_ERROR,
			TW_CTX(TW_ID_A)), 0);
	srv_expect_recv(TW_RID + 4, IBV_WC_RECV, 48, 0, 0);
	EXPECT_INT(srv_only(0, 48, 4), 1);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("a message sent before the peer posts a receive waits for one");
	tw_late_receive(TW_SEND);

	tw_sq_overflow(TW_SEND);
	tw_too_long(TW_SEND);
	tw_close();

	t_note("a range beyond the region: posted, fails at the sender");
	tw_connect(NULL, NULL);
	srv_recv(0, 64, TW_RID);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, TW_BUF_SIZE - 4, 8, RPMA_F_COMPLETION_ON_ERROR,
			TW_CTX(TW_ID_A)), 0);
	TW_EXPECT_NEXT_WC(tw.cq, OUT_OF_RANGE_AT_SENDER, TW_ID_A, 0);
	/* nothing was sent */
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);
	tw_close();

	return tw_end();
}
