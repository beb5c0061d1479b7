/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_req_recv_flush.c -- receives posted with rpma_conn_req_recv(3)
 * on an incoming request before accepting it belong to the connection
 * (forked server): nothing arrives, and when the connection is torn down
 * the three receives (op_context NULL, a 0-byte one, one beyond the
 * region) complete on the connection's CQ, flushed (IBV_WC_WR_FLUSH_ERR),
 * in the order they were posted, each with its op_context as wr_id.
 * Needs rpma_conn_get_cq and rpma_cq_get_wc besides the ep/conn_req group.
 */
#include <infiniband/verbs.h>

#include "ep-req.h"

static int
server(void *arg)
{
	(void) arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_cq *cq = NULL;
	int failed = er_recv_server_begin(peer, &ep, &mr, &req);

	if (failed)
		return failed;
	er_put_recvs(req, mr);
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	if (conn == NULL)
		return 12;
	er_put("get_cq", rpma_conn_get_cq(conn, &cq));
	er_put("event", er_next_event(conn, ER_WAIT_MS));
	/* nothing completes while the connection is up */
	struct ibv_wc wc[4];
	int got = -1;
	er_put("get_wc while connected", rpma_cq_get_wc(cq, 4, wc, &got));
	er_put("event", er_next_event(conn, ER_WAIT_MS));
	er_put("disconnect", rpma_conn_disconnect(conn));

	/* the three receives come back flushed, in the order they were posted */
	int n = 0;
	for (int tries = 0; n < 3 && tries < 100; tries++) {
		int r = rpma_cq_get_wc(cq, 4 - n, wc + n, &got);
		if (r == 0)
			n += got;
		else if (r != RPMA_E_NO_COMPLETION)
			break;
		else
			t_sleep_ms(20);
	}
	er_put("completions", n);
	for (int i = 0; i < 3; i++) {
		er_put("wr_id", i < n ? (long long)wc[i].wr_id : -1);
		er_put("status", i < n ? (long long)wc[i].status : -1);
	}
	er_put("conn_delete", rpma_conn_delete(&conn));
	er_put("mr_dereg", rpma_mr_dereg(&mr));
	return er_server_end(&ep, &peer, 13);
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn *conn = NULL;

	er_server_start(server, NULL);
	conn = er_connect(peer);
	EXPECT_INT(SRV("next_conn_req"), 0);
	er_expect_recvs();
	EXPECT_INT(SRV("connect"), 0);
	EXPECT_INT(SRV("get_cq"), 0);
	er_expect_conn_up(conn);
	EXPECT_INT(SRV("get_wc while connected"), RPMA_E_NO_COMPLETION);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_CLOSED");
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("disconnect"), 0);
	EXPECT_INT(SRV("completions"), 3);
	EXPECT_INT(SRV("wr_id"), 0);
	EXPECT_INT(SRV("status"), IBV_WC_WR_FLUSH_ERR);
	EXPECT_INT(SRV("wr_id"), (uintptr_t)CTX_A);
	EXPECT_INT(SRV("status"), IBV_WC_WR_FLUSH_ERR);
	EXPECT_INT(SRV("wr_id"), (uintptr_t)CTX_B);
	EXPECT_INT(SRV("status"), IBV_WC_WR_FLUSH_ERR);
	EXPECT_INT(SRV("conn_delete"), 0);
	EXPECT_INT(SRV("mr_dereg"), 0);
	er_expect_server_end(&conn);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
