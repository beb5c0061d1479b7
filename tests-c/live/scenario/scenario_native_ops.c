/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_native_ops.c -- the native RDMA FLUSH and ATOMIC WRITE, on a
 * device that has them (rxe on Linux 6.12); on one without (Linux 6.1) it
 * checks that the emulations are what the operations use. Native:
 *   - a flush to visibility completes with IBV_WC_FLUSH, and len counts:
 *     a range inside the region succeeds, one past its end is refused by
 *     the device (IBV_WC_REM_ACCESS_ERR), where the emulation, reading 8
 *     bytes at dst_offset, succeeds;
 *   - an atomic write completes with IBV_WC_ATOMIC_WRITE and lands its 8
 *     bytes exactly, at every aligned offset, interleaved with flushes;
 *   - written data, flushed to visibility, reads back as written.
 * The server's region is in RAM and uses only the visibility flush: a
 * native flush to persistence needs persistent memory (see librpma(7)).
 * Whether a region without the native flush right is refused is shown by
 * the mixed-generation table (generations.sh: a C 1.2.0 server).
 */
#include <string.h>

#include "onesided.h"

#define RSIZE 4096
#define LSIZE 4096
#define LSEED 7
#define RSEED(k) (100u + (unsigned)(k))
/* how many times the client asks for the contents of the server's region */
#define CHECKPOINTS 2

/* the server's one region */
enum { R_VIS, R_N };
static const int usage[R_N] = {
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
};

#define VISIBILITY RPMA_FLUSH_TYPE_VISIBILITY

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};

	for (int k = 0; k < R_N; k++)
		os_srv_reg(peer, &s, RSIZE, usage[k], RSEED(k));
	/* 1: data and flushes, with two checkpoints */
	os_srv_accept(ep, &s, NULL, 0);
	for (int i = 0; i < CHECKPOINTS; i++)
		os_srv_report(&s, R_VIS);
	os_srv_closed(&s);
	/* 2: the flush past the end (it may kill its queue pair) */
	os_srv_accept(ep, &s, NULL, 0);
	os_srv_closed(&s);
	os_srv_dereg(&s);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *r[R_N] = {NULL};
	struct rpma_mr_local *local;
	unsigned char model[RSIZE];
	void *lbuf;
	char word[8];

	t_begin();
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	if (t_native_flush() && t_native_atomic_write())
		t_note("the device has native flush and atomic write");
	else
		t_note("the device has neither native flush nor native atomic write");
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, LSEED,
			&lbuf);
	os_fill(model, RSIZE, RSEED(R_VIS));

	t_note("1: written data, flushed to visibility, reads back as written");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	c_nlogs = 0;
	for (size_t off = 0; off + 512 <= RSIZE; off += 1024) {
		EXPECT_INT(rpma_write(conn, r[R_VIS], off, local, off, 512, ON_ERROR, NULL), 0);
		EXPECT_INT(rpma_flush(conn, r[R_VIS], off, 512, VISIBILITY, ALWAYS,
				OS_CTX(0x7000 + off)), 0);
		OS_EXPECT_WC(conn, 0x7000 + off, t_flush_opcode(), IBV_WC_SUCCESS);
		memcpy(model + off, (char *)lbuf + off, 512);
	}
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	t_note("... the whole region, and its last 8 bytes");
	EXPECT_INT(rpma_flush(conn, r[R_VIS], 0, RSIZE, VISIBILITY, ALWAYS, OS_CTX(0x7101)), 0);
	OS_EXPECT_WC(conn, 0x7101, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(conn, r[R_VIS], RSIZE - 8, 8, VISIBILITY, ALWAYS, OS_CTX(0x7102)), 0);
	OS_EXPECT_WC(conn, 0x7102, t_flush_opcode(), IBV_WC_SUCCESS);
	if (t_native_flush()) {
		/* emulated, this would read 8 bytes from 1 byte before the end */
		t_note("... natively, also its last byte alone");
		EXPECT_INT(rpma_flush(conn, r[R_VIS], RSIZE - 1, 1, VISIBILITY, ALWAYS,
				OS_CTX(0x7103)), 0);
		OS_EXPECT_WC(conn, 0x7103, t_flush_opcode(), IBV_WC_SUCCESS);
	}

	t_note("atomic writes at every aligned offset, each followed by a flush");
	for (size_t off = 8; off < RSIZE; off += 504) {
		size_t at = off - off % 8;

		for (int b = 0; b < 8; b++)
			word[b] = (char)('A' + (at / 8 + (size_t)b) % 26);
		EXPECT_INT(rpma_atomic_write(conn, r[R_VIS], at, word, ALWAYS, OS_CTX(0x7200 + at)), 0);
		OS_EXPECT_WC(conn, 0x7200 + at, t_atomic_write_opcode(), IBV_WC_SUCCESS);
		EXPECT_INT(rpma_flush(conn, r[R_VIS], at, 8, VISIBILITY, ON_ERROR, NULL), 0);
		memcpy(model + at, word, 8);
	}
	OS_EXPECT_FENCE(conn);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	EXPECT_INT(c_nlogs, 0);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	t_note("2: a flush past the end of the region");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	EXPECT_INT(rpma_flush(conn, r[R_VIS], RSIZE - 8, 16, VISIBILITY, ON_ERROR,
			OS_CTX(0x7301)), 0);
	if (t_native_flush()) {
		t_note("... natively the device checks the whole range: refused");
		OS_EXPECT_WC(conn, 0x7301, t_flush_opcode(), IBV_WC_REM_ACCESS_ERR);
	} else {
		t_note("... emulated, only 8 bytes at dst_offset are read: it succeeds");
		OS_EXPECT_FENCE(conn);
	}
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	os_local_delete(&local, lbuf);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return c_end(peer);
}
