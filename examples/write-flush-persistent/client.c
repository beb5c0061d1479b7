/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the write-flush-persistent example:
 * connects, learns the server's region and peer configuration from the
 * WELCOME that comes with the accept, applies that configuration to the
 * connection (a flush to persistence is refused until then), and stores
 * RECORDS records in the server's region. Each record goes out as three
 * rpma_write()s with RPMA_F_COMPLETION_ON_ERROR followed by one
 * rpma_flush(RPMA_FLUSH_TYPE_PERSISTENT) with RPMA_F_COMPLETION_ALWAYS:
 * one completion per record, and when it comes the record is durable (on
 * a server with persistent memory; see common.h). Then the client hangs
 * up and the server checks what landed. The protocol is in common.h.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every operation was accepted and completed as expected,
 * 1 on any error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/*
 * The client's memory, one registered region holding the records to write.
 * They sit LOCAL_GAP bytes in, so every write has a local offset other than
 * its remote one (a library mixing them up writes the wrong bytes).
 */
#define LOCAL_GAP	64
struct client_mem {
	uint8_t gap[LOCAL_GAP];
	uint8_t records[RECORDS][RECORD_SIZE];
};

#define CLIENT_USAGE	RPMA_MR_USAGE_WRITE_SRC

/* the op_contexts: plain tags, which must come back as the wr_id */
#define OP_WRITE(r, p)	((const void *)(uintptr_t)(0x3717e000u + (r) * 16 + (p)))
#define OP_FLUSH(r)	((const void *)(uintptr_t)(0xf1a50000u + (r)))

/*
 * A library may carry out a flush natively (an RDMA FLUSH, completion
 * opcode 8, IBV_WC_FLUSH in newer rdma-core headers) or emulate it with an
 * RDMA READ (on rxe it is always emulated). Either completion is right.
 */
#define WC_FLUSH_NATIVE	((enum ibv_wc_opcode)8)

