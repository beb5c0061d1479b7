/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_rcq.c -- mirrors rpma_conn_get_rcq(3): INVAL for a NULL
 * conn or rcq_ptr (*rcq_ptr untouched); NULL without a receive CQ (no
 * configuration, rcq_size 0), a receive CQ distinct from the main CQ and
 * the same on every call with rcq_size > 0 (also with a shared completion
 * channel, and on the passive side); with a shared receive queue: NULL
 * when the SRQ has a receive CQ of its own (even with rcq_size > 0), the
 * connection's own receive CQ when the SRQ has none.
 */
#include "conn.h"

static char sentinel;
#define CQ_SENTINEL ((struct rpma_cq *)&sentinel)

/* the rounds, in order; the server accepts each with its own configuration */
enum {
	R_DEFAULT, R_RCQ_0, R_RCQ, R_RCQ_SHARED,
	R_SRQ_RCQ, R_SRQ_NO_RCQ,
	R_SERVER_RCQ, R_N
};

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn;
	struct rpma_cq *rcq;

	(void) peer;
	S_CHECK(rpma_conn_cfg_new(&cfg) == 0);
	S_CHECK(rpma_conn_cfg_set_rcq_size(cfg, 3) == 0);
	for (int r = 0; r < R_N; r++) {
		conn = c_accept(ep, r == R_SERVER_RCQ ? cfg : NULL, NULL);
		rcq = CQ_SENTINEL;
		c_put(rpma_conn_get_rcq(conn, &rcq));
		c_put(rcq == NULL ? 0 : rcq == CQ_SENTINEL ? -1 : 1);
		S_CHECK(c_closed(&conn));
	}
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

/* the server's view of the round: rpma_conn_get_rcq() and the CQ it gave */
static void
expect_server(int has_rcq)
{
	EXPECT_INT(SERVER(rpma_conn_get_rcq), 0);
	EXPECT_INT(SERVER(has a receive CQ), has_rcq);
}

/* connects with cfg, checks the receive CQ is there (or NULL), closes */
static void
round_with(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg, int has_rcq)
{
	struct rpma_conn *conn = c_connect(peer, cfg, NULL);
	struct rpma_cq *rcq = CQ_SENTINEL, *again = CQ_SENTINEL, *cq = NULL;

	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	if (has_rcq) {
		EXPECT_TRUE(rcq != NULL && rcq != CQ_SENTINEL);
		EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
		EXPECT_TRUE(rcq != cq /* not the main CQ */);
		EXPECT_INT(rpma_conn_get_rcq(conn, &again), 0);
		EXPECT_TRUE(again == rcq);
	} else {
		EXPECT_TRUE(rcq == NULL);
	}
	expect_server(0);
	EXPECT_TRUE(c_close(&conn));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_cq *rcq = CQ_SENTINEL;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *rcq_ptr untouched */
	EXPECT_INT(rpma_conn_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	EXPECT_TRUE(rcq == CQ_SENTINEL);
	EXPECT_INT(rpma_conn_get_rcq(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	t_note("no configuration: no receive CQ");
	C_REQUEST(conn, peer, NULL, NULL);
	/* ERRORS: RPMA_E_INVAL for a NULL rcq_ptr */
	EXPECT_INT(rpma_conn_get_rcq(conn, NULL), RPMA_E_INVAL);
	/* RETURN VALUE: 0, and *rcq_ptr set to NULL, before ESTABLISHED already */
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_TRUE(rcq == NULL);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	expect_server(0);
	EXPECT_TRUE(c_close(&conn));

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	t_note("rcq_size 0: no receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	round_with(peer, cfg, 0);
	t_note("rcq_size 5: a receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 5), 0);
	round_with(peer, cfg, 1);
	t_note("rcq_size 5, shared completion channel: a receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	round_with(peer, cfg, 1);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);

	/* the SRQ cases */
	{
	struct rpma_srq_cfg *srq_cfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *srq_rcq = NULL;

		t_note("an SRQ with a receive CQ of its own, rcq_size 5: none for the connection");
		EXPECT_INT(rpma_srq_cfg_new(&srq_cfg), 0);
		EXPECT_INT(rpma_srq_cfg_set_rcq_size(srq_cfg, 5), 0);
		EXPECT_INT(rpma_srq_new(peer, srq_cfg, &srq), 0);
		EXPECT_INT(rpma_srq_get_rcq(srq, &srq_rcq), 0);
		EXPECT_TRUE(srq_rcq != NULL);
		EXPECT_INT(rpma_conn_cfg_set_srq(cfg, srq), 0);
		round_with(peer, cfg, 0);
		EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
		EXPECT_INT(rpma_srq_delete(&srq), 0);

		t_note("an SRQ without a receive CQ, rcq_size 5: the connection's own");
		EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
		EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 5), 0);
		EXPECT_INT(rpma_srq_cfg_set_rcq_size(srq_cfg, 0), 0);
		EXPECT_INT(rpma_srq_new(peer, srq_cfg, &srq), 0);
		srq_rcq = CQ_SENTINEL;
		EXPECT_INT(rpma_srq_get_rcq(srq, &srq_rcq), 0);
		EXPECT_TRUE(srq_rcq == NULL);
		EXPECT_INT(rpma_conn_cfg_set_srq(cfg, srq), 0);
		round_with(peer, cfg, 1);
		EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
		EXPECT_INT(rpma_srq_delete(&srq), 0);
		EXPECT_INT(rpma_srq_cfg_delete(&srq_cfg), 0);
	}

	t_note("the server with rcq_size 3");
	C_CONNECT(conn, peer, NULL, NULL);
	expect_server(1);
	EXPECT_TRUE(c_close(&conn));

	return c_end(peer);
}
