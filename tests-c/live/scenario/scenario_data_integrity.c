/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_data_integrity.c -- what one side writes is what the other side
 * holds and reads back, byte for byte, for sizes from 1 byte to more than
 * 64 KiB at offsets on both sides that start the regions, are odd, cross a
 * page boundary and end the regions:
 * - rpma_write(3): after the writes of each size the server reports the
 *   hash of its whole region, which must be the client's model of it (the
 *   written bytes landed, nothing else changed);
 * - rpma_read(3): each read brings exactly the model's bytes to the given
 *   local offset and changes no other local byte; one read of the whole
 *   region gives the whole model;
 * - rpma_atomic_write(3): 8 bytes at aligned offsets (first, second, last
 *   of a page, first of the next, at 64 KiB, the region's last) land
 *   exactly, the bytes around them untouched.
 */
#include "onesided.h"

#define RSIZE (256 * 1024) /* the server's region */
#define RSEED 1
#define LSIZE (256 * 1024) /* the client's region */
#define LSEED 2

static const size_t sizes[] = {1, 7, 8, 64, 4096, 65536 + 123};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NPAIRS 4

/* one checkpoint before anything, one per size, one after the atomic writes */
#define CHECKPOINTS (1 + NSIZES + 1)

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};

	os_srv_reg(peer, &s, RSIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC, RSEED);
	os_srv_accept(ep, &s, NULL, 0);
	for (size_t i = 0; i < CHECKPOINTS; i++)
		os_srv_report(&s, 0);
	os_srv_closed(&s);
	os_srv_dereg(&s);
}

/* what the server's region should hold */
static unsigned char model[RSIZE];
/* a copy of the client's region, to tell what a read changed */
static unsigned char before[LSIZE];

/*
 * offset pair p (remote, local) for len bytes: the start of both regions,
 * odd offsets, a page boundary crossed, the end of both regions
 */
static void
pair(int p, size_t len, size_t *remote, size_t *local)
{
	switch (p) {
	case 0:
		*remote = 0;
		*local = 0;
		break;
	case 1:
		*remote = 3;
		*local = 5;
		break;
	case 2:
		*remote = 4095;
		*local = 3 * 4096 + 1;
		break;
	default:
		*remote = RSIZE - len;
		*local = LSIZE - len;
		break;
	}
}

/* 1 when the next completion is (id, opcode) and succeeded */
static int
completed(struct rpma_conn *conn, uint64_t id, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;

	if (os_wait_wc(conn, &wc) != 0)
		return 0;
	if (wc.wr_id != id || wc.status != IBV_WC_SUCCESS || wc.opcode != opcode) {
		fprintf(stderr, "completion %#llx: status %d opcode %d, expected %#llx\n",
				(unsigned long long)wc.wr_id, wc.status, wc.opcode,
				(unsigned long long)id);
		return 0;
	}
	return 1;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *remote = NULL;
	struct rpma_mr_local *local;
	unsigned char *lbuf = NULL;
	uint64_t id = 0;
	const size_t atomic_offsets[] = {0, 8, 4088, 4096, 65536, RSIZE - 8};

	t_begin();
	os_fill(model, RSIZE, RSEED);
	peer = c_start_serving(serve);
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, LSEED,
			(void **)&lbuf);
	EXPECT_TRUE(local != NULL);
	conn = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, 1, &remote), 1);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	for (size_t i = 0; i < NSIZES; i++) {
		size_t len = sizes[i], ro, lo;
		int ok = 0;

		t_note("rpma_write of %zu bytes at %d offset pairs", len, NPAIRS);
		for (int p = 0; p < NPAIRS; p++) {
			pair(p, len, &ro, &lo);
			/* fresh bytes for every write */
			os_fill(lbuf + lo, len, (unsigned)(100 + i * NPAIRS + p));
			id++;
			if (rpma_write(conn, remote, ro, local, lo, len, RPMA_F_COMPLETION_ALWAYS,
					OS_CTX(id)) == 0 &&
					completed(conn, id, IBV_WC_RDMA_WRITE))
				ok++;
			memcpy(model + ro, lbuf + lo, len);
		}
		EXPECT_INT(ok, NPAIRS);
		/* the server's region is the model */
		EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	}

	for (size_t i = 0; i < NSIZES; i++) {
		size_t len = sizes[i], ro, lo;
		int ok = 0, exact = 0;

		t_note("rpma_read of %zu bytes at %d offset pairs", len, NPAIRS);
		for (int p = 0; p < NPAIRS; p++) {
			pair(p, len, &ro, &lo);
			os_fill(lbuf, LSIZE, (unsigned)(200 + i * NPAIRS + p));
			memcpy(before, lbuf, LSIZE);
			memcpy(before + lo, model + ro, len);
			id++;
			if (rpma_read(conn, local, lo, remote, ro, len, RPMA_F_COMPLETION_ALWAYS,
					OS_CTX(id)) == 0 &&
					completed(conn, id, IBV_WC_RDMA_READ))
				ok++;
			/* the model's bytes at lo, every other byte as it was */
			if (memcmp(lbuf, before, LSIZE) == 0)
				exact++;
		}
		EXPECT_INT(ok, NPAIRS);
		EXPECT_INT(exact, NPAIRS);
	}

	t_note("rpma_read of the whole region");
	memset(lbuf, 0, LSIZE);
	EXPECT_INT(rpma_read(conn, local, 0, remote, 0, RSIZE, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(++id)), 0);
	EXPECT_TRUE(completed(conn, id, IBV_WC_RDMA_READ));
	EXPECT_TRUE(memcmp(lbuf, model, RSIZE) == 0);

	t_note("rpma_atomic_write at aligned offsets");
	for (size_t i = 0; i < sizeof(atomic_offsets) / sizeof(atomic_offsets[0]); i++) {
		char src[8];

		os_fill(src, 8, (unsigned)(300 + i));
		EXPECT_INT(rpma_atomic_write(conn, remote, atomic_offsets[i], src,
				RPMA_F_COMPLETION_ALWAYS, OS_CTX(++id)), 0);
		EXPECT_TRUE(completed(conn, id, t_atomic_write_opcode()));
		memcpy(model + atomic_offsets[i], src, 8);
	}
	/* those bytes, and only those, changed on the server */
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	/* and they read back */
	memset(lbuf, 0, LSIZE);
	EXPECT_INT(rpma_read(conn, local, 0, remote, 0, RSIZE, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(++id)), 0);
	EXPECT_TRUE(completed(conn, id, IBV_WC_RDMA_READ));
	EXPECT_TRUE(memcmp(lbuf, model, RSIZE) == 0);
	EXPECT_TRUE(os_cq_empty(conn));

	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	EXPECT_TRUE(os_local_delete(&local, lbuf));
	return c_end(peer);
}
