/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the persist-on-request example: a
 * server that makes a client's writes durable when asked to. It exposes a
 * 32 KiB buffer for RDMA writes, tells the client in the accept that RDMA
 * writes alone do not reach persistence (no direct write to PMem), and
 * then serves PERSIST requests that come as messages: for each it checks
 * the range holds what the client wrote, persists it and answers with a
 * DONE message carrying the range's checksum. After the last request and
 * the client's hang-up it checks the whole buffer once more. The protocol
 * is described in common.h.
 *
 * usage: server <addr> <port> [--shared-channel]
 *
 * --shared-channel: the connection's main and receive CQs share one
 * completion channel, waited on with rpma_conn_wait().
 *
 * Exits 0 when every request was sound, every range held what it should
 * and the client left cleanly, 1 on any error, mismatch, or when no client
 * came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* the server's message memory: the receive slot and the answer */
struct server_msgs {
	uint8_t slot[SLOT_SIZE];
	struct done_msg done;
};

#define MSGS_USAGE	(RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND)
#define SLOT_OFF	offsetof(struct server_msgs, slot)
#define DONE_OFF	offsetof(struct server_msgs, done)

/*
 * Handles request k: checks it is the one the protocol says comes now and
 * that its range holds the client's data, and persists the range.
 * Returns the status for the answer; *sum is the range's checksum (0 when
 * the request itself is bad).
 */
static enum persist_status
handle_request(const struct persist_req *req, int k, const uint8_t *buf, uint32_t *sum)
{
	uint32_t seq = le32toh(req->seq);
	uint64_t offset = le64toh(req->offset);
	uint64_t length = le64toh(req->length);
	uint64_t pos;

	*sum = 0;
	if (le32toh(req->magic) != PERSIST_MAGIC) {
		fprintf(stderr, WHO ": request %d has a wrong magic number\n", k);
		return PERSIST_BAD_REQUEST;
	}
	if (seq != SEQ(k)) {
		fprintf(stderr, WHO ": request %d has sequence number 0x%08x, expected 0x%08x\n",
				k, seq, SEQ(k));
		return PERSIST_BAD_REQUEST;
	}
	/* written so that no sum can overflow */
	if (length == 0 || offset > SERVER_BUF_SIZE || length > SERVER_BUF_SIZE - offset) {
		fprintf(stderr, WHO ": request %d asks for %llu bytes at %llu, outside the buffer\n",
				k, (unsigned long long)length, (unsigned long long)offset);
		return PERSIST_BAD_REQUEST;
	}
	if (offset != ROUNDS[k].offset || length != ROUNDS[k].length) {
		fprintf(stderr, WHO ": request %d asks for %llu bytes at %llu, the protocol says %zu at %zu\n",
				k, (unsigned long long)length, (unsigned long long)offset,
				ROUNDS[k].length, ROUNDS[k].offset);
		return PERSIST_BAD_REQUEST;
	}

	/* the write came before the request on one connection: it is all there */
	for (pos = offset; pos < offset + length; pos++) {
		if (buf[pos] != DATA_BYTE(seq, pos)) {
			fprintf(stderr, WHO ": request %d: byte %llu is 0x%02x, the client wrote 0x%02x\n",
					k, (unsigned long long)pos, buf[pos], DATA_BYTE(seq, pos));
			*sum = checksum(buf + offset, length);
			return PERSIST_BAD_DATA;
		}
	}

	/*
	 * Persisting. A server whose buffer is mapped from PMem makes the range
	 * durable here, before it answers -- pmem_persist(buf + offset, length)
	 * with libpmem, or the persist function libpmem2 hands out -- since the
	 * answer is what tells the client its data is safe. This machine has
	 * no PMem and the buffer is DRAM, so there is nothing to flush: the
	 * range was checked above and its checksum goes into the answer.
	 */
	*sum = checksum(buf + offset, length);
	return PERSIST_OK;
}

/*
 * All NROUNDS requests: take request k (and the completion of the answer
 * to k-1, whichever comes first), post the receive for request k+1 so it
 * is there before the client can send it, handle k and answer it.
 * Returns 0 when every request was sound and every answer went out.
 */
static int
rounds(struct waiter *w, int conn_fd, const uint8_t *buf, struct server_msgs *msgs,
		struct rpma_mr_local *msgs_mr)
{
	struct awaited ops[2];
	struct persist_req req;
	enum persist_status status;
	uint32_t sum = 0;
	int k, n, ret;

