/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the persist-on-request example: connects,
 * learns the server's buffer and peer configuration from the WELCOME that
 * comes with the accept, applies that configuration and sees that a
 * remote flush to persistence is refused (the server does not take direct
 * writes to PMem). So for each of NROUNDS ranges it writes the data with
 * rpma_write (a completion only on error), asks the server with a PERSIST
 * message to make the range durable, and checks the DONE answer: its
 * sequence number, status and the checksum of the range as the server
 * holds it. Then it hangs up. The protocol is described in common.h.
 *
 * usage: client <addr> <port> [--shared-channel]
 *
 * --shared-channel: the connection's main and receive CQs share one
 * completion channel, waited on with rpma_conn_wait().
 *
 * Exits 0 when every range was persisted and every answer matched, 1 on
 * any error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/* the client's message memory: the request and the answer's slot */
struct client_msgs {
	struct persist_req req;
	uint8_t slot[SLOT_SIZE];
};

#define DATA_USAGE	RPMA_MR_USAGE_WRITE_SRC
#define MSGS_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
#define REQ_OFF		offsetof(struct client_msgs, req)
#define SLOT_OFF	offsetof(struct client_msgs, slot)

/* an op_context for the flush that must be refused */
#define OP_FLUSH	((const void *)(uintptr_t)0xf1u)

/* what one connection needs along the way */
struct session {
	struct rpma_conn *conn;
	int conn_fd;			/* its event fd: readable once the server hangs up */
	struct waiter w;
	uint8_t *data;			/* the source of the writes, laid out like the server's buffer */
	struct rpma_mr_local *data_mr;
	struct client_msgs *msgs;
	struct rpma_mr_local *msgs_mr;
	struct rpma_mr_remote *server_mr;
	struct rpma_peer_cfg *server_cfg;
};

/*
 * Reads the WELCOME the server sent with its accept into s->server_mr and
 * s->server_cfg and checks them against the protocol. Returns 0 when they
 * match; what was created is in s either way.
 */
static int
read_welcome(struct session *s)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	struct welcome_msg msg;
	size_t size = 0;
	int flush_type = -1;
	bool pmem = true;
	int ret;

	/* valid only now: the library keeps what came with ESTABLISHED */
	ret = rpma_conn_get_private_data(s->conn, &pdata);
	if (ret) {
		report(WHO, "rpma_conn_get_private_data", ret);
		return 1;
	}
	/* IB and RoCE hand over the whole private data area, zero padded: >= */
	if (pdata.ptr == NULL || pdata.len < sizeof(msg)) {
		fprintf(stderr, WHO ": bad WELCOME: %u bytes of private data\n", pdata.len);
		return 1;
	}
	memcpy(&msg, pdata.ptr, sizeof(msg));
	if (le32toh(msg.magic) != WELCOME_MAGIC || le16toh(msg.version) != PROTO_VERSION) {
		fprintf(stderr, WHO ": bad WELCOME: wrong magic number or version\n");
		return 1;
	}
	if (msg.mr_desc_size == 0 || msg.pcfg_desc_size == 0 ||
			msg.mr_desc_size + msg.pcfg_desc_size > sizeof(msg.descriptors)) {
		fprintf(stderr, WHO ": bad WELCOME: descriptor sizes %u and %u\n",
				msg.mr_desc_size, msg.pcfg_desc_size);
		return 1;
	}

	ret = rpma_mr_remote_from_descriptor(msg.descriptors, msg.mr_desc_size, &s->server_mr);
	if (ret) {
		report(WHO, "rpma_mr_remote_from_descriptor", ret);
		return 1;
	}
	ret = rpma_mr_remote_get_size(s->server_mr, &size);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_size", ret);
		return 1;
	}
	if (size != SERVER_BUF_SIZE) {
		fprintf(stderr, WHO ": the server's region has %zu bytes, the protocol says %d\n",
				size, SERVER_BUF_SIZE);
		return 1;
	}
	/* the region takes writes only: no remote flush of either kind */
	ret = rpma_mr_remote_get_flush_type(s->server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		return 1;
	}
	if (flush_type != 0) {
		fprintf(stderr, WHO ": the server's region claims flush types 0x%x, it was registered with none\n",
				flush_type);
		return 1;
	}

	ret = rpma_peer_cfg_from_descriptor(msg.descriptors + msg.mr_desc_size,
			msg.pcfg_desc_size, &s->server_cfg);
	if (ret) {
		report(WHO, "rpma_peer_cfg_from_descriptor", ret);
		return 1;
	}
	ret = rpma_peer_cfg_get_direct_write_to_pmem(s->server_cfg, &pmem);
	if (ret) {
		report(WHO, "rpma_peer_cfg_get_direct_write_to_pmem", ret);
		return 1;
	}
	if (pmem != SERVER_DIRECT_WRITE_TO_PMEM) {
		fprintf(stderr, WHO ": the server says direct write to PMem is %s, the protocol says %s\n",
				pmem ? "on" : "off", SERVER_DIRECT_WRITE_TO_PMEM ? "on" : "off");
		return 1;
	}
	printf(WHO ": WELCOME: server region of %zu bytes, no remote flush, direct write to PMem off\n",
			size);
	return 0;
}

