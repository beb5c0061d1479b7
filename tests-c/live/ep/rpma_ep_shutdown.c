/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_ep_shutdown.c -- mirrors rpma_ep_shutdown(3): INVAL for a NULL
 * ep_ptr, 0 for *ep_ptr NULL, 0 and *ep_ptr NULL after a real shutdown;
 * afterwards the port is free and a client is rejected; a request still
 * waiting in the endpoint is rejected by the shutdown; a connection
 * established through the endpoint outlives it (forked server).
 */
#include "ep-req.h"

/* server: accept one connection, shut the endpoint down, keep the connection */
static int
server_keeps_conn(void *arg)
{
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn *conn = NULL;
	int failed = er_server_accept(&peer, &ep, &conn);

	(void) arg;
	if (failed)
		return failed;
	er_put("event", er_next_event(conn, ER_WAIT_MS));
	er_put("ep_shutdown", rpma_ep_shutdown(&ep));
	er_put("ep NULL", ep == NULL);
	t_sync_send(); /* the endpoint is gone */
	er_put("event after shutdown", er_next_event(conn, ER_WAIT_MS));
	er_put("disconnect", rpma_conn_disconnect(conn));
	er_put("conn_delete", rpma_conn_delete(&conn));
	return rpma_peer_delete(&peer) ? 12 : 0;
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	/* ERRORS: RPMA_E_INVAL for a NULL ep_ptr; *ep_ptr NULL: nothing to do, success */
	ER_EXPECT_DESTRUCTOR_NULLS(rpma_ep_shutdown, ep);

	/* RETURN VALUE: 0 and *ep_ptr NULL */
	t_note("a listening endpoint");
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(ep == NULL);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(ep == NULL);

	/* nobody listens any more: a client is rejected */
	t_note("a client after the shutdown");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	/* the port is free again */
	t_note("listen again on the same port");
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_TRUE(ep != NULL);

	/* a request nobody has taken yet is rejected by the shutdown */
	t_note("a request waiting in the endpoint");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	EXPECT_INT(er_ep_readable(ep, ER_WAIT_MS), 1);
	EXPECT_STR(er_ev(er_next_event(conn, 200)), "no event in time");
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(ep == NULL);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	/* DESCRIPTION: connections outlive the endpoint they came through */
	t_note("an established connection survives the shutdown (forked server)");
	er_server_start(server_keeps_conn, NULL);
	conn = er_connect(peer);
	er_expect_accepted(conn);
	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(SRV("ep NULL"), 1);
	EXPECT_INT(t_sync_wait(), 0);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_STR(er_ev(SRV("event after shutdown")), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("disconnect"), 0);
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("conn_delete"), 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
