/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_srq_many_conns.c -- several connections sharing one SRQ, as in
 * upstream's example 13: three clients connect to one endpoint whose
 * connections all use the same SRQ (with its receive CQ); twelve buffers
 * are posted to the SRQ, each client sends three messages (interleaved,
 * of distinct lengths). The nine receive completions are collected with
 * rpma_cq_get_wc(3) several at a time from the SRQ's receive CQ; the
 * buffers form an unordered set, so only this is checked: every completion
 * names a posted buffer no other completion named, the buffer holds a
 * message sent exactly once, intact and with its length, and the
 * completion's qp_num is that of the connection the message's sender is
 * connected to (rpma_conn_get_qp_num(3)). The three buffers no message
 * took are untouched. Routed by qp_num, the server answers each message
 * on the connection it came through, and every client gets exactly the
 * answers to its own three messages.
 */
#include <stdio.h>

#include "srq.h"

#define NCLI 3
#define NMSG 3
#define NBUF 12
#define SLOT 64
#define BUF_SIZE 4096

/* where things are in the two regions */
#define SRQ_OFF(b) ((size_t)(b) * SLOT)			/* rbuf: the SRQ's buffers */
#define CLI_OFF(c, j) (2048 + ((size_t)(c) * NMSG + (size_t)(j)) * SLOT) /* rbuf: clients' */
#define MSG_OFF(c, m) (((size_t)(c) * NMSG + (size_t)(m)) * SLOT)	/* sbuf: messages */
#define ACK_OFF(i) (1024 + (size_t)(i) * SLOT)			/* sbuf: answers */

static char *rbuf, *sbuf;

/* message m of client c, with a length of its own */
static void
make_msg(char *dst, int c, int m)
{
	snprintf(dst, SLOT, "client %d, message %d%.*s", c, m, c * NMSG + m, "+++++++++++");
}

