/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the atomic-write example: connects,
 * learns the server's log region from the WELCOME that comes with the
 * accept, checks that the log is empty and appends ENTRIES entries to it.
 * Each append is:
 *  - rpma_write of the entry right after the used part of the log
 *    (RPMA_F_COMPLETION_ON_ERROR) and rpma_flush of it to visibility
 *    (RPMA_F_COMPLETION_ALWAYS): once the flush completes, the entry is
 *    in the server's memory;
 *  - only then rpma_atomic_write of the new "used" counter, 8 bytes at an
 *    aligned offset, so a reader never sees it half-written and never sees
 *    it cover an entry that is not complete;
 *  - rpma_flush of the counter (unsignalled) and rpma_read of it, which
 *    must give back the value just written.
 * Then the client hangs up and the server reads the log. The protocol is
 * in common.h.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every operation completed as expected and every counter
 * read back was right, 1 on any error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/*
 * The client's memory, one registered region: the entries to append, each
 * in a slot of its own, and the landing place of the counter's read-back.
 * The value of an atomic write comes from anywhere: it needs no region.
 */
struct client_mem {
	uint8_t entries[ENTRIES][MAX_ENTRY_LEN];
	uint8_t counter[COUNTER_LEN];
};

#define CLIENT_USAGE	(RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST)

/* the op_contexts: plain tags, which must come back as the wr_id */
enum op_tag {
	TAG_WRITE = 0xa0,
	TAG_FLUSH_ENTRY,
	TAG_ATOMIC_WRITE,
	TAG_FLUSH_COUNTER,
	TAG_READ_COUNTER,
};
#define OP(tag, k)	((const void *)(uintptr_t)(((uintptr_t)(tag) << 8) | (k)))

/*
 * A library may carry out a flush natively (an RDMA FLUSH, completion
 * opcode 8, IBV_WC_FLUSH in newer rdma-core headers) or emulate it with an
 * RDMA READ; an atomic write natively (IBV_WC_ATOMIC_WRITE) or as a fenced
 * 8-byte RDMA WRITE. On rxe both are emulated. Either completion is right.
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
};

/*
 * Reads the WELCOME the server sent with its accept into s->server_mr and
 * checks it against the protocol. Returns 0 when it matches.
 */
static int
read_welcome(struct session *s)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	struct welcome_msg msg;
	size_t size = 0;
	int flush_type = 0;
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
	if (msg.mr_desc_size == 0 || msg.mr_desc_size > sizeof(msg.descriptors) ||
			msg.pcfg_desc_size != 0) {
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
	ret = rpma_mr_remote_get_flush_type(s->server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		return 1;
	}
	if (flush_type != RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) {
		fprintf(stderr, WHO ": the server's region allows flush types 0x%x, expected visibility (0x%x) only\n",
				flush_type, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
		return 1;
	}
	printf(WHO ": WELCOME: server log region of %zu bytes, flush to visibility\n", size);
	return 0;
}

/*
 * Reads the counter into the client's memory (after an unsignalled flush
 * of it when flush_first) and checks it equals want. tag_k tells the
 * operations apart in the wr_ids. Returns 0 when it does.
 */
static int
check_counter(struct session *s, bool flush_first, uint64_t want, unsigned tag_k)
{
	struct client_mem *m = s->mem;
	struct ibv_wc wc;
	uint64_t got;
	int ret;

	if (flush_first) {
		/* no completion of its own: the read after it completes later */
		ret = rpma_flush(s->conn, s->server_mr, COUNTER_OFFSET, COUNTER_LEN,
				RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ON_ERROR,
				OP(TAG_FLUSH_COUNTER, tag_k));
		if (ret) {
			report(WHO, "rpma_flush (counter)", ret);
			return 1;
		}
	}
	/* anything but the right value: a read that does not land shows */
	memset(m->counter, 0xff, sizeof(m->counter));
	ret = rpma_read(s->conn, s->mr, offsetof(struct client_mem, counter), s->server_mr,
			COUNTER_OFFSET, COUNTER_LEN, RPMA_F_COMPLETION_ALWAYS,
			OP(TAG_READ_COUNTER, tag_k));
	if (ret) {
		report(WHO, "rpma_read (counter)", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_READ_COUNTER, tag_k),
			IBV_WC_RDMA_READ, IBV_WC_RDMA_READ, "rpma_read (counter)", &wc))
		return 1;
	memcpy(&got, m->counter, sizeof(got));
	got = le64toh(got);
	if (got != want) {
		fprintf(stderr, WHO ": the counter reads %llu, expected %llu\n",
				(unsigned long long)got, (unsigned long long)want);
		return 1;
	}
	return 0;
}

