/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_delete.c -- mirrors rpma_srq_delete(3): RPMA_E_INVAL for a NULL
 * srq_ptr (nothing logged); 0 for a NULL *srq_ptr; 0 and *srq_ptr NULL for
 * an SRQ with a receive CQ (whose completion channel is closed with it),
 * without one, and with receives still posted; an SRQ used by a
 * connection can be deleted once the connection is. Deleted while a live
 * connection still uses it, the device refuses to destroy its queues
 * (they are in use): RPMA_E_PROVIDER, an ERROR logged, and *srq_ptr is
 * NULL all the same; the connection then closes as usual.
 */
#include "srq.h"

/*
 * An SRQ made with rcq_size used by the passive end of a connection, the
 * SRQ deleted after the connection was closed: 0, nothing logged.
 */
static void
delete_after_conn(struct rpma_peer *peer, struct rpma_ep *ep, uint32_t rcq_size)
{
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *client = NULL, *server = NULL;

	EXPECT_INT(s_srq(peer, 10, rcq_size, &srq), 0);
	cfg = s_conn_cfg(srq, 0);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_INT(s_pair(peer, ep, s_port(0), NULL, cfg, &client, &server), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_srq_recv(srq, NULL, 0, 0, NULL), 0);
	EXPECT_TRUE(s_unpair(&client, &server));
	c_nlogs = 0;
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(srq == NULL);
	EXPECT_INT(c_nlogs, 0);
}

/*
 * The same, but the SRQ deleted while the connection lives. The device
 * refuses to destroy queues a QP still uses, and what it refused stays
 * behind (holding the protection domain), so this runs in a child, with a
 * peer and an endpoint of its own, which reports through out[]:
 */
enum { BUSY_SETUP, BUSY_RET, BUSY_NULLED, BUSY_LOGGED, BUSY_CLOSED, BUSY_N };
static uint32_t busy_rcq_size;

static void
delete_while_used(long long *out, int n)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *client = NULL, *server = NULL;
	struct rpma_ep *ep = NULL;

	(void) n;
	s_log_begin();
	out[BUSY_SETUP] = rpma_ep_listen(peer, t_ip(), s_port(1), &ep) == 0 &&
		s_srq(peer, 10, busy_rcq_size, &srq) == 0 &&
		(cfg = s_conn_cfg(srq, 0)) != NULL &&
		s_pair(peer, ep, s_port(1), NULL, cfg, &client, &server) == 0 &&
		rpma_conn_cfg_delete(&cfg) == 0 &&
		rpma_srq_recv(srq, NULL, 0, 0, NULL) == 0;
	c_nlogs = 0;
	out[BUSY_RET] = rpma_srq_delete(&srq);
	out[BUSY_NULLED] = srq == NULL;
	out[BUSY_LOGGED] = s_log_count(RPMA_LOG_LEVEL_ERROR) >= 1;
	out[BUSY_CLOSED] = s_unpair(&client, &server);
	(void) rpma_ep_shutdown(&ep);
	/* the peer's protection domain is still in use: not deleted */
}

/* parent: delete_while_used() with rcq_size, as observations */
static void
expect_busy(uint32_t rcq_size)
{
	long long out[BUSY_N] = {0};

	busy_rcq_size = rcq_size;
	EXPECT_INT(t_in_child(delete_while_used, out, BUSY_N), 0);
	EXPECT_TRUE(out[BUSY_SETUP] /* a connection on the SRQ */);
	EXPECT_INT(out[BUSY_RET], RPMA_E_PROVIDER);
	EXPECT_TRUE(out[BUSY_NULLED] /* *srq_ptr NULL anyway */);
	EXPECT_TRUE(out[BUSY_LOGGED] /* an ERROR logged */);
	EXPECT_TRUE(out[BUSY_CLOSED] /* the connection closes as usual */);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;
	struct rpma_ep *ep = NULL;
	int fd = -1, last = 0;

	t_begin();
	(void) t_port(); /* the children's ports derive from the parent's */

	/*
	 * ERRORS: RPMA_E_PROVIDER when the device cannot destroy the queues
	 * (here: a live connection's QP still uses them); *srq_ptr NULL anyway
	 */
	t_note("PROVIDER: an SRQ with a receive CQ, its connection alive");
	expect_busy(5);
	t_note("PROVIDER: an SRQ without a receive CQ, its connection alive");
	expect_busy(0);

	peer = t_peer();
	s_log_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL srq_ptr, nothing logged */
	t_note("INVAL");
	EXPECT_INT(rpma_srq_delete(NULL), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	/* a NULL *srq_ptr: nothing to do */
	t_note("*srq_ptr NULL");
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(srq == NULL);

	/* RETURN VALUE: 0, *srq_ptr NULL; the receive CQ goes with the SRQ */
	t_note("an SRQ with a receive CQ");
	EXPECT_INT(rpma_srq_new(peer, NULL, &srq), 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_INT(rpma_cq_get_fd(rcq, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(srq == NULL);
	EXPECT_TRUE(!c_fd_open(fd) /* its completion channel is closed */);
	/* deleting again: *srq_ptr is NULL now */
	EXPECT_INT(rpma_srq_delete(&srq), 0);

	t_note("an SRQ without a receive CQ");
	EXPECT_INT(s_srq(peer, 4, 0, &srq), 0);
	EXPECT_TRUE(srq != NULL);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(srq == NULL);

	t_note("an SRQ full of posted receives");
	EXPECT_INT(s_srq(peer, 4, 4, &srq), 0);
	EXPECT_TRUE(s_fill(srq, 100000, &last) >= 4);
	EXPECT_INT(last, RPMA_E_PROVIDER);
	c_nlogs = 0;
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_TRUE(srq == NULL);
	EXPECT_INT(c_nlogs, 0);

	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(0), &ep), 0);

	t_note("an SRQ with a receive CQ, after its connection");
	delete_after_conn(peer, ep, 5);
	t_note("an SRQ without a receive CQ, after its connection");
	delete_after_conn(peer, ep, 0);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
