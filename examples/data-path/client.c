/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the data-path example: connects, learns
 * the server's buffer and peer configuration from the WELCOME that comes
 * with the accept, and then drives every kind of operation over the
 * connection, checking each completion as it comes: write, flush to
 * visibility, flush to persistence, read back, atomic write and read back,
 * send, send with immediate, write with immediate, and one receive for the
 * server's reply, whose checksum and echoes must match what the client
 * did. Then it hangs up. The protocol is described in common.h.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every step completed and every byte matched, 1 on any
 * error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000
/* the receive CQ: the reply is the only receive */
#define CLIENT_RCQ_SIZE		4

/*
 * The client's memory, one registered region: the sources of its writes
 * and messages, the destinations of its reads and the reply's landing
 * place. (rpma_atomic_write takes its 8 bytes from anywhere.)
 */
struct client_mem {
	uint8_t write_src[WRITE_LEN];
	uint8_t wimm_src[WIMM_LEN];
	uint8_t read_dst[WRITE_LEN];
	uint8_t atomic_dst[ATOMIC_LEN];
	char send_src[2][SEND_LEN];
	struct reply_msg reply;
};

#define CLIENT_USAGE	(RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST | \
			 RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

#define OFF(field)	offsetof(struct client_mem, field)

/*
 * The op_context of each operation: plain tags, which must come back
 * unchanged as the completions' wr_id.
 */
enum op_tag {
	TAG_WRITE = 0x101,
	TAG_FLUSH_VISIBILITY,
	TAG_FLUSH_PERSISTENT,
	TAG_READ,
	TAG_ATOMIC_WRITE,
	TAG_ATOMIC_READ,
	TAG_RECV,
	TAG_SEND,
	TAG_SEND_IMM,
	TAG_WRITE_IMM,
};
#define OP(tag)	((const void *)(uintptr_t)(tag))

/*
 * A library may carry out a flush natively (an RDMA FLUSH, completion
 * opcode 8, IBV_WC_FLUSH in newer rdma-core headers) or emulate it with an
 * RDMA READ; an atomic write natively (IBV_WC_ATOMIC_WRITE) or as a fenced
 * RDMA WRITE. On rxe both are emulated. Either completion is right.
 */
#define WC_FLUSH_NATIVE	((enum ibv_wc_opcode)8)

/* what one connection needs along the way */
struct session {
	struct rpma_conn *conn;
	int conn_fd;			/* its event fd: readable once the server hangs up */
	struct rpma_cq *cq;		/* all the client's own operations */
	struct rpma_cq *rcq;		/* its receives */
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
	ret = rpma_mr_remote_get_flush_type(s->server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		return 1;
	}
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) ||
			!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) {
		fprintf(stderr, WHO ": the server's region allows flush types 0x%x, not both\n",
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
		fprintf(stderr, WHO ": the server says direct write to PMem is %s\n",
				pmem ? "on" : "off");
		return 1;
	}
	printf(WHO ": WELCOME: server region of %zu bytes, flush to visibility and persistence, direct write to PMem on\n",
			size);
	return 0;
}

/* reports the first byte where got and want differ; 0 when there is none */
static int
compare(const char *what, const uint8_t *got, const uint8_t *want, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			fprintf(stderr, WHO ": %s: byte %zu is 0x%02x, expected 0x%02x\n",
					what, i, got[i], want[i]);
			return 1;
		}
	}
	return 0;
}

/*
 * rpma_write, a flush to visibility, a flush to persistence (refused until
 * the server's peer configuration is applied) and rpma_read of the same
 * bytes, which must come back as written.
 */
