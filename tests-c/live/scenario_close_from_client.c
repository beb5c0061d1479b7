/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_close_from_client.c -- the active side ends a connection:
 * both sides see ESTABLISHED; the client calls rpma_conn_disconnect(3);
 * the server sees CLOSED at once, the client only after the server has
 * answered with its own rpma_conn_disconnect(3); about two seconds later
 * each side gets one more CLOSED (the connection leaving the time-wait
 * state), then nothing; both delete their connection, the server shuts
 * its endpoint down.
 */
#include "conn.h"

static int
server(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = c_listen(peer);
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	(void) arg;
	if (ep == NULL)
		return 1;
	S_CHECK(rpma_ep_next_conn_req(ep, NULL, &req) == 0);
	S_CHECK(rpma_conn_req_connect(&req, NULL, &conn) == 0);
	c_put(c_next_event(conn, C_WAIT_MS, &ev));
	c_put(ev);

	/* the client disconnects */
	ev = RPMA_CONN_UNDEFINED;
	c_put(c_next_event(conn, C_WAIT_MS, &ev));
	c_put(ev);

	S_CHECK(t_sync_wait() == 0); /* the client has seen no CLOSED yet */
	c_put(rpma_conn_disconnect(conn)); /* the answer */

	ev = RPMA_CONN_UNDEFINED;
	c_put(c_next_event(conn, C_WAIT_MS, &ev));
	c_put(ev);
	c_put(c_event_pending(conn, 500));

	c_put(rpma_conn_delete(&conn));
	c_put(conn == NULL);
	c_put(rpma_ep_shutdown(&ep));
	c_put(rpma_peer_delete(&peer));
	return c_server_status();
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	t_begin();
	(void) t_port();
	c_report_open();
	t_server_start(server, NULL);
	peer = t_peer();

	t_note("connect");
	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_ESTABLISHED);
	EXPECT_INT(SERVER(next event), 0);
	EXPECT_INT(SERVER(the event), RPMA_CONN_ESTABLISHED);

	t_note("the client disconnects");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_INT(SERVER(next event), 0);
	EXPECT_INT(SERVER(the event), RPMA_CONN_CLOSED);
	EXPECT_TRUE(!c_event_pending(conn, 1000) /* nothing before the server answers */);
	t_sync_send();

	t_note("the server answers");
	EXPECT_INT(SERVER(rpma_conn_disconnect), 0);
	ev = RPMA_CONN_UNDEFINED;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_CLOSED);

	t_note("leaving the time-wait state");
	EXPECT_INT(SERVER(next event), 0);
	EXPECT_INT(SERVER(the event), RPMA_CONN_CLOSED);
	EXPECT_INT(SERVER(anything after it), 0);
	ev = RPMA_CONN_UNDEFINED;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_CLOSED);
	EXPECT_TRUE(!c_event_pending(conn, 500) /* then nothing */);

	t_note("both delete");
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	EXPECT_INT(SERVER(rpma_conn_delete), 0);
	EXPECT_INT(SERVER(conn NULL), 1);
	EXPECT_INT(SERVER(rpma_ep_shutdown), 0);
	EXPECT_INT(SERVER(rpma_peer_delete), 0);

	EXPECT_INT(t_server_join(), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
