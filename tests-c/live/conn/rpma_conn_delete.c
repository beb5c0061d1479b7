/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_delete.c -- mirrors rpma_conn_delete(3): INVAL for a NULL
 * conn_ptr, 0 for a NULL *conn_ptr; deleting a closed connection (0, *conn_ptr
 * NULL, its descriptors closed); deleting an established connection without
 * disconnecting it first (the peer sees CLOSED); deleting after CLOSED without
 * answering (the initiator still gets its CLOSED); deleting a rejected
 * connection; deleting a connection with a receive CQ and a shared completion
 * channel.
 */
#include "conn.h"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *conn;

	(void) peer;

	/* 1: the usual end */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));

	/* 2: the client deletes without disconnecting */
	conn = c_accept(ep, NULL, NULL);
	c_put_event(conn);
	c_put(rpma_conn_delete(&conn)); /* without disconnecting either */
	c_put(conn == NULL);

	/* 3: the client disconnects, this side deletes without answering */
	conn = c_accept(ep, NULL, NULL);
	c_put_event(conn);
	c_put(rpma_conn_delete(&conn));

	/* 4: reject */
	c_reject(ep);

	/* 5: receive CQ and shared completion channel (client side) */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	int fd = -1, compl_fd = -1;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn_ptr */
	EXPECT_INT(rpma_conn_delete(NULL), RPMA_E_INVAL);
	/* RETURN VALUE: 0 for a NULL *conn_ptr, which stays NULL */
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);

	peer = c_start_serving(serve);

	t_note("1: a closed connection");
	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd), 0);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	c_expect_event(conn, RPMA_CONN_CLOSED);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	EXPECT_TRUE(!c_fd_open(fd) /* event fd closed */);
	/* deleting again is a no-op */
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);

	t_note("2: an established connection, not disconnected");
	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	c_expect_server_event(RPMA_CONN_CLOSED);
	EXPECT_INT(SERVER(rpma_conn_delete without disconnect), 0);
	EXPECT_INT(SERVER(conn NULL), 1);

	t_note("3: the server deletes after CLOSED without answering");
	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	c_expect_server_event(RPMA_CONN_CLOSED);
	EXPECT_INT(SERVER(rpma_conn_delete), 0);
	c_expect_event(conn, RPMA_CONN_CLOSED);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);

	t_note("4: a rejected connection");
	C_REQUEST(conn, peer, NULL, NULL);
	c_expect_event(conn, RPMA_CONN_REJECTED);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);

	t_note("5: with a receive CQ and a shared completion channel");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 5), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	C_CONNECT(conn, peer, cfg, NULL);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &compl_fd), 0);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_CLOSED));
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	EXPECT_TRUE(!c_fd_open(fd) /* event fd closed */);
	EXPECT_TRUE(!c_fd_open(compl_fd) /* completion fd closed */);

	return c_end(peer);
}
