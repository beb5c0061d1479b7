/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_access_rights.c -- what the usage a region was registered with
 * allows, as the device enforces it (the library checks no rights itself,
 * except the flush types a remote region's descriptor declares):
 * - rpma_write(3) or rpma_atomic_write(3) to a region registered without
 *   RPMA_MR_USAGE_WRITE_DST: the call returns 0 and its completion says
 *   IBV_WC_REM_ACCESS_ERR; the server's memory is unchanged;
 * - rpma_read(3) from a region registered without RPMA_MR_USAGE_READ_SRC:
 *   IBV_WC_REM_ACCESS_ERR, the local memory unchanged;
 * - after such an error the queue pair is in the error state: everything
 *   posted afterwards completes with IBV_WC_WR_FLUSH_ERR (also with
 *   RPMA_F_COMPLETION_ON_ERROR) and has no effect;
 * - rpma_flush(3) on a region without a flush usage: RPMA_E_NOSUPP from
 *   the library, nothing posted; a flush of an unknown type passes the
 *   library and meets the device: IBV_WC_REM_ACCESS_ERR on a region that
 *   cannot be read remotely;
 * - on the client's side: a write may come from a region registered for
 *   sending only (reading local memory needs no right), a read into one
 *   is a completion with IBV_WC_LOC_PROT_ERR, the memory unchanged.
 */
#include "onesided.h"

#define RSIZE 4096 /* each of the server's regions */
#define LSIZE 4096 /* each of the client's regions */

/* the server's regions, in the order of their descriptors */
enum { R_RO, R_WO, R_RW, R_N };
static const int usage[R_N] = {
	RPMA_MR_USAGE_READ_SRC, /* no WRITE_DST */
	RPMA_MR_USAGE_WRITE_DST, /* no READ_SRC */
	RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, /* no flush type */
};
/* seeds of the regions' contents */
#define RSEED(k) ((unsigned)(1 + (k)))
#define LSEED 10
#define LSEED_SEND 11

/* the connections, with the regions the server reports after each */
#define CONNS 5
static const int reports[CONNS][2] = {
	{R_RO, R_RW}, /* 1: rpma_write without WRITE_DST */
	{R_RO, -1}, /* 2: rpma_atomic_write without WRITE_DST */
	{R_WO, -1}, /* 3: rpma_read without READ_SRC */
	{R_RW, R_WO}, /* 4: rpma_flush without a flush usage */
	{R_RW, -1}, /* 5: the client's own regions */
};

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};

	for (int k = 0; k < R_N; k++)
		os_srv_reg(peer, &s, RSIZE, usage[k], RSEED(k));
	for (int c = 0; c < CONNS; c++) {
		os_srv_accept(ep, &s, NULL, 1);
		for (int i = 0; i < 2; i++)
			if (reports[c][i] >= 0)
				os_srv_report(&s, reports[c][i]);
		os_srv_closed(&s);
	}
	os_srv_dereg(&s);
}

