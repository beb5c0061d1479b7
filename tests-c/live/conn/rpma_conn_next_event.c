/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_next_event.c -- mirrors rpma_conn_next_event(3): INVAL for a
 * NULL conn or event (the pending event stays pending, *event untouched);
 * the events a RoCE device produces: ESTABLISHED on both sides, CLOSED on
 * both sides when one side disconnects, a second CLOSED when the connection
 * leaves the time-wait state, REJECTED when the server rejects the request
 * and when nobody listens on the port; PROVIDER (and *event untouched) on
 * an empty event descriptor switched to O_NONBLOCK.
 */
#include "conn.h"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *conn;

	(void) peer;

	/* 1: ESTABLISHED (checked in c_accept), then this side disconnects */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(t_sync_wait() == 0);
	c_put(rpma_conn_disconnect(conn));
	/* CLOSED comes once the client has answered with its own disconnect */
	c_put_event(conn);
	/* and another CLOSED when the connection leaves the time-wait state */
	c_put_event(conn);
	S_CHECK(rpma_conn_delete(&conn) == 0);

	/* 2: reject the request */
	c_reject(ep);

	/* 3: (the client connects to a port without a listener) */

	/* 4: the client takes the events with O_NONBLOCK */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_req *req = NULL;
	enum rpma_conn_event ev;
	char port[16];
	int fd = -1, flags;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for NULL conn, *event untouched */
	ev = EV_SENTINEL;
	EXPECT_INT(rpma_conn_next_event(NULL, &ev), RPMA_E_INVAL);
	EXPECT_INT(ev, EV_SENTINEL);
	EXPECT_INT(rpma_conn_next_event(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);
	/* each event taken is logged as a NOTICE */
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);

	t_note("1: established, then closed by the server");
	C_REQUEST(conn, peer, NULL, NULL);
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS));
	/* ERRORS: RPMA_E_INVAL for a NULL event; the pending event stays */
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_next_event(conn, NULL), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);
	EXPECT_TRUE(c_event_pending(conn, 0) /* still pending */);
	ev = EV_SENTINEL;
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_next_event(conn, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_ESTABLISHED);
	c_expect_log(RPMA_LOG_LEVEL_NOTICE, "rpma_conn_next_event", "Connection established\n", 1);
	EXPECT_TRUE(!c_event_pending(conn, 0) /* nothing else pending */);
	EXPECT_TRUE(c_server_established());

	t_sync_send(); /* the server disconnects */
	ev = EV_SENTINEL;
	c_nlogs = 0;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_CLOSED);
	c_expect_log(RPMA_LOG_LEVEL_NOTICE, "rpma_conn_next_event", "Connection closed\n", 1);
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_INT(SERVER(rpma_conn_disconnect), 0);
	c_expect_server_event(RPMA_CONN_CLOSED);
	t_note("the time-wait exit: one more CLOSED on both sides");
	ev = EV_SENTINEL;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_CLOSED);
	c_expect_server_event(RPMA_CONN_CLOSED);
	EXPECT_TRUE(!c_event_pending(conn, 0) /* nothing else pending */);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	t_note("2: rejected by the server");
	C_REQUEST(conn, peer, NULL, NULL);
	ev = EV_SENTINEL;
	c_nlogs = 0;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_REJECTED);
	c_expect_log(RPMA_LOG_LEVEL_NOTICE, "rpma_conn_next_event", "Connection rejected\n", 1);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	t_note("3: nobody listens on the port");
	snprintf(port, sizeof(port), "%d", atoi(t_port()) + 1);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), port, NULL, &req), 0);
	conn = NULL;
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	ev = EV_SENTINEL;
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_REJECTED);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	t_note("4: a non-blocking event descriptor");
	C_REQUEST(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd), 0);
	flags = fcntl(fd, F_GETFL);
	EXPECT_INT(fcntl(fd, F_SETFL, flags | O_NONBLOCK), 0);
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS));
	ev = EV_SENTINEL;
	EXPECT_INT(rpma_conn_next_event(conn, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_ESTABLISHED);
	EXPECT_TRUE(c_server_established());
	/* ERRORS: RPMA_E_PROVIDER when no event is pending, *event untouched */
	ev = EV_SENTINEL;
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	EXPECT_INT(ev, EV_SENTINEL);
	c_expect_log(RPMA_LOG_LEVEL_ERROR, "rpma_conn_next_event", "rdma_get_cm_event() failed: ", 0);
	EXPECT_TRUE(c_close(&conn));

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);

	return c_end(peer);
}
