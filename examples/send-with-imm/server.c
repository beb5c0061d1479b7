/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the send-with-imm example: posts one
 * receive per message the protocol announces (common.h) before it accepts
 * its one client, then checks every message as it completes: immediate
 * data present exactly when it should be, its value after ntohl(), the
 * length and each byte of the payload, and that nothing was written past
 * the payload's end. It answers with a SUMMARY of what it decoded and
 * waits for the client to hang up.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when every message was as the protocol says and the SUMMARY went
 * out, 1 on any error, mismatch, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* the server's message memory: one slot per message, then the summary */
struct server_mem {
	uint8_t slot[N_MSGS][SLOT_SIZE];
	struct summary_msg summary;
};

#define MEM_USAGE	(RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND)

/* the summary's op_context; each receive uses the address of its slot */
#define OP_SUMMARY	((const void *)(uintptr_t)0x5a3e)

/*
 * Checks the completion of receive k (slot k: one RC connection keeps the
 * messages in order and receives are used in the order posted) against
 * MSGS[k] and notes what it found in the summary. Returns 0 when all match.
 */
static int
check_message(int k, const struct ibv_wc *wc, struct server_mem *mem)
{
	const struct msg_spec *m = &MSGS[k];
	const uint8_t *data = mem->slot[k];
	bool has_imm = (wc->wc_flags & IBV_WC_WITH_IMM) != 0;
	struct summary_entry *e = &mem->summary.entry[k];
	uint32_t imm = has_imm ? ntohl(wc->imm_data) : 0;
	uint32_t i;

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, WHO ": message %d: the receive completed with status %s (%d)\n",
				k, wc_status_name(wc->status), (int)wc->status);
		return 1;
	}
	if (wc->wr_id != (uint64_t)(uintptr_t)data) {
		fprintf(stderr, WHO ": message %d: the completion carries wr_id 0x%llx, not slot %d's\n",
				k, (unsigned long long)wc->wr_id, k);
		return 1;
	}
	if (wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, WHO ": message %d: expected a RECV completion, got %s (%d)\n",
				k, wc_opcode_name(wc->opcode), (int)wc->opcode);
		return 1;
	}
	if (has_imm != m->with_imm) {
		fprintf(stderr, WHO ": message %d %s immediate data, it should %s\n", k,
				has_imm ? "carries" : "lacks", m->with_imm ? "have it" : "not");
		return 1;
	}
	/* the library hands over the raw completion: network byte order */
	if (imm != m->imm) {
		fprintf(stderr, WHO ": message %d: immediate data 0x%08x (raw 0x%08x), expected 0x%08x\n",
				k, imm, wc->imm_data, m->imm);
		return 1;
	}
	if (wc->byte_len != m->len) {
		fprintf(stderr, WHO ": message %d has %u bytes, expected %u\n",
				k, wc->byte_len, m->len);
		return 1;
	}
	for (i = 0; i < m->len; i++) {
		if (data[i] != PAYLOAD_BYTE(k, i)) {
			fprintf(stderr, WHO ": message %d: payload byte %u is 0x%02x, expected 0x%02x\n",
					k, i, data[i], PAYLOAD_BYTE(k, i));
			return 1;
		}
	}
	/* the rest of the slot must be as it was before the message came */
	for (i = m->len; i < SLOT_SIZE; i++) {
		if (data[i] != CANARY) {
			fprintf(stderr, WHO ": message %d: slot byte %u was written past the payload\n",
					k, i);
			return 1;
		}
	}

	e->flags = htole32(has_imm ? SUMMARY_WITH_IMM : 0);
	e->imm = htole32(imm);
	e->byte_len = htole32(wc->byte_len);
	e->checksum = htole32(checksum(data, wc->byte_len));
	if (has_imm)
		printf(WHO ": message %d: %u bytes with immediate 0x%08x, payload as expected\n",
				k, wc->byte_len, imm);
	else
		printf(WHO ": message %d: %u bytes without immediate data, payload as expected\n",
				k, wc->byte_len);
	return 0;
}

/*
 * Everything between ESTABLISHED and the summary: the messages in order,
 * then the summary. Returns 0 when all went as the protocol says.
 */
static int
exchange(struct rpma_conn *conn, struct server_mem *mem, struct rpma_mr_local *mr)
{
	struct rpma_cq *cq = NULL, *rcq = NULL;
	struct ibv_wc wc;
	int conn_fd = -1;
	int k, ret;

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_cq(conn, &cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}
	/* no receive CQ was asked for: receives complete on the main CQ */
	ret = rpma_conn_get_rcq(conn, &rcq);
	if (ret) {
		report(WHO, "rpma_conn_get_rcq", ret);
		return 1;
	}
	if (rcq != NULL) {
		fprintf(stderr, WHO ": the connection has a receive CQ nobody asked for\n");
		return 1;
	}

	for (k = 0; k < N_MSGS; k++) {
		/* the client must not hang up before its summary: watch for that */
		if (next_wc(WHO, cq, conn_fd, &wc) || check_message(k, &wc, mem))
			return 1;
	}

	mem->summary.magic = htole32(SUMMARY_MAGIC);
	mem->summary.count = htole32(N_MSGS);
	ret = rpma_send(conn, mr, offsetof(struct server_mem, summary), sizeof(mem->summary),
			RPMA_F_COMPLETION_ALWAYS, OP_SUMMARY);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	/* the client may read the summary and leave before it completes here */
	if (last_send_done(WHO, conn, cq, OP_SUMMARY, IBV_WC_SEND, "the summary"))
		return 1;
	printf(WHO ": summary of %d messages sent\n", N_MSGS);
	return 0;
}

/*
 * Posts a receive per message on req and accepts it; req is consumed in
 * every case. Returns 0 when the client came, sent what the protocol says
 * and left cleanly.
 */
static int
serve(struct rpma_conn_req *req, struct server_mem *mem, struct rpma_mr_local *mr)
{
	struct rpma_conn *conn = NULL;
	int failed = 1;
	int k, ret;

	/*
	 * Before the accept, so each message finds its buffer: a message
	 * without one would stall the client (RNR) until one is posted.
	 */
	for (k = 0; k < N_MSGS; k++) {
		ret = rpma_conn_req_recv(req, mr, offsetof(struct server_mem, slot[k]), SLOT_SIZE,
				mem->slot[k]);
		if (ret) {
			report(WHO, "rpma_conn_req_recv", ret);
			/* deleting a request that was not accepted rejects it */
			teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req),
					&failed);
			return 1;
		}
	}
	printf(WHO ": %d receives of %d bytes posted\n", N_MSGS, SLOT_SIZE);

	if (accept_and_wait(WHO, &req, NULL, CONN_EVENT_TIMEOUT_MS, &conn))
		return 1;
	printf(WHO ": connection established\n");

	/* on a failure, hang up at once: the client's waits end with an error */
	if (exchange(conn, mem, mr))
		goto err_disconnect;

	/* the client has its summary; it is the one who hangs up */
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
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct server_mem *mem = NULL;
	const char *addr, *port;
	int failed = 1;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return 1;
	}
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
	memset(mem->slot, CANARY, sizeof(mem->slot));
	ret = rpma_mr_reg(peer, mem, sizeof(*mem), MEM_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_mr_dereg;
	}
	printf(WHO ": listening on %s:%s, waiting for %d messages\n", addr, port, N_MSGS);

	/* default connection configuration: one CQ for sends and receives */
	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, mem, mr);

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
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
