/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_completion_flags.c -- which posts give a completion, and in which
 * order. Sends (and writes with immediate data) posted with
 * RPMA_F_COMPLETION_ON_ERROR that succeed give the sender no completion,
 * while every message still completes a receive at the peer: N of them and
 * one posted with RPMA_F_COMPLETION_ALWAYS give exactly one completion, the
 * latter's. The completions of one connection come in posting order, at the
 * sender (op_context, opcode) and at the receiver (byte_len, opcode,
 * immediate data), also for a mix of rpma_send(3), rpma_send_with_imm(3)
 * and rpma_write_with_imm(3). Only the bit that RPMA_F_COMPLETION_ALWAYS
 * adds to RPMA_F_COMPLETION_ON_ERROR asks for a completion: other non-zero
 * flags are taken and ignored. An operation that fails completes whatever
 * its flags, and so does each one posted after it (flushed), in posting
 * order.
 */
#include "twosided.h"

/* both sides' queues hold every message of a round */
static const struct tw_sizes sizes = {.rq = 64, .cq = 64};

#define N 5

/* the server's next completion: a successful receive of len bytes */
static void
expect_server_recv(int opcode, uint32_t len, int with_imm, uint32_t imm)
{
	struct tw_wc swc = srv_wc(TW_MAIN_CQ);

	EXPECT_INT(swc.ret, 0);
	EXPECT_INT(swc.status, IBV_WC_SUCCESS);
	EXPECT_INT(swc.opcode, opcode);
	EXPECT_INT(swc.byte_len, len);
	EXPECT_INT((swc.wc_flags & IBV_WC_WITH_IMM) != 0, with_imm);
	if (with_imm)
		EXPECT_INT(ntohl(swc.imm_data), imm);
}

/* the server posts n receives (of 64 bytes each, or 0-byte ones) */
static void
srv_recvs(int n, int zero)
{
	for (int i = 0; i < n; i++)
		srv_recv(zero ? -1 : i * 64, zero ? 0 : 64, TW_RID + (uint64_t)i);
}

