/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_rnr_wait.c -- how long a send waits for a receiver that is not
 * ready. The server posts no receive until 200 ms after the client has
 * posted its send, three times on one connection. Each time, the device
 * answers the send with receiver-not-ready NAKs, each naming how long the
 * sender must wait before it tries again: the receiving queue pair's
 * minimum RNR timer. rdma_cm leaves it at its largest value, 655 ms; this
 * library sets 0.64 ms on its queue pairs (librpma(7), RPMA_MIN_RNR_TIMER)
 * once rpma_conn_req_connect() has returned on the accepting side: the
 * client sends nothing before the server says so, since a send that came
 * earlier could still meet rdma_cm's timer.
 * Checked: every send completes successfully, its message arrives intact,
 * and it completes within RNR_BOUND_MS of being posted (200 ms, plus the
 * time a retry takes to come). The C library's sends wait 655 ms: the list
 * of known outcomes says so. Each send's time is printed as a FIGURE.
 */
#include "onesided.h"

#define MSG 64
#define ROUNDS 3
#define LATE_MS 200
#define RNR_BOUND_MS 400
#define LSEED 21

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};
	struct rpma_conn_cfg *cfg = os_cfg(8, 8);
	struct rpma_cq *cq = NULL;

	S_CHECK(cfg != NULL && rpma_conn_cfg_set_rq_size(cfg, 1) == 0);
	os_srv_reg(peer, &s, 4096, RPMA_MR_USAGE_RECV, 0);
	os_srv_accept(ep, &s, cfg, 0);
	S_CHECK(s.conn != NULL && rpma_conn_get_cq(s.conn, &cq) == 0);
	c_put(s.conn != NULL);
	for (int r = 0; r < ROUNDS; r++) {
		struct ibv_wc wc;
		int ok = 0;

		/* the client has posted its send: the receive comes late */
		if (S_CHECK(t_sync_wait() == 0) && cq != NULL) {
			t_sleep_ms(LATE_MS);
			memset(s.buf[0], 0, MSG);
			if (S_CHECK(rpma_recv(s.conn, s.mr[0], 0, MSG, OS_CTX(0x6100 + r)) == 0) &&
					t_cq_wait_ms(cq, 1, &wc, NULL, OS_WC_WAIT_MS) == 0)
				ok = wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG &&
					os_is_pattern(s.buf[0], MSG, LSEED, 0);
		}
		c_put(ok);
	}
	os_srv_closed(&s);
	os_srv_dereg(&s);
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_local *local;
	void *lbuf;

	t_begin();
	peer = c_start_serving(serve);
	local = os_local(peer, 4096, RPMA_MR_USAGE_SEND, LSEED, &lbuf);
	conn = c_connect(peer, NULL, NULL);
	EXPECT_INT(SERVER(its accept has returned), 1);
	for (int r = 0; r < ROUNDS; r++) {
		long long t0, ms;

		t_note("round %d: a send the receiver is ready for only %d ms later", r, LATE_MS);
		t0 = t_now_ms();
		EXPECT_INT(rpma_send(conn, local, 0, MSG, RPMA_F_COMPLETION_ALWAYS,
				OS_CTX(0x6000 + r)), 0);
		t_sync_send();
		OS_EXPECT_WC(conn, 0x6000 + r, IBV_WC_SEND, IBV_WC_SUCCESS);
		ms = t_now_ms() - t0;
		fprintf(stderr, "FIGURE rnr-send-ms %lld\n", ms);
		EXPECT_TRUE(ms < RNR_BOUND_MS);
		EXPECT_INT(SERVER(the message arrived intact), 1);
	}
	EXPECT_TRUE(c_close(&conn));
	os_local_delete(&local, lbuf);
	return c_end(peer);
}
