/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_access_usage.c -- a region is registered with exactly the
 * remote access its usage grants: remote write only with
 * RPMA_MR_USAGE_WRITE_DST, remote read only with RPMA_MR_USAGE_READ_SRC or
 * a flush type (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY or _PERSISTENT, for
 * the emulated flush, which is carried out as a read). The server registers
 * one region for each single usage bit and for a few combinations (among
 * them "every bit but those that grant read" and "every bit but
 * WRITE_DST"); against each region the client tries, on rxe0:
 * - rpma_read(3), rpma_write(3) and rpma_atomic_write(3): the completion's
 *   status is IBV_WC_SUCCESS exactly when the usage grants the access, and
 *   IBV_WC_REM_ACCESS_ERR otherwise;
 * - rpma_flush(3) of each type: refused by the library (RPMA_E_NOSUPP,
 *   nothing posted) unless the region has that flush type, then carried
 *   out; and of an unknown type, which the library lets through, so the
 *   device alone decides. Emulated (rxe on Linux 6.1): IBV_WC_SUCCESS
 *   exactly when the region can be read. Native (rxe on Linux 6.12): a
 *   flush to visibility succeeds (the region has the flush right of its
 *   usage), one to persistence succeeds on persistent memory and is
 *   refused in RAM (IBV_WC_REM_ACCESS_ERR: the device grants that right on
 *   persistent memory only), and one of an unknown type, a flush of no
 *   placement, needs no right and succeeds. (In RAM the C library 1.3.0
 *   cannot register the regions for persistent flush at all, and on
 *   persistent memory it grants a flush region no remote read, so reads
 *   of those regions fail with it: see librpma(7).)
 * After every attempt both sides' memory is compared with a model: a
 * refused write or atomic write left the server's region as it was, a
 * refused read left the client's. An error puts the queue pair in the error
 * state, so the attempt after one runs on a fresh connection.
 *
 * scenario_access_rights.c covers what follows such an error (the flushed
 * work requests), the flush types a descriptor declares, and the rights of
 * the client's own regions; this test is the matrix over the usage bits.
 */
#define _GNU_SOURCE
/* how long the server waits for the next request and for a client's close */
#define SRV_WAIT_MS 60000
/* of badinput.h only the server of one connection after the other */
#define BI_SERVER_ONLY
#include "badinput.h"

#define RSIZE 4096 /* each server region */
#define LSIZE 4096 /* the client's region */
#define L_SRC 0 /* the client's bytes of every write */
#define L_DST 1024 /* where the client's reads land */
#define LSEED 50
#define RSEED(k) ((unsigned)(1 + (k)))
#define DESC 21

#define R_OFF_WRITE 128 /* where writes go */
#define R_OFF_ATOMIC 256 /* where atomic writes go */
#define LEN 64 /* of a read and a write */

#define READ_SRC RPMA_MR_USAGE_READ_SRC
#define READ_DST RPMA_MR_USAGE_READ_DST
#define WRITE_SRC RPMA_MR_USAGE_WRITE_SRC
#define WRITE_DST RPMA_MR_USAGE_WRITE_DST
#define FLUSH_VIS RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define FLUSH_PERS RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
#define SEND RPMA_MR_USAGE_SEND
#define RECV RPMA_MR_USAGE_RECV
#define ALL_BITS 0xFF

/* the usages that grant remote read and remote write */
#define GRANTS_READ (READ_SRC | FLUSH_VIS | FLUSH_PERS)
#define GRANTS_WRITE WRITE_DST

static const struct {
	int usage;
	const char *name;
} regions[] = {
	{READ_SRC, "READ_SRC"},
	{READ_DST, "READ_DST"},
	{WRITE_SRC, "WRITE_SRC"},
	{WRITE_DST, "WRITE_DST"},
	{FLUSH_VIS, "FLUSH_TYPE_VISIBILITY"},
	{FLUSH_PERS, "FLUSH_TYPE_PERSISTENT"},
	{SEND, "SEND"},
	{RECV, "RECV"},
	{READ_DST | WRITE_SRC, "READ_DST | WRITE_SRC"},
	{SEND | RECV, "SEND | RECV"},
	{WRITE_DST | FLUSH_VIS, "WRITE_DST | FLUSH_TYPE_VISIBILITY"},
	{FLUSH_VIS | FLUSH_PERS, "FLUSH_TYPE_VISIBILITY | FLUSH_TYPE_PERSISTENT"},
	{ALL_BITS & ~GRANTS_READ, "every bit but READ_SRC and the flush types"},
	{ALL_BITS & ~GRANTS_WRITE, "every bit but WRITE_DST"},
};
#define R_N ((int)(sizeof(regions) / sizeof(regions[0])))

/* the shared mapping: the server's regions, then their descriptors */
#define SHM_DESC (R_N * RSIZE)
#define SHM_SIZE (SHM_DESC + 4096)

static unsigned char *shm;

/* ---- the server: accepts one connection after the other until "END" ---- */

static int
serve(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_mr_local *mr[R_N];
	struct rpma_ep *ep;
	int conns = 0;

	(void) arg;
	for (int k = 0; k < R_N; k++) {
		mr[k] = NULL;
		S_CHECK(rpma_mr_reg(peer, shm + k * RSIZE, RSIZE, regions[k].usage, &mr[k]) == 0);
		S_CHECK(rpma_mr_get_descriptor(mr[k], shm + SHM_DESC + DESC * k) == 0);
	}
	ep = c_listen(peer);
	if (ep != NULL)
		while (bi_srv_one(ep, NULL, NULL, NULL))
			conns++;
	c_put(conns);
	for (int k = 0; k < R_N; k++)
		S_CHECK(rpma_mr_dereg(&mr[k]) == 0);
	if (ep != NULL)
		S_CHECK(c_server_end(&ep, &peer));
	else
		S_CHECK(rpma_peer_delete(&peer) == 0);
	return c_server_status();
}

/* ---- the client ---- */

static struct rpma_peer *peer;
static struct rpma_peer_cfg *pcfg; /* direct write to PMem, for persistent flushes */
static struct rpma_mr_local *local;
static unsigned char *lbuf;
static struct rpma_mr_remote *remote[R_N];
static struct rpma_conn *conn; /* NULL after an error */
static int nconns;

static unsigned char model[R_N][RSIZE];
static unsigned char lmodel[LSIZE];

/* every byte of both sides is what the model says */
static int
memory_ok(void)
{
	for (int k = 0; k < R_N; k++)
		if (memcmp(shm + k * RSIZE, model[k], RSIZE) != 0)
			return 0;
	return memcmp(lbuf, lmodel, LSIZE) == 0;
}

static const char *
status_name(int status)
{
	switch (status) {
	case IBV_WC_SUCCESS: return "IBV_WC_SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "IBV_WC_LOC_LEN_ERR";
	case IBV_WC_LOC_PROT_ERR: return "IBV_WC_LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "IBV_WC_WR_FLUSH_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "IBV_WC_REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "IBV_WC_REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "IBV_WC_REM_OP_ERR";
	default: return "another status";
	}
}

/* a connection to work on: the current one, or a fresh one */
static struct rpma_conn *
the_conn(void)
{
	if (conn != NULL)
		return conn;
	t_note("(a fresh connection)");
	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	if (conn != NULL) {
		nconns++;
		EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, pcfg), 0);
	}
	return conn;
}

