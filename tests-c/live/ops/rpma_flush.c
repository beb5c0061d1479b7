/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_flush.c -- mirrors rpma_flush(3): RPMA_E_INVAL for a NULL conn or
 * dst and for flags 0 (before any other check); RPMA_E_NOSUPP, with one
 * ERROR message, for RPMA_FLUSH_TYPE_PERSISTENT on a connection that has
 * not applied a peer configuration with direct write to PMem (checked
 * first), for RPMA_FLUSH_TYPE_PERSISTENT on a remote region whose usage
 * lacks RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT and for
 * RPMA_FLUSH_TYPE_VISIBILITY on one lacking
 * RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY; a failed call posts nothing. Unlike
 * what upstream's manual says, a type that is neither is not refused: it
 * passes every check (we follow the code). 0 otherwise;
 * RPMA_F_COMPLETION_ALWAYS gives one completion, RPMA_F_COMPLETION_ON_ERROR
 * none on success, op_context bit-exact as wr_id. Without native flush
 * (rxe on Linux 6.1), a flush is an 8-byte read of the remote region at
 * dst_offset (opcode IBV_WC_RDMA_READ) and len plays no part: 0 and
 * lengths far past the region's end succeed alike, while a dst_offset with
 * fewer than 8 bytes after it is a completion with IBV_WC_REM_ACCESS_ERR.
 * A native flush (rxe on Linux 6.12) names the len bytes at dst_offset:
 * a range past the region's end is a completion with IBV_WC_REM_ACCESS_ERR.
 * RPMA_E_PROVIDER when the device refuses the work request: a full send
 * queue.
 */
#include "onesided.h"

#define RSIZE 4096 /* each of the server's regions */

/* the server's regions, in the order of their descriptors */
enum { R_BOTH, R_PERSISTENT, R_VISIBILITY, R_NONE, R_N };
static const int usage[R_N] = {
	RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_READ_SRC,
};

#define PERSISTENT RPMA_FLUSH_TYPE_PERSISTENT
#define VISIBILITY RPMA_FLUSH_TYPE_VISIBILITY
/* neither of the two */
#define UNKNOWN_TYPE ((enum rpma_flush_type)7)


#define MSG_CONN "Connection does not support flush to persistency. " \
	"Check if the remote node supports direct write to persistent memory.\n"
#define MSG_PERSISTENT "The remote memory region does not support flushing to persistency\n"
#define MSG_VISIBILITY "The remote memory region does not support flushing to global visibility\n"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};

	for (int k = 0; k < R_N; k++)
		os_srv_reg(peer, &s, RSIZE, usage[k], (unsigned)k);
	/* 1: everything but the full send queue; direct write to PMem declared */
	os_srv_accept(ep, &s, NULL, 1);
	os_srv_closed(&s);
	/* 2: the full send queue */
	os_srv_vanish(ep, &s);
	os_srv_dereg(&s);
}

static int
post_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, const void *ctx, void *arg)
{
	(void) arg;
	return rpma_flush(conn, dst, 0, 8, VISIBILITY, ALWAYS, ctx);
}

/*
 * a flush with RPMA_F_COMPLETION_ALWAYS that must be refused: its return
 * value; checks the one message it logs
 */
