/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_connect.c -- mirrors rpma_conn_req_connect(3).
 * Active side, no server needed: INVAL for a NULL req_ptr or *req_ptr
 * (nothing consumed); INVAL for a NULL conn_ptr, pdata->len 0 and
 * pdata->ptr NULL, each consuming the request; PROVIDER for private data
 * longer than the 56 bytes a connect can carry, consuming it too; *conn_ptr
 * untouched on every failure.
 * With a forked server: the private data each side sent arrives at the
 * other (the server sees 56 bytes, the client 196, zero padded), the
 * largest sizes (56 / 196) work, none at all gives all zeros; the
 * request's private data moves into the connection; on the passive side a
 * NULL conn_ptr, len 0 and ptr NULL give INVAL and reject the client,
 * accept data longer than 196 bytes gives PROVIDER and rejects the client,
 * and accepting a client that has gone gives PROVIDER.
 */
#include "ep-req.h"

enum mode { ACCEPT, CONN_PTR_NULL, PDATA_LEN0, PDATA_PTR_NULL, ACCEPT_TOO_LONG, CLIENT_GONE };

struct scase {
	enum mode mode;
	const char *name;
	int client_len; /* bytes of private data the client sends, 0: pdata NULL */
	int accept_len; /* bytes the server accepts with, 0: pdata NULL */
};

static unsigned char client_data[255], accept_data[255];

static int
server(void *arg)
{
	const struct scase *c = arg;
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = ER_SENTINEL_CONN;
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_conn_private_data bad = {accept_data, 0};
	int failed = er_server_begin(&peer, &ep, &req);

	if (failed)
		return failed;
	er_put("req_get_private_data", rpma_conn_req_get_private_data(req, &pd));
	er_put("request private data", er_pdata_check(&pd, client_data, (size_t)c->client_len));

	switch (c->mode) {
	case CONN_PTR_NULL:
		er_put("connect", rpma_conn_req_connect(&req, NULL, NULL));
		break;
	case PDATA_LEN0:
		er_put("connect", rpma_conn_req_connect(&req, &bad, &conn));
		break;
	case PDATA_PTR_NULL:
		bad.ptr = NULL;
		bad.len = 5;
		er_put("connect", rpma_conn_req_connect(&req, &bad, &conn));
		break;
	case CLIENT_GONE:
		t_sync_send(); /* the client deletes its connection now */
		if (t_sync_wait())
			return 12;
		t_sleep_ms(1000);
		er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
		break;
	case ACCEPT:
	case ACCEPT_TOO_LONG: {
		struct rpma_conn_private_data apd = {accept_data, (uint8_t)c->accept_len};
		void *req_pd_ptr = pd.ptr;

		er_put("connect", rpma_conn_req_connect(&req, c->accept_len ? &apd : NULL, &conn));
		if (c->mode == ACCEPT_TOO_LONG)
			break;
		/* the request's private data now belongs to the connection */
		pd.ptr = NULL;
		pd.len = 0;
		er_put("conn_get_private_data", rpma_conn_get_private_data(conn, &pd));
		er_put("same buffer", pd.ptr == req_pd_ptr);
		er_put("connection private data",
				er_pdata_check(&pd, client_data, (size_t)c->client_len));
		er_put_conn_life(&conn);
		break;
	}
	}
	er_put("req NULL", req == NULL);
	if (c->mode != ACCEPT)
		er_put("conn untouched", conn == ER_SENTINEL_CONN);
	return er_server_end(&ep, &peer, 13);
}

