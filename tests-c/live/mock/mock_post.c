/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_post.c -- RPMA_E_PROVIDER of the posting functions when the provider
 * refuses the work request, injected in the client only through the ops
 * table: ibv_post_send() for rpma_read, rpma_write, rpma_write_with_imm,
 * rpma_atomic_write and rpma_flush (where they are emulated: native ones
 * use the QP's ibv_wr_* functions), rpma_send and rpma_send_with_imm,
 * ibv_post_recv() for rpma_recv, ibv_post_srq_recv() for rpma_srq_recv.
 * Each call reaches the provider exactly once and returns RPMA_E_PROVIDER;
 * afterwards nothing completes (neither on the connection's CQ nor on the
 * SRQ's receive CQ), and the same calls work again once the provider
 * accepts (a real write completes with its own op_context).
 */
#include "rpma_mock.h"
#include "mock.h"

static const char imm8[] = "01234567"; /* 8 bytes and the NUL */

/*
 * arms op, runs call, checks it gave PROVIDER from exactly one call of op
 * (the observation line names call as written, not macro-expanded)
 */
#define EXPECT_POST_FAILS(ctx, op, call) do { \
	int calls_ = t_mock_op_calls(op); \
	t_mock_op_fail((ctx), (op), 0, ENOMEM); \
	t_int(__FILE__, __LINE__, #call, (long long)(call), RPMA_E_PROVIDER); \
	EXPECT_INT(t_mock_op_pending(op), 0); \
	EXPECT_INT(t_mock_op_calls(op) - calls_, 1); \
} while (0)

static void
post_failures(struct m_client *c, struct ibv_context *ctx)
{
	struct rpma_peer *peer = c->peer;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;

	t_note("ibv_post_send() fails");
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_read(c->conn, c->mr, 0, c->remote, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x1));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_read(c->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ON_ERROR,
			(void *)0x2));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_write(c->conn, c->remote, 0, c->mr, 0, 8, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x3));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_write_with_imm(c->conn, c->remote, 0, c->mr, 0, 8,
			RPMA_F_COMPLETION_ALWAYS, 0x1234, (void *)0x4));
	/* native ones go through the QP's ibv_wr_* functions instead */
	if (t_native_atomic_write())
		t_note("native atomic write: not through ibv_post_send()");
	else
		EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
			rpma_atomic_write(c->conn, c->remote, 8, imm8, RPMA_F_COMPLETION_ALWAYS,
				(void *)0x5));
	if (t_native_flush())
		t_note("native flush: not through ibv_post_send()");
	else
		EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
			rpma_flush(c->conn, c->remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x6));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_send(c->conn, c->mr, 0, 8, RPMA_F_COMPLETION_ALWAYS, (void *)0x7));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SEND,
		rpma_send_with_imm(c->conn, c->mr, 0, 8, RPMA_F_COMPLETION_ALWAYS, 0x5678,
			(void *)0x8));

	t_note("ibv_post_recv() fails");
	EXPECT_POST_FAILS(ctx, T_OP_POST_RECV,
		rpma_recv(c->conn, c->mr, 0, 8, (void *)0x9));
	EXPECT_POST_FAILS(ctx, T_OP_POST_RECV,
		rpma_recv(c->conn, NULL, 0, 0, (void *)0xA));

	t_note("ibv_post_srq_recv() fails");
	EXPECT_INT(rpma_srq_new(peer, NULL, &srq), 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq != NULL);
	EXPECT_POST_FAILS(ctx, T_OP_POST_SRQ_RECV,
		rpma_srq_recv(srq, c->mr, 0, 8, (void *)0xB));
	EXPECT_POST_FAILS(ctx, T_OP_POST_SRQ_RECV,
		rpma_srq_recv(srq, NULL, 0, 0, (void *)0xC));

	t_note("nothing completes: the refused requests were never posted");
	EXPECT_TRUE(m_quiet(c->cq, 300));
	if (rcq != NULL)
		EXPECT_TRUE(m_quiet(rcq, 50));

	t_note("the provider accepts again: the same calls post");
	EXPECT_TRUE(m_write_completes(c, (void *)0x99));
	EXPECT_INT(rpma_recv(c->conn, c->mr, 0, 8, (void *)0x9A), 0);
	EXPECT_INT(rpma_srq_recv(srq, c->mr, 0, 8, (void *)0x9B), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
}

M_RUN_MAIN(post_failures)
