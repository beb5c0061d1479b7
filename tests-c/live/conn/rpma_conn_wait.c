/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_wait.c -- mirrors rpma_conn_wait(3): RPMA_E_INVAL for a NULL
 * conn or cq (is_rcq may be NULL); RPMA_E_NOT_SHARED_CHNL for a connection
 * without a shared completion channel (with or without a receive CQ, also
 * with a completion pending, which it leaves alone); the outputs untouched
 * on every failure. With a shared channel and a receive CQ: a send
 * completion wakes it with *cq = rpma_conn_get_cq(3)'s CQ and *is_rcq
 * false, a receive completion with rpma_conn_get_rcq(3)'s and true; the
 * completion is then there for rpma_cq_get_wc(3), the event taken and the
 * CQ re-armed (round after round); is_rcq NULL works; flags are ignored
 * (0, 123, -1). With the channel's descriptor in non-blocking mode and
 * nothing pending: RPMA_E_NO_COMPLETION. With a shared channel and no
 * receive CQ, a receive wakes it with the main CQ and *is_rcq false.
 *
 * Completions come from rpma_send(), rpma_write() and rpma_recv() here,
 * and from the server's sends and receives. The command server of cq.h
 * calls rpma_send(), rpma_send_with_imm(), rpma_recv() and
 * rpma_cq_get_wc() (named here so CMake sees them).
 */
#include "cq.h"

/*
 * EXPECT_WAIT_FAILS(conn, flags, want): rpma_conn_wait() returns want, with
 * is_rcq preset to true, to false, and NULL; *cq and *is_rcq untouched.
 * A macro, so the observation lines name the arguments.
 */
#define EXPECT_WAIT_FAILS(conn, flags, want) do { \
	struct rpma_cq *woke_ = CQ_SENTINEL; \
	bool is_rcq_ = true; \
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, flags, &woke_, &is_rcq_)), want); \
	EXPECT_TRUE(woke_ == CQ_SENTINEL); \
	EXPECT_INT(is_rcq_, true); \
	is_rcq_ = false; \
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, flags, &woke_, &is_rcq_)), want); \
	EXPECT_TRUE(woke_ == CQ_SENTINEL); \
	EXPECT_INT(is_rcq_, false); \
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, flags, &woke_, NULL)), want); \
	EXPECT_TRUE(woke_ == CQ_SENTINEL); \
} while (0)

/*
 * EXPECT_WOKE(flags, which, want_rcq): a bounded rpma_conn_wait() with
 * *cq preset to CQ_SENTINEL and *is_rcq to !want_rcq returns 0, *cq =
 * which and *is_rcq = want_rcq (into the variables woke and is_rcq of main())
 */
#define EXPECT_WOKE(flags, which, want_rcq) do { \
	woke = CQ_SENTINEL; \
	is_rcq = !(want_rcq); \
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, flags, &woke, &is_rcq)), 0); \
	EXPECT_TRUE(woke == which); \
	EXPECT_INT(is_rcq, want_rcq); \
} while (0)