int
main(void)
{
	struct ibv_wc wc;
	struct tw_wc swc;

	t_begin();
	tw_start();
	tw_fill(tw.buf, 4096, 1);
	tw_connect(&sizes, &sizes);

	t_note("N unsignalled sends and one signalled: one completion");
	srv_recvs(N + 1, 0);
	for (int i = 0; i < N; i++)
		EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, (size_t)i + 1, RPMA_F_COMPLETION_ON_ERROR,
				TW_CTX(TW_ID_A + (uint64_t)i)), 0);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, N + 1, RPMA_F_COMPLETION_ALWAYS,
			TW_CTX(TW_ID_B)), 0);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, TW_ID_B, IBV_WC_SEND);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	t_note("... and all N + 1 receives complete, in posting order of the sends");
	for (int i = 0; i < N + 1; i++)
		expect_server_recv(IBV_WC_RECV, (uint32_t)i + 1, 0, 0);
	EXPECT_INT(srv_quiet(TW_MAIN_CQ), 0);

	t_note("all signalled: completions in posting order on both sides");
	srv_recvs(N, 0);
	for (int i = 0; i < N; i++)
		EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, (size_t)(10 * i), RPMA_F_COMPLETION_ALWAYS,
				TW_CTX(TW_ID_A + (uint64_t)i)), 0);
	for (int i = 0; i < N; i++) {
		EXPECT_INT(tw_wait(tw.cq, &wc), 0);
		TW_EXPECT_WC(wc, IBV_WC_SUCCESS, TW_ID_A + (uint64_t)i, IBV_WC_SEND);
	}
	EXPECT_INT(tw_quiet(tw.cq), 0);
	for (int i = 0; i < N; i++)
		expect_server_recv(IBV_WC_RECV, (uint32_t)(10 * i), 0, 0);

	t_note("a mix of operations, all signalled");
	srv_recvs(4, 0);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 10, RPMA_F_COMPLETION_ALWAYS, TW_CTX(1)), 0);
	EXPECT_INT(rpma_send_with_imm(tw.conn, tw.mr, 0, 20, RPMA_F_COMPLETION_ALWAYS, 0xAB,
			TW_CTX(2)), 0);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 1024, tw.mr, 0, 30,
			RPMA_F_COMPLETION_ALWAYS, 0xCD, TW_CTX(3)), 0);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(4)), 0);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, 1, IBV_WC_SEND);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, 2, IBV_WC_SEND);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, 3, IBV_WC_RDMA_WRITE);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, 4, IBV_WC_SEND);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	expect_server_recv(IBV_WC_RECV, 10, 0, 0);
	expect_server_recv(IBV_WC_RECV, 20, 1, 0xAB);
	expect_server_recv(IBV_WC_RECV_RDMA_WITH_IMM, 30, 1, 0xCD);
	expect_server_recv(IBV_WC_RECV, 0, 0, 0);

	t_note("N unsignalled writes with immediate data and one signalled send");
	srv_recvs(N + 1, 1);
	for (int i = 0; i < N; i++)
		EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, tw.mr, 0, (size_t)i + 1,
				RPMA_F_COMPLETION_ON_ERROR, (uint32_t)i, TW_CTX(TW_ID_A)), 0);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(TW_ID_B)), 0);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, IBV_WC_SUCCESS, TW_ID_B, IBV_WC_SEND);
	EXPECT_INT(tw_quiet(tw.cq), 0);
	for (int i = 0; i < N; i++)
		expect_server_recv(IBV_WC_RECV_RDMA_WITH_IMM, (uint32_t)i + 1, 1, (uint32_t)i);
	expect_server_recv(IBV_WC_RECV, 0, 0, 0);

	t_note("flags: only the bit of RPMA_F_COMPLETION_ALWAYS asks for a completion");
	{
		static const int flags[] = {
			RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR,
			1 << 2,
			RPMA_F_COMPLETION_ALWAYS | 1 << 8,
			RPMA_F_COMPLETION_ON_ERROR | 1 << 30,
			-1,
		};
		static const int completes[] = {1, 0, 1, 0, 1};

		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
			t_note("flags 0x%x", (unsigned)flags[i]);
			srv_recv(-1, 0, TW_RID + i);
			EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, flags[i],
					TW_CTX(TW_ID_A + i)), 0);
			swc = srv_wc(TW_MAIN_CQ);
			EXPECT_INT(swc.ret, 0);
			TW_EXPECT_RECV(swc, TW_RID + i, IBV_WC_RECV, 0, 0, 0);
			if (completes[i]) {
				EXPECT_INT(tw_wait(tw.cq, &wc), 0);
				TW_EXPECT_WC(wc, IBV_WC_SUCCESS, TW_ID_A + i, IBV_WC_SEND);
			}
			EXPECT_INT(tw_quiet(tw.cq), 0);
		}
	}

	t_note("a failed operation completes whatever its flags, and so does what follows");
	srv_recv(0, 4, TW_RID);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 64, RPMA_F_COMPLETION_ON_ERROR, TW_CTX(1)), 0);
	EXPECT_INT(rpma_send(tw.conn, tw.mr, 0, 8, RPMA_F_COMPLETION_ON_ERROR, TW_CTX(2)), 0);
	EXPECT_INT(rpma_write_with_imm(tw.conn, tw.rmr, 0, tw.mr, 0, 8,
			RPMA_F_COMPLETION_ON_ERROR, 0, TW_CTX(3)), 0);
	EXPECT_INT(rpma_send(tw.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, TW_CTX(4)), 0);
	EXPECT_INT(tw_wait(tw.cq, &wc), 0);
	TW_EXPECT_WC(wc, TW_TOO_LONG_AT_SENDER, 1, 0);
	for (int i = 2; i <= 4; i++) {
		EXPECT_INT(tw_wait(tw.cq, &wc), 0);
		TW_EXPECT_WC(wc, IBV_WC_WR_FLUSH_ERR, i, 0);
	}
	EXPECT_INT(tw_quiet(tw.cq), 0);
	swc = srv_wc(TW_MAIN_CQ);
	EXPECT_INT(swc.ret, 0);
	TW_EXPECT_WC(swc, TW_TOO_LONG_AT_RECEIVER, TW_RID, 0);
	tw_close();

	return tw_end();
}
