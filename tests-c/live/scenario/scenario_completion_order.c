/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_completion_order.c -- the one-sided operations of a connection
 * complete in the order they were posted, and only those that asked for a
 * completion (RPMA_F_COMPLETION_ALWAYS) give one:
 * - N writes with RPMA_F_COMPLETION_ON_ERROR to the same 8 bytes, then one
 *   read of them with RPMA_F_COMPLETION_ALWAYS: exactly one completion, the
 *   read's, and it read what the last write wrote;
 * - N operations with RPMA_F_COMPLETION_ALWAYS, rpma_write(3),
 *   rpma_read(3), rpma_atomic_write(3) and rpma_flush(3) in turn: N
 *   completions in posting order, each with its op_context as wr_id and
 *   its operation's opcode (for an atomic write and a flush that of the
 *   native operation where the device has it, IBV_WC_ATOMIC_WRITE and
 *   IBV_WC_FLUSH on rxe of Linux 6.12, else that of the emulation,
 *   IBV_WC_RDMA_WRITE and IBV_WC_RDMA_READ);
 * - the same with half of the operations of each kind unsignalled: the
 *   signalled half, in order;
 * and the server's region holds what the writes wrote, in their order.
 * The client's queues are larger than the default, so that N work requests
 * fit in them.
 */
#include "onesided.h"

#define RSIZE 4096 /* the server's region */
#define RSEED 1
#define LSIZE 4096 /* the client's region */
#define LSEED 2

#define N 40
#define QUEUE 64

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};

	os_srv_reg(peer, &s, RSIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, RSEED);
	os_srv_accept(ep, &s, NULL, 0);
	os_srv_report(&s, 0);
	os_srv_closed(&s);
	os_srv_dereg(&s);
}

/* what the server's region should hold */
static unsigned char model[RSIZE];
static unsigned char *lbuf;
/* which sequence is running: each writes bytes of its own */
static unsigned seq;

/*
 * operation i of a mixed sequence, with flags and op_context id: a write,
 * a read of what that write wrote, an atomic write, a flush of what that
 * wrote, in turn, each pair at its own 16 bytes from 1024 on; the opcode of
 * its completion in *opcode
 */
static int
post(struct rpma_conn *conn, struct rpma_mr_remote *remote, struct rpma_mr_local *local,
		int i, int flags, uint64_t id, enum ibv_wc_opcode *opcode)
{
	size_t off = 1024 + 8 * (size_t)i; /* the client's bytes of operation i */
	size_t written = off - (i % 2 ? 8 : 0); /* the remote bytes of the pair */
	char src[8];

	switch (i % 4) {
	case 0:
		os_fill(lbuf + off, 8, seq * 1000 + (unsigned)i);
		memcpy(model + written, lbuf + off, 8);
		*opcode = IBV_WC_RDMA_WRITE;
		return rpma_write(conn, remote, written, local, off, 8, flags, OS_CTX(id));
	case 1:
		*opcode = IBV_WC_RDMA_READ;
		return rpma_read(conn, local, off, remote, written, 8, flags, OS_CTX(id));
	case 2:
		os_fill(src, 8, seq * 1000 + (unsigned)i);
		memcpy(model + written, src, 8);
		*opcode = t_atomic_write_opcode();
		return rpma_atomic_write(conn, remote, written, src, flags, OS_CTX(id));
	default:
		*opcode = t_flush_opcode();
		return rpma_flush(conn, remote, written, 8, RPMA_FLUSH_TYPE_VISIBILITY, flags,
				OS_CTX(id));
	}
}

