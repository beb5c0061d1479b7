/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_recv.c -- mirrors rpma_conn_req_recv(3): INVAL for a NULL
 * req or dst (also with len 0: there is no 0-byte form), 0 for a NULL
 * op_context, len 0, and offset/len beyond the region (nothing is checked
 * against the region), on an outgoing request and on an incoming one that
 * is then accepted (forked server). Where the posted receives complete
 * (flushed, in order, op_context as wr_id) is in scenario_req_recv_flush.c
 * (needs rpma_cq_get_wc); the PROVIDER for a request whose receives go to
 * an SRQ is in scenario_req_srq.c (needs rpma_srq_new).
 */
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
	int failed = er_recv_server_begin(peer, &ep, &mr, &req);

	if (failed)
		return failed;
	er_put("recv NULL req", rpma_conn_req_recv(NULL, mr, 0, 8, NULL));
	er_put("recv NULL dst", rpma_conn_req_recv(req, NULL, 0, 8, CTX_A));
	er_put("recv NULL dst, len 0", rpma_conn_req_recv(req, NULL, 0, 0, NULL));
	er_put_recvs(req, mr);
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	if (conn == NULL)
		return 12;
	er_put_conn_life(&conn);
	er_put("mr_dereg", rpma_mr_dereg(&mr));
	return er_server_end(&ep, &peer, 13);
}

int
main(void)
{
	t_begin();

	static char buf[64];
	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr = NULL;

	EXPECT_INT(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV, &mr), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL req or dst */
	t_note("NULL arguments");
	EXPECT_INT(rpma_conn_req_recv(NULL, mr, 0, 8, CTX_A), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_recv(req, NULL, 0, 8, CTX_A), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_recv(req, NULL, 0, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_recv(NULL, NULL, 0, 8, CTX_A), RPMA_E_INVAL);

	/* RETURN VALUE: 0; op_context may be NULL; nothing checked against the MR */
	t_note("posting on an outgoing request");
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, 8, NULL), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, sizeof(buf), CTX_A), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, 0, CTX_A), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 1000, 4096, CTX_B), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);

	/* an outgoing request with posted receives still connects */
	t_note("receives posted on both sides before connecting (forked server)");
	er_server_start(server, NULL);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, 8, CTX_A), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("recv NULL req"), RPMA_E_INVAL);
	EXPECT_INT(SRV("recv NULL dst"), RPMA_E_INVAL);
	EXPECT_INT(SRV("recv NULL dst, len 0"), RPMA_E_INVAL);
	er_expect_recvs();
	EXPECT_INT(SRV("connect"), 0);
	er_expect_conn_up(conn);
	er_expect_conn_down(conn);
	EXPECT_INT(SRV("mr_dereg"), 0);
	er_expect_server_end(&conn);

	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