static int
write_flush_read(struct session *s)
{
	struct client_mem *m = s->mem;
	struct ibv_wc wc;
	size_t i;
	int ret;

	for (i = 0; i < WRITE_LEN; i++)
		m->write_src[i] = WRITE_BYTE(i);
	memset(m->read_dst, 0, sizeof(m->read_dst));

	ret = rpma_write(s->conn, s->server_mr, WRITE_OFFSET, s->mr, OFF(write_src), WRITE_LEN,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_WRITE));
	if (ret) {
		report(WHO, "rpma_write", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_WRITE),
			IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, "rpma_write", &wc))
		return 1;
	printf(WHO ": rpma_write: %d bytes at offset %d completed\n", WRITE_LEN, WRITE_OFFSET);

	ret = rpma_flush(s->conn, s->server_mr, WRITE_OFFSET, WRITE_LEN, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_FLUSH_VISIBILITY));
	if (ret) {
		report(WHO, "rpma_flush (visibility)", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_FLUSH_VISIBILITY),
			IBV_WC_RDMA_READ, WC_FLUSH_NATIVE, "rpma_flush (visibility)", &wc))
		return 1;
	printf(WHO ": rpma_flush to visibility completed\n");

	/* persistence needs the server's word that its memory takes it */
	ret = rpma_flush(s->conn, s->server_mr, WRITE_OFFSET, WRITE_LEN, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_FLUSH_PERSISTENT));
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
	ret = rpma_flush(s->conn, s->server_mr, WRITE_OFFSET, WRITE_LEN, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_FLUSH_PERSISTENT));
	if (ret) {
		report(WHO, "rpma_flush (persistent)", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_FLUSH_PERSISTENT),
			IBV_WC_RDMA_READ, WC_FLUSH_NATIVE, "rpma_flush (persistent)", &wc))
		return 1;
	printf(WHO ": server's peer cfg applied, rpma_flush to persistence completed\n");

	ret = rpma_read(s->conn, s->mr, OFF(read_dst), s->server_mr, WRITE_OFFSET, WRITE_LEN,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_READ));
	if (ret) {
		report(WHO, "rpma_read", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_READ),
			IBV_WC_RDMA_READ, IBV_WC_RDMA_READ, "rpma_read", &wc))
		return 1;
	if (compare("rpma_read", m->read_dst, m->write_src, WRITE_LEN))
		return 1;
	printf(WHO ": rpma_read: the %d bytes came back as written\n", WRITE_LEN);
	return 0;
}

/* rpma_atomic_write of 8 bytes at an aligned offset, read back */
static int
atomic_write_read(struct session *s)
{
	struct client_mem *m = s->mem;
	char src[ATOMIC_LEN];
	struct ibv_wc wc;
	int i, ret;

	for (i = 0; i < ATOMIC_LEN; i++)
		src[i] = (char)ATOMIC_BYTE(i);
	memset(m->atomic_dst, 0, sizeof(m->atomic_dst));

	ret = rpma_atomic_write(s->conn, s->server_mr, ATOMIC_OFFSET, src,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_ATOMIC_WRITE));
	if (ret) {
		report(WHO, "rpma_atomic_write", ret);
		return 1;
	}
	/* the library took the bytes when posting: src may change now */
	memset(src, 0, sizeof(src));
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_ATOMIC_WRITE),
			IBV_WC_RDMA_WRITE, IBV_WC_ATOMIC_WRITE, "rpma_atomic_write", &wc))
		return 1;
	printf(WHO ": rpma_atomic_write: %d bytes at offset %d completed\n",
			ATOMIC_LEN, ATOMIC_OFFSET);

	ret = rpma_read(s->conn, s->mr, OFF(atomic_dst), s->server_mr, ATOMIC_OFFSET, ATOMIC_LEN,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_ATOMIC_READ));
	if (ret) {
		report(WHO, "rpma_read (atomic area)", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_ATOMIC_READ),
			IBV_WC_RDMA_READ, IBV_WC_RDMA_READ, "rpma_read (atomic area)", &wc))
		return 1;
	for (i = 0; i < ATOMIC_LEN; i++)
		src[i] = (char)ATOMIC_BYTE(i);
	if (compare("rpma_read (atomic area)", m->atomic_dst, (const uint8_t *)src, ATOMIC_LEN))
		return 1;
	printf(WHO ": rpma_read: the atomically written bytes came back\n");
	return 0;
}

/*
 * The two-sided part: a receive for the reply, both messages, the write
 * with immediate data, then the reply, checked against what the client
 * knows the server must have seen.
 */