/* the index of qp in qps[NCLI], or -1 */
static int
conn_of(const uint32_t *qps, uint32_t qp)
{
	for (int i = 0; i < NCLI; i++)
		if (qps[i] == qp)
			return i;
	return -1;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_mr_local *rmr, *smr;
	void *r = NULL, *s = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *scfg, *ccfg;
	struct rpma_conn *client[NCLI] = {NULL}, *server[NCLI] = {NULL};
	uint32_t qps[NCLI];
	struct rpma_cq *rcq = NULL;
	struct rpma_ep *ep = NULL;
	struct ibv_wc wc[NBUF];
	int got_total = 0, good = 0, bufs_used = 0, misrouted = 0, polls_ok = 1;
	int from[NCLI * NMSG]; /* for each completion in order: c * NMSG + m */
	unsigned seen = 0;

	t_begin();
	peer = t_peer();
	rmr = s_reg(peer, BUF_SIZE, &r);
	smr = s_reg(peer, BUF_SIZE, &s);
	if (rmr == NULL || smr == NULL)
		exit(2);
	rbuf = r;
	sbuf = s;
	for (int c = 0; c < NCLI; c++)
		for (int m = 0; m < NMSG; m++)
			make_msg(sbuf + MSG_OFF(c, m), c, m);

	EXPECT_INT(s_srq(peer, 16, 16, &srq), 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq != NULL);
	scfg = s_conn_cfg(srq, 0);
	ccfg = s_conn_cfg(NULL, 4); /* the clients receive on a CQ of their own */
	EXPECT_TRUE(scfg != NULL && ccfg != NULL);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), s_port(0), &ep), 0);

	t_note("%d clients connect, the server's connections share the SRQ", NCLI);
	for (int c = 0; c < NCLI; c++) {
		EXPECT_INT(s_pair(peer, ep, s_port(0), ccfg, scfg, &client[c], &server[c]), 0);
		qps[c] = s_qp_num(server[c]);
	}
	EXPECT_TRUE(qps[0] != qps[1] && qps[1] != qps[2] && qps[0] != qps[2]);

	t_note("%d buffers posted, %d messages sent", NBUF, NCLI * NMSG);
	for (int b = 0; b < NBUF; b++)
		EXPECT_INT(rpma_srq_recv(srq, rmr, SRQ_OFF(b), SLOT, S_CTX(b)), 0);
	for (int m = 0; m < NMSG; m++)
		for (int c = 0; c < NCLI; c++)
			EXPECT_INT(rpma_send(client[c], smr, MSG_OFF(c, m),
					strlen(sbuf + MSG_OFF(c, m)) + 1,
					RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	for (int c = 0; c < NCLI; c++)
		for (int m = 0; m < NMSG; m++)
			EXPECT_INT(s_sent(client[c]), 0);

	/* all receive completions, several at a time */
	{
		long long end = t_now_ms() + S_WAIT_MS;

		while (got_total < NCLI * NMSG && t_now_ms() < end) {
			int got = 0;
			int ret = rpma_cq_get_wc(rcq, NBUF - got_total, &wc[got_total], &got);

			if (ret == RPMA_E_NO_COMPLETION) {
				t_sleep_ms(1);
				continue;
			}
			if (ret != 0 || got < 1 || got > NBUF - got_total) {
				polls_ok = 0;
				break;
			}
			got_total += got;
		}
	}
	EXPECT_INT(polls_ok, 1);
	EXPECT_INT(got_total, NCLI * NMSG);
	EXPECT_TRUE(s_cq_empty(rcq));

	for (int i = 0; i < got_total; i++) {
		int b = (int)(wc[i].wr_id - S_WR_ID(0)), k, c = -1, m = -1;
		char want[SLOT];

		from[i] = -1;
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV ||
				b < 0 || b >= NBUF || (bufs_used & (1 << b)))
			continue;
		bufs_used |= 1 << b;
		if (sscanf(rbuf + SRQ_OFF(b), "client %d, message %d", &c, &m) != 2 ||
				c < 0 || c >= NCLI || m < 0 || m >= NMSG)
			continue;
		make_msg(want, c, m);
		if (strcmp(rbuf + SRQ_OFF(b), want) != 0 || wc[i].byte_len != strlen(want) + 1 ||
				(seen & (1u << (c * NMSG + m))))
			continue;
		seen |= 1u << (c * NMSG + m);
		/* routing: the connection with this qp_num is the sender's */
		k = conn_of(qps, wc[i].qp_num);
		if (k != c) {
			misrouted++;
			continue;
		}
		from[i] = c * NMSG + m;
		good++;
	}
	EXPECT_INT(good, NCLI * NMSG);
	EXPECT_INT(misrouted, 0);
	EXPECT_INT(seen, (1u << (NCLI * NMSG)) - 1);
	EXPECT_INT(__builtin_popcount((unsigned)bufs_used), NCLI * NMSG);
	{
		int untouched = 0;

		for (int b = 0; b < NBUF; b++)
			if (!(bufs_used & (1 << b)) && c_all_zero(rbuf + SRQ_OFF(b), SLOT))
				untouched++;
		EXPECT_INT(untouched, NBUF - NCLI * NMSG);
	}
	for (int c = 0; c < NCLI; c++) {
		struct rpma_cq *cq = NULL;

		EXPECT_INT(rpma_conn_get_cq(server[c], &cq), 0);
		EXPECT_TRUE(s_cq_empty(cq) /* no receive on a main CQ */);
	}

	/* answers, each on the connection its message came through */
	t_note("the server answers through the connection of each qp_num");
	for (int c = 0; c < NCLI; c++)
		for (int j = 0; j < NMSG; j++)
			EXPECT_INT(rpma_recv(client[c], rmr, CLI_OFF(c, j), SLOT,
					S_CTX(100 + c * NMSG + j)), 0);
	{
		int sent = 0;

		for (int i = 0; i < got_total; i++) {
			int k = conn_of(qps, wc[i].qp_num);

			if (from[i] < 0 || k < 0)
				continue;
			snprintf(sbuf + ACK_OFF(i), SLOT, "answer to client %d, message %d",
					from[i] / NMSG, from[i] % NMSG);
			if (s_send(server[k], smr, ACK_OFF(i), strlen(sbuf + ACK_OFF(i)) + 1) == 0)
				sent++;
		}
		EXPECT_INT(sent, NCLI * NMSG);
	}
	for (int c = 0; c < NCLI; c++) {
		struct rpma_cq *crcq = NULL;
		unsigned answered = 0, slots = 0;
		int foreign = 0;

		EXPECT_INT(rpma_conn_get_rcq(client[c], &crcq), 0);
		for (int j = 0; j < NMSG; j++) {
			struct ibv_wc one;
			int cc = -1, m = -1, jj;

			if (s_wait_wc(crcq, &one) != 0 || one.status != IBV_WC_SUCCESS ||
					one.opcode != IBV_WC_RECV)
				continue;
			jj = (int)(one.wr_id - S_WR_ID(100 + c * NMSG));
			if (jj < 0 || jj >= NMSG || (slots & (1u << jj)))
				continue;
			slots |= 1u << jj;
			if (sscanf(rbuf + CLI_OFF(c, jj), "answer to client %d, message %d",
					&cc, &m) != 2 || m < 0 || m >= NMSG)
				continue;
			if (cc != c)
				foreign++;
			else
				answered |= 1u << m;
		}
		t_note("client %d", c);
		EXPECT_INT(answered, (1u << NMSG) - 1);
		EXPECT_INT(foreign, 0);
		EXPECT_TRUE(s_cq_empty(crcq));
	}

	t_note("all connections close");
	for (int c = 0; c < NCLI; c++)
		EXPECT_TRUE(s_unpair(&client[c], &server[c]));
	EXPECT_INT(rpma_conn_cfg_delete(&ccfg), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&scfg), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(s_unreg(&smr, s));
	EXPECT_TRUE(s_unreg(&rmr, r));
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
