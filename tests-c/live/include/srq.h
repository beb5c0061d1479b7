/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.h -- helpers shared by the live tests of the "srq" group
 * (rpma_srq_new.c, rpma_srq_delete.c, rpma_srq_get_rcq.c, rpma_srq_recv.c
 * and the scenario_srq_*.c programs); static functions only.
 *
 * Most of these tests run both ends of their connections in one process:
 * s_pair() connects a client (active side) to an endpoint of the same
 * process and accepts it (passive side), so every receive queue, every
 * completion queue and every completion is in reach of the one process
 * that prints the observations, and no step depends on the timing of
 * another process. s_unpair() closes both ends the way upstream's examples
 * do. The helpers of conn.h (events, the log recorder c_log) come along.
 */
#ifndef SRQ_H
#define SRQ_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "conn.h"

/* how long a completion that is expected may take */
#define S_WAIT_MS 10000

/* sentinels: "the output was not written" */
static char s_sentinel_objs[2] T_UNUSED;
#define SRQ_SENTINEL ((struct rpma_srq *)&s_sentinel_objs[0])
#define CQ_SENTINEL ((struct rpma_cq *)&s_sentinel_objs[1])

/* op_context values: they come back bit-exact as wc.wr_id */
#define S_CTX(n) ((const void *)(uintptr_t)(0x5e0000u + (unsigned)(n)))
#define S_WR_ID(n) ((uint64_t)(uintptr_t)S_CTX(n))

/*
 * Installs c_log() (conn.h) as the library's log function and clears the
 * record; the default thresholds keep only WARNING and worse.
 */
T_UNUSED static void
s_log_begin(void)
{
	if (rpma_log_set_function(c_log) != 0) {
		fprintf(stderr, "srq.h: cannot set the log function\n");
		exit(2);
	}
	c_nlogs = 0;
}

/* how many messages of level were logged since c_nlogs = 0 */
T_UNUSED static int
s_log_count(int level)
{
	int n = 0;

	for (int i = 0; i < c_nlogs && i < C_MAX_LOGS; i++)
		if (c_logs[i].level == level)
			n++;
	return n;
}