/* what one connection needs along the way */
struct session {
	struct rpma_conn *conn;
	int conn_fd;			/* its event fd: readable once the server hangs up */
	struct rpma_cq *cq;
	struct rpma_mr_local *mr;
	struct client_mem *mem;
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
	int flush_type = 0;
	bool pmem = false;
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
	/* the region itself must allow a flush to persistence */
	ret = rpma_mr_remote_get_flush_type(s->server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		return 1;
	}
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) {
		fprintf(stderr, WHO ": the server's region allows flush types 0x%x, not persistence\n",
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
	if (!pmem) {
		fprintf(stderr, WHO ": the server does not declare direct write to PMem\n");
		return 1;
	}
	printf(WHO ": WELCOME: server region of %zu bytes, flush types 0x%x, direct write to PMem on\n",
			size, flush_type);
	return 0;
}

/*
 * Makes flushes to persistence possible on this connection: shows that
 * one is refused as long as the server's peer configuration is not
 * applied, then applies it. Returns 0 when both went as they should.
 */
static int
apply_server_cfg(struct session *s)
{
	int ret;

	ret = rpma_flush(s->conn, s->server_mr, 0, RECORD_SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, OP_FLUSH(0));
	if (ret != RPMA_E_NOSUPP) {
		fprintf(stderr, WHO ": rpma_flush (persistent) before the peer cfg is applied: %s, expected refusal (RPMA_E_NOSUPP)\n",
				ret ? rpma_err_2str(ret) : "accepted");
		return 1;
	}
	printf(WHO ": rpma_flush to persistence refused before the server's peer cfg is applied\n");

	ret = rpma_conn_apply_remote_peer_cfg(s->conn, s->server_cfg);
	if (ret) {
		report(WHO, "rpma_conn_apply_remote_peer_cfg", ret);
		return 1;
	}
	printf(WHO ": server's peer cfg applied to the connection\n");
	return 0;
}

/*
 * Writes and flushes every record, one record at a time: three writes
 * that make no completion when they succeed, one flush that always does.
 * A connection executes its work requests in order, so the flush's
 * completion covers the writes before it. Returns 0 when every record's
 * completion came as expected.
 */
static int
store_records(struct session *s)
{
	struct ibv_wc wc;
	size_t start, len;
	unsigned r, p;
	int ret;

	for (r = 0; r < RECORDS; r++) {
		size_t local = offsetof(struct client_mem, records[r]);
		size_t remote = (size_t)r * RECORD_SIZE;

		for (p = 0; p < PIECES; p++) {
			start = piece(r, p, &len);
			ret = rpma_write(s->conn, s->server_mr, remote + start, s->mr,
					local + start, len, RPMA_F_COMPLETION_ON_ERROR,
					OP_WRITE(r, p));
			if (ret) {
				report(WHO, "rpma_write", ret);
				return 1;
			}
		}
		ret = rpma_flush(s->conn, s->server_mr, remote, RECORD_SIZE,
				RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, OP_FLUSH(r));
		if (ret) {
			report(WHO, "rpma_flush (persistent)", ret);
			return 1;
		}
		/* the one completion of this record: the flush's, nothing else */
		if (expect_wc(WHO, s->cq, s->conn_fd, OP_FLUSH(r),
				IBV_WC_RDMA_READ, WC_FLUSH_NATIVE, "rpma_flush (persistent)", &wc))
			return 1;
		start = piece(r, 0, &len);
		printf(WHO ": record %u at offset %zu: written as %zu + %zu + %zu bytes, flushed to persistence\n",
				r, remote, len, RECORD_SIZE - start - len, sizeof(struct record_header));
	}

	/* the writes, all unsignalled and successful, left nothing behind */
	ret = rpma_cq_get_wc(s->cq, 1, &wc, NULL);
	if (ret != RPMA_E_NO_COMPLETION) {
		if (ret)
			report(WHO, "rpma_cq_get_wc", ret);
		else
			fprintf(stderr, WHO ": a stray completion (wr_id 0x%llx, status %s) is left in the CQ\n",
					(unsigned long long)wc.wr_id, wc_status_name(wc.status));
		return 1;
	}
	printf(WHO ": %d records stored with %d completions, CQ empty\n", RECORDS, RECORDS);
	return 0;
}

/*
 * Connects, stores the records and hangs up. Returns 0 when every step
 * went as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_mr_local *mr, struct client_mem *mem)
{
	struct session s = { .conn_fd = -1, .mr = mr, .mem = mem };
	struct rpma_conn_cfg *cfg = NULL;
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
	/* the client has nothing to tell the server in its request */
	if (connect_to(WHO, peer, addr, port, cfg, NULL, &s.conn))
		goto out_cfg;
	printf(WHO ": connecting to %s:%s\n", addr, port);

	if (expect_event_within(WHO, s.conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			SESSION_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	ret = rpma_conn_get_event_fd(s.conn, &s.conn_fd);
	if (ret)
		report(WHO, "rpma_conn_get_event_fd", ret);
	else if ((ret = rpma_conn_get_cq(s.conn, &s.cq)))
		report(WHO, "rpma_conn_get_cq", ret);
	/* whatever fails, hang up: the server then ends too */
	else if (!read_welcome(&s) && !apply_server_cfg(&s) && !store_records(&s))
		failed = 0;

	disconnect_and_wait(WHO, s.conn, SESSION_TIMEOUT_MS, &failed);

out_conn_delete:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&s.server_cfg), &failed);
	teardown_step(WHO, "rpma_mr_remote_delete", rpma_mr_remote_delete(&s.server_mr), &failed);
	teardown_step(WHO, "rpma_conn_delete", rpma_conn_delete(&s.conn), &failed);
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
	unsigned r;
	int ret;

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
	memset(mem->gap, 0, sizeof(mem->gap));
	for (r = 0; r < RECORDS; r++)
		build_record(r, mem->records[r]);
	ret = rpma_mr_reg(peer, mem, sizeof(*mem), CLIENT_USAGE, &mr);
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
