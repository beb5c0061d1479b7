/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_srq_wiring.c -- where the receives of a connection that uses a
 * shared receive queue complete: the three modes of upstream's example
 * 08srq, with the SRQ on the passive side as there.
 * - an SRQ with a receive CQ of its own: the receives complete there; the
 *   connection has no receive CQ (rpma_conn_get_rcq(3) gives NULL) even
 *   when its configuration asks for one (rcq_size 5);
 * - an SRQ without a receive CQ, connection rcq_size 5: they complete on
 *   the connection's receive CQ (also with a shared completion channel,
 *   where rpma_conn_wait(3) names that CQ);
 * - an SRQ without a receive CQ, connection rcq_size 0: on the main CQ.
 * In every mode the completion names the connection's qp_num, the other
 * CQs stay empty, rpma_recv(3) on the connection is refused by the
 * provider (RPMA_E_PROVIDER: its receives belong to the SRQ), and the
 * connection sends as usual (send completions on its main CQ).
 * A shared completion channel together with an SRQ that has a receive CQ
 * is RPMA_E_INVAL, on the active side (rpma_conn_req_new(3)) and on the
 * passive side (rpma_ep_next_conn_req(3): the client is not accepted),
 * the request untouched, an ERROR logged.
 */
#include "srq.h"

#define BUF_SIZE 4096
#define MSG "a message through the SRQ"
#define REPLY "the reply"

enum where { ON_SRQ_RCQ, ON_CONN_RCQ, ON_MAIN_CQ };

static struct rpma_mr_local *rmr, *smr;
static char *rbuf, *sbuf;

static char req_sentinel;
#define REQ_SENTINEL ((struct rpma_conn_req *)&req_sentinel)

/*
 * One connection whose passive end uses an SRQ made with srq_rcq_size and
 * a configuration with conn_rcq_size (and a shared completion channel when
 * shared): a message from the client must complete where want says.
 */
static void
mode(struct rpma_peer *peer, struct rpma_ep *ep, uint32_t srq_rcq_size,
		uint32_t conn_rcq_size, int shared, enum where want)
{
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *client = NULL, *server = NULL;
	struct rpma_cq *srq_rcq = CQ_SENTINEL, *conn_rcq = CQ_SENTINEL, *cq = NULL;
	struct rpma_cq *ccq = NULL, *expected, *waited = CQ_SENTINEL;
	struct ibv_wc wc;
	bool is_rcq = false;
	int fd = -1;

	memset(rbuf, 0, BUF_SIZE);
	EXPECT_INT(s_srq(peer, 8, srq_rcq_size, &srq), 0);
	cfg = s_conn_cfg(srq, conn_rcq_size);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, shared), 0);
	/* as in example 08srq: the first receive is posted before accepting */
	EXPECT_INT(rpma_srq_recv(srq, rmr, 0, 64, S_CTX(1)), 0);
	EXPECT_INT(s_pair(peer, ep, s_port(0), NULL, cfg, &client, &server), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	EXPECT_INT(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	EXPECT_TRUE(srq_rcq != CQ_SENTINEL);
	EXPECT_INT(srq_rcq != NULL, want == ON_SRQ_RCQ);
	EXPECT_INT(rpma_conn_get_rcq(server, &conn_rcq), 0);
	EXPECT_TRUE(conn_rcq != CQ_SENTINEL);
	EXPECT_INT(conn_rcq != NULL, want == ON_CONN_RCQ);
	EXPECT_INT(rpma_conn_get_cq(server, &cq), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(server, &fd), shared ? 0 : RPMA_E_NOT_SHARED_CHNL);
	expected = want == ON_SRQ_RCQ ? srq_rcq : want == ON_CONN_RCQ ? conn_rcq : cq;

	/* the connection's own receive queue is not there */
	c_nlogs = 0;
	EXPECT_INT(rpma_recv(server, rmr, 512, 8, NULL), RPMA_E_PROVIDER);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 1);

	EXPECT_INT(s_send(client, smr, 0, sizeof(MSG)), 0);
	if (shared) {
		EXPECT_INT(rpma_conn_wait(server, 0, &waited, &is_rcq), 0);
		EXPECT_TRUE(waited == expected);
		EXPECT_INT(is_rcq, want != ON_MAIN_CQ);
	}
	EXPECT_INT(s_wait_wc(expected, &wc), 0);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	EXPECT_INT(wc.opcode, IBV_WC_RECV);
	EXPECT_INT(wc.byte_len, sizeof(MSG));
	EXPECT_TRUE(wc.wr_id == S_WR_ID(1));
	EXPECT_TRUE(wc.qp_num == s_qp_num(server));
	EXPECT_STR(rbuf, MSG);
	/* nowhere else */
	EXPECT_TRUE(s_cq_empty(expected));
	if (srq_rcq != NULL)
		EXPECT_TRUE(s_cq_empty(srq_rcq));
	if (conn_rcq != NULL)
		EXPECT_TRUE(s_cq_empty(conn_rcq));
	EXPECT_TRUE(s_cq_empty(cq));

	/* the other way: the client receives on its own (main) CQ */
	EXPECT_INT(rpma_recv(client, rmr, 1024, 64, S_CTX(2)), 0);
	EXPECT_INT(s_send(server, smr, 64, sizeof(REPLY)), 0);
	EXPECT_INT(rpma_conn_get_cq(client, &ccq), 0);
	EXPECT_INT(s_wait_wc(ccq, &wc), 0);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	EXPECT_INT(wc.opcode, IBV_WC_RECV);
	EXPECT_TRUE(wc.wr_id == S_WR_ID(2));
	EXPECT_TRUE(wc.qp_num == s_qp_num(client));
	EXPECT_STR(rbuf + 1024, REPLY);
	EXPECT_TRUE(s_cq_empty(expected));

	EXPECT_TRUE(s_unpair(&client, &server));
	EXPECT_INT(rpma_srq_delete(&srq), 0);
}

