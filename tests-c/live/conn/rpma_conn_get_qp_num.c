/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_qp_num.c -- mirrors rpma_conn_get_qp_num(3): INVAL for a
 * NULL conn or qp_num (*qp_num untouched); a non-zero number, available
 * as soon as the connection object exists, the same on every call and
 * after CLOSED; different for two connections and for the two ends of
 * one connection.
 */
#include "conn.h"

#define QP_SENTINEL 0xDEADBEEFu

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *c1, *c2;
	uint32_t q1 = 0, q2 = 0;

	(void) peer;
	c1 = c_accept(ep, NULL, NULL);
	c2 = c_accept(ep, NULL, NULL);
	S_CHECK(rpma_conn_get_qp_num(c1, &q1) == 0);
	S_CHECK(rpma_conn_get_qp_num(c2, &q2) == 0);
	c_put(q1 != 0 && q2 != 0);
	c_put(q1 != q2);
	c_put(q1); /* the parent compares it, never prints it */
	c_put(q2);
	S_CHECK(c_closed(&c1));
	S_CHECK(c_closed(&c2));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn, *other;
	uint32_t qp = QP_SENTINEL, again = QP_SENTINEL, other_qp = QP_SENTINEL;
	long long srv1, srv2;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *qp_num untouched */
	EXPECT_INT(rpma_conn_get_qp_num(NULL, &qp), RPMA_E_INVAL);
	EXPECT_TRUE(qp == QP_SENTINEL);
	EXPECT_INT(rpma_conn_get_qp_num(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	C_REQUEST(conn, peer, NULL, NULL);
	/* ERRORS: RPMA_E_INVAL for a NULL qp_num */
	EXPECT_INT(rpma_conn_get_qp_num(conn, NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and a non-zero number, before ESTABLISHED already */
	EXPECT_INT(rpma_conn_get_qp_num(conn, &qp), 0);
	EXPECT_TRUE(qp != QP_SENTINEL && qp != 0);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	EXPECT_INT(rpma_conn_get_qp_num(conn, &again), 0);
	EXPECT_TRUE(again == qp);

	/* a second connection has a queue pair of its own */
	C_CONNECT(other, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_qp_num(other, &other_qp), 0);
	EXPECT_TRUE(other_qp != 0 && other_qp != QP_SENTINEL);
	EXPECT_TRUE(other_qp != qp);

	/* the server's ends */
	EXPECT_INT(SERVER(both non-zero), 1);
	EXPECT_INT(SERVER(they differ), 1);
	srv1 = c_get();
	srv2 = c_get();
	EXPECT_TRUE(srv1 != (long long)qp && srv2 != (long long)other_qp /* each end has its own QP */);

	/* still there after CLOSED */
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_CLOSED));
	again = QP_SENTINEL;
	EXPECT_INT(rpma_conn_get_qp_num(conn, &again), 0);
	EXPECT_TRUE(again == qp);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(c_close(&other));

	return c_end(peer);
}
