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

/* the server's part, after ESTABLISHED (c_serve_one()) */
static void
server(struct rpma_conn *conn)
{
	/* the client disconnects */
	c_put_event(conn);

	S_CHECK(t_sync_wait() == 0); /* the client has seen no CLOSED yet */
	c_put(rpma_conn_disconnect(conn)); /* the answer */

	c_put_event(conn);
	c_put(c_event_pending(conn, 500));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;

	t_begin();
	peer = c_start_one(server);

	t_note("connect");
	C_REQUEST(conn, peer, NULL, NULL);
	c_expect_event(conn, RPMA_CONN_ESTABLISHED);
	c_expect_server_event(RPMA_CONN_ESTABLISHED);

	t_note("the client disconnects");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	c_expect_server_event(RPMA_CONN_CLOSED);
	EXPECT_TRUE(!c_event_pending(conn, 1000) /* nothing before the server answers */);
	t_sync_send();

	t_note("the server answers");
	EXPECT_INT(SERVER(rpma_conn_disconnect), 0);
	c_expect_event(conn, RPMA_CONN_CLOSED);

	t_note("leaving the time-wait state");
	c_expect_server_event(RPMA_CONN_CLOSED);
	EXPECT_INT(SERVER(anything after it), 0);
	c_expect_event(conn, RPMA_CONN_CLOSED);
	EXPECT_TRUE(!c_event_pending(conn, 500) /* then nothing */);

	t_note("both delete");
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	c_expect_server_teardown();

	return c_end(peer);
}