/* the same with is_rcq NULL */
#define EXPECT_WOKE_ANY(flags, which) do { \
	woke = CQ_SENTINEL; \
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, flags, &woke, NULL)), 0); \
	EXPECT_TRUE(woke == which); \
} while (0)

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rw;
	struct rpma_cq *cq = NULL, *rcq = NULL, *woke = CQ_SENTINEL;
	struct ibv_wc wc;
	bool is_rcq = true;
	int fd = -1, round;
	void *buf;

	t_begin();

	t_note("ERRORS: RPMA_E_INVAL for a NULL conn, the outputs untouched");
	EXPECT_WAIT_FAILS(NULL, 0, RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_wait(NULL, 0, NULL, &is_rcq), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_wait(NULL, 0, NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(is_rcq, true);

	peer = cq_start();
	mr = cq_local(peer, &buf);

	t_note("1: the default configuration: no shared channel");
	CQ_CONNECT_RW_CQ(conn, rw, peer, NULL, cq);
	t_note("ERRORS: RPMA_E_INVAL for a NULL cq");
	EXPECT_INT(rpma_conn_wait(conn, 0, NULL, &is_rcq), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_wait(conn, 0, NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(is_rcq, true);
	t_note("ERRORS: RPMA_E_NOT_SHARED_CHNL, the outputs untouched");
	EXPECT_WAIT_FAILS(conn, 0, RPMA_E_NOT_SHARED_CHNL);
	t_note("also with a completion pending, which stays in the CQ");
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	CQ_EXPECT_WRITE(conn, rw, mr, 0x11);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_WAIT_FAILS(conn, 0, RPMA_E_NOT_SHARED_CHNL);
	EXPECT_TRUE(cq_readable(fd, 0) /* the CQ's event is still there */);
	CQ_EXPECT_GOT(cq, wc, 0x11, IBV_WC_RDMA_WRITE);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	CQ_CLOSE_RW(conn, rw);

	t_note("2: a receive CQ, no shared channel: RPMA_E_NOT_SHARED_CHNL");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	CQ_CONNECT(conn, peer, cfg);
	EXPECT_WAIT_FAILS(conn, 0, RPMA_E_NOT_SHARED_CHNL);
	cq_close(&conn);

	t_note("3: a shared channel and a receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), 0);
	EXPECT_TRUE(cq_blocking(fd));
	EXPECT_INT(rpma_conn_wait(conn, 0, NULL, &is_rcq), RPMA_E_INVAL);
	for (round = 1; round <= 2; round++) {
		t_note("round %d: a send completion: the main CQ, is_rcq false", round);
		cq_cmd(CQ_RECV);
		EXPECT_INT(SERVER(rpma_recv), 0);
		EXPECT_INT(rpma_send(conn, mr, CQ_L_SEND, CQ_MSG_LEN, RPMA_F_COMPLETION_ALWAYS,
				CQ_CTX(0x30 + round)), 0);
		EXPECT_WOKE(0, cq, false);
		EXPECT_TRUE(!cq_readable(fd, 0) /* the event was taken */);
		CQ_EXPECT_GOT(cq, wc, 0x30 + round, IBV_WC_SEND);
		EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
		cq_cmd(CQ_RECV_DONE);
		cq_expect_server_received();

		t_note("round %d: a receive completion (flags 123): the receive CQ, is_rcq true",
				round);
		EXPECT_INT(rpma_recv(conn, mr, CQ_L_RECV, 64, CQ_CTX(0x40 + round)), 0);
		cq_cmd(CQ_SEND_IMM);
		cq_expect_server_sent();
		EXPECT_WOKE(123, rcq, true);
		EXPECT_TRUE(!cq_readable(fd, 0));
		CQ_EXPECT_GOT(rcq, wc, 0x40 + round, IBV_WC_RECV);
		EXPECT_INT(ntohl(wc.imm_data), CQ_IMM);
		EXPECT_INT(rpma_cq_get_wc(rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	}

	t_note("is_rcq NULL, flags -1: a write, then a receive");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x51);
	EXPECT_WOKE_ANY(-1, cq);
	CQ_EXPECT_GOT(cq, wc, 0x51, IBV_WC_RDMA_WRITE);
	CQ_EXPECT_RECV_SENT(conn, mr, 0x52);
	EXPECT_WOKE_ANY(-1, rcq);
	CQ_EXPECT_GOT(rcq, wc, 0x52, IBV_WC_RECV);

	t_note("ERRORS: RPMA_E_NO_COMPLETION on the non-blocking descriptor, nothing pending");
	EXPECT_INT(cq_set_nonblock(fd), 0);
	EXPECT_WAIT_FAILS(conn, 0, RPMA_E_NO_COMPLETION);
	t_note("and 0 on it once it is readable");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x53);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	woke = CQ_SENTINEL;
	is_rcq = true;
	EXPECT_INT(rpma_conn_wait(conn, 0, &woke, &is_rcq), 0);
	EXPECT_TRUE(woke == cq);
	EXPECT_INT(is_rcq, false);
	CQ_EXPECT_GOT(cq, wc, 0x53, IBV_WC_RDMA_WRITE);
	EXPECT_WAIT_FAILS(conn, 0, RPMA_E_NO_COMPLETION);
	CQ_CLOSE_RW(conn, rw);

	t_note("4: a shared channel, no receive CQ: a receive wakes it with the main CQ");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	CQ_CONNECT_CQ(conn, peer, cfg, cq);
	CQ_EXPECT_RECV_SENT(conn, mr, 0x61);
	EXPECT_WOKE(0, cq, false);
	CQ_EXPECT_GOT(cq, wc, 0x61, IBV_WC_RECV);
	cq_close(&conn);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return cq_end(peer, mr, buf);
}
