/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_cq.c -- the provider failures of rpma_cq_get_wc(3) and rpma_cq_wait(3)
 * that a healthy rxe0 never produces, injected in the client only:
 * - rpma_cq_get_wc: ibv_poll_cq() returning a negative value (-1 and a
 *   negative errno) gives RPMA_E_PROVIDER; returning more entries than asked
 *   gives RPMA_E_UNKNOWN; *num_entries_got untouched either way; the CQ
 *   works normally afterwards (a real completion is polled).
 * - rpma_cq_wait: ibv_get_cq_event() failing gives RPMA_E_NO_COMPLETION,
 *   without acking or re-arming; a failing re-arm (ibv_req_notify_cq()) after
 *   a real completion event gives RPMA_E_PROVIDER, the event having been
 *   taken (acknowledged at once by the C library, in a batch or at the
 *   CQ's deletion by ours), and the completion is still there to be polled.
 */
#include "rpma_mock.h"
#include "mock.h"

static void
get_wc_failures(struct m_client *c, struct ibv_context *ctx)
{
	struct ibv_wc wc[4];
	int got;

	t_note("rpma_cq_get_wc: ibv_poll_cq() returns -1");
	M_OP_FAIL(ctx, T_OP_POLL_CQ, -1, rpma_cq_get_wc(c->cq, 1, wc, NULL), RPMA_E_PROVIDER);

	t_note("rpma_cq_get_wc: ibv_poll_cq() returns -ENOMEM, 4 entries asked");
	got = M_SENTINEL_INT;
	M_OP_FAIL(ctx, T_OP_POLL_CQ, -ENOMEM, rpma_cq_get_wc(c->cq, 4, wc, &got),
			RPMA_E_PROVIDER);
	EXPECT_INT(got, M_SENTINEL_INT);

	t_note("rpma_cq_get_wc: ibv_poll_cq() returns 2 entries when 1 was asked");
	M_OP_FAIL(ctx, T_OP_POLL_CQ, T_MOCK_POLL_MORE, rpma_cq_get_wc(c->cq, 1, wc, NULL),
			RPMA_E_UNKNOWN);

	t_note("rpma_cq_get_wc: ibv_poll_cq() returns 4 entries when 3 were asked");
	got = M_SENTINEL_INT;
	M_OP_FAIL(ctx, T_OP_POLL_CQ, T_MOCK_POLL_MORE, rpma_cq_get_wc(c->cq, 3, wc, &got),
			RPMA_E_UNKNOWN);
	EXPECT_INT(got, M_SENTINEL_INT);

	t_note("the CQ is intact: nothing there, then a real completion");
	EXPECT_INT(rpma_cq_get_wc(c->cq, 1, wc, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(m_write_completes(c, (void *)0x11));
}

static void
wait_failures(struct m_client *c, struct ibv_context *ctx)
{
	struct ibv_wc wc;
	int fd = -1, acks, notifies, events;

	EXPECT_INT(rpma_cq_get_fd(c->cq, &fd), 0);
	/* the completion of get_wc_failures() has left an event behind */
	EXPECT_TRUE(m_readable(fd, C_WAIT_MS));

	t_note("rpma_cq_wait: ibv_get_cq_event() fails with EIO");
	acks = t_mock_calls("ibv_ack_cq_events");
	notifies = t_mock_op_calls(T_OP_REQ_NOTIFY_CQ);
	M_FAIL("ibv_get_cq_event", EIO, rpma_cq_wait(c->cq), RPMA_E_NO_COMPLETION);
	EXPECT_INT(t_mock_calls("ibv_ack_cq_events") - acks, 0);
	EXPECT_INT(t_mock_op_calls(T_OP_REQ_NOTIFY_CQ) - notifies, 0);

	t_note("rpma_cq_wait: ibv_get_cq_event() fails with EAGAIN");
	M_FAIL("ibv_get_cq_event", EAGAIN, rpma_cq_wait(c->cq), RPMA_E_NO_COMPLETION);
	EXPECT_INT(t_mock_calls("ibv_ack_cq_events") - acks, 0);

	t_note("rpma_cq_wait: the event is real, re-arming fails");
	/* the event is still pending: the failed calls did not consume it */
	EXPECT_TRUE(m_readable(fd, 0));
	events = t_mock_succeeded("ibv_get_cq_event");
	M_OP_FAIL(ctx, T_OP_REQ_NOTIFY_CQ, EIO, rpma_cq_wait(c->cq), RPMA_E_PROVIDER);
	/*
	 * taken, and acknowledged at once (the C library) or with the CQ's
	 * next batch or at its deletion (ours, see NOTES), which must not hang
	 */
	EXPECT_TRUE(t_mock_calls("ibv_ack_cq_events") - acks <= 1);
	EXPECT_INT(t_mock_succeeded("ibv_get_cq_event") - events, 1);

	t_note("the event was consumed; the CQ still works when polled");
	EXPECT_TRUE(!m_readable(fd, 0));
	EXPECT_INT(rpma_cq_get_wc(c->cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(m_write_completes(c, (void *)0x22));
}

static void
failures(struct m_client *c, struct ibv_context *ctx)
{
	get_wc_failures(c, ctx);
	wait_failures(c, ctx);
}

M_RUN_MAIN(failures)