/*
 * the completion of the attempt with op_context id, on its way: its status
 * is want; 1 when it succeeded. A connection with an error is closed.
 */
static int
completes(uint64_t id, int want)
{
	struct ibv_wc wc;
	int ret = os_wait_wc(conn, &wc);

	EXPECT_INT(ret, 0);
	EXPECT_INT(wc.wr_id, id);
	EXPECT_STR(status_name((int)wc.status), status_name(want));
	if (ret == 0 && wc.status == IBV_WC_SUCCESS)
		return 1;
	EXPECT_TRUE(os_cq_empty(conn));
	EXPECT_TRUE(c_close(&conn));
	return 0;
}

static int
grants(int k, int what)
{
	return (regions[k].usage & what) != 0;
}

/* the expected status of a read (1) or a write (0) of region k */
static int
want_status(int k, int read)
{
	return grants(k, read ? GRANTS_READ : GRANTS_WRITE) ? IBV_WC_SUCCESS :
			IBV_WC_REM_ACCESS_ERR;
}

static void
try_read(int k, uint64_t id)
{
	struct rpma_conn *c = the_conn();

	if (c == NULL)
		return;
	EXPECT_INT(rpma_read(c, local, L_DST, remote[k], 0, LEN, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(id)), 0);
	if (completes(id, want_status(k, 1)))
		memcpy(lmodel + L_DST, model[k], LEN);
	EXPECT_TRUE(memory_ok());
	/* the next read must show its own bytes */
	memset(lbuf + L_DST, 0, LEN);
	memset(lmodel + L_DST, 0, LEN);
}

