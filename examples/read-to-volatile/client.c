/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the read-to-volatile example: connects,
 * learns the server's region from the WELCOME that comes with the accept
 * and copies the whole region into its own volatile memory with rpma_read,
 * in chunks of different sizes taken in no particular order. One chunk is
 * posted with RPMA_F_COMPLETION_ON_ERROR, so it makes no completion of its
 * own: the completion of the signalled read posted after it tells that
 * both are done, because a connection completes its work requests in the
 * order they were posted. Each chunk is checked byte by byte once its
 * completion (or a later one) came, then the whole copy; then the client
 * hangs up. The protocol is in common.h.
 *
 * The destination is ordinary memory, read by this process only: a read
 * is complete once the completion says so, nothing needs flushing.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every byte read matches the server's region, 1 on any
 * error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/*
 * The client's memory, one registered region: the copy of the server's
 * region between two guard areas, which no read may touch. The copy sits
 * GUARD_SIZE bytes in, so every read has a local offset other than its
 * remote one (a library mixing them up lands in the wrong place).
 */
#define GUARD_SIZE	64
#define GUARD_BYTE	0x6b
struct client_mem {
	uint8_t guard_lo[GUARD_SIZE];
	uint8_t copy[SERVER_BUF_SIZE];
	uint8_t guard_hi[GUARD_SIZE];
};

#define CLIENT_USAGE	RPMA_MR_USAGE_READ_DST

/*
 * The reads, in the order they are posted. Together they cover the server's
 * region exactly once. A chunk with RPMA_F_COMPLETION_ALWAYS is waited for
 * at once; one with RPMA_F_COMPLETION_ON_ERROR is not, and is checked
 * together with the next signalled one.
 */
struct chunk {
	size_t offset;		/* in the server's region */
	size_t len;
	int flags;
	const char *what;
};

static const struct chunk CHUNKS[] = {
	{ 8120, 72, RPMA_F_COMPLETION_ALWAYS, "the region's tail" },
	{ 0, 1, RPMA_F_COMPLETION_ALWAYS, "a single byte" },
	{ 1024, 4096, RPMA_F_COMPLETION_ON_ERROR, "a page's worth across a page boundary, unsignalled" },
	{ 5120, 3000, RPMA_F_COMPLETION_ALWAYS, "an odd length, signalled" },
	{ 1, 7, RPMA_F_COMPLETION_ALWAYS, "seven bytes up to an 8-byte boundary" },
	{ 8, 1016, RPMA_F_COMPLETION_ALWAYS, "the rest of the first KiB" },
};
#define N_CHUNKS	(sizeof(CHUNKS) / sizeof(CHUNKS[0]))

/* the op_context of chunk k: a plain tag, which must come back as the wr_id */
#define OP_CHUNK(k)	((const void *)(uintptr_t)(0x7ead00u + (k)))

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
	int flush_type = -1;
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
	/* a region registered for reading only allows no flush at all */
	ret = rpma_mr_remote_get_flush_type(s->server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		return 1;
	}
	if (flush_type != 0) {
		fprintf(stderr, WHO ": the server's read-only region claims flush types 0x%x\n",
				flush_type);
		return 1;
	}
	printf(WHO ": WELCOME: server region of %zu bytes, readable, no flush\n", size);
	return 0;
}

/* checks the copy of the server's bytes [offset, offset + len) */
static int
check_copy(const struct client_mem *m, size_t offset, size_t len, const char *what)
{
	size_t i;

	for (i = offset; i < offset + len; i++) {
		if (m->copy[i] != region_byte(i)) {
			fprintf(stderr, WHO ": %s: byte %zu of the region read as 0x%02x, expected 0x%02x\n",
					what, i, m->copy[i], region_byte(i));
			return 1;
		}
	}
	return 0;
}

/*
 * Posts every chunk in turn. After each signalled one, waits for its
 * completion and checks all chunks posted since the last wait: the
 * signalled one and any unsignalled one before it. Returns 0 when every
 * completion and every byte is right.
 */