/* 1 when a message of level starting with prefix was logged */
T_UNUSED static int
s_logged_prefix(int level, const char *prefix)
{
	for (int i = 0; i < c_nlogs && i < C_MAX_LOGS; i++)
		if (c_logs[i].level == level &&
				strncmp(c_logs[i].message, prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

/* ---- the device ---------------------------------------------------------- */

/*
 * The device's largest shared receive queue (max_srq_wr) and completion
 * queue (max_cqe), queried through the provider's query_device_ex
 * operation (the tests do not link libibverbs themselves). Ends the test
 * with status 2 when the device cannot be queried.
 */
T_UNUSED static void
s_dev_limits(struct ibv_context *ctx, uint32_t *max_srq_wr, uint32_t *max_cqe)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);
	struct ibv_device_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	if (vctx == NULL || vctx->query_device_ex(ctx, NULL, &attr, sizeof(attr)) != 0) {
		fprintf(stderr, "live test setup: cannot query the device\n");
		exit(2);
	}
	*max_srq_wr = (uint32_t)attr.orig_attr.max_srq_wr;
	*max_cqe = (uint32_t)attr.orig_attr.max_cqe;
}

/* ---- shared receive queues ------------------------------------------------ */

/* what s_srq() returns when the configuration itself could not be made */
#define S_NO_CFG (-1000)

/*
 * rpma_srq_new() with a configuration of rq_size and rcq_size: its return
 * value (*srq written as rpma_srq_new() does), or S_NO_CFG
 */
T_UNUSED static int
s_srq(struct rpma_peer *peer, uint32_t rq_size, uint32_t rcq_size, struct rpma_srq **srq)
{
	struct rpma_srq_cfg *cfg = NULL;
	int ret;

	if (rpma_srq_cfg_new(&cfg) != 0 || rpma_srq_cfg_set_rq_size(cfg, rq_size) != 0 ||
			rpma_srq_cfg_set_rcq_size(cfg, rcq_size) != 0) {
		fprintf(stderr, "srq.h: cannot make the SRQ configuration\n");
		(void) rpma_srq_cfg_delete(&cfg);
		return S_NO_CFG;
	}
	ret = rpma_srq_new(peer, cfg, srq);
	if (rpma_srq_cfg_delete(&cfg) != 0)
		return S_NO_CFG;
	return ret;
}

/*
 * Posts 0-byte receives (op_context NULL) on srq until one fails or max
 * were posted: how many were posted; *last is the return value of the last
 * call (0 when none failed).
 */
T_UNUSED static int
s_fill(struct rpma_srq *srq, int max, int *last)
{
	int n = 0;

	*last = 0;
	while (n < max) {
		*last = rpma_srq_recv(srq, NULL, 0, 0, NULL);
		if (*last != 0)
			break;
		n++;
	}
	return n;
}

/*
 * How many receives an SRQ made with rq_size (and no receive CQ) takes
 * before the provider refuses one (at most max; -1 when the SRQ cannot be
 * made or the refusal is not RPMA_E_PROVIDER)
 */
T_UNUSED static int
s_capacity(struct rpma_peer *peer, uint32_t rq_size, int max)
{
	struct rpma_srq *srq = NULL;
	int n, last;

	if (s_srq(peer, rq_size, 0, &srq) != 0)
		return -1;
	n = s_fill(srq, max, &last);
	if (rpma_srq_delete(&srq) != 0 || (last != 0 && last != RPMA_E_PROVIDER))
		return -1;
	return n;
}

/* a receive-and-send MR of size bytes over a zeroed buffer (page-aligned) */
T_UNUSED static struct rpma_mr_local *
s_reg(struct rpma_peer *peer, size_t size, void **buf)
{
	struct rpma_mr_local *mr = NULL;

	if (posix_memalign(buf, 4096, size) != 0) {
		fprintf(stderr, "srq.h: posix_memalign failed\n");
		exit(2);
	}
	memset(*buf, 0, size);
	if (rpma_mr_reg(peer, *buf, size, RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND, &mr) != 0) {
		fprintf(stderr, "srq.h: rpma_mr_reg failed\n");
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	return mr;
}

/* deregisters mr and frees buf; 1 when the deregistration worked */
T_UNUSED static int
s_unreg(struct rpma_mr_local **mr, void *buf)
{
	int ok = rpma_mr_dereg(mr) == 0;

	free(buf);
	return ok;
}

/* ---- completions ---------------------------------------------------------- */

/*
 * One completion from cq, waiting up to S_WAIT_MS for it: 0 and *wc, or
 * the last return value of rpma_cq_get_wc() (RPMA_E_NO_COMPLETION when
 * nothing came in time)
 */
T_UNUSED static int
s_wait_wc(struct rpma_cq *cq, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	return t_cq_wait_ms(cq, 1, wc, NULL, S_WAIT_MS);
}

/*
 * The send completion of conn's last rpma_send() (posted with
 * RPMA_F_COMPLETION_ALWAYS) on its main CQ: 0 when it came and succeeded,
 * 1 when it came with another status or opcode, else the error of
 * s_wait_wc()
 */
T_UNUSED static int
s_sent(struct rpma_conn *conn)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	int ret;

	if ((ret = rpma_conn_get_cq(conn, &cq)) != 0)
		return ret;
	if ((ret = s_wait_wc(cq, &wc)) != 0)
		return ret;
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
		fprintf(stderr, "srq.h: send completion status %d opcode %d\n",
				wc.status, wc.opcode);
		return 1;
	}
	return 0;
}

/*
 * conn sends len bytes of mr from offset (a 0-byte send when mr is NULL)
 * and the send completes: 0, or what failed (rpma_send()'s error, or
 * s_sent()'s)
 */
