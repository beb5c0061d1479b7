/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the receive-cq example: connects with a
 * receive CQ of its own, all ROUNDS receives posted before connecting, and
 * runs ROUNDS request/response rounds: each REQUEST's send must complete
 * on the main CQ, each RESPONSE on the receive CQ, each found only on the
 * queue the library's completion events name, and every RESPONSE must
 * carry the answer to its request. At the end neither queue may hold
 * anything more; then the client hangs up. The protocol is described in
 * common.h.
 *
 * usage: client <addr> <port> [--shared-channel]
 *
 * With --shared-channel both CQs share one completion channel and the
 * client sleeps in rpma_conn_wait(), which must say which CQ woke it.
 *
 * Exits 0 when every round went as the protocol says, 1 on any error or
 * mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/* the client's message memory: the requests, a receive slot per round */
struct client_mem {
	struct round_msg request[ROUNDS];
	uint8_t slot[ROUNDS][SLOT_SIZE];
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* op_contexts: request r is sent with OP_SEND(r); receives use their slot */
#define OP_SEND(r)	((const void *)(uintptr_t)(0xc100 + (r)))

/* the rounds after ESTABLISHED; 0 when every response matched */
static int
exchange(struct rpma_conn *conn, int conn_fd, bool shared, struct client_mem *mem,
		struct rpma_mr_local *mr)
{
	struct queues q;
	struct ibv_wc wc[2];
	int r, ret;

	if (queues_open(WHO, conn, shared, &q))
		return 1;

	for (r = 0; r < ROUNDS; r++) {
		struct round_msg *request = &mem->request[r];
		struct round_msg response;
		/* the response may complete before the request's send does */
		const struct cq_want want[2] = {
			{ OP_SEND(r), IBV_WC_SEND, false, "the send of a request" },
			{ mem->slot[r], IBV_WC_RECV, true, "the receive of a response" },
		};

		request->magic = htole32(REQUEST_MAGIC);
		request->round = htole32((uint32_t)r);
		request->value = htole32(REQUEST_VALUE(r));
		ret = rpma_send(conn, mr, offsetof(struct client_mem, request[r]), sizeof(*request),
				RPMA_F_COMPLETION_ALWAYS, OP_SEND(r));
		if (ret) {
			report(WHO, "rpma_send", ret);
			return 1;
		}
		if (expect_on_queues(WHO, &q, conn_fd, 2, want, wc))
			return 1;

		memcpy(&response, mem->slot[r], sizeof(response));
		if (check_round_msg(WHO, "response", &wc[1], &response, RESPONSE_MAGIC, r,
				ANSWER(REQUEST_VALUE(r))))
			return 1;
		printf(WHO ": round %d: the send of request 0x%08x completed on the main CQ, response 0x%08x on the receive CQ\n",
				r, REQUEST_VALUE(r), ANSWER(REQUEST_VALUE(r)));
	}

	if (queues_empty(WHO, &q))
		return 1;
	printf(WHO ": all %d rounds done, both CQs empty\n", ROUNDS);
	return 0;
}

/*
 * Connects, runs the rounds and hangs up. Returns 0 when everything went
 * as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port, bool shared,
		struct client_mem *mem, struct rpma_mr_local *mr)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	int conn_fd = -1;
	int failed = 1;
	int r, ret;

	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		return 1;
	}
	/* a slow (emulated) network may need more than the default second */
	if ((ret = rpma_conn_cfg_set_timeout(cfg, RESOLVE_TIMEOUT_MS))) {
		report(WHO, "rpma_conn_cfg_set_timeout", ret);
		goto out_cfg;
	}
	/* receives get a CQ of their own; both may share one channel */
	if ((ret = rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE))) {
		report(WHO, "rpma_conn_cfg_set_rcq_size", ret);
		goto out_cfg;
	}
	if ((ret = rpma_conn_cfg_set_compl_channel(cfg, shared))) {
		report(WHO, "rpma_conn_cfg_set_compl_channel", ret);
		goto out_cfg;
	}
	ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		report(WHO, "rpma_conn_req_new", ret);
		goto out_cfg;
	}
	/* before connecting: no response can come before its receive */
	for (r = 0; r < ROUNDS; r++) {
		ret = rpma_conn_req_recv(req, mr, offsetof(struct client_mem, slot[r]), SLOT_SIZE,
				mem->slot[r]);
		if (ret) {
			report(WHO, "rpma_conn_req_recv", ret);
			teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req),
					&failed);
			goto out_cfg;
		}
	}
	ret = rpma_conn_req_connect(&req, NULL, &conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		goto out_cfg;
	}
	printf(WHO ": connecting to %s:%s, %d receives posted%s\n", addr, port, ROUNDS,
			shared ? ", one completion channel for both CQs" : "");

	if (expect_event_within(WHO, conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/* the server never hangs up first unless something went wrong */
	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret)
		report(WHO, "rpma_conn_get_event_fd", ret);
	/* whatever fails, hang up: the server then ends too */
	else if (!exchange(conn, conn_fd, shared, mem, mr))
		failed = 0;

	disconnect_and_wait(WHO, conn, CONN_EVENT_TIMEOUT_MS, &failed);

out_conn_delete:
	teardown_step(WHO, "rpma_conn_delete", rpma_conn_delete(&conn), &failed);
out_cfg:
	/* the request took a copy of the configuration, it may go any time */
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
	return failed;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct client_mem *mem = NULL;
	const char *addr, *port;
	bool shared;
	int failed = 1;
	int ret;

	if (parse_args(argc, argv, &shared))
		return 1;
	addr = argv[1];
	port = argv[2];
	/* keep stdout and stderr in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is the server's: the device is the one that reaches it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;

	mem = page_alloc(WHO, sizeof(*mem));
	if (mem == NULL)
		goto out_peer_delete;
	memset(mem, 0, sizeof(*mem));
	ret = rpma_mr_reg(peer, mem, sizeof(*mem), MEM_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free;
	}

	failed = talk(peer, addr, port, shared, mem, mr);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
out_free:
	free(mem);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