static int
refused(struct rpma_conn *conn, struct rpma_mr_remote *dst, enum rpma_flush_type type,
		const char *message)
{
	int ret;

	c_nlogs = 0;
	ret = rpma_flush(conn, dst, 0, 8, type, ALWAYS, NEVER);
	c_expect_log(RPMA_LOG_LEVEL_ERROR, "rpma_flush", message, 1);
	return ret;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *r[R_N] = {NULL};

	t_begin();
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);

	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);

	t_note("ERRORS: RPMA_E_INVAL, before any other check");
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(NULL, r[R_BOTH], 0, 8, VISIBILITY, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(NULL, r[R_BOTH], 0, 8, PERSISTENT, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(conn, NULL, 0, 8, VISIBILITY, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(conn, NULL, 0, 8, PERSISTENT, ALWAYS, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, VISIBILITY, 0, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(conn, r[R_NONE], 0, 8, PERSISTENT, 0, NEVER), RPMA_E_INVAL);
	EXPECT_INT(rpma_flush(NULL, NULL, 0, 8, UNKNOWN_TYPE, 0, NEVER), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	t_note("ERRORS: RPMA_E_NOSUPP: no direct write to PMem on this connection yet");
	EXPECT_INT(refused(conn, r[R_BOTH], PERSISTENT, MSG_CONN), RPMA_E_NOSUPP);
	EXPECT_INT(refused(conn, r[R_PERSISTENT], PERSISTENT, MSG_CONN), RPMA_E_NOSUPP);
	/* the connection is checked before the region */
	EXPECT_INT(refused(conn, r[R_VISIBILITY], PERSISTENT, MSG_CONN), RPMA_E_NOSUPP);
	EXPECT_INT(refused(conn, r[R_NONE], PERSISTENT, MSG_CONN), RPMA_E_NOSUPP);
	t_note("... posted nothing");
	OS_EXPECT_FENCE(conn);

	t_note("RPMA_FLUSH_TYPE_VISIBILITY does not need direct write to PMem");
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, VISIBILITY, ALWAYS, OS_CTX(0x4001)), 0);
	OS_EXPECT_WC(conn, 0x4001, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(conn, r[R_VISIBILITY], 0, 8, VISIBILITY, ALWAYS, OS_CTX(0x4002)), 0);
	OS_EXPECT_WC(conn, 0x4002, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_INT(c_nlogs, 0);

	t_note("an unknown type passes every check (upstream's manual: RPMA_E_INVAL)");
	EXPECT_INT(rpma_flush(conn, r[R_NONE], 0, 8, UNKNOWN_TYPE, ALWAYS, OS_CTX(0x4003)), 0);
	OS_EXPECT_WC(conn, 0x4003, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(c_nlogs, 0);

	t_note("the server's configuration: direct write to PMem");
	EXPECT_INT(os_apply_pcfg(conn, R_N), 1);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, PERSISTENT, ALWAYS, OS_CTX(0x4004)), 0);
	OS_EXPECT_WC(conn, 0x4004, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(conn, r[R_PERSISTENT], 0, 8, PERSISTENT, ALWAYS, OS_CTX(0x4005)), 0);
	OS_EXPECT_WC(conn, 0x4005, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(c_nlogs, 0);

	t_note("ERRORS: RPMA_E_NOSUPP: the remote region's usage lacks the type");
	EXPECT_INT(refused(conn, r[R_VISIBILITY], PERSISTENT, MSG_PERSISTENT), RPMA_E_NOSUPP);
	EXPECT_INT(refused(conn, r[R_NONE], PERSISTENT, MSG_PERSISTENT), RPMA_E_NOSUPP);
	EXPECT_INT(refused(conn, r[R_PERSISTENT], VISIBILITY, MSG_VISIBILITY), RPMA_E_NOSUPP);
	EXPECT_INT(refused(conn, r[R_NONE], VISIBILITY, MSG_VISIBILITY), RPMA_E_NOSUPP);
	t_note("... posted nothing");
	OS_EXPECT_FENCE(conn);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_NONE], 0, 8, UNKNOWN_TYPE, ALWAYS, OS_CTX(0x4006)), 0);
	OS_EXPECT_WC(conn, 0x4006, t_flush_opcode(), IBV_WC_SUCCESS);

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion on success");
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, PERSISTENT, ON_ERROR, NEVER), 0);
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, VISIBILITY, ON_ERROR, NEVER), 0);
	OS_EXPECT_FENCE(conn);

	t_note("op_context comes back bit-exact as wr_id");
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, PERSISTENT, ALWAYS,
			OS_CTX(0xFEDCBA9876543210ULL)), 0);
	OS_EXPECT_WC(conn, 0xFEDCBA9876543210ULL, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, VISIBILITY, ALWAYS, NULL), 0);
	OS_EXPECT_WC(conn, 0, t_flush_opcode(), IBV_WC_SUCCESS);

	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 0, PERSISTENT, ALWAYS, OS_CTX(0x4007)), 0);
	OS_EXPECT_WC(conn, 0x4007, t_flush_opcode(), IBV_WC_SUCCESS);
	if (t_native_flush()) {
		t_note("native: the len bytes at dst_offset must be in the region");
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, RSIZE, VISIBILITY, ALWAYS,
				OS_CTX(0x4008)), 0);
		OS_EXPECT_WC(conn, 0x4008, t_flush_opcode(), IBV_WC_SUCCESS);
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], RSIZE - 4, 4, PERSISTENT, ALWAYS,
				OS_CTX(0x4009)), 0);
		OS_EXPECT_WC(conn, 0x4009, t_flush_opcode(), IBV_WC_SUCCESS);
		/* (a length of 1 << 40 would say nothing: rxe keeps its low 32 bits) */
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], RSIZE - 8, 16, PERSISTENT, ON_ERROR,
				OS_CTX(0x400A)), 0);
	} else {
		t_note("emulated: len plays no part; 8 bytes at dst_offset must be in the region");
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, (size_t)1 << 40, VISIBILITY, ALWAYS,
				OS_CTX(0x4008)), 0);
		OS_EXPECT_WC(conn, 0x4008, t_flush_opcode(), IBV_WC_SUCCESS);
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], RSIZE - 8, RSIZE, PERSISTENT, ALWAYS,
				OS_CTX(0x4009)), 0);
		OS_EXPECT_WC(conn, 0x4009, t_flush_opcode(), IBV_WC_SUCCESS);
		EXPECT_INT(rpma_flush(conn, r[R_BOTH], RSIZE - 4, 4, PERSISTENT, ON_ERROR,
				OS_CTX(0x400A)), 0);
	}
	OS_EXPECT_WC(conn, 0x400A, t_flush_opcode(), IBV_WC_REM_ACCESS_ERR);
	/* the queue pair is in the error state now */
	EXPECT_INT(rpma_flush(conn, r[R_BOTH], 0, 8, VISIBILITY, ON_ERROR, OS_CTX(0x400B)), 0);
	OS_EXPECT_WC(conn, 0x400B, t_flush_opcode(), IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_INT(c_nlogs, 0);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	os_expect_full_sq(peer, R_N, R_BOTH, post_flush, NULL,
		t_native_flush() ? "ibv_wr_complete" : "ibv_post_send");

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return c_end(peer);
}
