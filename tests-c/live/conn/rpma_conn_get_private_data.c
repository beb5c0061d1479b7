/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_private_data.c -- mirrors rpma_conn_get_private_data(3):
 * INVAL for a NULL conn or pdata (*pdata untouched); on the active side
 * {NULL, 0} until ESTABLISHED has been taken, then the server's data as
 * RoCE delivers it (196 bytes, zero-padded), the same buffer on every call
 * and after CLOSED; {NULL, 0} on a rejected connection; on the passive side
 * the client's data (56 bytes, zero-padded), in the very buffer
 * rpma_conn_req_get_private_data(3) showed before the request was accepted.
 * The lengths per transport and the size limits: scenario_private_data.c.
 */
#include "conn.h"

static const char client_data[] = "from the client"; /* 16 bytes with the NUL */
static const char server_data[] = "the server's answer"; /* 20 bytes */

static char sentinel;
#define PTR_SENTINEL ((void *)&sentinel)
#define LEN_SENTINEL 0xAB

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data in = {NULL, 0}, got = {NULL, 0};
	struct rpma_conn_private_data out = {(void *)server_data, sizeof(server_data)};

	(void) peer;

	/* 1: data both ways */
	S_CHECK(rpma_ep_next_conn_req(ep, NULL, &req) == 0);
	S_CHECK(rpma_conn_req_get_private_data(req, &in) == 0);
	S_CHECK(rpma_conn_req_connect(&req, &out, &conn) == 0);
	S_CHECK(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	c_put(rpma_conn_get_private_data(conn, &got));
	c_put(got.len);
	c_put(got.ptr == in.ptr && got.len == in.len); /* the request's buffer */
	c_put(got.ptr != NULL && memcmp(got.ptr, client_data, sizeof(client_data)) == 0);
	c_put(got.ptr != NULL && got.len > sizeof(client_data) &&
		c_all_zero((char *)got.ptr + sizeof(client_data), got.len - sizeof(client_data)));
	S_CHECK(c_closed(&conn));

	/* 2: reject */
	c_reject(ep);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_private_data pd, again;
	struct rpma_conn_private_data hello = {(void *)client_data, sizeof(client_data)};

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *pdata untouched */
	pd.ptr = PTR_SENTINEL;
	pd.len = LEN_SENTINEL;
	EXPECT_INT(rpma_conn_get_private_data(NULL, &pd), RPMA_E_INVAL);
	EXPECT_TRUE(pd.ptr == PTR_SENTINEL);
	EXPECT_INT(pd.len, LEN_SENTINEL);
	EXPECT_INT(rpma_conn_get_private_data(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	t_note("1: data both ways");
	C_REQUEST(conn, peer, NULL, &hello);
	/* ERRORS: RPMA_E_INVAL for a NULL pdata */
	EXPECT_INT(rpma_conn_get_private_data(conn, NULL), RPMA_E_INVAL);

	/* before ESTABLISHED has been taken: nothing */
	pd.ptr = PTR_SENTINEL;
	pd.len = LEN_SENTINEL;
	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
	/* even when the event is already waiting */
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS));
	pd.ptr = PTR_SENTINEL;
	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);

	/* after ESTABLISHED: the server's data, zero-padded to 196 bytes */
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_TRUE(pd.ptr != NULL);
	EXPECT_INT(pd.len, 196);
	EXPECT_TRUE(pd.ptr != NULL && memcmp(pd.ptr, server_data, sizeof(server_data)) == 0);
	EXPECT_TRUE(pd.ptr != NULL && c_all_zero((char *)pd.ptr + sizeof(server_data),
			pd.len - sizeof(server_data)));
	/* the same buffer on every call */
	EXPECT_INT(rpma_conn_get_private_data(conn, &again), 0);
	EXPECT_TRUE(again.ptr == pd.ptr && again.len == pd.len);

	/* what the server got: the client's data, zero-padded to 56 bytes */
	EXPECT_INT(SERVER(rpma_conn_get_private_data), 0);
	EXPECT_INT(SERVER(len), 56);
	EXPECT_INT(SERVER(the buffer of the request), 1);
	EXPECT_INT(SERVER(the client bytes), 1);
	EXPECT_INT(SERVER(zeros after them), 1);

	/* the data stays after CLOSED, until rpma_conn_delete(3) */
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_CLOSED));
	EXPECT_INT(rpma_conn_get_private_data(conn, &again), 0);
	EXPECT_TRUE(again.ptr == pd.ptr && again.len == pd.len);
	EXPECT_TRUE(again.ptr != NULL && memcmp(again.ptr, server_data, sizeof(server_data)) == 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	t_note("2: a rejected connection has none");
	C_REQUEST(conn, peer, NULL, &hello);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_REJECTED));
	pd.ptr = PTR_SENTINEL;
	pd.len = LEN_SENTINEL;
	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	return c_end(peer);
}