/* what a client whose request the server could not build may see */
static int
not_accepted(struct rpma_conn *conn)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = c_next_event(conn, 300, &ev);

	/* the C library leaves it waiting, ours rejects it at once */
	return ret == C_TIMEOUT || (ret == 0 && ev == RPMA_CONN_REJECTED);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL, *ep2 = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = REQ_SENTINEL;
	struct rpma_conn *client = NULL;
	void *r = NULL, *s = NULL;
	int fd = -1;

	t_begin();
	peer = t_peer();
	rmr = s_reg(peer, BUF_SIZE, &r);
	smr = s_reg(peer, BUF_SIZE, &s);
	if (rmr == NULL || smr == NULL)
		exit(2);
	rbuf = r;
	sbuf = s;
	memcpy(sbuf, MSG, sizeof(MSG));
	memcpy(sbuf + 64, REPLY, sizeof(REPLY));
	s_log_begin();
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(0), &ep), 0);

	t_note("an SRQ with a receive CQ, connection rcq_size 5: the SRQ's receive CQ");
	mode(peer, ep, 5, 5, 0, ON_SRQ_RCQ);
	t_note("an SRQ with a receive CQ, connection rcq_size 0: the SRQ's receive CQ");
	mode(peer, ep, 5, 0, 0, ON_SRQ_RCQ);
	t_note("an SRQ without a receive CQ, connection rcq_size 5: the connection's");
	mode(peer, ep, 0, 5, 0, ON_CONN_RCQ);
	t_note("the same with a shared completion channel");
	mode(peer, ep, 0, 5, 1, ON_CONN_RCQ);
	t_note("an SRQ without a receive CQ, connection rcq_size 0: the main CQ");
	mode(peer, ep, 0, 0, 0, ON_MAIN_CQ);
	t_note("the same with a shared completion channel");
	mode(peer, ep, 0, 0, 1, ON_MAIN_CQ);

	/*
	 * A shared completion channel and an SRQ with a receive CQ of its
	 * own: RPMA_E_INVAL on either side, *req_ptr untouched, an ERROR
	 */
	EXPECT_INT(s_srq(peer, 8, 5, &srq), 0);
	cfg = s_conn_cfg(srq, 5);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);

	t_note("INVAL: shared channel, SRQ with a receive CQ, active side");
	c_nlogs = 0;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), s_port(0), cfg, &req), RPMA_E_INVAL);
	EXPECT_TRUE(req == REQ_SENTINEL);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 1);

	t_note("INVAL: shared channel, SRQ with a receive CQ, passive side");
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(1), &ep2), 0);
	req = NULL;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), s_port(1), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &client), 0);
	EXPECT_INT(rpma_ep_get_fd(ep2, &fd), 0);
	{
		struct pollfd p = {.fd = fd, .events = POLLIN};

		EXPECT_INT(poll(&p, 1, C_WAIT_MS), 1);
	}
	req = REQ_SENTINEL;
	c_nlogs = 0;
	EXPECT_INT(rpma_ep_next_conn_req(ep2, cfg, &req), RPMA_E_INVAL);
	EXPECT_TRUE(req == REQ_SENTINEL);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_TRUE(not_accepted(client));
	EXPECT_INT(rpma_conn_delete(&client), 0);
	EXPECT_INT(rpma_ep_shutdown(&ep2), 0);

	/* the same SRQ without the shared channel: connects */
	t_note("the same without the shared channel");
	{
		struct rpma_conn *c = NULL, *sv = NULL;
		struct rpma_cq *rcq = CQ_SENTINEL;

		EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
		EXPECT_INT(s_pair(peer, ep, s_port(0), NULL, cfg, &c, &sv), 0);
		EXPECT_INT(rpma_conn_get_rcq(sv, &rcq), 0);
		EXPECT_TRUE(rcq == NULL);
		EXPECT_TRUE(s_unpair(&c, &sv));
	}
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);

	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(s_unreg(&smr, s));
	EXPECT_TRUE(s_unreg(&rmr, r));
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
