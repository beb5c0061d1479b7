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

#define CTX_A ((const void *)(uintptr_t)0x77)
#define CTX_B ((const void *)(uintptr_t)0x78)

static char sbuf[64];

static int
server(void *arg)
{
	(void) arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr = NULL;

	if (rpma_ep_listen(peer, t_ip(), er_port(), &ep) ||
			rpma_mr_reg(peer, sbuf, sizeof(sbuf), RPMA_MR_USAGE_RECV, &mr))
		return 10;
	t_server_ready();
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	if (req == NULL)
		return 11;
	er_put("recv NULL req", rpma_conn_req_recv(NULL, mr, 0, 8, NULL));
	er_put("recv NULL dst", rpma_conn_req_recv(req, NULL, 0, 8, CTX_A));
	er_put("recv NULL dst, len 0", rpma_conn_req_recv(req, NULL, 0, 0, NULL));
	er_put("recv op_context NULL", rpma_conn_req_recv(req, mr, 0, 8, NULL));
	er_put("recv len 0", rpma_conn_req_recv(req, mr, 8, 0, CTX_A));
	er_put("recv beyond the region", rpma_conn_req_recv(req, mr, 1000, 8, CTX_B));
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	if (conn == NULL)
		return 12;
	er_put("event", er_next_event(conn, ER_WAIT_MS));
	er_put("event", er_next_event(conn, ER_WAIT_MS));
	er_put("disconnect", rpma_conn_disconnect(conn));
	er_put("conn_delete", rpma_conn_delete(&conn));
	er_put("mr_dereg", rpma_mr_dereg(&mr));
	er_put("ep_shutdown", rpma_ep_shutdown(&ep));
	return rpma_peer_delete(&peer) ? 13 : 0;
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
	EXPECT_INT(SRV("recv op_context NULL"), 0);
	EXPECT_INT(SRV("recv len 0"), 0);
	EXPECT_INT(SRV("recv beyond the region"), 0);
	EXPECT_INT(SRV("connect"), 0);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_ESTABLISHED");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_CLOSED");
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("disconnect"), 0);
	EXPECT_INT(SRV("conn_delete"), 0);
	EXPECT_INT(SRV("mr_dereg"), 0);
	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
