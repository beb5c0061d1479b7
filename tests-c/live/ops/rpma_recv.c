/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_recv.c -- mirrors rpma_recv(3): RPMA_E_INVAL for a NULL conn and for
 * a NULL dst with a non-zero offset or len (nothing is posted: a later
 * message finds no receive and waits); a receive takes one message, with
 * byte_len the length of the message (shorter than the buffer at several
 * sizes and offsets, nothing outside it written), IBV_WC_RECV, the
 * immediate data of a send with immediate data, IBV_WC_RECV_RDMA_WITH_IMM
 * for a write with immediate data (the receive's buffer untouched);
 * op_context comes back bit-exact as wr_id; the 0-byte forms (NULL dst, or a
 * region and len 0) take 0-byte messages; a message longer than the receive
 * fails on both sides; RPMA_E_PROVIDER from ibv_post_recv() on a full
 * receive queue (rq_size 10), changing nothing: every receive posted before
 * takes one message; RPMA_E_PROVIDER on a connection whose receives go to a
 * shared receive queue; a range beyond the region is not checked by the
 * library and fails when a message comes. With a receive CQ
 * (rpma_conn_cfg_set_rcq_size(3) > 0) receive completions come on
 * rpma_conn_get_rcq(3)'s CQ and send completions on the main CQ; with
 * rcq_size 0 both on the main CQ.
 */
#include "twosided.h"

/* the server's send queue takes every message of the overflow round */
static const struct tw_sizes server_sizes = {.sq = 64, .cq = 64};
/* the client's CQ holds every completion of the overflow round */
static const struct tw_sizes client_sizes = {.cq = 64};

/*
 * what rxe reports for a message into a receive beyond the region (rxe in
 * Debian's kernel 6.1 takes it for a malformed receive request, not for a
 * protection error)
 */
#define OUT_OF_RANGE_AT_RECEIVER IBV_WC_LOC_QP_OP_ERR
#define OUT_OF_RANGE_AT_SENDER IBV_WC_REM_OP_ERR

/* sizes and offsets: the server sends len bytes from src_off */
static const struct {
	size_t src_off, dst_off, len;
} cases[] = {
	{0, 0, 1},
	{3, 4097, 7},
	{8190, 4095, 2},
	{1, 12288, 1024},
	{20000, 5, 1025},
	{100, 24576, 4096},
	{32768, 0, 32768},
};

/* a message of len bytes from the server at off, pattern seed, unsignalled */
static void
srv_send(long long off, long long len, unsigned seed)
{
	if (off >= 0)
		srv_fill(off, len, seed);
	EXPECT_INT(srv_post(TW_SEND, off, len, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, 0), 0);
}

/* the receive queue overflows; the receives posted before work */
static void
rq_overflow(void)
{
	struct ibv_wc wc;
	char *b = tw.buf;
	int posted, ret = 0, completed = 0, receives_used = 0, messages_intact = 0;
	unsigned char seen_r[TW_MAX_POSTS], seen_m[TW_MAX_POSTS];

	memset(tw.buf, 0, TW_BUF_SIZE);
	tw_log_capture();
	for (posted = 0; posted < TW_MAX_POSTS; posted++) {
		ret = rpma_recv(tw.conn, tw.mr, (size_t)posted * TW_SLOT, TW_SLOT,
				TW_CTX(TW_ID_A + (uint64_t)posted));
		if (ret != 0)
			break;
	}
	EXPECT_INT(ret, RPMA_E_PROVIDER);
	EXPECT_INT(posted, TW_DEFAULT_CAPACITY);
	TW_EXPECT_ONE_ERROR("rpma_mr_recv", "ibv_post_recv failed: ", 22);
	fprintf(stderr, "logged: %s", c_logs[0].message); /* not an observation */
	tw_log_restore();
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("the failure changed nothing: each receive takes one message");
	memset(seen_r, 0, sizeof(seen_r));
	memset(seen_m, 0, sizeof(seen_m));
	for (int j = 0; j < posted; j++)
		srv_send(j * TW_SLOT, 8, TW_SEED(j));
	for (int j = 0; j < posted; j++) {
		long long r, m = -1;

		if (tw_wait(tw.cq, &wc) != 0 || wc.status != IBV_WC_SUCCESS ||
				wc.opcode != IBV_WC_RECV || wc.byte_len != 8)
			continue;
		completed++;
		r = (long long)(wc.wr_id - TW_ID_A);
		if (r < 0 || r >= posted)
			continue;
		if (!seen_r[r]++)
			receives_used++;
		for (int k = 0; k < posted && m < 0; k++)
			if (tw_is(b + r * TW_SLOT, 8, TW_SEED(k)))
				m = k;
		if (m >= 0 && !seen_m[m]++)
			messages_intact++;
	}
	EXPECT_INT(completed, TW_DEFAULT_CAPACITY);
	EXPECT_INT(receives_used, TW_DEFAULT_CAPACITY);
	EXPECT_INT(messages_intact, TW_DEFAULT_CAPACITY);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);

	t_note("the receive queue takes receives again");
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_B)), 0);
	srv_send(-1, 0, 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_B, IBV_WC_RECV, 0, 0, 0);
}

