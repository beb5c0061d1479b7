/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the ping-pong example: accepts one
 * client with the receive for its first PING already posted, then in each
 * round takes a PING, checks it (counter one more than the last PONG,
 * payload as the counter says), posts the receive for the next PING and
 * answers with a PONG carrying the next counter. Once the client hangs up
 * it prints one summary line. The protocol is described in common.h.
 *
 * usage: server <addr> <port> [rounds]
 *
 * rounds: 1 to 100 (default 100); both sides must be given the same.
 *
 * Exits 0 when every PING was right and the client left cleanly, 1 on any
 * error, mismatch, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* exchanges to make, from the command line */
static int rounds = DEFAULT_ROUNDS;

/*
 * All the exchanges; *received counts the PINGs' payload bytes.
 * Returns 0 when every PING was right and every PONG went out.
 */
static int
pong_all(struct rpma_conn *conn, int conn_fd, struct pp_mem *mem, struct rpma_mr_local *mr,
		unsigned long *received)
{
	struct rpma_cq *cq = NULL, *rcq = NULL;
	uint32_t counter = COUNTER_START;
	struct ibv_wc wc;
	size_t len;
	int k, ret;

	if (get_cqs(WHO, conn, &cq, &rcq))
		return 1;

	for (k = 0; k < rounds; k++, counter += 2) {
		/* the client does not hang up while a PING is due */
		if (expect_wc(WHO, rcq, conn_fd, OP_RECV(k), IBV_WC_RECV, IBV_WC_RECV,
				"the receive of a PING", &wc))
			return 1;
		if (msg_check(WHO, &wc, mem->slot, PING_MAGIC, counter))
			return 1;
		*received += PAYLOAD_LEN(counter);

		/* the slot is checked: the next PING may land in it */
		if (k + 1 < rounds) {
			ret = rpma_recv(conn, mr, SLOT_OFF, SLOT_SIZE, OP_RECV(k + 1));
			if (ret) {
				report(WHO, "rpma_recv", ret);
				return 1;
			}
		}

		len = msg_fill(&mem->out, PONG_MAGIC, counter + 1);
		ret = rpma_send(conn, mr, OUT_OFF, len, RPMA_F_COMPLETION_ALWAYS, OP_SEND(k));
		if (ret) {
			report(WHO, "rpma_send", ret);
			return 1;
		}
		/*
		 * The outgoing message is rewritten next round, so its send must be
		 * done. No hang-up watch: the client waits for every PONG; after
		 * the last one it may hang up before this side has seen the send
		 * complete.
		 */
		if (k + 1 == rounds)
			return last_send_done(WHO, conn, cq, OP_SEND(k), IBV_WC_SEND, "the last PONG");
		if (expect_wc(WHO, cq, -1, OP_SEND(k), IBV_WC_SEND, IBV_WC_SEND,
				"rpma_send (PONG)", &wc))
			return 1;
	}
	return 0;
}

/*
 * Runs one connection from request to close. req is consumed in every
 * case. Returns 0 when the client came, every PING was right and the
 * client left cleanly.
 */
static int
serve(struct rpma_conn_req *req, struct pp_mem *mem, struct rpma_mr_local *mr)
{
	struct rpma_conn *conn = NULL;
	unsigned long received = 0;
	int conn_fd = -1;
	int failed = 1;
	int ret;

	/* the first PING may follow the accept at once: be ready for it */
	ret = rpma_conn_req_recv(req, mr, SLOT_OFF, SLOT_SIZE, OP_RECV(0));
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		/* deleting a request that was not accepted rejects it */
		teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req), &failed);
		return 1;
	}
	if (accept_and_wait(WHO, &req, NULL, CONN_EVENT_TIMEOUT_MS, &conn))
		return 1;
	printf(WHO ": connection established, receive for the first PING posted\n");

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		goto err_disconnect;
	}
	/* on a failure, hang up at once: the client's waits end with an error */
	if (pong_all(conn, conn_fd, mem, mr, &received))
		goto err_disconnect;
	printf(WHO ": %d PINGs received and checked (counters %u to %u, %lu payload bytes), %d PONGs sent\n",
			rounds, COUNTER_START, COUNTER_START + 2 * (rounds - 1), received, rounds);

	/* the client has its last PONG; it is the one who hangs up */
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
	struct pp_mem *mem = NULL;
	const char *addr, *port;
	int failed = 1;
	int ret;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s <addr> <port> [rounds]\n", argv[0]);
		return 1;
	}
	rounds = parse_rounds(WHO, argc, argv);
	if (rounds == 0)
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

	/* connections get a receive CQ, so PINGs never mix with send completions */
	if (make_conn_cfg(WHO, 0, &cfg))
		goto err_mr_dereg;

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_cfg_delete;
	}
	printf(WHO ": listening on %s:%s\n", addr, port);

	if (next_request(WHO, ep, cfg, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, mem, mr);

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
