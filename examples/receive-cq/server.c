/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the receive-cq example: accepts one
 * client on a connection with a receive CQ of its own, all ROUNDS
 * receives posted before the accept, and answers each REQUEST with a
 * RESPONSE. Every request must complete on the receive CQ, every
 * response's send on the main CQ, each found only on the queue the
 * library's completion events name; and at the end neither queue may hold
 * anything more. The protocol is described in common.h.
 *
 * usage: server <addr> <port> [--shared-channel]
 *
 * With --shared-channel both CQs share one completion channel and the
 * server sleeps in rpma_conn_wait(), which must say which CQ woke it.
 *
 * Exits 0 when every round went as the protocol says, 1 on any error,
 * mismatch, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* the server's message memory: a receive slot per round, the responses */
struct server_mem {
	uint8_t slot[ROUNDS][SLOT_SIZE];
	struct round_msg response[ROUNDS];
};

#define MEM_USAGE	(RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND)

/* op_contexts: response r is sent with OP_SEND(r); receives use their slot */
#define OP_SEND(r)	((const void *)(uintptr_t)(0x5d00 + (r)))

/*
 * The rounds, from ESTABLISHED to the last response's completion. Returns
 * 0 when all went as the protocol says.
 */
static int
exchange(struct rpma_conn *conn, bool shared, struct server_mem *mem, struct rpma_mr_local *mr)
{
	struct queues q;
	struct ibv_wc wc[2];
	int conn_fd = -1;
	int r, ret;

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	if (queues_open(WHO, conn, shared, &q))
		return 1;

	/* the first request; the others come with the previous response's send */
	{
		const struct cq_want want[1] = {
			{ mem->slot[0], IBV_WC_RECV, true, "the receive of request 0" },
		};

		if (expect_on_queues(WHO, &q, conn_fd, 1, want, &wc[1]))
			return 1;
	}

	for (r = 0; r < ROUNDS; r++) {
		struct round_msg *response = &mem->response[r];
		struct round_msg request;

		memcpy(&request, mem->slot[r], sizeof(request));
		if (check_round_msg(WHO, "request", &wc[1], &request, REQUEST_MAGIC, r,
				REQUEST_VALUE(r)))
			return 1;

		response->magic = htole32(RESPONSE_MAGIC);
		response->round = htole32((uint32_t)r);
		response->value = htole32(ANSWER(le32toh(request.value)));
		ret = rpma_send(conn, mr, offsetof(struct server_mem, response[r]), sizeof(*response),
				RPMA_F_COMPLETION_ALWAYS, OP_SEND(r));
		if (ret) {
			report(WHO, "rpma_send", ret);
			return 1;
		}

		if (r < ROUNDS - 1) {
			/* the client's next request may come before this send completes */
			const struct cq_want want[2] = {
				{ OP_SEND(r), IBV_WC_SEND, false, "the send of a response" },
				{ mem->slot[r + 1], IBV_WC_RECV, true, "the receive of a request" },
			};

			if (expect_on_queues(WHO, &q, conn_fd, 2, want, wc))
				return 1;
		} else {
			/* the client may read it and leave before it completes here */
			const struct cq_want want[1] = {
				{ OP_SEND(r), IBV_WC_SEND, false, "the send of the last response" },
			};

			if (expect_on_queues(WHO, &q, conn_fd, 1, want, wc))
				return hung_up_meanwhile(WHO, conn, "the last response");
		}
		printf(WHO ": round %d: request 0x%08x completed on the receive CQ, the send of response 0x%08x on the main CQ\n",
				r, REQUEST_VALUE(r), ANSWER(REQUEST_VALUE(r)));
	}

	if (queues_empty(WHO, &q))
		return 1;
	printf(WHO ": all %d rounds done, both CQs empty\n", ROUNDS);
	return 0;
}

/*
 * Posts all receives on req and accepts it; req is consumed in every
 * case. Returns 0 when the client came, did all the protocol says and
 * left cleanly.
 */
static int
serve(struct rpma_conn_req *req, bool shared, struct server_mem *mem, struct rpma_mr_local *mr)
{
	struct rpma_conn *conn = NULL;
	int failed = 1;
	int r, ret;

	/* before the accept: a request never has to wait for its buffer */
	for (r = 0; r < ROUNDS; r++) {
		ret = rpma_conn_req_recv(req, mr, offsetof(struct server_mem, slot[r]), SLOT_SIZE,
				mem->slot[r]);
		if (ret) {
			report(WHO, "rpma_conn_req_recv", ret);
			/* deleting a request that was not accepted rejects it */
			teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req),
					&failed);
			return 1;
		}
	}
	printf(WHO ": %d receives posted\n", ROUNDS);

	if (accept_and_wait(WHO, &req, NULL, CONN_EVENT_TIMEOUT_MS, &conn))
		return 1;
	printf(WHO ": connection established\n");

	/* on a failure, hang up at once: the client's waits end with an error */
	if (exchange(conn, shared, mem, mr))
		goto err_disconnect;

	/* the client has all its responses; it is the one who hangs up */
	if (expect_event_within(WHO, conn, RPMA_CONN_CLOSED, "CLOSED", CONN_EVENT_TIMEOUT_MS))
		goto err_disconnect;
	printf(WHO ": the client closed the connection\n");
	failed = 0;

err_disconnect:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(WHO, &conn, &failed);
	return failed;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct server_mem *mem = NULL;
	const char *addr, *port;
	bool shared;
	int failed = 1;
	int ret;

	if (parse_args(argc, argv, &shared))
		return 1;
	addr = argv[1];
	port = argv[2];
	/* line by line even into a file: a script waits for "listening" */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is this host's own: the device is the one that has it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer))
		return 1;

	mem = page_alloc(WHO, sizeof(*mem));
	if (mem == NULL)
		goto err_peer_delete;
	memset(mem, 0, sizeof(*mem));
	ret = rpma_mr_reg(peer, mem, sizeof(*mem), MEM_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	/* the incoming connection gets a receive CQ, maybe a shared channel */
	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		goto err_mr_dereg;
	}
	if ((ret = rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE))) {
		report(WHO, "rpma_conn_cfg_set_rcq_size", ret);
		goto err_cfg_delete;
	}
	if ((ret = rpma_conn_cfg_set_compl_channel(cfg, shared))) {
		report(WHO, "rpma_conn_cfg_set_compl_channel", ret);
		goto err_cfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_cfg_delete;
	}
	printf(WHO ": listening on %s:%s, receive CQ of %d entries%s\n", addr, port, RCQ_SIZE,
			shared ? ", one completion channel for both CQs" : "");

	if (next_request(WHO, ep, cfg, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, shared, mem, mr);

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_cfg_delete:
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
err_free:
	free(mem);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
