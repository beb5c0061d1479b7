/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_cq_event_batches.c -- many waits, then deletion, with no hang.
 * Our library acknowledges the completion-channel events that
 * rpma_cq_wait(3) and rpma_conn_wait(3) take in batches (rpma_cq_wait(3),
 * NOTES) and the rest when the CQ is deleted; ibv_destroy_cq() blocks until
 * every event it reported is acknowledged, so a count that went wrong would
 * hang rpma_conn_delete(3). The C library acknowledges one event per wait.
 * Both must behave the same:
 *   - on a CQ with its own channel: 200 rounds of write, wait, completion
 *     (more than three batches and a remainder), then deletion;
 *   - exactly one batch of waits, and one more, each followed by deletion;
 *   - 3 waits, far from a batch, then deletion with events unacknowledged;
 *   - a receive CQ woken 70 times by the server's sends, then deletion;
 *   - a shared channel: 150 rounds of rpma_conn_wait(3) on writes and 5
 *     on receives, the queue that woke reported each time, then deletion;
 *   - a deletion right after a wait whose completion was never taken.
 * Every wait and every deletion is bounded (SIGALRM): a hang fails.
 *
 * Completions come from rpma_write() and rpma_recv(); the command server
 * of cq.h calls rpma_send(), rpma_send_with_imm(), rpma_recv() and
 * rpma_cq_get_wc() (named here so CMake sees them).
 */
#include "cq.h"

/* a deletion that has not returned in this many seconds is a hang */
#define CLOSE_BOUND_S 20

/* closes conn, bounded */
static void
close_bounded(struct rpma_conn **conn)
{
	alarm(CLOSE_BOUND_S);
	cq_close(conn);
	alarm(0);
}

/* n rounds of write, rpma_cq_wait(cq), completion; how many went right */
static int
rounds_on_cq(struct rpma_conn *conn, struct rpma_mr_remote *rw, struct rpma_mr_local *mr,
		struct rpma_cq *cq, int n)
{
	struct ibv_wc wc;
	int i, good = 0;

	for (i = 0; i < n; i++) {
		if (rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ALWAYS,
				CQ_CTX(i + 1)) != 0)
			break;
		if (CQ_BOUNDED(rpma_cq_wait(cq)) != 0)
			break;
		if (cq_get_wc_within(cq, 1, &wc, NULL) != 0 || wc.status != IBV_WC_SUCCESS ||
				wc.opcode != IBV_WC_RDMA_WRITE || wc.wr_id != (uint64_t)(i + 1))
			break;
		good++;
	}
	return good;
}

/* a connection with the default configuration and the server's CQ_RW */
static struct rpma_conn *
open_default(struct rpma_peer *peer, struct rpma_mr_remote **rw, struct rpma_cq **cq)
{
	struct rpma_conn *conn = cq_connect(peer, NULL);

	EXPECT_TRUE(conn != NULL);
	*rw = cq_remote(conn, CQ_RW);
	EXPECT_TRUE(*rw != NULL);
	EXPECT_INT(rpma_conn_get_cq(conn, cq), 0);
	return conn;
}

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
	int i, good, sizes[] = {200, 64, 65, 3};
	unsigned k;
	void *buf;

	t_begin();
	peer = cq_start();
	mr = cq_local(peer, &buf);

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		t_note("own channel: %d rounds of write, rpma_cq_wait, completion; then deletion",
				sizes[k]);
		conn = open_default(peer, &rw, &cq);
		EXPECT_INT(rounds_on_cq(conn, rw, mr, cq, sizes[k]), sizes[k]);
		EXPECT_INT(rpma_mr_remote_delete(&rw), 0);
		close_bounded(&conn);
	}

	t_note("own channel: a wait whose completion is never taken, then deletion");
	conn = open_default(peer, &rw, &cq);
	EXPECT_INT(rounds_on_cq(conn, rw, mr, cq, 10), 10);
	EXPECT_INT(rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ALWAYS,
			CQ_CTX(0x99)), 0);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	EXPECT_INT(rpma_mr_remote_delete(&rw), 0);
	close_bounded(&conn);

	t_note("a receive CQ woken 70 times by the server's sends, then deletion");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	CQ_CONNECT(conn, peer, cfg);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	for (i = 0, good = 0; i < 70; i++) {
		if (rpma_recv(conn, mr, CQ_L_RECV, 64, CQ_CTX(0x100 + i)) != 0)
			break;
		cq_cmd(CQ_SEND);
		if (SERVER(rpma_send) != 0 || SERVER(the completion of the send) != IBV_WC_SUCCESS)
			break;
		if (CQ_BOUNDED(rpma_cq_wait(rcq)) != 0)
			break;
		if (cq_get_wc_within(rcq, 1, &wc, NULL) != 0 || wc.status != IBV_WC_SUCCESS ||
				wc.opcode != IBV_WC_RECV || wc.wr_id != (uint64_t)(0x100 + i))
			break;
		good++;
	}
	EXPECT_INT(good, 70);
	close_bounded(&conn);

	t_note("a shared channel: 150 writes and 5 receives through rpma_conn_wait");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	CQ_CONNECT_RW(conn, rw, peer, cfg);
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	for (i = 0, good = 0; i < 155; i++) {
		bool is_recv = i % 31 == 30, is_rcq = !is_recv;

		if (is_recv) {
			if (rpma_recv(conn, mr, CQ_L_RECV, 64, CQ_CTX(0x300 + i)) != 0)
				break;
			cq_cmd(CQ_SEND);
			if (SERVER(rpma_send) != 0 ||
					SERVER(the completion of the send) != IBV_WC_SUCCESS)
				break;
		} else if (rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ALWAYS,
				CQ_CTX(0x300 + i)) != 0) {
			break;
		}
		if (CQ_BOUNDED(rpma_conn_wait(conn, 0, &woke, &is_rcq)) != 0)
			break;
		if (woke != (is_recv ? rcq : cq) || is_rcq != is_recv)
			break;
		if (cq_get_wc_within(woke, 1, &wc, NULL) != 0 || wc.status != IBV_WC_SUCCESS ||
				wc.wr_id != (uint64_t)(0x300 + i))
			break;
		good++;
	}
	EXPECT_INT(good, 155);
	EXPECT_INT(rpma_mr_remote_delete(&rw), 0);
	close_bounded(&conn);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return cq_end(peer, mr, buf);
}