/* the hash of server region k untouched */
static long long
untouched(int k)
{
	static unsigned char buf[RSIZE];

	os_fill(buf, RSIZE, RSEED(k));
	return os_hash(buf, RSIZE);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *r[R_N] = {NULL};
	struct rpma_mr_local *local, *send_only;
	unsigned char *lbuf = NULL, *sbuf = NULL;

	t_begin();
	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, LSEED,
			(void **)&lbuf);
	EXPECT_TRUE(local != NULL);
	send_only = os_local(peer, LSIZE, RPMA_MR_USAGE_SEND, LSEED_SEND, (void **)&sbuf);
	EXPECT_TRUE(send_only != NULL);

	t_note("1: rpma_write to a region without RPMA_MR_USAGE_WRITE_DST");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	EXPECT_INT(rpma_write(conn, r[R_RO], 0, local, 0, 64, ON_ERROR, OS_CTX(0x6001)), 0);
	OS_EXPECT_WC(conn, 0x6001, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR);
	t_note("... the queue pair is in the error state: the rest is flushed");
	EXPECT_INT(rpma_write(conn, r[R_RW], 0, local, 0, 64, ON_ERROR, OS_CTX(0x6002)), 0);
	EXPECT_INT(rpma_read(conn, local, 0, r[R_RW], 0, 64, ALWAYS, OS_CTX(0x6003)), 0);
	EXPECT_INT(rpma_atomic_write(conn, r[R_RW], 64, "abcdefgh", ON_ERROR, OS_CTX(0x6004)), 0);
	EXPECT_INT(rpma_write(conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x6005)), 0);
	OS_EXPECT_WC(conn, 0x6002, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	OS_EXPECT_WC(conn, 0x6003, IBV_WC_RDMA_READ, IBV_WC_WR_FLUSH_ERR);
	OS_EXPECT_WC(conn, 0x6004, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	OS_EXPECT_WC(conn, 0x6005, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	/* nothing was written, nothing was read */
	EXPECT_INT(os_checkpoint(), untouched(R_RO));
	EXPECT_INT(os_checkpoint(), untouched(R_RW));
	EXPECT_TRUE(os_is_pattern(lbuf, LSIZE, LSEED, 0));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	t_note("2: rpma_atomic_write to a region without RPMA_MR_USAGE_WRITE_DST");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	EXPECT_INT(rpma_atomic_write(conn, r[R_RO], 0, "abcdefgh", ON_ERROR, OS_CTX(0x6101)), 0);
	OS_EXPECT_WC(conn, 0x6101, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR);
	EXPECT_INT(rpma_atomic_write(conn, r[R_RO], 8, "abcdefgh", ON_ERROR, OS_CTX(0x6102)), 0);
	OS_EXPECT_WC(conn, 0x6102, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_INT(os_checkpoint(), untouched(R_RO));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	t_note("3: rpma_read from a region without RPMA_MR_USAGE_READ_SRC");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	EXPECT_INT(rpma_read(conn, local, 0, r[R_WO], 0, 64, ON_ERROR, OS_CTX(0x6201)), 0);
	OS_EXPECT_WC(conn, 0x6201, IBV_WC_RDMA_READ, IBV_WC_REM_ACCESS_ERR);
	EXPECT_INT(rpma_read(conn, local, 64, r[R_RW], 0, 64, ON_ERROR, OS_CTX(0x6202)), 0);
	OS_EXPECT_WC(conn, 0x6202, IBV_WC_RDMA_READ, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_TRUE(os_is_pattern(lbuf, LSIZE, LSEED, 0));
	EXPECT_INT(os_checkpoint(), untouched(R_WO));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	t_note("4: rpma_flush on a region without a flush usage");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_RW], 0, 8, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, NEVER),
			RPMA_E_NOSUPP);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(os_apply_pcfg(conn, R_N), 1);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_RW], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS, NEVER),
			RPMA_E_NOSUPP);
	EXPECT_INT(c_nlogs, 1);
	t_note("... nothing was posted");
	OS_EXPECT_FENCE(conn);
	/* a write through the same connection still works */
	EXPECT_INT(rpma_write(conn, r[R_RW], 0, local, 0, 8, ALWAYS, OS_CTX(0x6301)), 0);
	OS_EXPECT_WC(conn, 0x6301, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	t_note("an unknown flush type passes the library");
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, r[R_WO], 0, 8, (enum rpma_flush_type)7, ON_ERROR,
			OS_CTX(0x6302)), 0);
	EXPECT_INT(c_nlogs, 0);
	if (t_native_flush()) {
		/* a native flush of placement 0: rxe (Linux 6.12) carries it out */
		t_note("... natively: a flush of no placement, which the device accepts");
		OS_EXPECT_FENCE(conn);
		EXPECT_INT(rpma_write(conn, r[R_RW], 8, local, 8, 8, ALWAYS, OS_CTX(0x6303)), 0);
		OS_EXPECT_WC(conn, 0x6303, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	} else {
		t_note("... emulated: a read the region does not allow, the device refuses");
		OS_EXPECT_WC(conn, 0x6302, IBV_WC_RDMA_READ, IBV_WC_REM_ACCESS_ERR);
		EXPECT_INT(rpma_write(conn, r[R_RW], 8, local, 8, 8, ALWAYS, OS_CTX(0x6303)), 0);
		OS_EXPECT_WC(conn, 0x6303, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	}
	EXPECT_TRUE(os_cq_empty(conn));
	/* the first write landed; the second one only where the flush did not fail */
	{
		unsigned char want[RSIZE];

		os_fill(want, RSIZE, RSEED(R_RW));
		memcpy(want, lbuf, t_native_flush() ? 16 : 8);
		EXPECT_INT(os_checkpoint(), os_hash(want, RSIZE));
	}
	EXPECT_INT(os_checkpoint(), untouched(R_WO));
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	t_note("5: the client's regions: a source needs no right, a destination does");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(os_remotes(conn, R_N, r), 1);
	EXPECT_INT(rpma_write(conn, r[R_RW], 64, send_only, 0, 64, ALWAYS, OS_CTX(0x6401)), 0);
	OS_EXPECT_WC(conn, 0x6401, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_INT(rpma_read(conn, send_only, 0, r[R_RW], 0, 64, ON_ERROR, OS_CTX(0x6402)), 0);
	OS_EXPECT_WC(conn, 0x6402, IBV_WC_RDMA_READ, IBV_WC_LOC_PROT_ERR);
	EXPECT_INT(rpma_write(conn, r[R_RW], 128, local, 0, 64, ON_ERROR, OS_CTX(0x6403)), 0);
	OS_EXPECT_WC(conn, 0x6403, IBV_WC_RDMA_WRITE, IBV_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_TRUE(os_is_pattern(sbuf, LSIZE, LSEED_SEND, 0));
	{
		unsigned char want[RSIZE];

		os_fill(want, RSIZE, RSEED(R_RW));
		memcpy(want, lbuf, t_native_flush() ? 16 : 8); /* connection 4 */
		memcpy(want + 64, sbuf, 64);
		EXPECT_INT(os_checkpoint(), os_hash(want, RSIZE));
	}
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(os_remotes_delete(R_N, r));

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_TRUE(os_local_delete(&local, lbuf));
	EXPECT_TRUE(os_local_delete(&send_only, sbuf));
	return c_end(peer);
}