	for (k = 0; k < NROUNDS; k++) {
		memset(ops, 0, sizeof(ops));
		ops[0].op_context = OP_RECV(k);
		ops[0].opcode = IBV_WC_RECV;
		ops[0].what = "the receive of a request";
		n = 1;
		if (k > 0) {
			ops[1].op_context = OP_SEND(k - 1);
			ops[1].opcode = IBV_WC_SEND;
			ops[1].what = "rpma_send (answer)";
			n = 2;
		}
		/* the client does not hang up while a request is due */
		if (await_all(WHO, w, conn_fd, ops, n))
			return 1;
		if (ops[0].wc.byte_len != sizeof(req) || (ops[0].wc.wc_flags & IBV_WC_WITH_IMM)) {
			fprintf(stderr, WHO ": request %d has %u bytes%s, expected %zu and no immediate\n",
					k, ops[0].wc.byte_len,
					(ops[0].wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
					sizeof(req));
			return 1;
		}
		memcpy(&req, msgs->slot, sizeof(req));

		/* the slot is free again: the next request may land in it */
		if (k + 1 < NROUNDS) {
			ret = rpma_recv(w->conn, msgs_mr, SLOT_OFF, SLOT_SIZE, OP_RECV(k + 1));
			if (ret) {
				report(WHO, "rpma_recv", ret);
				return 1;
			}
		}

		status = handle_request(&req, k, buf, &sum);

		/* even a refusal is answered, so the client learns why */
		msgs->done.magic = htole32(DONE_MAGIC);
		msgs->done.seq = req.seq;
		msgs->done.status = htole32(status);
		msgs->done.checksum = htole32(sum);
		ret = rpma_send(w->conn, msgs_mr, DONE_OFF, sizeof(msgs->done),
				RPMA_F_COMPLETION_ALWAYS, OP_SEND(k));
		if (ret) {
			report(WHO, "rpma_send", ret);
			return 1;
		}
		if (status != PERSIST_OK) {
			/* let the answer go out before hanging up */
			memset(ops, 0, sizeof(ops));
			ops[0].op_context = OP_SEND(k);
			ops[0].opcode = IBV_WC_SEND;
			ops[0].what = "rpma_send (answer)";
			(void) await_all(WHO, w, -1, ops, 1);
			fprintf(stderr, WHO ": request %d answered with %s\n", k,
					status_name(status));
			return 1;
		}
		printf(WHO ": request %d (seq 0x%08x): %zu bytes at offset %zu checked and persisted, checksum 0x%08x, answered\n",
				k, SEQ(k), ROUNDS[k].length, ROUNDS[k].offset, sum);
	}

	/*
	 * The last answer. The client may read it and hang up before this side
	 * has seen the send complete.
	 */
	memset(ops, 0, sizeof(ops));
	ops[0].op_context = OP_SEND(NROUNDS - 1);
	ops[0].opcode = IBV_WC_SEND;
	ops[0].what = "rpma_send (last answer)";
	if (await_all(WHO, w, conn_fd, ops, 1))
		return hung_up_meanwhile(WHO, w->conn, "the last answer");
	return 0;
}

/* Checks the whole buffer against what all rounds must have left in it. */
static int
check_buffer(const uint8_t *buf)
{
	size_t pos;

	for (pos = 0; pos < SERVER_BUF_SIZE; pos++) {
		if (buf[pos] != expected_byte(pos, NROUNDS)) {
			fprintf(stderr, WHO ": buffer byte %zu is 0x%02x, expected 0x%02x\n",
					pos, buf[pos], expected_byte(pos, NROUNDS));
			return 1;
		}
	}
	printf(WHO ": the whole buffer holds what the %d requests said, nothing else changed\n",
			NROUNDS);
	return 0;
}

/*
 * Runs one connection from request to close. req is consumed in every
 * case. Returns 0 when the client came, every request was served and the
 * client left cleanly.
 */
static int
serve(struct rpma_conn_req *req, const struct welcome_msg *welcome, bool shared,
		const uint8_t *buf, struct server_msgs *msgs, struct rpma_mr_local *msgs_mr)
{
	struct rpma_conn_private_data pdata;
	struct rpma_conn *conn = NULL;
	struct waiter w;
	int conn_fd = -1;
	int failed = 1;
	int ret;

	/* the first request may follow the accept at once: be ready for it */
	ret = rpma_conn_req_recv(req, msgs_mr, SLOT_OFF, SLOT_SIZE, OP_RECV(0));
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		/* deleting a request that was not accepted rejects it */
		teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req), &failed);
		return 1;
	}

	/* the library only reads the accept data, the cast drops const for the API */
	pdata.ptr = (void *)welcome;
	pdata.len = sizeof(*welcome);
	if (accept_and_wait(WHO, &req, &pdata, CONN_EVENT_TIMEOUT_MS, &conn))
		return 1;
	printf(WHO ": connection established, WELCOME sent, first receive posted\n");

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		goto err_disconnect;
	}
	if (waiter_init(WHO, conn, shared, &w))
		goto err_disconnect;
	if (shared)
		printf(WHO ": main and receive CQ share one completion channel\n");

	/* on a failure, hang up at once: the client's waits end with an error */
	if (rounds(&w, conn_fd, buf, msgs, msgs_mr))
		goto err_disconnect;

	/* the client has all its answers; it is the one who hangs up */
	if (expect_event_within(WHO, conn, RPMA_CONN_CLOSED, "CLOSED", CONN_EVENT_TIMEOUT_MS))
		goto err_disconnect;
	printf(WHO ": the client closed the connection\n");
	if (shared)
		printf(WHO ": rpma_conn_wait reported %u events for the main CQ, %u for the receive CQ\n",
				w.events[0], w.events[1]);

	/* nothing may arrive any more: the final state can be judged */
	if (check_buffer(buf) == 0)
		failed = 0;

