/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_conn_wait.c -- the failures of rpma_conn_wait(3) that a healthy rxe0
 * never produces, on a connection with a shared completion channel (and a
 * receive CQ of its own), injected in the client only:
 * - RPMA_E_NO_COMPLETION: ibv_get_cq_event() fails; nothing acked or
 *   re-armed, *cq and *is_rcq untouched.
 * - RPMA_E_UNKNOWN: ibv_get_cq_event() reports a CQ that is neither the
 *   connection's CQ nor its receive CQ; the event is not acked, nothing is
 *   re-armed, *cq and *is_rcq untouched.
 * - RPMA_E_PROVIDER: a real completion event of the main CQ, re-arming it
 *   (ibv_req_notify_cq()) fails: the event has been taken (acknowledged
 *   at once by the C library, later by ours), *cq is set to
 *   NULL, and the completion is still there to be polled.
 */
#include <stdbool.h>

#include "rpma_mock.h"
#include "mock.h"

/* a CQ of nobody: the mock reports it as the source of an event */
static struct ibv_cq stranger;

static void
wait_failures(struct m_client *c, struct ibv_context *ctx)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	bool is_rcq;
	int fd = -1, acks, notifies, events;

	EXPECT_INT(rpma_conn_get_compl_fd(c->conn, &fd), 0);

	t_note("ibv_get_cq_event() fails with EIO");
	acks = t_mock_calls("ibv_ack_cq_events");
	notifies = t_mock_op_calls(T_OP_REQ_NOTIFY_CQ);
	cq = M_SENTINEL_CQ;
	is_rcq = true;
	M_FAIL("ibv_get_cq_event", EIO, rpma_conn_wait(c->conn, 0, &cq, &is_rcq),
			RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(cq == M_SENTINEL_CQ);
	EXPECT_INT(is_rcq, true);
	EXPECT_INT(t_mock_calls("ibv_ack_cq_events") - acks, 0);
	EXPECT_INT(t_mock_op_calls(T_OP_REQ_NOTIFY_CQ) - notifies, 0);

	t_note("ibv_get_cq_event() fails with EAGAIN, is_rcq NULL");
	M_FAIL("ibv_get_cq_event", EAGAIN, rpma_conn_wait(c->conn, 0, &cq, NULL),
			RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(cq == M_SENTINEL_CQ);

	t_note("ibv_get_cq_event() reports a CQ of nobody");
	t_mock_cq_event_from(0, &stranger);
	EXPECT_INT(rpma_conn_wait(c->conn, 0, &cq, &is_rcq), RPMA_E_UNKNOWN);
	EXPECT_INT(t_mock_pending("ibv_get_cq_event"), 0);
	EXPECT_TRUE(cq == M_SENTINEL_CQ);
	EXPECT_INT(is_rcq, true);
	EXPECT_INT(t_mock_calls("ibv_ack_cq_events") - acks, 0);
	EXPECT_INT(t_mock_op_calls(T_OP_REQ_NOTIFY_CQ) - notifies, 0);

	t_note("a real event of the main CQ, re-arming fails");
	EXPECT_INT(rpma_write(c->conn, c->remote, 0, c->mr, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x33), 0);
	EXPECT_TRUE(m_readable(fd, C_WAIT_MS));
	events = t_mock_succeeded("ibv_get_cq_event");
	M_OP_FAIL(ctx, T_OP_REQ_NOTIFY_CQ, EIO, rpma_conn_wait(c->conn, 0, &cq, &is_rcq),
			RPMA_E_PROVIDER);
	EXPECT_TRUE(cq == NULL);
	EXPECT_INT(t_mock_succeeded("ibv_get_cq_event") - events, 1);
	/*
	 * taken, and acknowledged at once (the C library) or with the CQ's
	 * next batch or at its deletion (ours, see NOTES), which must not hang
	 */
	EXPECT_TRUE(t_mock_calls("ibv_ack_cq_events") - acks <= 1);

	t_note("the event was consumed; its completion is still in the main CQ");
	EXPECT_TRUE(!m_readable(fd, 0));
	EXPECT_INT(m_wait_wc(c->cq, &wc), 0);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	EXPECT_INT(wc.opcode, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(wc.wr_id == 0x33);
	EXPECT_INT(rpma_cq_get_wc(c->cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg = NULL;

	t_begin();
	peer = c_start_serving(m_serve_region);
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	m_run(peer, cfg, wait_failures);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	return c_end(peer);
}