/*
 * Appends entry k at log offset used: write, flush, wait; atomic write of
 * the counter, wait; flush and read back of the counter. Returns 0 when
 * every step completed as expected.
 */
static int
append(struct session *s, unsigned k, size_t used)
{
	size_t len = ENTRY_LEN(k);
	size_t at = LOG_OFFSET + used;
	uint64_t counter = used + len, wire;
	char src[COUNTER_LEN];
	struct ibv_wc wc;
	int ret;

	ret = rpma_write(s->conn, s->server_mr, at, s->mr,
			offsetof(struct client_mem, entries[k]), len,
			RPMA_F_COMPLETION_ON_ERROR, OP(TAG_WRITE, k));
	if (ret) {
		report(WHO, "rpma_write", ret);
		return 1;
	}
	ret = rpma_flush(s->conn, s->server_mr, at, len, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_FLUSH_ENTRY, k));
	if (ret) {
		report(WHO, "rpma_flush (entry)", ret);
		return 1;
	}
	/* the flush completes after the write before it: the entry is there */
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_FLUSH_ENTRY, k),
			IBV_WC_RDMA_READ, WC_FLUSH_NATIVE, "rpma_flush (entry)", &wc))
		return 1;

	/* only now may the counter cover the entry */
	wire = htole64(counter);
	memcpy(src, &wire, sizeof(src));
	ret = rpma_atomic_write(s->conn, s->server_mr, COUNTER_OFFSET, src,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_ATOMIC_WRITE, k));
	if (ret) {
		report(WHO, "rpma_atomic_write", ret);
		return 1;
	}
	/* the library took the 8 bytes when posting: src may change now */
	memset(src, 0, sizeof(src));
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_ATOMIC_WRITE, k),
			IBV_WC_RDMA_WRITE, IBV_WC_ATOMIC_WRITE, "rpma_atomic_write", &wc))
		return 1;

	if (check_counter(s, true, counter, k))
		return 1;
	printf(WHO ": entry %u: %zu bytes appended at log offset %zu, flushed; counter atomically set to %llu and read back\n",
			k, len, used, (unsigned long long)counter);
	return 0;
}

/*
 * Checks the log is empty, appends every entry and checks the CQ holds
 * nothing more. Returns 0 when all went as the protocol says.
 */
static int
append_all(struct session *s)
{
	struct ibv_wc wc;
	size_t used = 0;
	unsigned k;
	int ret;

	/* a fresh log: nothing used yet */
	if (check_counter(s, false, 0, 0xff))
		return 1;
	printf(WHO ": the log is empty (counter 0)\n");

	for (k = 0; k < ENTRIES; k++) {
		if (append(s, k, used))
			return 1;
		used += ENTRY_LEN(k);
	}
	if (used != log_used(ENTRIES) || used > LOG_SIZE) {
		fprintf(stderr, WHO ": %zu bytes used, the protocol says %zu\n",
				used, log_used(ENTRIES));
		return 1;
	}

	/* the unsignalled writes and flushes succeeded: they left nothing behind */
	ret = rpma_cq_get_wc(s->cq, 1, &wc, NULL);
	if (ret != RPMA_E_NO_COMPLETION) {
		if (ret)
			report(WHO, "rpma_cq_get_wc", ret);
		else
			fprintf(stderr, WHO ": a stray completion (wr_id 0x%llx, status %s) is left in the CQ\n",
					(unsigned long long)wc.wr_id, wc_status_name(wc.status));
		return 1;
	}
	printf(WHO ": %d entries appended, %zu log bytes used, CQ empty\n", ENTRIES, used);
	return 0;
}

/*
 * Connects, appends and hangs up. Returns 0 when every step went as the
 * protocol says and the connection closed cleanly.
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
	else if (!read_welcome(&s) && !append_all(&s))
		failed = 0;

	disconnect_and_wait(WHO, s.conn, SESSION_TIMEOUT_MS, &failed);

out_conn_delete:
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
	unsigned k;
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
	memset(mem, 0, sizeof(*mem));
	for (k = 0; k < ENTRIES; k++)
		build_entry(k, mem->entries[k]);
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
