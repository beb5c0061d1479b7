/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_conn_events.c -- what rpma_conn_next_event(3) and rpma_conn_delete(3)
 * do with connection-manager results a healthy rxe0 never produces,
 * injected in the client only. The events are real ones (the ESTABLISHED
 * and DISCONNECTED of three connections) whose type the mock rewrites on
 * the way out of rdma_get_cm_event():
 * - CONNECT_ERROR and DEVICE_REMOVAL give RPMA_CONN_LOST, UNREACHABLE gives
 *   RPMA_CONN_UNREACHABLE; ADDR_CHANGE gives RPMA_E_UNKNOWN with *event
 *   untouched and the event consumed all the same;
 * - rdma_get_cm_event() failing with ENODATA gives RPMA_E_NO_EVENT, with
 *   EIO RPMA_E_PROVIDER, *event untouched either way;
 * - rdma_ack_cm_event() failing (on an ESTABLISHED with private data) gives
 *   RPMA_E_PROVIDER, *event untouched, and the connection keeps no private
 *   data;
 * - rpma_conn_delete returns RPMA_E_PROVIDER when rdma_destroy_id(),
 *   ibv_destroy_cq() or ibv_dereg_mr() (of the flush buffer) fails, and
 *   still frees the connection and sets *conn_ptr to NULL. The flush buffer
 *   is deregistered by the connection's deletion in the C library and, in
 *   ours, where connections share their peer's, by the last user: the peer
 *   is deleted first (RPMA_E_PROVIDER in both: the connection still uses
 *   the protection domain), so that the connection's deletion deregisters
 *   it in both libraries.
 * The destroy/ack mocks fail after doing the real work, so nothing is left
 * for the peer or the CM to wait for.
 */
#include "rpma_mock.h"
#include "mock.h"

static char hello[] = "mock events";

/* server: three connections, each closed by the server when told to */
static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_private_data pdata = {hello, sizeof(hello)};

	(void) peer;
	for (int i = 0; i < 3; i++) {
		struct rpma_conn *conn = c_accept(ep, NULL, &pdata);

		if (conn == NULL)
			return;
		S_CHECK(t_sync_wait() == 0);
		S_CHECK(c_close(&conn));
	}
}

/*
 * client: the next event of conn (within C_WAIT_MS), reported as type (of
 * that name): rpma_conn_next_event() returns want_ret and gives want
 */
#define EXPECT_EVENT_AS(conn, type, want_ret, want) \
	expect_event_as((conn), (type), #type, (want_ret), (want))

static void
expect_event_as(struct rpma_conn *conn, enum rdma_cm_event_type type, const char *name,
		int want_ret, enum rpma_conn_event want)
{
	enum rpma_conn_event ev = EV_SENTINEL;

	t_note("a real event reported as %s", name);
	t_mock_cm_event_as(0, type);
	EXPECT_INT(c_next_event(conn, C_WAIT_MS, &ev), want_ret);
	EXPECT_INT(t_mock_pending("rdma_get_cm_event"), 0);
	EXPECT_INT(ev, want);
	/* the event was consumed */
	EXPECT_TRUE(!c_event_pending(conn, 0));
}

/*
 * client: the server, which saw ESTABLISHED (its gate, in conn.h), closes
 * conn; the client answers
 */
static void
server_closes(void)
{
	EXPECT_TRUE(c_server_established());
	t_sync_send();
}

/* client: rpma_conn_delete(&conn) fails with PROVIDER because fn fails */
static void
delete_fails(struct rpma_conn **conn, const char *fn)
{
	t_note("rpma_conn_delete: %s fails", fn);
	EXPECT_INT(rpma_conn_disconnect(*conn), 0);
	M_FAIL_AFTER(fn, EIO, rpma_conn_delete(conn), RPMA_E_PROVIDER);
	EXPECT_TRUE(*conn == NULL);
	t_mock_disarm();
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_private_data pdata;
	enum rpma_conn_event ev;

	t_begin();
	peer = c_start_serving(serve);

	t_note("connection 1");
	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	if (conn == NULL)
		return c_end(peer);
	EXPECT_EVENT_AS(conn, RDMA_CM_EVENT_CONNECT_ERROR, 0, RPMA_CONN_LOST);

	t_note("rdma_get_cm_event() fails with ENODATA");
	ev = EV_SENTINEL;
	M_FAIL("rdma_get_cm_event", ENODATA, rpma_conn_next_event(conn, &ev), RPMA_E_NO_EVENT);
	EXPECT_INT(ev, EV_SENTINEL);

	t_note("rdma_get_cm_event() fails with EIO");
	M_FAIL("rdma_get_cm_event", EIO, rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	EXPECT_INT(ev, EV_SENTINEL);

	server_closes();
	EXPECT_EVENT_AS(conn, RDMA_CM_EVENT_DEVICE_REMOVAL, 0, RPMA_CONN_LOST);
	delete_fails(&conn, "rdma_destroy_id");

	t_note("connection 2");
	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	if (conn == NULL)
		return c_end(peer);
	EXPECT_EVENT_AS(conn, RDMA_CM_EVENT_UNREACHABLE, 0, RPMA_CONN_UNREACHABLE);
	server_closes();
	EXPECT_EVENT_AS(conn, RDMA_CM_EVENT_ADDR_CHANGE, RPMA_E_UNKNOWN, EV_SENTINEL);
	delete_fails(&conn, "ibv_destroy_cq");

	t_note("connection 3: rdma_ack_cm_event() fails on ESTABLISHED");
	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	if (conn == NULL)
		return c_end(peer);
	ev = EV_SENTINEL;
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS));
	M_FAIL_AFTER("rdma_ack_cm_event", EIO, rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	EXPECT_INT(ev, EV_SENTINEL);
	EXPECT_TRUE(!c_event_pending(conn, 0));
	pdata.ptr = hello;
	pdata.len = 1;
	EXPECT_INT(rpma_conn_get_private_data(conn, &pdata), 0);
	EXPECT_TRUE(pdata.ptr == NULL);
	EXPECT_INT(pdata.len, 0);
	server_closes();
	c_expect_event(conn, RPMA_CONN_CLOSED);
	EXPECT_INT(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == NULL);
	if (t_native_flush()) {
		/* neither library registers a flush region for such a connection */
		t_note("rpma_conn_delete: a connection that flushes natively deregisters nothing");
		EXPECT_INT(rpma_conn_disconnect(conn), 0);
		t_mock_fail_after("ibv_dereg_mr", 0, EIO);
		EXPECT_INT(rpma_conn_delete(&conn), 0);
		EXPECT_INT(t_mock_pending("ibv_dereg_mr"), 1);
		EXPECT_TRUE(conn == NULL);
		t_mock_disarm();
	} else {
		delete_fails(&conn, "ibv_dereg_mr");
	}

	return c_end(peer);
}