T_UNUSED static int
s_send(struct rpma_conn *conn, const struct rpma_mr_local *mr, size_t offset, size_t len)
{
	int ret = rpma_send(conn, mr, offset, len, RPMA_F_COMPLETION_ALWAYS, NULL);

	return ret ? ret : s_sent(conn);
}

/* the qp_num of conn (0 when it cannot be had) */
T_UNUSED static uint32_t
s_qp_num(const struct rpma_conn *conn)
{
	uint32_t qp = 0;

	if (rpma_conn_get_qp_num(conn, &qp) != 0)
		return 0;
	return qp;
}

/* 1 when cq holds no completion right now */
T_UNUSED static int
s_cq_empty(struct rpma_cq *cq)
{
	struct ibv_wc wc;

	return rpma_cq_get_wc(cq, 1, &wc, NULL) == RPMA_E_NO_COMPLETION;
}

/* ---- connections within the process --------------------------------------- */

/* the decimal port t_port() + n (a static string, one per n < 8) */
T_UNUSED static const char *
s_port(int n)
{
	static char ports[8][16];

	snprintf(ports[n], sizeof(ports[n]), "%d", atoi(t_port()) + n);
	return ports[n];
}

/*
 * A connection between two ends in this process: a client of peer with
 * ccfg requests a connection to the endpoint ep (listening on port of
 * t_ip()), the endpoint's next request is taken with scfg and accepted,
 * and both ends see RPMA_CONN_ESTABLISHED (the client first: its side
 * completes the handshake when it reads the event). 0 and *client and
 * *server, or -1 (what failed goes to stderr; what was made is deleted).
 */
T_UNUSED static int
s_pair(struct rpma_peer *peer, struct rpma_ep *ep, const char *port,
		const struct rpma_conn_cfg *ccfg, const struct rpma_conn_cfg *scfg,
		struct rpma_conn **client, struct rpma_conn **server)
{
	int ret;

	*client = NULL;
	*server = NULL;
	if (t_request(peer, port, ccfg, NULL, client) != 0)
		return -1;
	if ((ret = t_accept(ep, scfg, NULL, C_WAIT_MS, server)) != 0) {
		fprintf(stderr, "srq.h: the server's side: %s\n",
				ret == T_NO_EVENT ? "no connection request came" : "failed");
		goto err;
	}
	if (!c_event_is(*client, RPMA_CONN_ESTABLISHED) ||
			!c_event_is(*server, RPMA_CONN_ESTABLISHED))
		goto err;
	return 0;

err:
	(void) rpma_conn_delete(server);
	(void) rpma_conn_delete(client);
	return -1;
}

/*
 * Closes a pair of s_pair(): the client disconnects, the server sees
 * CLOSED and disconnects too, the client sees CLOSED, both are deleted
 * (and NULL). 1 when every step behaved.
 */
T_UNUSED static int
s_unpair(struct rpma_conn **client, struct rpma_conn **server)
{
	int ok = rpma_conn_disconnect(*client) == 0;

	ok = c_event_is(*server, RPMA_CONN_CLOSED) && ok;
	ok = rpma_conn_disconnect(*server) == 0 && ok;
	ok = c_event_is(*client, RPMA_CONN_CLOSED) && ok;
	ok = rpma_conn_delete(server) == 0 && *server == NULL && ok;
	ok = rpma_conn_delete(client) == 0 && *client == NULL && ok;
	return ok;
}

/* a connection configuration with srq and rcq_size (NULL on failure) */
T_UNUSED static struct rpma_conn_cfg *
s_conn_cfg(struct rpma_srq *srq, uint32_t rcq_size)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if ((srq && rpma_conn_cfg_set_srq(cfg, srq) != 0) ||
			rpma_conn_cfg_set_rcq_size(cfg, rcq_size) != 0) {
		(void) rpma_conn_cfg_delete(&cfg);
		return NULL;
	}
	return cfg;
}

#endif /* SRQ_H */
