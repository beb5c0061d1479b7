/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_disconnect.c -- mirrors rpma_conn_disconnect(3): INVAL for a
 * NULL conn; initiating a disconnection (the peer sees CLOSED at once, the
 * initiator only once the peer has answered with its own
 * rpma_conn_disconnect(3)); answering after CLOSED; calling it again; calling
 * it on a connection the server rejected.
 */
#include "conn.h"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *conn;

	(void) peer;

	/* 1: the client disconnects; answer only when told to */
	conn = c_accept(ep, NULL, NULL);
	c_put_event(conn);
	S_CHECK(t_sync_wait() == 0);
	c_put(rpma_conn_disconnect(conn)); /* the answer, after CLOSED */
	c_put(rpma_conn_disconnect(conn)); /* once more */
	S_CHECK(rpma_conn_delete(&conn) == 0);

	/* 2: reject */
	c_reject(ep);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;

	t_begin();

	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL conn, nothing logged */
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_disconnect(NULL), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	t_note("1: the client initiates");
	C_CONNECT(conn, peer, NULL, NULL);
	/* RETURN VALUE: 0, and a NOTICE */
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	c_expect_log(RPMA_LOG_LEVEL_NOTICE, "rpma_conn_disconnect", "Requesting for disconnection\n", 1);
	/* the peer sees CLOSED at once */
	c_expect_server_event(RPMA_CONN_CLOSED);
	/* the initiator does not, until the peer answers */
	EXPECT_TRUE(!c_event_pending(conn, 1000) /* no CLOSED yet */);
	/* calling it again while waiting changes nothing */
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	t_sync_send(); /* the server answers */
	EXPECT_INT(SERVER(rpma_conn_disconnect after CLOSED), 0);
	EXPECT_INT(SERVER(and once more), 0);
	c_expect_event(conn, RPMA_CONN_CLOSED);
	/* and after CLOSED */
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	t_note("2: a connection the server rejected");
	C_REQUEST(conn, peer, NULL, NULL);
	c_expect_event(conn, RPMA_CONN_REJECTED);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_TRUE(!c_event_pending(conn, 500) /* no event from it */);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return c_end(peer);
}
