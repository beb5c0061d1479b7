/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_reject.c -- a server refuses a client by deleting the incoming
 * request (rpma_conn_req_delete(3)): the client's connection reports
 * RPMA_CONN_REJECTED, carries no private data, reports nothing more, and
 * can still be disconnected and deleted; the endpoint goes on working and
 * accepts the next client.
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
	struct rpma_conn_private_data pd = {NULL, 0};

	if (er_listen(peer, &ep))
		return 10;

	/* the first client is refused */
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("conn_req_delete", rpma_conn_req_delete(&req));
	er_put("req NULL", req == NULL);

	/* the second one is accepted */
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("req_get_private_data", rpma_conn_req_get_private_data(req, &pd));
	er_put("first byte", pd.ptr && pd.len ? *(unsigned char *)pd.ptr : -1);
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	if (conn == NULL)
		return 11;
	er_put_conn_life(&conn);
	return er_server_end(&ep, &peer, 12);
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	char tag = '1';
	struct rpma_conn_private_data cpd = {&tag, 1};

	er_server_start(server, NULL);

	t_note("the first client is rejected");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, &cpd, &conn), 0);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("conn_req_delete"), 0);
	EXPECT_INT(SRV("req NULL"), 1);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	er_expect_after_reject(&conn);

	t_note("the second client is accepted");
	tag = '2';
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, &cpd, &conn), 0);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("req_get_private_data"), 0);
	EXPECT_INT(SRV("first byte"), '2');
	EXPECT_INT(SRV("connect"), 0);
	er_expect_conn_up(conn);
	er_expect_conn_down(conn);
	er_expect_server_end(&conn);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