int
main(void)
{
	struct rpma_cq *rcq;
	char *b;

	t_begin();
	b = tw_start_connect(&client_sizes, &server_sizes);

	t_note("ERRORS: RPMA_E_INVAL");
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, 0, 4096, TW_CTX(TW_ID_A)), 0);
	EXPECT_INT(rpma_recv(NULL, tw.mr, 0, 8, TW_CTX(TW_ID_B)), RPMA_E_INVAL);
	EXPECT_INT(rpma_recv(NULL, NULL, 0, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 8, 0, TW_CTX(TW_ID_B)), RPMA_E_INVAL);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 8, TW_CTX(TW_ID_B)), RPMA_E_INVAL);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 8, 8, TW_CTX(TW_ID_B)), RPMA_E_INVAL);
	/* the first message takes the receive posted before the rejected calls */
	srv_send(0, 100, 1);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV, 100, 0, 0);
	EXPECT_INT(tw_only(0, 100, 1), 1);
	/* the rejected calls posted nothing: the next message finds no receive */
	srv_send(-1, 0, 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_A)), 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV, 0, 0, 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("sizes and offsets: byte_len is the length of the message");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned seed = 10 + (unsigned)i;

		t_note("len %zu from %zu, into a receive at %zu", cases[i].len,
				cases[i].src_off, cases[i].dst_off);
		memset(b, 0, TW_BUF_SIZE);
		EXPECT_INT(rpma_recv(tw.conn, tw.mr, cases[i].dst_off,
				TW_BUF_SIZE - cases[i].dst_off, TW_CTX(TW_ID_A + i)), 0);
		srv_send((long long)cases[i].src_off, (long long)cases[i].len, seed);
		TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A + i, IBV_WC_RECV, cases[i].len, 0, 0);
		EXPECT_INT(tw_only(cases[i].dst_off, cases[i].len, seed), 1);
	}

	t_note("op_context comes back as wr_id, bit for bit");
	{
		static const uint64_t ids[] = {0, 1, TW_ID_A, TW_ID_B, TW_ID_MAX};

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(ids[i])), 0);
			srv_send(-1, 0, 0);
			TW_EXPECT_NEXT_RECV(tw.cq, ids[i], IBV_WC_RECV, 0, 0, 0);
		}
	}

	t_note("0-byte receives: dst NULL, or a region and len 0");
	memset(b, 0, TW_BUF_SIZE);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_A)), 0);
	srv_send(-1, 0, 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV, 0, 0, 0);
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, 64, 0, TW_CTX(TW_ID_B)), 0);
	/* a 0-byte message from a region */
	EXPECT_INT(srv_post(TW_SEND, 64, 0, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, 0), 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_B, IBV_WC_RECV, 0, 0, 0);
	EXPECT_INT(tw_is(b, TW_BUF_SIZE, 0), 1);

	t_note("a send with immediate data");
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, 256, 256, TW_CTX(TW_ID_A)), 0);
	srv_fill(1024, 40, 5);
	EXPECT_INT(srv_post(TW_SEND_IMM, 1024, 40, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, IMM), 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV, 40, 1, IMM);
	EXPECT_INT(tw_only(256, 40, 5), 1);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_B)), 0);
	EXPECT_INT(srv_post(TW_SEND_IMM, -1, 0, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, 0), 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_B, IBV_WC_RECV, 0, 1, 0);

	t_note("a write with immediate data: the receive's buffer is not used");
	memset(b, 0, TW_BUF_SIZE);
	tw_fill(b + 4096, 64, 3);
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, 4096, 64, TW_CTX(TW_ID_A)), 0);
	srv_fill(512, 300, 6);
	EXPECT_INT(srv_post(TW_WRITE_IMM, 512, 300, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B,
			0xFFFFFFFFu), 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV_RDMA_WITH_IMM, 300, 1, 0xFFFFFFFFu);
	EXPECT_INT(tw_is(b + 512, 300, 6), 1);
	EXPECT_INT(tw_is(b + 4096, 64, 3), 1);
	EXPECT_INT(tw_is(b, 512, 0) && tw_is(b + 812, 4096 - 812, 0), 1);

	t_note("ERRORS: RPMA_E_PROVIDER on a full receive queue");
	rq_overflow();

	t_note("a message longer than the receive");
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, 0, 16, TW_CTX(TW_ID_A)), 0);
	srv_fill(0, 64, 7);
	EXPECT_INT(srv_post(TW_SEND, 0, 64, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, 0), 0);
	TW_EXPECT_NEXT_WC(tw.cq, TW_TOO_LONG_AT_RECEIVER, TW_ID_A, 0);
	srv_expect_wc(TW_TOO_LONG_AT_SENDER, TW_ID_B, 0);
	tw_close();

	t_note("a receive CQ (rcq_size 4): receives complete there");
	{
		static const struct tw_sizes with_rcq = {.rcq = 4};

		tw_connect(&with_rcq, NULL);
	}
	EXPECT_TRUE(tw.rcq != NULL && tw.rcq != tw.cq);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_A)), 0);
	srv_send(-1, 0, 0);
	TW_EXPECT_NEXT_RECV(tw.rcq, TW_ID_A, IBV_WC_RECV, 0, 0, 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	t_note("... and sends on the main CQ");
	srv_recv(-1, 0, TW_RID);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_B)), 0);
	TW_EXPECT_NEXT_WC(tw.cq, IBV_WC_SUCCESS, TW_ID_B, IBV_WC_SEND);
	EXPECT_INT(tw_quiet(tw.rcq), 0);
	srv_expect_recv(TW_RID, IBV_WC_RECV, 0, 0, 0);
	t_note("... and writes with immediate data on the receive CQ too");
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_MAX)), 0);
	EXPECT_INT(srv_post(TW_WRITE_IMM, -1, 0, RPMA_F_COMPLETION_ON_ERROR, TW_ID_B, IMM), 0);
	TW_EXPECT_NEXT_RECV(tw.rcq, TW_ID_MAX, IBV_WC_RECV_RDMA_WITH_IMM, 0, 1, IMM);
	EXPECT_INT(tw_quiet(tw.cq), 0);

	t_note("nothing is checked against the region: the message fails");
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, TW_BUF_SIZE - 8, 4096, TW_CTX(TW_ID_A)), 0);
	EXPECT_INT(rpma_recv(tw.conn, tw.mr, TW_BUF_SIZE, 64, TW_CTX(TW_ID_MAX)), 0);
	srv_send(0, 16, 8);
	TW_EXPECT_NEXT_WC(tw.rcq, OUT_OF_RANGE_AT_RECEIVER, TW_ID_A, 0);
	EXPECT_INT(tw_is(b + TW_BUF_SIZE - 8, 8, 0), 1);
	srv_expect_wc(OUT_OF_RANGE_AT_SENDER, TW_ID_B /* srv_send()'s */, 0);
	/* the other receive is flushed */
	TW_EXPECT_NEXT_WC(tw.rcq, IBV_WC_WR_FLUSH_ERR, TW_ID_MAX, 0);
	EXPECT_INT(tw_quiet(tw.rcq), 0);
	tw_close();

	t_note("ERRORS: RPMA_E_PROVIDER on a connection with a shared receive queue");
	{
		struct rpma_srq *srq = NULL;
		struct rpma_conn_cfg *cfg = NULL;

		EXPECT_INT(rpma_srq_new(tw.peer, NULL, &srq), 0);
		EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
		EXPECT_INT(rpma_conn_cfg_set_srq(cfg, srq), 0);
		tw_connect_cfg(cfg, NULL);
		tw_log_capture();
		EXPECT_INT(rpma_recv(tw.conn, tw.mr, 0, 64, TW_CTX(TW_ID_A)), RPMA_E_PROVIDER);
		TW_EXPECT_ONE_ERROR("rpma_mr_recv", "ibv_post_recv failed: ", 22);
		tw_log_restore();
		EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, NULL), RPMA_E_PROVIDER);
		/* the connection still works: a send completes */
		srv_recv(-1, 0, TW_RID);
		EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				TW_CTX(TW_ID_B)), 0);
		tw_expect_delivered(TW_SEND, TW_ID_B, TW_RID, 0, 0);
		tw_close();
		EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
		EXPECT_INT(rpma_srq_delete(&srq), 0);
	}

	t_note("rcq_size 0: no receive CQ, everything on the main CQ");
	tw_connect(NULL, NULL);
	rcq = tw.cq;
	EXPECT_INT(rpma_conn_get_rcq(tw.conn, &rcq), 0);
	EXPECT_TRUE(rcq == NULL);
	EXPECT_INT(rpma_recv(tw.conn, NULL, 0, 0, TW_CTX(TW_ID_A)), 0);
	srv_send(-1, 0, 0);
	TW_EXPECT_NEXT_RECV(tw.cq, TW_ID_A, IBV_WC_RECV, 0, 0, 0);
	srv_recv(-1, 0, TW_RID);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_B)), 0);
	tw_expect_delivered(TW_SEND, TW_ID_B, TW_RID, 0, 0);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	tw_close();

	return tw_end();
}
