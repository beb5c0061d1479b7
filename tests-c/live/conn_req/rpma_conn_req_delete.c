/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_delete.c -- mirrors rpma_conn_req_delete(3): INVAL for a
 * NULL req_ptr, 0 for *req_ptr NULL; an outgoing request (plain, with a
 * receive CQ and a shared channel, with a posted receive) is deleted with
 * 0 and *req_ptr NULL; an incoming request is deleted with 0 and the client
 * sees RPMA_CONN_REJECTED (forked server); deleting an incoming request
 * whose client has already gone gives PROVIDER and still sets *req_ptr to
 * NULL.
 */
#include "ep-req.h"

enum mode { REJECT, CLIENT_GONE };

static int
server(void *arg)
{
	enum mode mode = *(const enum mode *)arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;

	if (er_listen(peer, &ep))
		return 10;
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	if (mode == CLIENT_GONE) {
		t_sync_send(); /* the client deletes its connection now */
		if (t_sync_wait())
			return 11;
		/* nothing about it reaches the endpoint */
		er_put("endpoint readable", er_ep_readable(ep, 1500));
	}
	er_nlogs = 0;
	er_put("conn_req_delete", rpma_conn_req_delete(&req));
	er_put("req NULL", req == NULL);
	er_put("errors logged", er_log_count(RPMA_LOG_LEVEL_ERROR));
	er_put("conn_req_delete again", rpma_conn_req_delete(&req));
	return er_server_end(&ep, &peer, 12);
}

int
main(void)
{
	t_begin();
	er_log_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_cfg *cfg = NULL;

	/* ERRORS: RPMA_E_INVAL for a NULL req_ptr; *req_ptr NULL: nothing to do */
	ER_EXPECT_DESTRUCTOR_NULLS(rpma_conn_req_delete, req);

	/* RETURN VALUE: 0, *req_ptr NULL (outgoing requests) */
	t_note("an outgoing request");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_TRUE(req == NULL);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 0);

	t_note("an outgoing request with a receive CQ and a shared channel");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 8), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_TRUE(req == NULL);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	t_note("an outgoing request with a posted receive");
	static char buf[64];
	struct rpma_mr_local *mr = NULL;
	EXPECT_INT(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV, &mr), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, sizeof(buf), NULL), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_TRUE(req == NULL);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	/* DESCRIPTION: deleting an incoming request rejects the client */
	t_note("an incoming request (forked server)");
	enum mode mode = REJECT;
	er_server_start(server, &mode);
	conn = er_connect(peer);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("conn_req_delete"), 0);
	EXPECT_INT(SRV("req NULL"), 1);
	EXPECT_INT(SRV("errors logged"), 0);
	EXPECT_INT(SRV("conn_req_delete again"), 0);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	er_expect_server_end(&conn);

	/* ERRORS: RPMA_E_PROVIDER, the rejection failed; *req_ptr NULL anyway */
	t_note("an incoming request whose client has gone (forked server)");
	mode = CLIENT_GONE;
	er_server_start(server, &mode);
	conn = er_connect(peer);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(t_sync_wait(), 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	t_sync_send();
	EXPECT_INT(SRV("endpoint readable"), 0);
	EXPECT_INT(SRV("conn_req_delete"), RPMA_E_PROVIDER);
	EXPECT_INT(SRV("req NULL"), 1);
	EXPECT_TRUE(SRV("errors logged") >= 1);
	EXPECT_INT(SRV("conn_req_delete again"), 0);
	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
