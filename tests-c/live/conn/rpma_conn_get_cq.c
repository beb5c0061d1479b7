/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_cq.c -- mirrors rpma_conn_get_cq(3): INVAL for a NULL conn
 * or cq_ptr (*cq_ptr untouched); the main CQ is never NULL (default
 * configuration, a receive CQ, a shared completion channel, the passive
 * side), is there before ESTABLISHED, is the same on every call, differs
 * from the receive CQ and from another connection's CQ.
 */
#include "conn.h"

static char sentinel;
#define CQ_SENTINEL ((struct rpma_cq *)&sentinel)

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn, *other;
	struct rpma_cq *cq = CQ_SENTINEL, *rcq = CQ_SENTINEL;

	(void) peer;
	S_CHECK(rpma_conn_cfg_new(&cfg) == 0);
	S_CHECK(rpma_conn_cfg_set_rcq_size(cfg, 4) == 0);

	/* 1: default configuration on both sides */
	conn = c_accept(ep, NULL, NULL);
	c_put(rpma_conn_get_cq(conn, &cq));
	c_put(cq != NULL && cq != CQ_SENTINEL);

	/* 2: a second connection while the first one is open */
	other = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));
	S_CHECK(c_closed(&other));

	/* 3: (a client-side configuration) */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));

	/* 4: a receive CQ on this side */
	conn = c_accept(ep, cfg, NULL);
	cq = CQ_SENTINEL;
	c_put(rpma_conn_get_cq(conn, &cq));
	S_CHECK(rpma_conn_get_rcq(conn, &rcq) == 0);
	c_put(cq != NULL && cq != CQ_SENTINEL && rcq != NULL && cq != rcq);
	S_CHECK(c_closed(&conn));

	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn, *other;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_cq *cq = CQ_SENTINEL, *again = CQ_SENTINEL, *rcq = CQ_SENTINEL;
	struct rpma_cq *other_cq = CQ_SENTINEL;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *cq_ptr untouched */
	EXPECT_INT(rpma_conn_get_cq(NULL, &cq), RPMA_E_INVAL);
	EXPECT_TRUE(cq == CQ_SENTINEL);
	EXPECT_INT(rpma_conn_get_cq(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	t_note("1: the default configuration");
	C_REQUEST(conn, peer, NULL, NULL);
	/* ERRORS: RPMA_E_INVAL for a NULL cq_ptr */
	EXPECT_INT(rpma_conn_get_cq(conn, NULL), RPMA_E_INVAL);
	/* RETURN VALUE: 0 and the main CQ, before ESTABLISHED already */
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq != CQ_SENTINEL);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	EXPECT_INT(rpma_conn_get_cq(conn, &again), 0);
	EXPECT_TRUE(again == cq);
	EXPECT_INT(SERVER(rpma_conn_get_cq), 0);
	EXPECT_INT(SERVER(a CQ), 1);

	t_note("2: another connection has a CQ of its own");
	C_CONNECT(other, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_cq(other, &other_cq), 0);
	EXPECT_TRUE(other_cq != NULL && other_cq != CQ_SENTINEL && other_cq != cq);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(c_close(&other));

	t_note("3: with a receive CQ and a shared completion channel");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	C_CONNECT(conn, peer, cfg, NULL);
	cq = CQ_SENTINEL;
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq != CQ_SENTINEL);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_TRUE(rcq != NULL && rcq != CQ_SENTINEL);
	EXPECT_TRUE(cq != rcq);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	t_note("4: the server has a receive CQ");
	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(SERVER(rpma_conn_get_cq), 0);
	EXPECT_INT(SERVER(a CQ, not the receive CQ), 1);
	EXPECT_TRUE(c_close(&conn));

	return c_end(peer);
}