/*
 * What a PMem client does with the server's peer configuration: apply it,
 * and find out that rpma_flush() cannot make writes persistent here. The
 * refusal comes before anything is posted, so no completion follows it.
 */
static int
no_remote_persistence(struct session *s)
{
	int ret;

	ret = rpma_conn_apply_remote_peer_cfg(s->conn, s->server_cfg);
	if (ret) {
		report(WHO, "rpma_conn_apply_remote_peer_cfg", ret);
		return 1;
	}
	ret = rpma_flush(s->conn, s->server_mr, ROUNDS[0].offset, ROUNDS[0].length,
			RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, OP_FLUSH);
	if (ret != RPMA_E_NOSUPP) {
		fprintf(stderr, WHO ": rpma_flush (persistent) to this server: %s, expected refusal (RPMA_E_NOSUPP)\n",
				ret ? rpma_err_2str(ret) : "accepted");
		return 1;
	}
	printf(WHO ": server's peer cfg applied, rpma_flush to persistence refused: the server is asked instead\n");
	return 0;
}

/*
 * Round k: the receive for the answer, the write, the request; then both
 * completions (the send's and the answer's, in either order) and the
 * answer's contents. Returns 0 when the server persisted exactly what was
 * written.
 */
static int
round_trip(struct session *s, int k)
{
	size_t offset = ROUNDS[k].offset, length = ROUNDS[k].length, pos;
	struct persist_req *req = &s->msgs->req;
	struct awaited ops[2];
	struct done_msg done;
	uint32_t want_sum;
	int ret;

	for (pos = offset; pos < offset + length; pos++)
		s->data[pos] = DATA_BYTE(SEQ(k), pos);
	want_sum = checksum(s->data + offset, length);

	/* the answer may come any time after the request: receive first */
	memset(s->msgs->slot, 0, sizeof(s->msgs->slot));
	ret = rpma_recv(s->conn, s->msgs_mr, SLOT_OFF, SLOT_SIZE, OP_RECV(k));
	if (ret) {
		report(WHO, "rpma_recv", ret);
		return 1;
	}

	/*
	 * No completion unless it fails: the send below is signaled, and on
	 * one RC connection its completion means the write is done too.
	 */
	ret = rpma_write(s->conn, s->server_mr, offset, s->data_mr, offset, length,
			RPMA_F_COMPLETION_ON_ERROR, OP_WRITE(k));
	if (ret) {
		report(WHO, "rpma_write", ret);
		return 1;
	}

	req->magic = htole32(PERSIST_MAGIC);
	req->seq = htole32(SEQ(k));
	req->offset = htole64(offset);
	req->length = htole64(length);
	ret = rpma_send(s->conn, s->msgs_mr, REQ_OFF, sizeof(*req), RPMA_F_COMPLETION_ALWAYS,
			OP_SEND(k));
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}

	memset(ops, 0, sizeof(ops));
	ops[0].op_context = OP_SEND(k);
	ops[0].opcode = IBV_WC_SEND;
	ops[0].what = "rpma_send (PERSIST request)";
	ops[1].op_context = OP_RECV(k);
	ops[1].opcode = IBV_WC_RECV;
	ops[1].what = "rpma_recv (DONE answer)";
	if (await_all(WHO, &s->w, s->conn_fd, ops, 2))
		return 1;

	if (ops[1].wc.byte_len != sizeof(done) || (ops[1].wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": answer %d has %u bytes%s, expected %zu and no immediate\n",
				k, ops[1].wc.byte_len,
				(ops[1].wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(done));
		return 1;
	}
	memcpy(&done, s->msgs->slot, sizeof(done));
	if (le32toh(done.magic) != DONE_MAGIC) {
		fprintf(stderr, WHO ": answer %d has a wrong magic number\n", k);
		return 1;
	}
	if (le32toh(done.seq) != SEQ(k)) {
		fprintf(stderr, WHO ": answer %d has sequence number 0x%08x, expected 0x%08x\n",
				k, le32toh(done.seq), SEQ(k));
		return 1;
	}
	if (le32toh(done.status) != PERSIST_OK) {
		fprintf(stderr, WHO ": the server refused request %d: %s (%u)\n", k,
				status_name(le32toh(done.status)), le32toh(done.status));
		return 1;
	}
	if (le32toh(done.checksum) != want_sum) {
		fprintf(stderr, WHO ": the server holds range %d with checksum 0x%08x, written was 0x%08x\n",
				k, le32toh(done.checksum), want_sum);
		return 1;
	}
	printf(WHO ": round %d: %zu bytes written at offset %zu and persisted (seq 0x%08x, checksum 0x%08x)\n",
			k, length, offset, SEQ(k), want_sum);
	return 0;
}

