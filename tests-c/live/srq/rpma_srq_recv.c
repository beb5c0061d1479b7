/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_recv.c -- mirrors rpma_srq_recv(3):
 * - RPMA_E_INVAL for a NULL srq, and for a NULL dst with a non-zero
 *   offset or len (nothing logged);
 * - RPMA_E_PROVIDER with an ERROR logged when the provider refuses the
 *   receive: an SRQ made with rq_size 4 takes at least 4 and then refuses;
 * - offset and len are not checked against the region (posting succeeds);
 * - with a connection whose passive end uses the SRQ (which has a receive
 *   CQ): a receive posted before the connection existed takes the first
 *   message; the completion is on the SRQ's receive CQ, whose fd signals it
 *   (the CQ is armed from the start) for rpma_cq_wait(3); it is a
 *   successful IBV_WC_RECV with the message's length, op_context as wr_id
 *   (bit-exact, NULL as 0) and qp_num equal to rpma_conn_get_qp_num(3) of
 *   the connection; the message is at the offset, nothing else of the
 *   region is written; the connection's main CQ stays empty;
 * - the 0-byte form (dst NULL, offset 0, len 0) takes a 0-byte send;
 * - several posted buffers form an unordered set: each message lands in
 *   one of them, each buffer takes one message, all arrive intact.
 */
#include "srq.h"

#define BUF_SIZE 4096

/* messages of the client, in its send buffer at M_OFF(i) */
static const char *const msgs[] = {"a first message", "the second", "3", "four!", "the fifth"};
#define M_OFF(i) ((size_t)(i) * 64)
#define M_LEN(i) (strlen(msgs[i]) + 1)

/* a full 64-bit op_context */
#define CTX_WIDE ((const void *)(uintptr_t)0xfedcba9876543210ull)

/* 1 when buf holds only zeros outside [off, off + len) */
static int
zero_outside(const char *buf, size_t off, size_t len)
{
	return c_all_zero(buf, off) && c_all_zero(buf + off + len, BUF_SIZE - off - len);
}