static int
messages(struct session *s)
{
	struct client_mem *m = s->mem;
	const struct reply_msg *r = &m->reply;
	uint32_t sum = CHECKSUM_INIT;
	struct ibv_wc wc;
	size_t i;
	int ret;

	/* posted first: the server replies as soon as it has everything */
	memset(&m->reply, 0, sizeof(m->reply));
	ret = rpma_recv(s->conn, s->mr, OFF(reply), sizeof(m->reply), OP(TAG_RECV));
	if (ret) {
		report(WHO, "rpma_recv", ret);
		return 1;
	}
	printf(WHO ": rpma_recv: a receive for the reply posted\n");

	memcpy(m->send_src, MSG, sizeof(m->send_src));
	ret = rpma_send(s->conn, s->mr, OFF(send_src[0]), SEND_LEN,
			RPMA_F_COMPLETION_ALWAYS, OP(TAG_SEND));
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_SEND),
			IBV_WC_SEND, IBV_WC_SEND, "rpma_send", &wc))
		return 1;
	printf(WHO ": rpma_send: %d bytes sent\n", SEND_LEN);

	ret = rpma_send_with_imm(s->conn, s->mr, OFF(send_src[1]), SEND_LEN,
			RPMA_F_COMPLETION_ALWAYS, SEND_IMM, OP(TAG_SEND_IMM));
	if (ret) {
		report(WHO, "rpma_send_with_imm", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_SEND_IMM),
			IBV_WC_SEND, IBV_WC_SEND, "rpma_send_with_imm", &wc))
		return 1;
	printf(WHO ": rpma_send_with_imm: %d bytes sent, imm 0x%08x\n", SEND_LEN, SEND_IMM);

	for (i = 0; i < WIMM_LEN; i++)
		m->wimm_src[i] = WIMM_BYTE(i);
	ret = rpma_write_with_imm(s->conn, s->server_mr, WIMM_OFFSET, s->mr, OFF(wimm_src),
			WIMM_LEN, RPMA_F_COMPLETION_ALWAYS, WRITE_IMM, OP(TAG_WRITE_IMM));
	if (ret) {
		report(WHO, "rpma_write_with_imm", ret);
		return 1;
	}
	if (expect_wc(WHO, s->cq, s->conn_fd, OP(TAG_WRITE_IMM),
			IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, "rpma_write_with_imm", &wc))
		return 1;
	printf(WHO ": rpma_write_with_imm: %d bytes at offset %d completed, imm 0x%08x\n",
			WIMM_LEN, WIMM_OFFSET, WRITE_IMM);

	/* the reply completes on the receive CQ, apart from everything above */
	if (expect_wc(WHO, s->rcq, s->conn_fd, OP(TAG_RECV),
			IBV_WC_RECV, IBV_WC_RECV, "rpma_recv", &wc))
		return 1;
	if (wc.byte_len != sizeof(*r) || (wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": the reply has %u bytes%s, expected %zu and no immediate\n",
				wc.byte_len,
				(wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(*r));
		return 1;
	}
	if (le32toh(r->magic) != REPLY_MAGIC) {
		fprintf(stderr, WHO ": the reply has a wrong magic number\n");
		return 1;
	}
	for (i = 0; i < SERVER_BUF_SIZE; i++)
		sum = checksum_step(sum, expected_server_byte(i));
	if (le32toh(r->checksum) != sum) {
		fprintf(stderr, WHO ": the server's buffer has checksum 0x%08x, expected 0x%08x\n",
				le32toh(r->checksum), sum);
		return 1;
	}
	if (le32toh(r->send_imm) != SEND_IMM || le32toh(r->write_imm) != WRITE_IMM) {
		fprintf(stderr, WHO ": the server decoded the immediates as 0x%08x and 0x%08x, expected 0x%08x and 0x%08x\n",
				le32toh(r->send_imm), le32toh(r->write_imm), SEND_IMM, WRITE_IMM);
		return 1;
	}
	if (compare("message echoed by the server", (const uint8_t *)r->msgs,
			(const uint8_t *)MSG, sizeof(r->msgs)))
		return 1;
	printf(WHO ": reply received: checksum 0x%08x matches, immediates and both messages echoed\n",
			sum);
	return 0;
}

/*
 * Connects, runs all the steps and hangs up. Returns 0 when every step
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
	/* receives get a CQ of their own, so they never mix with the rest */
	ret = rpma_conn_cfg_set_rcq_size(cfg, CLIENT_RCQ_SIZE);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_rcq_size", ret);
		goto out_cfg;
	}
	/* the client has nothing to tell the server in its request */
	if (connect_to(WHO, peer, addr, port, cfg, NULL, &s.conn))
		goto out_cfg;
	printf(WHO ": connecting to %s:%s\n", addr, port);

	if (expect_event_within(WHO, s.conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/*
	 * The server never hangs up first unless something went wrong; then
	 * the client's waits end at once instead of running into a timeout.
	 */
	ret = rpma_conn_get_event_fd(s.conn, &s.conn_fd);
	if (ret)
		report(WHO, "rpma_conn_get_event_fd", ret);
	else if ((ret = rpma_conn_get_cq(s.conn, &s.cq)))
		report(WHO, "rpma_conn_get_cq", ret);
	else if ((ret = rpma_conn_get_rcq(s.conn, &s.rcq)))
		report(WHO, "rpma_conn_get_rcq", ret);
	else if (s.rcq == NULL)
		fprintf(stderr, WHO ": the connection has no receive CQ\n");
	/* whatever fails, hang up: the server then ends too */
	else if (!read_welcome(&s) && !write_flush_read(&s) && !atomic_write_read(&s) &&
			!messages(&s))
		failed = 0;

	disconnect_and_wait(WHO, s.conn, CONN_EVENT_TIMEOUT_MS, &failed);

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