/* The steps between ESTABLISHED and the hang-up; 0 when all went well. */
static int
exchange(struct session *s, bool shared)
{
	int ret, k;

	/* the server never hangs up first unless something went wrong */
	ret = rpma_conn_get_event_fd(s->conn, &s->conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	if (waiter_init(WHO, s->conn, shared, &s->w))
		return 1;
	if (shared)
		printf(WHO ": main and receive CQ share one completion channel\n");
	if (read_welcome(s) || no_remote_persistence(s))
		return 1;
	for (k = 0; k < NROUNDS; k++) {
		if (round_trip(s, k))
			return 1;
	}
	printf(WHO ": all %d ranges persisted by the server\n", NROUNDS);
	if (shared)
		printf(WHO ": rpma_conn_wait reported %u events for the main CQ, %u for the receive CQ\n",
				s->w.events[0], s->w.events[1]);
	return 0;
}

/*
 * Connects, runs the exchange and hangs up. Returns 0 when every step went
 * as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port, bool shared,
		struct session *s)
{
	struct rpma_conn_cfg *cfg = NULL;
	int failed = 1;

	if (make_conn_cfg(WHO, shared, RESOLVE_TIMEOUT_MS, &cfg))
		return 1;
	/* the client has nothing to tell the server in its request */
	if (connect_to(WHO, peer, addr, port, cfg, NULL, &s->conn))
		goto out_cfg;
	printf(WHO ": connecting to %s:%s\n", addr, port);

	if (expect_event_within(WHO, s->conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/* whatever fails, hang up: the server then ends too */
	failed = exchange(s, shared);

	disconnect_and_wait(WHO, s->conn, CONN_EVENT_TIMEOUT_MS, &failed);

out_conn_delete:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&s->server_cfg), &failed);
	teardown_step(WHO, "rpma_mr_remote_delete", rpma_mr_remote_delete(&s->server_mr), &failed);
	teardown_step(WHO, "rpma_conn_delete", rpma_conn_delete(&s->conn), &failed);
out_cfg:
	/* the request took a copy of the configuration, it may go any time */
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
	return failed;
}

int
main(int argc, char *argv[])
{
	struct session s = { .conn_fd = -1 };
	struct rpma_peer *peer = NULL;
	const char *addr, *port;
	bool shared;
	int failed = 1;
	int ret;

	if (parse_args(argc, argv, &shared)) {
		fprintf(stderr, "usage: %s <addr> <port> [--shared-channel]\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* keep stdout and stderr in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is the server's: the device is the one that reaches it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;

	s.data = page_alloc(WHO, SERVER_BUF_SIZE);
	if (s.data == NULL)
		goto out_peer_delete;
	memset(s.data, 0, SERVER_BUF_SIZE);
	ret = rpma_mr_reg(peer, s.data, SERVER_BUF_SIZE, DATA_USAGE, &s.data_mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (data)", ret);
		goto out_free_data;
	}

	s.msgs = page_alloc(WHO, sizeof(*s.msgs));
	if (s.msgs == NULL)
		goto out_data_mr_dereg;
	memset(s.msgs, 0, sizeof(*s.msgs));
	ret = rpma_mr_reg(peer, s.msgs, sizeof(*s.msgs), MSGS_USAGE, &s.msgs_mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (messages)", ret);
		goto out_free_msgs;
	}

	failed = talk(peer, addr, port, shared, &s);

	teardown_step(WHO, "rpma_mr_dereg (messages)", rpma_mr_dereg(&s.msgs_mr), &failed);
out_free_msgs:
	free(s.msgs);
out_data_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (data)", rpma_mr_dereg(&s.data_mr), &failed);
out_free_data:
	free(s.data);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