/* checks one receive completion */
static void
expect_recv(const struct ibv_wc *wc, uint64_t wr_id, uint32_t byte_len, uint32_t qp_num)
{
	EXPECT_INT(wc->status, IBV_WC_SUCCESS);
	EXPECT_INT(wc->opcode, IBV_WC_RECV);
	EXPECT_INT(wc->byte_len, byte_len);
	EXPECT_TRUE(wc->wr_id == wr_id);
	EXPECT_TRUE(wc->qp_num == qp_num /* rpma_conn_get_qp_num() of the connection */);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_mr_local *rmr, *smr;
	void *rbuf_v = NULL, *sbuf_v = NULL;
	char *rbuf, *sbuf;
	struct rpma_srq *srq = NULL, *small = NULL;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *client = NULL, *server = NULL;
	struct rpma_cq *rcq = NULL, *cq = NULL, *conn_rcq = CQ_SENTINEL;
	struct rpma_ep *ep = NULL;
	struct ibv_wc wc;
	struct pollfd pfd = {.fd = -1, .events = POLLIN};
	uint32_t qp;
	int n, last = 0;

	t_begin();
	peer = t_peer();
	rmr = s_reg(peer, BUF_SIZE, &rbuf_v);
	smr = s_reg(peer, BUF_SIZE, &sbuf_v);
	if (rmr == NULL || smr == NULL)
		exit(2);
	rbuf = rbuf_v;
	sbuf = sbuf_v;
	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		memcpy(sbuf + M_OFF(i), msgs[i], M_LEN(i));
	s_log_begin();
	EXPECT_INT(s_srq(peer, 8, 8, &srq), 0);

	/* ERRORS: RPMA_E_INVAL, nothing logged */
	t_note("INVAL");
	EXPECT_INT(rpma_srq_recv(NULL, rmr, 0, 8, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_recv(NULL, NULL, 0, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_recv(srq, NULL, 1, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_recv(srq, NULL, 0, 1, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_recv(srq, NULL, 8, 8, S_CTX(0)), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	/* ERRORS: RPMA_E_PROVIDER, ibv_post_srq_recv() failed: the SRQ is full */
	t_note("PROVIDER: more receives than the SRQ holds");
	EXPECT_INT(s_srq(peer, 4, 0, &small), 0);
	n = s_fill(small, 100000, &last);
	EXPECT_TRUE(n >= 4 && n < 100000);
	fprintf(stderr, "an SRQ made with rq_size 4 took %d receives\n", n);
	EXPECT_INT(last, RPMA_E_PROVIDER);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_TRUE(s_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_post_srq_recv failed: "));
	/* a buffer receive is refused the same way */
	EXPECT_INT(rpma_srq_recv(small, rmr, 0, 8, NULL), RPMA_E_PROVIDER);
	EXPECT_INT(rpma_srq_delete(&small), 0);

	/* offset and len are handed to the device unchecked */
	t_note("beyond the region: posted all the same");
	EXPECT_INT(s_srq(peer, 4, 0, &small), 0);
	c_nlogs = 0;
	EXPECT_INT(rpma_srq_recv(small, rmr, BUF_SIZE * 4, 8, NULL), 0);
	EXPECT_INT(rpma_srq_recv(small, rmr, 0, BUF_SIZE * 4, NULL), 0);
	EXPECT_INT(c_nlogs, 0);
	EXPECT_INT(rpma_srq_delete(&small), 0);

	/* DESCRIPTION: a buffer prepared before the connection exists */
	t_note("a receive posted before the connection");
	EXPECT_INT(rpma_srq_recv(srq, rmr, 16, 32, S_CTX(1)), 0);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(0), &ep), 0);
	cfg = s_conn_cfg(srq, 0);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_INT(s_pair(peer, ep, s_port(0), NULL, cfg, &client, &server), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	qp = s_qp_num(server);
	EXPECT_TRUE(qp != 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_INT(rpma_conn_get_cq(server, &cq), 0);
	EXPECT_INT(rpma_conn_get_rcq(server, &conn_rcq), 0);
	EXPECT_TRUE(conn_rcq == NULL /* the receives complete on the SRQ's */);

	EXPECT_INT(s_send(client, smr, M_OFF(0), M_LEN(0)), 0);
	/* the receive CQ was armed when the SRQ was made: its fd tells */
	EXPECT_INT(rpma_cq_get_fd(rcq, &pfd.fd), 0);
	EXPECT_INT(poll(&pfd, 1, S_WAIT_MS), 1);
	EXPECT_INT(rpma_cq_wait(rcq), 0);
	memset(&wc, 0, sizeof(wc));
	EXPECT_INT(rpma_cq_get_wc(rcq, 1, &wc, NULL), 0);
	expect_recv(&wc, S_WR_ID(1), M_LEN(0), qp);
	EXPECT_STR(rbuf + 16, msgs[0]);
	EXPECT_TRUE(zero_outside(rbuf, 16, M_LEN(0)));
	EXPECT_TRUE(s_cq_empty(rcq));
	EXPECT_TRUE(s_cq_empty(cq) /* nothing on the main CQ */);

	/* DESCRIPTION: the 0-byte form takes a 0-byte send */
	t_note("the 0-byte form");
	EXPECT_INT(rpma_srq_recv(srq, NULL, 0, 0, CTX_WIDE), 0);
	EXPECT_INT(s_send(client, NULL, 0, 0), 0);
	EXPECT_INT(s_wait_wc(rcq, &wc), 0);
	expect_recv(&wc, (uint64_t)(uintptr_t)CTX_WIDE, 0, qp);
	EXPECT_TRUE(zero_outside(rbuf, 16, M_LEN(0)));

	/* DESCRIPTION: op_context NULL comes back as wr_id 0 */
	t_note("op_context NULL");
	EXPECT_INT(rpma_srq_recv(srq, rmr, 64, 32, NULL), 0);
	EXPECT_INT(s_send(client, smr, M_OFF(1), M_LEN(1)), 0);
	EXPECT_INT(s_wait_wc(rcq, &wc), 0);
	expect_recv(&wc, 0, M_LEN(1), qp);
	EXPECT_STR(rbuf + 64, msgs[1]);

	/*
	 * DESCRIPTION: the posted buffers form an unordered set. Three buffers
	 * (op_context 10, 11, 12), three messages of distinct lengths: each
	 * completion names a buffer not named before, holding one of the
	 * messages, which no other completion had, with its length.
	 */
	t_note("three buffers, three messages");
	{
		int bufs_seen = 0, msgs_seen = 0, good = 0;

		for (int b = 0; b < 3; b++)
			EXPECT_INT(rpma_srq_recv(srq, rmr, 1024 + (size_t)b * 256, 64, S_CTX(10 + b)), 0);
		for (int m = 2; m < 5; m++)
			EXPECT_INT(s_send(client, smr, M_OFF(m), M_LEN(m)), 0);
		for (int i = 0; i < 3; i++) {
			EXPECT_INT(s_wait_wc(rcq, &wc), 0);
			int b = (int)(wc.wr_id - S_WR_ID(10));
			if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
					wc.qp_num != qp || b < 0 || b > 2 || (bufs_seen & (1 << b)))
				continue;
			bufs_seen |= 1 << b;
			for (int m = 2; m < 5; m++)
				if (strcmp(rbuf + 1024 + b * 256, msgs[m]) == 0 &&
						wc.byte_len == M_LEN(m) && !(msgs_seen & (1 << m))) {
					msgs_seen |= 1 << m;
					good++;
				}
		}
		EXPECT_INT(good, 3);
		EXPECT_INT(bufs_seen, 0x7);
		EXPECT_INT(msgs_seen, 0x1c);
		EXPECT_TRUE(s_cq_empty(rcq));
	}
	EXPECT_TRUE(s_cq_empty(cq) /* still nothing on the main CQ */);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 0);

	EXPECT_TRUE(s_unpair(&client, &server));
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(s_unreg(&smr, sbuf_v));
	EXPECT_TRUE(s_unreg(&rmr, rbuf_v));
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
