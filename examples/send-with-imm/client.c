/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the send-with-imm example: posts a
 * receive for the server's SUMMARY, connects and sends the messages of
 * MSGS[] (common.h) one by one -- with rpma_send_with_imm() and an
 * immediate value of their own, one with plain rpma_send(), one with no
 * payload at all (src NULL, 0 bytes) -- checking each send's completion.
 * Then it checks the SUMMARY: the server must have seen, for every
 * message, the immediate value sent (or none), the length and the payload's
 * checksum. Then it hangs up.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every send completed and the SUMMARY matched, 1 on any
 * error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/* the client's memory: every message's payload, then the summary's place */
struct client_mem {
	uint8_t payload[N_MSGS][MAX_LEN];
	struct summary_msg summary;
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* op_contexts: message k is sent with OP_SEND(k), the summary received with OP_RECV */
#define OP_SEND(k)	((const void *)(uintptr_t)(0x5e00 + (k)))
#define OP_RECV		((const void *)(uintptr_t)0x5ecf)

/* posts message k as MSGS[k] says */
static int
post_message(struct rpma_conn *conn, struct rpma_mr_local *mr, int k)
{
	const struct msg_spec *m = &MSGS[k];
	size_t off = offsetof(struct client_mem, payload[k]);
	int ret;

	if (!m->with_imm) {
		ret = rpma_send(conn, mr, off, m->len, RPMA_F_COMPLETION_ALWAYS, OP_SEND(k));
		if (ret)
			report(WHO, "rpma_send", ret);
	} else if (m->len == 0) {
		/* no payload: no memory region either */
		ret = rpma_send_with_imm(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, m->imm,
				OP_SEND(k));
		if (ret)
			report(WHO, "rpma_send_with_imm (0 bytes)", ret);
	} else {
		ret = rpma_send_with_imm(conn, mr, off, m->len, RPMA_F_COMPLETION_ALWAYS, m->imm,
				OP_SEND(k));
		if (ret)
			report(WHO, "rpma_send_with_imm", ret);
	}
	return ret ? 1 : 0;
}

/* compares the summary with MSGS[]; 0 when the server saw every message right */
static int
check_summary(const struct summary_msg *s, const struct ibv_wc *wc)
{
	int k;

	if (wc->byte_len != sizeof(*s) || (wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": the summary has %u bytes%s, expected %zu and no immediate\n",
				wc->byte_len,
				(wc->wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(*s));
		return 1;
	}
	if (le32toh(s->magic) != SUMMARY_MAGIC || le32toh(s->count) != N_MSGS) {
		fprintf(stderr, WHO ": the summary has a wrong magic number or count (%u)\n",
				le32toh(s->count));
		return 1;
	}
	for (k = 0; k < N_MSGS; k++) {
		const struct summary_entry *e = &s->entry[k];
		const struct msg_spec *m = &MSGS[k];
		bool has_imm = (le32toh(e->flags) & SUMMARY_WITH_IMM) != 0;

		if (has_imm != m->with_imm || le32toh(e->imm) != m->imm ||
				le32toh(e->byte_len) != m->len ||
				le32toh(e->checksum) != expected_checksum(k)) {
			fprintf(stderr, WHO ": the server saw message %d as %s immediate 0x%08x, %u bytes, checksum 0x%08x; sent %s immediate 0x%08x, %u bytes, checksum 0x%08x\n",
					k, has_imm ? "with" : "without", le32toh(e->imm),
					le32toh(e->byte_len), le32toh(e->checksum),
					m->with_imm ? "with" : "without", m->imm, m->len,
					expected_checksum(k));
			return 1;
		}
	}
	printf(WHO ": summary received: the server saw all %d immediates, lengths and payloads as sent\n",
			N_MSGS);
	return 0;
}

/* all messages, then the summary; 0 when everything matched */
static int
exchange(struct rpma_conn *conn, struct rpma_mr_local *mr, struct client_mem *mem)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc[2];
	int conn_fd = -1;
	int k, ret;

	/* the server never hangs up first unless something went wrong */
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

	for (k = 0; k < N_MSGS; k++) {
		if (post_message(conn, mr, k))
			return 1;
		if (k < N_MSGS - 1) {
			if (expect_wc(WHO, cq, conn_fd, OP_SEND(k), IBV_WC_SEND, IBV_WC_SEND,
					"a send", &wc[0]))
				return 1;
		} else {
			/*
			 * The last message makes the server answer: its
			 * summary may complete before the send does.
			 */
			const struct wc_want want[2] = {
				{ OP_SEND(k), IBV_WC_SEND, "the last send" },
				{ OP_RECV, IBV_WC_RECV, "the receive of the summary" },
			};

			if (expect_wcs(WHO, cq, conn_fd, 2, want, wc))
				return 1;
		}
		if (MSGS[k].with_imm)
			printf(WHO ": message %d sent: %u bytes, immediate 0x%08x\n",
					k, MSGS[k].len, MSGS[k].imm);
		else
			printf(WHO ": message %d sent: %u bytes by plain rpma_send\n",
					k, MSGS[k].len);
	}
	return check_summary(&mem->summary, &wc[1]);
}

/*
 * Connects, runs the exchange and hangs up. Returns 0 when everything went
 * as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_mr_local *mr, struct client_mem *mem)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	int failed = 1;
	int ret;

	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		return 1;
	}
	/* a slow (emulated) network may need more than the default second */
	ret = rpma_conn_cfg_set_timeout(cfg, RESOLVE_TIMEOUT_MS);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_timeout", ret);
		goto out_cfg;
	}
	ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		report(WHO, "rpma_conn_req_new", ret);
		goto out_cfg;
	}
	/* posted before connecting: the summary can never come too early */
	ret = rpma_conn_req_recv(req, mr, offsetof(struct client_mem, summary),
			sizeof(mem->summary), OP_RECV);
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req), &failed);
		goto out_cfg;
	}
	ret = rpma_conn_req_connect(&req, NULL, &conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		goto out_cfg;
	}
	printf(WHO ": connecting to %s:%s, a receive for the summary posted\n", addr, port);

	if (expect_event_within(WHO, conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/* whatever fails, hang up: the server then ends too */
	failed = exchange(conn, mr, mem);

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
	int failed = 1;
	int ret, k;
	uint32_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return 1;
	}
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
	for (k = 0; k < N_MSGS; k++)
		for (i = 0; i < MSGS[k].len; i++)
			mem->payload[k][i] = PAYLOAD_BYTE(k, i);
	ret = rpma_mr_reg(peer, mem, sizeof(*mem), MEM_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free;
	}

	failed = talk(peer, addr, port, mr, mem);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
out_free:
	free(mem);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
