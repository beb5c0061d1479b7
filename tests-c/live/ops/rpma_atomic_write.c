/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_atomic_write.c -- mirrors rpma_atomic_write(3): RPMA_E_INVAL for a
 * NULL conn, dst or src, for flags 0, for a dst_offset that is not a
 * multiple of 8; a failed call posts nothing and changes nothing. 0
 * otherwise: exactly the 8 bytes of src land at the remote dst +
 * dst_offset (the server checks its whole region); src is a plain buffer,
 * not a registered region, and the library is done with it when the call
 * returns (the bytes sent are the ones it held then);
 * RPMA_F_COMPLETION_ALWAYS gives one completion, RPMA_F_COMPLETION_ON_ERROR
 * none on success, op_context bit-exact as wr_id. The completion's opcode
 * is IBV_WC_ATOMIC_WRITE where the device has native atomic write (rxe on
 * Linux 6.12), IBV_WC_RDMA_WRITE where the library emulates it with an
 * ordinary write (rxe on Linux 6.1). Past the end of the remote
 * region: a completion with IBV_WC_REM_ACCESS_ERR, even with
 * RPMA_F_COMPLETION_ON_ERROR, nothing written, later work requests
 * complete with IBV_WC_WR_FLUSH_ERR. RPMA_E_PROVIDER when the device
 * refuses the work request: a full send queue.
 */
#include "onesided.h"

#define RSIZE 4096 /* the server's region */
#define RSEED 1

/* how many times the client asks for the contents of the server's region */
#define CHECKPOINTS 5


static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	os_serve_one_region(peer, ep, RSIZE, RPMA_MR_USAGE_WRITE_DST, RSEED, CHECKPOINTS);
}

static int
post_atomic(struct rpma_conn *conn, struct rpma_mr_remote *dst, const void *ctx, void *arg)
{
	(void) arg;
	return rpma_atomic_write(conn, dst, 0, "01234567", ALWAYS, ctx);
}

/* what the server's region should hold */
static unsigned char model[RSIZE];

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *dst = NULL;
	char src[8];
	const size_t offsets[] = {16, 24, 2048, RSIZE - 8};

	t_begin();
	os_fill(model, RSIZE, RSEED);
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);

	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, 1, &dst), 1);

	t_note("ERRORS: RPMA_E_INVAL");
	c_nlogs = 0;
	memcpy(src, "ABCDEFGH", 8);
	EXPECT_INT(rpma_atomic_write(NULL, dst, 0, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, NULL, 0, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, dst, 0, NULL, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, dst, 0, src, 0, NEVER), RPMA_E_INVAL);
	/* dst_offset not a multiple of 8 */
	EXPECT_INT(rpma_atomic_write(conn, dst, 1, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, dst, 4, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, dst, 7, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(conn, dst, 4092, src, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_atomic_write(NULL, NULL, 3, NULL, 0, NEVER), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);
	t_note("... posted nothing and changed nothing");
	OS_EXPECT_FENCE(conn);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("RETURN VALUE: 0; RPMA_F_COMPLETION_ALWAYS: one completion");
	EXPECT_INT(rpma_atomic_write(conn, dst, 0, src, ALWAYS, OS_CTX(0x3001)), 0);
	OS_EXPECT_WC(conn, 0x3001, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(conn));
	memcpy(model, "ABCDEFGH", 8);
	/* exactly those 8 bytes changed */
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	memcpy(src, "IJKLMNOP", 8);
	EXPECT_INT(rpma_atomic_write(conn, dst, 8, src, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);
	memcpy(model + 8, "IJKLMNOP", 8);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("aligned offsets up to the last 8 bytes; src is free again on return");
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		for (int b = 0; b < 8; b++)
			src[b] = (char)('a' + i * 8 + b);
		EXPECT_INT(rpma_atomic_write(conn, dst, offsets[i], src, ON_ERROR, NEVER), 0);
		memcpy(model + offsets[i], src, 8);
		memset(src, 'x', 8);
	}
	OS_EXPECT_FENCE(conn);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("op_context comes back bit-exact as wr_id");
	EXPECT_INT(rpma_atomic_write(conn, dst, 32, src, ALWAYS, OS_CTX(0xFEDCBA9876543210ULL)), 0);
	OS_EXPECT_WC(conn, 0xFEDCBA9876543210ULL, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_atomic_write(conn, dst, 40, src, ALWAYS, NULL), 0);
	OS_EXPECT_WC(conn, 0, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	memcpy(model + 32, "xxxxxxxxxxxxxxxx", 16);
	EXPECT_INT(c_nlogs, 0);

	t_note("past the end of the remote region: a completion with an error");
	EXPECT_INT(rpma_atomic_write(conn, dst, RSIZE, src, ON_ERROR, OS_CTX(0x3002)), 0);
	OS_EXPECT_WC(conn, 0x3002, t_atomic_write_opcode(), IBV_WC_REM_ACCESS_ERR);
	/* the queue pair is in the error state now */
	EXPECT_INT(rpma_atomic_write(conn, dst, 48, src, ON_ERROR, OS_CTX(0x3003)), 0);
	OS_EXPECT_WC(conn, 0x3003, t_atomic_write_opcode(), IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	/* the two before went through, the last two did not */
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&dst), 0);

	os_expect_full_sq(peer, 1, 0, post_atomic, NULL,
		t_native_atomic_write() ? "ibv_wr_complete" : "ibv_post_send");

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return c_end(peer);
}