static void
run_case(struct rpma_peer *peer, const struct scase *c)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data cpd = {client_data, (uint8_t)c->client_len};

	t_note("server: %s", c->name);
	er_server_start(server, (void *)c);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, c->client_len ? &cpd : NULL, &conn), 0);
	EXPECT_TRUE(req == NULL && conn != NULL);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("req_get_private_data"), 0);
	EXPECT_INT(SRV("request private data"), 56);

	switch (c->mode) {
	case ACCEPT: {
		struct rpma_conn_private_data pd = {NULL, 0};

		EXPECT_INT(SRV("connect"), 0);
		EXPECT_INT(SRV("conn_get_private_data"), 0);
		EXPECT_INT(SRV("same buffer"), 1);
		EXPECT_INT(SRV("connection private data"), 56);
		er_expect_conn_up(conn);
		/* the accept data, as the client's connection reports it */
		EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
		EXPECT_INT(er_pdata_check(&pd, accept_data, (size_t)c->accept_len), 196);
		er_expect_conn_down(conn);
		EXPECT_INT(SRV("req NULL"), 1);
		break;
	}
	case CONN_PTR_NULL:
	case PDATA_LEN0:
	case PDATA_PTR_NULL:
	case ACCEPT_TOO_LONG:
		EXPECT_INT(SRV("connect"),
				c->mode == ACCEPT_TOO_LONG ? RPMA_E_PROVIDER : RPMA_E_INVAL);
		EXPECT_INT(SRV("req NULL"), 1);
		EXPECT_INT(SRV("conn untouched"), 1);
		/* the consumed request was rejected */
		EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
		break;
	case CLIENT_GONE:
		EXPECT_INT(t_sync_wait(), 0);
		EXPECT_INT(rpma_conn_delete(&conn), 0);
		t_sync_send();
		EXPECT_INT(SRV("connect"), RPMA_E_PROVIDER);
		EXPECT_INT(SRV("req NULL"), 1);
		EXPECT_INT(SRV("conn untouched"), 1);
		break;
	}
	er_expect_server_end(&conn);
}

/* a fresh outgoing request to port, for the cases that need no server */
static struct rpma_conn_req *
new_req(struct rpma_peer *peer)
{
	struct rpma_conn_req *req = NULL;

	if (rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req) != 0) {
		fprintf(stderr, "rpma_conn_req_new failed\n");
		exit(2);
	}
	return req;
}

int
main(void)
{
	t_begin();
	er_log_begin();

	for (int i = 0; i < 255; i++) {
		client_data[i] = (unsigned char)('a' + i % 26);
		accept_data[i] = (unsigned char)('A' + i % 26);
	}

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = ER_SENTINEL_CONN;
	struct rpma_conn_private_data pd;

	/* ERRORS: RPMA_E_INVAL, NULL req_ptr or *req_ptr; nothing consumed */
	t_note("NULL req_ptr, *req_ptr NULL");
	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, &conn), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, NULL), RPMA_E_INVAL);
	req = NULL;
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);

	/* ERRORS: RPMA_E_INVAL, NULL conn_ptr: the request is consumed */
	t_note("NULL conn_ptr");
	req = new_req(peer);
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(req == NULL);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 0);

	/* ERRORS: RPMA_E_INVAL, pdata->len 0 or pdata->ptr NULL: consumed */
	t_note("pdata with len 0");
	req = new_req(peer);
	pd.ptr = client_data;
	pd.len = 0;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_INVAL);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);
	t_note("pdata with ptr NULL");
	req = new_req(peer);
	pd.ptr = NULL;
	pd.len = 5;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_INVAL);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);
	t_note("pdata with ptr NULL and len 0");
	req = new_req(peer);
	pd.len = 0;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_INVAL);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);

	/* ERRORS: RPMA_E_PROVIDER, the connect itself failed: consumed */
	t_note("57 bytes of private data (one more than a connect carries)");
	req = new_req(peer);
	pd.ptr = client_data;
	pd.len = 57;
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);
	EXPECT_TRUE(er_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	t_note("255 bytes of private data");
	req = new_req(peer);
	pd.len = 255;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn == ER_SENTINEL_CONN);

	/* DESCRIPTION and the passive side, with a forked server each */
	static const struct scase cases[] = {
		{ACCEPT, "accept, 5 bytes each way", 5, 5},
		{ACCEPT, "accept, 56 bytes from the client, 196 back", 56, 196},
		{ACCEPT, "accept, no private data either way", 0, 0},
		{ACCEPT, "accept, 1 byte each way", 1, 1},
		{CONN_PTR_NULL, "NULL conn_ptr", 5, 0},
		{PDATA_LEN0, "pdata with len 0", 5, 0},
		{PDATA_PTR_NULL, "pdata with ptr NULL", 5, 0},
		{ACCEPT_TOO_LONG, "197 bytes of accept data", 5, 197},
		{CLIENT_GONE, "the client has gone", 5, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(peer, &cases[i]);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
