/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_flush_shared.c -- the buffer emulated flushes read into, as
 * rpma_flush(3), rpma_conn_delete(3) and rpma_peer_delete(3) describe it:
 * flushes posted on two connections of one peer before either completes
 * both complete; the second connection still flushes once the first is
 * deleted, and a third made after that flushes too; rpma_peer_delete() with
 * a connection alive fails with RPMA_E_PROVIDER (its queue pair still uses
 * the protection domain), yet that connection still flushes and is deleted
 * with 0. The C library gives each connection a buffer of its own, this
 * library one per peer: both must be seen to behave the same.
 *
 * Where the device has native flush (rxe on Linux 6.12) the flushes are
 * native, read into no buffer and complete with IBV_WC_FLUSH instead of
 * IBV_WC_RDMA_READ (t_flush_opcode()); the same steps then check that the
 * native flushes of several connections of one peer behave alike.
 */
#include "onesided.h"

#define RSIZE 4096

#define VISIBILITY RPMA_FLUSH_TYPE_VISIBILITY

/* one server region; each connection gets a session of its own on it */
static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server a = {0}, b;

	os_srv_reg(peer, &a, RSIZE, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, 1);
	b = a;
	os_srv_accept(ep, &a, NULL, 0); /* first */
	os_srv_accept(ep, &b, NULL, 0); /* second */
	os_srv_closed(&a);
	os_srv_accept(ep, &a, NULL, 0); /* third */
	os_srv_closed(&b);
	os_srv_closed(&a);
	os_srv_dereg(&a);
}

/* a flush of 8 bytes at offset 0 of dst, signalled, with op_context id */
static int
flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, unsigned long long id)
{
	return rpma_flush(conn, dst, 0, 8, VISIBILITY, ALWAYS, OS_CTX(id));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *first, *second, *third;
	struct rpma_mr_remote *r1[1] = {NULL}, *r2[1] = {NULL}, *r3[1] = {NULL};

	t_begin();
	peer = c_start_serving(serve);

	first = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(first != NULL);
	EXPECT_INT(os_remotes(first, 1, r1), 1);
	second = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(second != NULL);
	EXPECT_INT(os_remotes(second, 1, r2), 1);

	t_note("flushes of two connections in flight at once all complete");
	for (unsigned long long k = 0; k < 4; k++) {
		EXPECT_INT(flush(first, r1[0], 0x100 + k), 0);
		EXPECT_INT(flush(second, r2[0], 0x200 + k), 0);
	}
	for (unsigned long long k = 0; k < 4; k++) {
		OS_EXPECT_WC(first, 0x100 + k, t_flush_opcode(), IBV_WC_SUCCESS);
		OS_EXPECT_WC(second, 0x200 + k, t_flush_opcode(), IBV_WC_SUCCESS);
	}

	t_note("the first connection goes; the second still flushes");
	EXPECT_TRUE(c_close(&first));
	EXPECT_TRUE(os_remotes_delete(1, r1));
	EXPECT_INT(flush(second, r2[0], 0x300), 0);
	OS_EXPECT_WC(second, 0x300, t_flush_opcode(), IBV_WC_SUCCESS);

	t_note("a connection made after that flushes too");
	third = c_connect(peer, NULL, NULL);
	EXPECT_TRUE(third != NULL);
	EXPECT_INT(os_remotes(third, 1, r3), 1);
	EXPECT_INT(flush(third, r3[0], 0x400), 0);
	EXPECT_INT(flush(second, r2[0], 0x301), 0);
	OS_EXPECT_WC(third, 0x400, t_flush_opcode(), IBV_WC_SUCCESS);
	OS_EXPECT_WC(second, 0x301, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_TRUE(c_close(&second));
	EXPECT_TRUE(os_remotes_delete(1, r2));

	t_note("rpma_peer_delete with a connection alive: RPMA_E_PROVIDER, peer gone");
	EXPECT_INT(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == NULL);
	t_note("... the connection still flushes and is deleted with 0");
	EXPECT_INT(flush(third, r3[0], 0x401), 0);
	OS_EXPECT_WC(third, 0x401, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(third));
	EXPECT_TRUE(c_close(&third));
	EXPECT_TRUE(os_remotes_delete(1, r3));

	return c_end(peer);
}
