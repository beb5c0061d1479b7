/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_disconnect_recvs_posted.c -- one side of a connection calls
 * rpma_conn_disconnect(3) while the other side has receives posted, and
 * what becomes of those receives. Both ends are in this process (as in
 * srq.h), so every completion queue is in reach. The receives are posted
 * - with rpma_recv(3), completing on the connection's main CQ (the server
 *   receives and the client disconnects, and the other way round);
 * - with rpma_recv(3), completing on the connection's own receive CQ;
 * - with rpma_srq_recv(3) to a shared RQ with its own receive CQ, and to
 *   one without (its receives complete on the connection's main CQ).
 * Each time the disconnecting side's own posted receives come back
 * flushed (IBV_WC_WR_FLUSH_ERR, in posting order). The receiving side
 * gets RPMA_CONN_CLOSED; what it then finds on its CQ:
 * - before it disconnects itself: nothing -- the peer's disconnect does
 *   not flush a queue pair's receives;
 * - once it has disconnected: the receives of its own receive queue,
 *   flushed, in posting order; the receives of a shared RQ are not
 *   flushed at all (they belong to the SRQ, not to the queue pair): a
 *   message sent through a new connection on the same SRQ still finds one
 *   of them.
 * Then everything is deleted, each delete returning 0.
 */
#include "dying.h"
#include "srq.h"

#define NRECV 8		/* the receiving side's receives */
#define NOWN 4		/* the disconnecting side's own receives */
#define SLOT 64
#define BUF_SIZE 4096
#define OWN_OFF 2048	/* where the disconnecting side's receives land */
#define NOTHING_MS 500	/* how long "nothing comes" is watched */

enum mode { MAIN_CQ, OWN_RCQ, SRQ_RCQ, SRQ_MAIN_CQ };

static struct rpma_peer *peer;
static struct rpma_ep *ep;
static struct rpma_mr_local *mr;
static void *buf;

/* a configuration with rq_size, cq_size, rcq_size and srq (may be NULL) */
static struct rpma_conn_cfg *
cfg_of(uint32_t rq, uint32_t cq, uint32_t rcq, struct rpma_srq *srq)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (rpma_conn_cfg_set_rq_size(cfg, rq) || rpma_conn_cfg_set_cq_size(cfg, cq) ||
			rpma_conn_cfg_set_rcq_size(cfg, rcq) ||
			(srq != NULL && rpma_conn_cfg_set_srq(cfg, srq)))
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

/*
 * Checks that wc[0..n-1] are n flushed receives with the op_contexts
 * S_CTX(first), S_CTX(first + 1), ... in this order: how many are
 */
static int
flushed_in_order(const struct ibv_wc *wc, int n, int first)
{
	int good = 0;

	for (int i = 0; i < n; i++) {
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR && wc[i].wr_id == S_WR_ID(first + i))
			good++;
		else
			fprintf(stderr, "completion %d: wr_id %#llx status %d opcode %d\n", i,
					(unsigned long long)wc[i].wr_id, wc[i].status,
					wc[i].opcode);
	}
	return good;
}

/*
 * A new connection through ep on the same SRQ: its client sends one
 * message, which must land in one of the SRQ's receives posted before
 * (op_contexts S_CTX(0..NRECV-1)); the pair is then closed
 */
static void
srq_still_holds(struct rpma_conn_cfg *scfg, struct rpma_srq *srq, enum mode m)
{
	struct rpma_conn *client = NULL, *server = NULL;
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	int one_posted_before;

	EXPECT_INT(s_pair(peer, ep, s_port(0), NULL, scfg, &client, &server), 0);
	if (client == NULL || server == NULL)
		return;
	if (m == SRQ_RCQ)
		EXPECT_INT(rpma_srq_get_rcq(srq, &cq), 0);
	else
		EXPECT_INT(rpma_conn_get_cq(server, &cq), 0);
	snprintf((char *)buf + 3072, SLOT, "after the disconnect");
	EXPECT_INT(s_send(client, mr, 3072, 21), 0);
	EXPECT_INT(s_wait_wc(cq, &wc), 0);
	EXPECT_INT(wc.status, IBV_WC_SUCCESS);
	EXPECT_INT(wc.opcode, IBV_WC_RECV);
	EXPECT_INT(wc.byte_len, 21);
	one_posted_before = wc.wr_id >= S_WR_ID(0) && wc.wr_id < S_WR_ID(NRECV);
	EXPECT_TRUE(one_posted_before);
	EXPECT_TRUE(one_posted_before && strcmp((char *)buf + (wc.wr_id - S_WR_ID(0)) * SLOT,
			"after the disconnect") == 0);
	EXPECT_TRUE(s_unpair(&client, &server));
}