static int
read_chunks(struct session *s)
{
	struct client_mem *m = s->mem;
	size_t k, unchecked = 0;
	struct ibv_wc wc;
	int ret;

	for (k = 0; k < N_CHUNKS; k++) {
		const struct chunk *c = &CHUNKS[k];

		ret = rpma_read(s->conn, s->mr, offsetof(struct client_mem, copy) + c->offset,
				s->server_mr, c->offset, c->len, c->flags, OP_CHUNK(k));
		if (ret) {
			report(WHO, "rpma_read", ret);
			return 1;
		}
		if (c->flags == RPMA_F_COMPLETION_ON_ERROR) {
			printf(WHO ": rpma_read posted: %zu bytes at offset %zu (%s), no completion awaited\n",
					c->len, c->offset, c->what);
			continue;
		}
		/*
		 * The next completion must be this read's: an unsignalled read
		 * before it makes none when it succeeds.
		 */
		if (expect_wc(WHO, s->cq, s->conn_fd, OP_CHUNK(k),
				IBV_WC_RDMA_READ, IBV_WC_RDMA_READ, "rpma_read", &wc))
			return 1;
		if (wc.byte_len != c->len) {
			fprintf(stderr, WHO ": the read of %zu bytes completed with byte_len %u\n",
					c->len, wc.byte_len);
			return 1;
		}
		printf(WHO ": rpma_read completed: %zu byte%s at offset %zu (%s)\n",
				c->len, c->len == 1 ? "" : "s", c->offset, c->what);
		/* the work requests completed in order: the earlier ones are done too */
		for (; unchecked <= k; unchecked++) {
			const struct chunk *d = &CHUNKS[unchecked];

			if (check_copy(m, d->offset, d->len, d->what))
				return 1;
			if (unchecked < k)
				printf(WHO ": the unsignalled read at offset %zu is complete too: its %zu bytes are there\n",
						d->offset, d->len);
		}
	}
	if (unchecked != N_CHUNKS) {
		fprintf(stderr, WHO ": the last read must be signalled\n");
		return 1;
	}

	/* the chunks cover the region: the whole copy must be right */
	if (check_copy(m, 0, SERVER_BUF_SIZE, "whole copy"))
		return 1;
	for (k = 0; k < GUARD_SIZE; k++) {
		if (m->guard_lo[k] != GUARD_BYTE || m->guard_hi[k] != GUARD_BYTE) {
			fprintf(stderr, WHO ": a read wrote outside its destination (guard byte %zu)\n",
					k);
			return 1;
		}
	}
	/* and no read left a completion behind (the unsignalled one made none) */
	ret = rpma_cq_get_wc(s->cq, 1, &wc, NULL);
	if (ret != RPMA_E_NO_COMPLETION) {
		if (ret)
			report(WHO, "rpma_cq_get_wc", ret);
		else
			fprintf(stderr, WHO ": a stray completion (wr_id 0x%llx, status %s) is left in the CQ\n",
					(unsigned long long)wc.wr_id, wc_status_name(wc.status));
		return 1;
	}
	printf(WHO ": all %d bytes of the server's region verified, guards intact, CQ empty\n",
			SERVER_BUF_SIZE);
	return 0;
}

/*
 * Connects, reads and checks, and hangs up. Returns 0 when every step went
 * as the protocol says and the connection closed cleanly.
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
	else if (!read_welcome(&s) && !read_chunks(&s))
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
	size_t i;
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
	/*
	 * Guards get their own byte; the copy gets the complement of what it
	 * should receive, so a byte no read delivered can never look right.
	 */
	memset(mem->guard_lo, GUARD_BYTE, sizeof(mem->guard_lo));
	memset(mem->guard_hi, GUARD_BYTE, sizeof(mem->guard_hi));
	for (i = 0; i < SERVER_BUF_SIZE; i++)
		mem->copy[i] = (uint8_t)~region_byte(i);
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
