/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_cq_wait.c -- mirrors rpma_cq_wait(3): RPMA_E_INVAL for a NULL cq.
 * On the CQ's own (blocking) channel a wait returns 0 once a completion
 * has arrived, the completion is then there for rpma_cq_get_wc(3), the
 * event is taken (the descriptor is no longer readable) and the CQ is
 * re-armed: op -> wait -> get_wc works round after round, on the main CQ
 * and on a receive CQ, which has a channel of its own. A completion taken
 * without waiting leaves its event behind: the next wait returns 0 and
 * finds nothing (a successful wait promises no completion). With the
 * descriptor switched to O_NONBLOCK (fcntl(2)) a wait with nothing pending
 * returns RPMA_E_NO_COMPLETION, and one after the descriptor became
 * readable returns 0 and re-arms as well. With a shared completion
 * channel both the main CQ and the receive CQ answer
 * RPMA_E_SHARED_CHANNEL at once, also with an event pending, which stays
 * for rpma_conn_wait(3).
 *
 * Completions come from rpma_write(), rpma_read() and rpma_recv() here,
 * and from the server's sends. The command server of cq.h calls
 * rpma_send(), rpma_send_with_imm(), rpma_recv() and rpma_cq_get_wc()
 * (named here so CMake sees them).
 */
#include "cq.h"

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rw;
	struct rpma_cq *cq = NULL, *rcq = NULL, *woke = NULL;
	struct ibv_wc wc;
	int fd = -1, rfd = -1, round;
	void *buf;

	t_begin();

	t_note("ERRORS: RPMA_E_INVAL for a NULL cq");
	EXPECT_INT(rpma_cq_wait(NULL), RPMA_E_INVAL);

	peer = cq_start();
	mr = cq_local(peer, &buf);

	t_note("1: the default configuration: the CQ has a channel of its own");
	CQ_CONNECT_RW_CQ(conn, rw, peer, NULL, cq);
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_TRUE(cq_blocking(fd));

	for (round = 1; round <= 2; round++) {
		t_note("round %d: an operation, a (blocking) wait, its completion", round);
		if (round == 1)
			CQ_EXPECT_WRITE(conn, rw, mr, 0x11);
		else
			EXPECT_INT(rpma_read(conn, mr, CQ_L_READ, rw, 0, 8,
					RPMA_F_COMPLETION_ALWAYS, CQ_CTX(0x12)), 0);
		EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
		EXPECT_TRUE(!cq_readable(fd, 0) /* the event was taken */);
		CQ_EXPECT_GOT(cq, wc, 0x10 + round, round == 1 ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ);
		EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	}

	t_note("a completion taken without waiting: the next wait returns 0 all the same");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x13);
	EXPECT_INT(cq_get_wc_within(cq, 1, &wc, NULL), 0);
	CQ_EXPECT_WC(wc, 0x13, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS) /* its event */);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(!cq_readable(fd, 0));

	t_note("a non-blocking descriptor, nothing pending: RPMA_E_NO_COMPLETION");
	EXPECT_INT(cq_set_nonblock(fd), 0);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), RPMA_E_NO_COMPLETION);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), RPMA_E_NO_COMPLETION);
	for (round = 1; round <= 2; round++) {
		t_note("round %d on the non-blocking descriptor: readable, wait, completion", round);
		CQ_EXPECT_WRITE(conn, rw, mr, 0x13 + round);
		EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
		EXPECT_INT(rpma_cq_wait(cq), 0);
		CQ_EXPECT_GOT(cq, wc, 0x13 + round, IBV_WC_RDMA_WRITE);
		EXPECT_INT(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	}
	CQ_CLOSE_RW(conn, rw);

	t_note("2: a receive CQ: a wait on it for a receive, the main CQ stays quiet");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	CQ_CONNECT_CQ(conn, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_INT(rpma_cq_get_fd(rcq, &rfd), 0);
	for (round = 1; round <= 2; round++) {
		t_note("round %d: a receive, a wait on the receive CQ, its completion", round);
		CQ_EXPECT_RECV_SENT(conn, mr, 0x20 + round);
		EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(rcq)), 0);
		CQ_EXPECT_GOT(rcq, wc, 0x20 + round, IBV_WC_RECV);
		EXPECT_INT(rpma_cq_get_wc(rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
		EXPECT_TRUE(!cq_readable(rfd, 0));
		EXPECT_TRUE(!cq_readable(fd, 0) /* nothing for the main CQ */);
	}
	cq_close(&conn);

	t_note("3: a shared channel and a receive CQ: RPMA_E_SHARED_CHANNEL for both");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), 0);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), RPMA_E_SHARED_CHANNEL);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(rcq)), RPMA_E_SHARED_CHANNEL);
	t_note("also with an event pending, which is left for rpma_conn_wait(3)");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x31);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_INT(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);
	EXPECT_INT(rpma_cq_wait(rcq), RPMA_E_SHARED_CHANNEL);
	EXPECT_TRUE(cq_readable(fd, 0) /* still pending */);
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, 0, &woke, NULL)), 0);
	EXPECT_TRUE(woke == cq);
	CQ_EXPECT_GOT(cq, wc, 0x31, IBV_WC_RDMA_WRITE);
	CQ_CLOSE_RW(conn, rw);

	t_note("4: a shared channel without a receive CQ: RPMA_E_SHARED_CHANNEL");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	CQ_CONNECT_CQ(conn, peer, cfg, cq);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), RPMA_E_SHARED_CHANNEL);
	cq_close(&conn);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return cq_end(peer, mr, buf);
}
