/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_req_srq.c -- connection requests configured with a shared
 * receive queue (needs rpma_srq_new/rpma_srq_delete besides the
 * ep/conn_req group):
 * - rpma_conn_req_new(3) and rpma_ep_next_conn_req(3) give INVAL for a
 *   shared completion channel combined with an SRQ that has its own
 *   receive CQ, *req_ptr untouched, an ERROR logged; on the passive side
 *   the client's request is consumed and left unanswered;
 * - the same SRQ without the shared channel is fine on both sides;
 * - rpma_conn_req_recv(3) on such a request gives PROVIDER: its receives
 *   belong to the SRQ.
 */
#include "ep-req.h"

int
main(void)
{
	t_begin();
	er_log_begin();

	static char buf[64];
	struct rpma_peer *peer = t_peer();
	struct rpma_srq_cfg *scfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = ER_SENTINEL_REQ;
	struct rpma_conn *client = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	int fd = -1;

	EXPECT_INT(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV, &mr), 0);
	EXPECT_INT(rpma_srq_cfg_new(&scfg), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(scfg, 10), 0);
	EXPECT_INT(rpma_srq_new(peer, scfg, &srq), 0);
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, srq), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_INT(rpma_ep_get_fd(ep, &fd), 0);

	t_note("rpma_conn_req_new: shared channel, SRQ with a receive CQ");
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), RPMA_E_INVAL);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 1);

	t_note("rpma_ep_next_conn_req: shared channel, SRQ with a receive CQ");
	req = NULL;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &client), 0);
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	req = ER_SENTINEL_REQ;
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), RPMA_E_INVAL);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_INT(er_readable(fd, 0), 0);
	EXPECT_TRUE(er_not_accepted(er_next_event(client, 300)));
	EXPECT_INT(rpma_conn_delete(&client), 0);

	t_note("the same SRQ without the shared channel");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	req = ER_SENTINEL_REQ;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), 0);
	EXPECT_TRUE(req != NULL && req != ER_SENTINEL_REQ);
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, 8, NULL), RPMA_E_PROVIDER);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);

	struct rpma_conn_req *out = NULL;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &out), 0);
	EXPECT_INT(rpma_conn_req_connect(&out, NULL, &client), 0);
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	req = NULL;
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), 0);
	EXPECT_INT(rpma_conn_req_recv(req, mr, 0, 8, NULL), RPMA_E_PROVIDER);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_STR(er_ev(er_next_event(client, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&client), 0);

	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&scfg), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