/* in the third sequence: operation i is signalled (half of each kind) */
static int
signalled(int i)
{
	return (i + i / 4) % 2;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = os_cfg(QUEUE, QUEUE);
	struct rpma_mr_remote *remote = NULL;
	struct rpma_mr_local *local;
	enum ibv_wc_opcode opcode[N];
	struct ibv_wc wc;
	int posted, in_order, got;

	t_begin();
	EXPECT_TRUE(cfg != NULL);
	os_fill(model, RSIZE, RSEED);
	peer = c_start_serving(serve);
	local = os_local(peer, LSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, LSEED,
			(void **)&lbuf);
	EXPECT_TRUE(local != NULL);
	conn = c_connect(peer, cfg, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(os_remotes(conn, 1, &remote), 1);

	t_note("%d unsignalled writes to the same 8 bytes, then a signalled read", N);
	posted = 0;
	for (int i = 0; i < N; i++) {
		/* write number i comes from the client's bytes 8 * i */
		os_fill(lbuf + 8 * i, 8, (unsigned)(500 + i));
		posted += rpma_write(conn, remote, 0, local, 8 * (size_t)i, 8, ON_ERROR,
				OS_CTX(OS_NEVER_ID)) == 0;
	}
	EXPECT_INT(posted, N);
	memcpy(model, lbuf + 8 * (N - 1), 8);
	EXPECT_INT(rpma_read(conn, local, 512, remote, 0, 8, ALWAYS, OS_CTX(0x7001)), 0);
	OS_EXPECT_WC(conn, 0x7001, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(conn));
	/* the last write's bytes */
	EXPECT_TRUE(memcmp(lbuf + 512, lbuf + 8 * (N - 1), 8) == 0);

	t_note("%d signalled operations of four kinds", N);
	seq = 1;
	posted = 0;
	for (int i = 0; i < N; i++)
		posted += post(conn, remote, local, i, ALWAYS, 0x7100 + (uint64_t)i,
				&opcode[i]) == 0;
	EXPECT_INT(posted, N);
	in_order = 0;
	for (int i = 0; i < N; i++) {
		if (os_wait_wc(conn, &wc) != 0)
			break;
		if (wc.wr_id == 0x7100 + (uint64_t)i && wc.status == IBV_WC_SUCCESS &&
				wc.opcode == opcode[i])
			in_order++;
		else
			fprintf(stderr, "completion %d: wr_id %#llx status %d opcode %d\n", i,
					(unsigned long long)wc.wr_id, wc.status, wc.opcode);
	}
	EXPECT_INT(in_order, N);
	EXPECT_TRUE(os_cq_empty(conn));
	/* each read brought back what the write before it wrote */
	got = 0;
	for (int i = 1; i < N; i += 4)
		got += memcmp(lbuf + 1024 + 8 * i, model + 1024 + 8 * (i - 1), 8) == 0;
	EXPECT_INT(got, N / 4);

	t_note("half of them signalled: that half completes, in order");
	seq = 2;
	memset(lbuf + 1024, 0, 8 * N);
	posted = 0;
	for (int i = 0; i < N; i++)
		posted += post(conn, remote, local, i, signalled(i) ? ALWAYS : ON_ERROR,
				signalled(i) ? 0x7200 + (uint64_t)i : OS_NEVER_ID, &opcode[i]) == 0;
	EXPECT_INT(posted, N);
	in_order = 0;
	for (int i = 0; i < N; i++) {
		if (!signalled(i))
			continue;
		if (os_wait_wc(conn, &wc) != 0)
			break;
		if (wc.wr_id == 0x7200 + (uint64_t)i && wc.status == IBV_WC_SUCCESS &&
				wc.opcode == opcode[i])
			in_order++;
		else
			fprintf(stderr, "completion %d: wr_id %#llx status %d opcode %d\n", i,
					(unsigned long long)wc.wr_id, wc.status, wc.opcode);
	}
	EXPECT_INT(in_order, N / 2);
	EXPECT_TRUE(os_cq_empty(conn));
	OS_EXPECT_FENCE(conn); /* the unsignalled rest has completed */
	got = 0;
	for (int i = 1; i < N; i += 4)
		got += memcmp(lbuf + 1024 + 8 * i, model + 1024 + 8 * (i - 1), 8) == 0;
	EXPECT_INT(got, N / 4);

	t_note("the server's region");
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));

	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	EXPECT_TRUE(os_local_delete(&local, lbuf));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	return c_end(peer);
}