err_disconnect:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(WHO, &conn, &failed);
	return failed;
}

/*
 * Fills *msg with the descriptors of mr and pcfg. Returns 0, a librpma
 * error code, or RPMA_E_INVAL when they do not fit (*what names the step).
 */
static int
pack_welcome(struct welcome_msg *msg, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, const char **what)
{
	size_t mr_size = 0, pcfg_size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor_size";
	ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
	if (ret)
		return ret;
	/* both sizes come from the library: never trust them to fit blindly */
	*what = "fitting the descriptors into the WELCOME";
	if (mr_size + pcfg_size > sizeof(msg->descriptors))
		return RPMA_E_INVAL;
	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptors);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor";
	ret = rpma_peer_cfg_get_descriptor(pcfg, msg->descriptors + mr_size);
	if (ret)
		return ret;
	msg->magic = htole32(WELCOME_MAGIC);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)mr_size;
	msg->pcfg_desc_size = (uint8_t)pcfg_size;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_mr_local *mr = NULL, *msgs_mr = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct server_msgs *msgs = NULL;
	struct welcome_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
	bool shared;
	int failed = 1;
	size_t pos;
	int ret;

	if (parse_args(argc, argv, &shared)) {
		fprintf(stderr, "usage: %s <addr> <port> [--shared-channel]\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* line by line even into a file: a script waits for "listening" */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is this host's own: the device is the one that has it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer))
		return 1;

	/* the buffer a PMem server would map from a PMem file; here DRAM */
	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_peer_delete;
	for (pos = 0; pos < SERVER_BUF_SIZE; pos++)
		buf[pos] = PATTERN_BYTE(pos);
	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (buffer)", ret);
		goto err_free_buf;
	}

	/* where requests arrive and answers leave from */
	msgs = page_alloc(WHO, sizeof(*msgs));
	if (msgs == NULL)
		goto err_mr_dereg;
	memset(msgs, 0, sizeof(*msgs));
	ret = rpma_mr_reg(peer, msgs, sizeof(*msgs), MSGS_USAGE, &msgs_mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (messages)", ret);
		goto err_free_msgs;
	}

	/* the client learns from this that it has to ask for persistence */
	ret = rpma_peer_cfg_new(&pcfg);
	if (ret) {
		report(WHO, "rpma_peer_cfg_new", ret);
		goto err_msgs_mr_dereg;
	}
	ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, SERVER_DIRECT_WRITE_TO_PMEM);
	if (ret) {
		report(WHO, "rpma_peer_cfg_set_direct_write_to_pmem", ret);
		goto err_pcfg_delete;
	}
	ret = pack_welcome(&welcome, mr, pcfg, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_pcfg_delete;
	}

	if (make_conn_cfg(WHO, shared, 0, &cfg))
		goto err_pcfg_delete;

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_cfg_delete;
	}
	printf(WHO ": listening on %s:%s, %d byte region registered%s\n", addr, port,
			SERVER_BUF_SIZE, shared ? ", shared completion channel" : "");

	/* the request's connection is built with cfg */
	if (next_request(WHO, ep, cfg, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, &welcome, shared, buf, msgs, msgs_mr);

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_cfg_delete:
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
err_pcfg_delete:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&pcfg), &failed);
err_msgs_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (messages)", rpma_mr_dereg(&msgs_mr), &failed);
err_free_msgs:
	free(msgs);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (buffer)", rpma_mr_dereg(&mr), &failed);
err_free_buf:
	free(buf);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