static void
try_write(int k, uint64_t id)
{
	struct rpma_conn *c = the_conn();

	if (c == NULL)
		return;
	EXPECT_INT(rpma_write(c, remote[k], R_OFF_WRITE, local, L_SRC, LEN,
			RPMA_F_COMPLETION_ALWAYS, OS_CTX(id)), 0);
	if (completes(id, want_status(k, 0)))
		memcpy(model[k] + R_OFF_WRITE, lmodel + L_SRC, LEN);
	EXPECT_TRUE(memory_ok());
}

static void
try_atomic_write(int k, uint64_t id)
{
	struct rpma_conn *c = the_conn();
	char src[8];

	if (c == NULL)
		return;
	memcpy(src, "usage:", 6);
	src[6] = (char)('A' + k);
	src[7] = '.';
	EXPECT_INT(rpma_atomic_write(c, remote[k], R_OFF_ATOMIC, src, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(id)), 0);
	if (completes(id, want_status(k, 0)))
		memcpy(model[k] + R_OFF_ATOMIC, src, 8);
	EXPECT_TRUE(memory_ok());
}

/* the expected status of a flush of type that the library posted to region k */
static int
want_flush_status(int k, enum rpma_flush_type type)
{
	/* emulated: a read of 8 bytes */
	if (!t_native_flush())
		return want_status(k, 1);
	/* native: no persistent flush right in RAM; no placement needs no right */
	return type == RPMA_FLUSH_TYPE_PERSISTENT && !t_persistent_memory() ?
			IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
}

/*
 * a flush of type: with the usage bit it needs (0 for an unknown type,
 * which needs none) the library posts it and the device decides; without,
 * the library refuses it and nothing is posted
 */
static void
try_flush(int k, enum rpma_flush_type type, int needs, uint64_t id)
{
	struct rpma_conn *c = the_conn();
	int passes = needs == 0 || grants(k, needs);

	if (c == NULL)
		return;
	EXPECT_INT(rpma_flush(c, remote[k], 0, 8, type, RPMA_F_COMPLETION_ALWAYS, OS_CTX(id)),
			passes ? 0 : RPMA_E_NOSUPP);
	if (passes)
		(void) completes(id, want_flush_status(k, type));
	else
		EXPECT_TRUE(os_cq_empty(c));
	EXPECT_TRUE(memory_ok());
}

int
main(void)
{
	t_begin();
	BI_SHM_MAP();
	peer = c_start(serve);
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, LSEED,
			(void **)&lbuf);
	EXPECT_TRUE(local != NULL);
	if (local == NULL)
		return 1;
	memset(lbuf + L_DST, 0, LEN);
	memcpy(lmodel, lbuf, LSIZE);
	for (int k = 0; k < R_N; k++)
		EXPECT_INT(rpma_mr_remote_from_descriptor(shm + SHM_DESC + DESC * k, DESC,
				&remote[k]), 0);
	if (t_native_flush())
		t_note("native flush: to visibility it succeeds, to persistence the device "
				"refuses it (regions in RAM), of an unknown type it succeeds");
	else
		t_note("emulated flush: a read, it succeeds exactly when the region can be read");

	for (int k = 0; k < R_N; k++) {
		uint64_t id = 0x1000 * (uint64_t)(k + 1);

		t_note("region %d: %s (usage 0x%02x)", k, regions[k].name, regions[k].usage);
		t_note("rpma_read");
		try_read(k, id + 1);
		t_note("rpma_write");
		try_write(k, id + 2);
		t_note("rpma_atomic_write");
		try_atomic_write(k, id + 3);
		t_note("rpma_flush RPMA_FLUSH_TYPE_VISIBILITY");
		try_flush(k, RPMA_FLUSH_TYPE_VISIBILITY, FLUSH_VIS, id + 4);
		t_note("rpma_flush RPMA_FLUSH_TYPE_PERSISTENT");
		try_flush(k, RPMA_FLUSH_TYPE_PERSISTENT, FLUSH_PERS, id + 5);
		t_note("rpma_flush of an unknown type (7)");
		try_flush(k, (enum rpma_flush_type)7, 0, id + 6);
	}
	if (conn != NULL) {
		EXPECT_TRUE(os_cq_empty(conn));
		EXPECT_TRUE(c_close(&conn));
	}

	t_note("the server stops");
	BI_STOP_SERVER(peer);
	EXPECT_TRUE(os_remotes_delete(R_N, remote));
	EXPECT_TRUE(os_local_delete(&local, lbuf));
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	munmap(shm, SHM_SIZE);
	return c_end(peer);
}
