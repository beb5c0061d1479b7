/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_ep_shutdown_taken.c -- mirrors rpma_ep_shutdown(3), DESCRIPTION and
 * NOTES: a request taken from the endpoint before the shutdown lives on;
 * it is accepted afterwards, both sides see ESTABLISHED, a message posted
 * before the accept arrives, and both sides close. Upstream's library
 * destroys the request's identifier with the endpoint's event channel, so
 * its accept fails (tests.toml: ref-fails).
 */
#include "ep-req.h"

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *creq = NULL, *sreq = NULL;
	struct rpma_conn *client = NULL, *server = NULL;
	struct rpma_mr_local *src = NULL, *dst = NULL;
	static char out[32] = "sent before the shutdown";
	static char in[32];
	struct ibv_wc wc;
	struct rpma_cq *cq = NULL;
	int got = 0;

	EXPECT_INT(rpma_mr_reg(peer, out, sizeof(out), RPMA_MR_USAGE_SEND, &src), 0);
	EXPECT_INT(rpma_mr_reg(peer, in, sizeof(in), RPMA_MR_USAGE_RECV, &dst), 0);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);

	t_note("a client connects; the server takes its request");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &creq), 0);
	EXPECT_INT(rpma_conn_req_connect(&creq, NULL, &client), 0);
	EXPECT_INT(er_ep_readable(ep, ER_WAIT_MS), 1);
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, &sreq), 0);
	EXPECT_INT(rpma_conn_req_recv(sreq, dst, 0, sizeof(in), (void *)0x77), 0);

	t_note("the endpoint goes first");
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(ep == NULL);

	t_note("the request it handed out is accepted after the shutdown");
	EXPECT_INT(rpma_conn_req_connect(&sreq, NULL, &server), 0);
	EXPECT_TRUE(sreq == NULL);
	if (server == NULL) {
		/* upstream's library: the accept failed; the client is refused */
		EXPECT_STR(er_ev(er_next_event(client, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
		EXPECT_INT(rpma_conn_delete(&client), 0);
		goto out;
	}
	EXPECT_STR(er_ev(er_next_event(client, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(er_next_event(server, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");

	t_note("the receive posted before the accept takes the client's message");
	EXPECT_INT(rpma_send(client, src, 0, sizeof(out), RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	EXPECT_INT(rpma_conn_get_cq(server, &cq), 0);
	EXPECT_INT(t_cq_wait_ms(cq, 1, &wc, &got, ER_WAIT_MS), 0);
	EXPECT_INT(got, 1);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	EXPECT_INT(wc.opcode, IBV_WC_RECV);
	EXPECT_INT(wc.wr_id, 0x77);
	EXPECT_INT(wc.byte_len, sizeof(out));
	EXPECT_STR(in, "sent before the shutdown");

	t_note("both sides close");
	EXPECT_INT(rpma_conn_disconnect(client), 0);
	EXPECT_STR(er_ev(er_next_event(server, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(rpma_conn_disconnect(server), 0);
	EXPECT_STR(er_ev(er_next_event(client, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(rpma_conn_delete(&server), 0);
	EXPECT_INT(rpma_conn_delete(&client), 0);
out:
	EXPECT_INT(rpma_mr_dereg(&dst), 0);
	EXPECT_INT(rpma_mr_dereg(&src), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
