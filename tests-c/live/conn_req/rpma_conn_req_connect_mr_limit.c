/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_connect_mr_limit.c -- rpma_conn_req_connect(3), ERRORS:
 * RPMA_E_PROVIDER on the active side when the connection emulates flush
 * and the flush buffer cannot be registered. The suite runs it in an RDMA
 * cgroup of its own (scripts/rdma-cgroup.sh) with a budget of a few dozen
 * verbs objects, which the test takes with protection domains (budget.h).
 *
 * No server is needed. The domains are given back one at a time until
 * rpma_conn_req_new() gets everything it needs (each failed attempt gives
 * back what it took), which leaves nothing for the connect. Both libraries
 * register the flush buffer there, at the peer's first connection (the C
 * library at every connection), so the connect fails with
 * RPMA_E_PROVIDER, consumes the request, leaves *conn_ptr untouched and
 * logs the failed registration; with one more domain given back, a new
 * request connects.
 *
 * Where the device flushes natively (Debian 13's rxe) neither library
 * registers anything for flush, and the connect succeeds with nothing left.
 * rpma_conn_req_connect_mr_limit_passive.c is the passive side.
 */
#define _GNU_SOURCE
#include "ep-req.h"
#include "budget.h"

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = ER_SENTINEL_CONN;
	int ret, given = 0;

	t_begin();
	bu_begin();
	peer = t_peer();

	t_note("nothing left for the connect");
	bu_take_all(t_ibv_ctx());
	while ((ret = rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req)) ==
			RPMA_E_PROVIDER && bu_give_one() == 0)
		given++;
	EXPECT_INT(ret, 0);
	EXPECT_TRUE(given >= 2); /* a CQ and a QP at least */

	er_log_begin();
	ret = rpma_conn_req_connect(&req, NULL, &conn);
	EXPECT_TRUE(req == NULL);
	if (t_native_flush()) {
		EXPECT_INT(ret, 0);
		EXPECT_INT(er_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_reg_mr"), 0);
		EXPECT_INT(rpma_conn_delete(&conn), 0);
	} else {
		EXPECT_INT(ret, RPMA_E_PROVIDER);
		EXPECT_TRUE(conn == ER_SENTINEL_CONN);
		EXPECT_INT(er_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_reg_mr"), 1);

		/* the request's objects came back; with one more, it connects */
		t_note("one more object");
		EXPECT_INT(bu_give_one(), 0);
		conn = NULL;
		EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
		EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
		EXPECT_TRUE(req == NULL && conn != NULL);
		EXPECT_INT(rpma_conn_delete(&conn), 0);
	}
	bu_give_all();
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
