/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_get_private_data.c -- mirrors
 * rpma_conn_req_get_private_data(3): INVAL for a NULL req or pdata (*pdata
 * untouched); an outgoing request reports {NULL, 0}; an incoming request
 * (forked server) reports what the client sent, as the 56 bytes the
 * transport delivers, zero padded, or 56 zero bytes when the client sent
 * nothing; the same buffer on every call, valid until the request is
 * deleted or, after rpma_conn_req_connect(3), owned by the connection.
 */
#include "ep-req.h"

enum mode { DELETE, ACCEPT };

struct scase {
	enum mode mode;
	const char *name;
	int client_len; /* 0: no private data */
};

static unsigned char client_data[56];

static int
server(void *arg)
{
	const struct scase *c = arg;
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd = {ER_SENTINEL_PTR, 1}, pd2 = {NULL, 0};
	int failed = er_server_begin(&peer, &ep, &req);

	if (failed)
		return failed;
	er_put("NULL pdata", rpma_conn_req_get_private_data(req, NULL));
	er_put("get_private_data", rpma_conn_req_get_private_data(req, &pd));
	er_put("len", pd.len);
	er_put("ptr set", pd.ptr != NULL && pd.ptr != ER_SENTINEL_PTR);
	er_put("what the client sent, zero padded", er_pdata_check(&pd, client_data, (size_t)c->client_len));
	er_put("get_private_data again", rpma_conn_req_get_private_data(req, &pd2));
	er_put("same buffer", pd2.ptr == pd.ptr && pd2.len == pd.len);
	if (c->mode == DELETE) {
		er_put("conn_req_delete", rpma_conn_req_delete(&req));
	} else {
		er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
		if (conn == NULL)
			return 12;
		/* still readable, now through the connection */
		er_put("still the same data", er_pdata_check(&pd, client_data, (size_t)c->client_len));
		pd2.ptr = NULL;
		pd2.len = 0;
		er_put("conn_get_private_data", rpma_conn_get_private_data(conn, &pd2));
		er_put("the connection's buffer", pd2.ptr == pd.ptr && pd2.len == pd.len);
		er_put_conn_life(&conn);
	}
	return er_server_end(&ep, &peer, 13);
}

static void
run_case(struct rpma_peer *peer, const struct scase *c)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data cpd = {client_data, (uint8_t)c->client_len};

	t_note("incoming request: %s", c->name);
	er_server_start(server, (void *)c);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, c->client_len ? &cpd : NULL, &conn), 0);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("NULL pdata"), RPMA_E_INVAL);
	EXPECT_INT(SRV("get_private_data"), 0);
	EXPECT_INT(SRV("len"), 56);
	EXPECT_INT(SRV("ptr set"), 1);
	EXPECT_INT(SRV("what the client sent, zero padded"), 56);
	EXPECT_INT(SRV("get_private_data again"), 0);
	EXPECT_INT(SRV("same buffer"), 1);
	if (c->mode == DELETE) {
		EXPECT_INT(SRV("conn_req_delete"), 0);
		EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	} else {
		EXPECT_INT(SRV("connect"), 0);
		EXPECT_INT(SRV("still the same data"), 56);
		EXPECT_INT(SRV("conn_get_private_data"), 0);
		EXPECT_INT(SRV("the connection's buffer"), 1);
		er_expect_conn_up(conn);
		er_expect_conn_down(conn);
	}
	er_expect_server_end(&conn);
}

int
main(void)
{
	t_begin();

	for (int i = 0; i < 56; i++)
		client_data[i] = (unsigned char)(0x80 + i);

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pd = {ER_SENTINEL_PTR, 7};

	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);

	/* ERRORS: RPMA_E_INVAL, *pdata untouched */
	t_note("NULL arguments");
	EXPECT_INT(rpma_conn_req_get_private_data(NULL, &pd), RPMA_E_INVAL);
	EXPECT_TRUE(pd.ptr == ER_SENTINEL_PTR);
	EXPECT_INT(pd.len, 7);
	EXPECT_INT(rpma_conn_req_get_private_data(req, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_get_private_data(NULL, NULL), RPMA_E_INVAL);

	/* an outgoing request has no private data: {NULL, 0} */
	t_note("an outgoing request");
	EXPECT_INT(rpma_conn_req_get_private_data(req, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);

	/* what the client sent, as the incoming request reports it */
	static const struct scase cases[] = {
		{DELETE, "5 bytes, then deleted", 5},
		{DELETE, "1 byte, then deleted", 1},
		{DELETE, "none, then deleted", 0},
		{ACCEPT, "56 bytes, then accepted", 56},
		{ACCEPT, "none, then accepted", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(peer, &cases[i]);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