static void
scenario(enum mode m, int receiver_is_client)
{
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *rcfg, *ocfg;
	struct rpma_conn *client = NULL, *server = NULL, *recv, *other;
	struct rpma_cq *rcq = NULL, *ocq = NULL;
	struct ibv_wc wc[2 * NRECV];
	int ret, receives_refused = 0, own_refused = 0, own_back, before_own, after_own;

	memset(buf, 0, BUF_SIZE);
	if (m == SRQ_RCQ || m == SRQ_MAIN_CQ)
		EXPECT_INT(s_srq(peer, 2 * NRECV, m == SRQ_RCQ ? 2 * NRECV : 0, &srq), 0);
	rcfg = cfg_of(NRECV, 2 * NRECV, m == OWN_RCQ ? 2 * NRECV : 0, srq);
	ocfg = cfg_of(NOWN, 2 * NOWN, 0, NULL);
	if (rcfg == NULL || ocfg == NULL) {
		fprintf(stderr, "no configuration\n");
		exit(2);
	}
	ret = receiver_is_client ?
		s_pair(peer, ep, s_port(0), rcfg, ocfg, &client, &server) :
		s_pair(peer, ep, s_port(0), ocfg, rcfg, &client, &server);
	EXPECT_INT(ret, 0);
	if (ret != 0)
		exit(2);
	recv = receiver_is_client ? client : server;
	other = receiver_is_client ? server : client;
	if (m == SRQ_RCQ)
		EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	else if (m == OWN_RCQ)
		EXPECT_INT(rpma_conn_get_rcq(recv, &rcq), 0);
	else
		EXPECT_INT(rpma_conn_get_cq(recv, &rcq), 0);
	EXPECT_INT(rpma_conn_get_cq(other, &ocq), 0);
	if (rcq == NULL || ocq == NULL)
		exit(2);

	for (int i = 0; i < NRECV; i++)
		receives_refused += (srq ?
			rpma_srq_recv(srq, mr, (size_t)i * SLOT, SLOT, S_CTX(i)) :
			rpma_recv(recv, mr, (size_t)i * SLOT, SLOT, S_CTX(i))) != 0;
	EXPECT_INT(receives_refused, 0);
	for (int i = 0; i < NOWN; i++)
		own_refused += rpma_recv(other, mr, OWN_OFF + (size_t)i * SLOT, SLOT,
				S_CTX(100 + i)) != 0;
	EXPECT_INT(own_refused, 0);

	t_note("the %s disconnects", receiver_is_client ? "server" : "client");
	EXPECT_INT(rpma_conn_disconnect(other), 0);
	own_back = d_collect(ocq, wc, NOWN, 2 * NRECV, S_WAIT_MS);
	EXPECT_INT(own_back, NOWN);
	EXPECT_INT(flushed_in_order(wc, own_back, 100), NOWN);
	EXPECT_TRUE(c_event_is(recv, RPMA_CONN_CLOSED));

	t_note("the receiving side's receives, before it disconnects");
	before_own = d_collect(rcq, wc, NRECV, 2 * NRECV, NOTHING_MS);
	EXPECT_INT(before_own, 0);
	EXPECT_INT(flushed_in_order(wc, before_own, 0), 0);

	t_note("once it has disconnected");
	EXPECT_INT(rpma_conn_disconnect(recv), 0);
	after_own = d_collect(rcq, wc, NRECV, 2 * NRECV, srq ? NOTHING_MS : S_WAIT_MS);
	if (srq) {
		/* a shared RQ's receives are not flushed */
		EXPECT_INT(after_own, 0);
	} else {
		EXPECT_INT(after_own, NRECV);
		EXPECT_INT(flushed_in_order(wc, after_own, 0), NRECV);
	}
	EXPECT_TRUE(c_event_is(other, RPMA_CONN_CLOSED));
	EXPECT_TRUE(s_cq_empty(ocq));
	EXPECT_TRUE(s_cq_empty(rcq));

	t_note("both delete");
	EXPECT_INT(rpma_conn_delete(&server), 0);
	EXPECT_INT(rpma_conn_delete(&client), 0);
	EXPECT_TRUE(server == NULL && client == NULL);
	if (srq) {
		t_note("the SRQ still holds its receives");
		srq_still_holds(rcfg, srq, m);
		EXPECT_INT(rpma_srq_delete(&srq), 0);
	}
	EXPECT_INT(rpma_conn_cfg_delete(&rcfg), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&ocfg), 0);
}

int
main(void)
{
	t_begin();
	peer = t_peer();
	mr = s_reg(peer, BUF_SIZE, &buf);
	if (mr == NULL)
		exit(2);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(0), &ep), 0);
	if (ep == NULL)
		exit(2);
	d_watchdog(150, "the scenarios");

	t_note("== receives on the main CQ of the server, the client disconnects");
	scenario(MAIN_CQ, 0);
	t_note("== receives on the main CQ of the client, the server disconnects");
	scenario(MAIN_CQ, 1);
	t_note("== receives on the server's own receive CQ");
	scenario(OWN_RCQ, 0);
	t_note("== receives on a shared RQ with its own receive CQ");
	scenario(SRQ_RCQ, 0);
	t_note("== receives on a shared RQ completing on the main CQ");
	scenario(SRQ_MAIN_CQ, 0);

	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(s_unreg(&mr, buf));
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	d_watchdog(0, "");
	return t_end();
}
