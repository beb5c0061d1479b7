/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the ping-pong example: connects, then
 * in each round posts the receive for the PONG, sends a PING (counter and
 * payload), waits for the send to complete and for the PONG, and checks
 * the PONG (counter one more than the PING's, payload as the counter
 * says). Then it prints one summary line and hangs up. The protocol is
 * described in common.h.
 *
 * usage: client <addr> <port> [rounds]
 *
 * rounds: 1 to 100 (default 100); both sides must be given the same.
 *
 * Exits 0 when every PONG was right and the connection closed cleanly, 1
 * on any error or mismatch.
 */
#include <stdlib.h>
#include <time.h>

#include "common.h"

#define WHO "client"

/* exchanges to make, from the command line */
static int rounds = DEFAULT_ROUNDS;

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/*
 * All the exchanges; *received counts the PONGs' payload bytes.
 * Returns 0 when every PONG was right.
 */
static int
ping_all(struct rpma_conn *conn, int conn_fd, struct pp_mem *mem, struct rpma_mr_local *mr,
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
		/* the PONG may come before the PING's send completes: receive first */
		memset(mem->slot, 0, sizeof(mem->slot));
		ret = rpma_recv(conn, mr, SLOT_OFF, SLOT_SIZE, OP_RECV(k));
		if (ret) {
			report(WHO, "rpma_recv", ret);
			return 1;
		}

		len = msg_fill(&mem->out, PING_MAGIC, counter);
		ret = rpma_send(conn, mr, OUT_OFF, len, RPMA_F_COMPLETION_ALWAYS, OP_SEND(k));
		if (ret) {
			report(WHO, "rpma_send", ret);
			return 1;
		}
		/* the server never hangs up first unless something went wrong */
		if (expect_wc(WHO, cq, conn_fd, OP_SEND(k), IBV_WC_SEND, IBV_WC_SEND,
				"rpma_send (PING)", &wc))
			return 1;
		if (expect_wc(WHO, rcq, conn_fd, OP_RECV(k), IBV_WC_RECV, IBV_WC_RECV,
				"the receive of a PONG", &wc))
			return 1;
		if (msg_check(WHO, &wc, mem->slot, PONG_MAGIC, counter + 1))
			return 1;
		*received += PAYLOAD_LEN(counter + 1);
	}
	return 0;
}

/*
 * Connects, plays all rounds and hangs up. Returns 0 when every PONG was
 * right and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port, struct pp_mem *mem,
		struct rpma_mr_local *mr)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn = NULL;
	struct timespec start, end;
	unsigned long received = 0;
	double us;
	int conn_fd = -1;
	int failed = 1;
	int ret;

	if (make_conn_cfg(WHO, RESOLVE_TIMEOUT_MS, &cfg))
		return 1;
	if (connect_to(WHO, peer, addr, port, cfg, NULL, &conn))
		goto out_cfg;
	printf(WHO ": connecting to %s:%s\n", addr, port);

	if (expect_event_within(WHO, conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
	} else {
		/* whatever fails, hang up: the server then ends too */
		clock_gettime(CLOCK_MONOTONIC, &start);
		failed = ping_all(conn, conn_fd, mem, mr, &received);
		clock_gettime(CLOCK_MONOTONIC, &end);
		if (!failed) {
			us = (double)(end.tv_sec - start.tv_sec) * 1e6 +
				(double)(end.tv_nsec - start.tv_nsec) / 1e3;
			printf(WHO ": %d PINGs sent, %d PONGs received and checked (counters %u to %u, %lu payload bytes), %.0f us per round trip\n",
					rounds, rounds, COUNTER_START + 1,
					COUNTER_START + 2 * rounds - 1, received, us / rounds);
		}
	}

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

	failed = talk(peer, addr, port, mem, mr);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
out_free:
	free(mem);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
