/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_many_conns.c -- one endpoint, eight clients: all eight connect
 * before the server takes any request; the server takes and accepts them
 * one by one (each with the client's own private data), all sixteen
 * connections report RPMA_CONN_ESTABLISHED, then the clients disconnect and
 * all sixteen report RPMA_CONN_CLOSED; everything is deleted on both sides.
 */
#include "ep-req.h"

#define NCONN 8

static int
server(void *arg)
{
	(void) arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn *conns[NCONN] = {NULL};
	int seen = 0, ok = 0;

	if (er_listen(peer, &ep))
		return 10;
	/* all clients have sent their requests before the first is taken */
	if (t_sync_wait())
		return 11;

	for (int i = 0; i < NCONN; i++) {
		struct rpma_conn_req *req = NULL;
		struct rpma_conn_private_data pd = {NULL, 0};

		if (rpma_ep_next_conn_req(ep, NULL, &req) != 0)
			continue;
		if (rpma_conn_req_get_private_data(req, &pd) == 0 && pd.ptr && pd.len &&
				*(unsigned char *)pd.ptr < NCONN)
			seen |= 1 << *(unsigned char *)pd.ptr;
		if (rpma_conn_req_connect(&req, NULL, &conns[i]) == 0)
			ok++;
	}
	er_put("requests accepted", ok);
	er_put("clients seen (bit mask)", seen);

	int established = 0, closed = 0, disconnected = 0, deleted = 0;
	for (int i = 0; i < NCONN; i++)
		if (conns[i] && er_next_event(conns[i], ER_WAIT_MS) == RPMA_CONN_ESTABLISHED)
			established++;
	er_put("established", established);
	for (int i = 0; i < NCONN; i++)
		if (conns[i] && er_next_event(conns[i], ER_WAIT_MS) == RPMA_CONN_CLOSED)
			closed++;
	er_put("closed", closed);
	for (int i = 0; i < NCONN; i++) {
		if (conns[i] && rpma_conn_disconnect(conns[i]) == 0)
			disconnected++;
		if (conns[i] && rpma_conn_delete(&conns[i]) == 0 && conns[i] == NULL)
			deleted++;
	}
	er_put("disconnected", disconnected);
	er_put("deleted", deleted);
	return er_server_end(&ep, &peer, 12);
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn *conns[NCONN] = {NULL};
	unsigned char idx[NCONN];
	int n_new = 0, n_connect = 0, n_est = 0, n_disc = 0, n_closed = 0, n_del = 0;

	er_server_start(server, NULL);

	t_note("%d clients connect", NCONN);
	for (int i = 0; i < NCONN; i++) {
		struct rpma_conn_req *req = NULL;
		struct rpma_conn_private_data pd = {&idx[i], 1};

		idx[i] = (unsigned char)i;
		if (rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req) == 0)
			n_new++;
		if (rpma_conn_req_connect(&req, &pd, &conns[i]) == 0)
			n_connect++;
	}
	EXPECT_INT(n_new, NCONN);
	EXPECT_INT(n_connect, NCONN);
	t_sync_send();

	t_note("the server accepts them all");
	EXPECT_INT(SRV("requests accepted"), NCONN);
	EXPECT_INT(SRV("clients seen (bit mask)"), (1 << NCONN) - 1);
	for (int i = 0; i < NCONN; i++)
		if (conns[i] && er_next_event(conns[i], ER_WAIT_MS) == RPMA_CONN_ESTABLISHED)
			n_est++;
	EXPECT_INT(n_est, NCONN);
	EXPECT_INT(SRV("established"), NCONN);

	t_note("the clients disconnect");
	for (int i = 0; i < NCONN; i++)
		if (conns[i] && rpma_conn_disconnect(conns[i]) == 0)
			n_disc++;
	EXPECT_INT(n_disc, NCONN);
	for (int i = 0; i < NCONN; i++)
		if (conns[i] && er_next_event(conns[i], ER_WAIT_MS) == RPMA_CONN_CLOSED)
			n_closed++;
	EXPECT_INT(n_closed, NCONN);
	EXPECT_INT(SRV("closed"), NCONN);
	EXPECT_INT(SRV("disconnected"), NCONN);
	EXPECT_INT(SRV("deleted"), NCONN);
	EXPECT_INT(SRV("ep_shutdown"), 0);
	for (int i = 0; i < NCONN; i++)
		if (rpma_conn_delete(&conns[i]) == 0 && conns[i] == NULL)
			n_del++;
	EXPECT_INT(n_del, NCONN);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
