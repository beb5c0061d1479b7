/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the write-with-imm example: connects,
 * learns the server's buffer from the WELCOME that comes with the accept,
 * and makes the writes of WRITES[] (common.h) with rpma_write_with_imm(),
 * each one only after the server granted it with a CREDIT; the immediate
 * value tells the server which write it is and which slot it went to. Each
 * CREDIT echoes what the server decoded and the checksum of its buffer,
 * which the client checks against its own picture of that buffer. A
 * 0-byte write with immediate data (no memory at either end) says that
 * all writes are done. Then the client hangs up.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when every write completed and every credit matched, 1 on any
 * error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/* the client's memory: the source of its writes, the credits' places */
struct client_mem {
	uint8_t src[SLOT_SIZE];
	struct credit_msg credit[N_CREDITS];
};

#define MEM_USAGE	(RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_RECV)
#define OFF(field)	offsetof(struct client_mem, field)

/* op_contexts: write n, the closing 0-byte write, the receive of credit c */
#define OP_WRITE(n)	((const void *)(uintptr_t)(0x3700 + (n)))
#define OP_DONE		((const void *)(uintptr_t)0x37ff)
#define OP_RECV(c)	((const void *)(uintptr_t)(0xc500 + (c)))

/* what one connection needs along the way */
struct session {
	struct rpma_conn *conn;
	int conn_fd;		/* its event fd: readable once the server hangs up */
	struct rpma_cq *cq;
	struct rpma_mr_local *mr;
	struct client_mem *mem;
	struct rpma_mr_remote *server_mr;
	uint8_t model[SERVER_BUF_SIZE];	/* what the server's buffer must hold */
};

/*
 * Reads the WELCOME into s->server_mr and checks the region's size.
 * Returns 0 when it is what the protocol says.
 */
static int
read_welcome(struct session *s)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	struct welcome_msg msg;
	size_t size = 0;
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
	if (le32toh(msg.magic) != WELCOME_MAGIC || le16toh(msg.version) != PROTO_VERSION ||
			msg.mr_desc_size == 0 || msg.mr_desc_size > sizeof(msg.descriptor)) {
		fprintf(stderr, WHO ": bad WELCOME: wrong magic number, version or descriptor size\n");
		return 1;
	}
	ret = rpma_mr_remote_from_descriptor(msg.descriptor, msg.mr_desc_size, &s->server_mr);
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
	printf(WHO ": WELCOME: the server's region has %zu bytes\n", size);
	return 0;
}

/*
 * Checks credit c as its receive completed (wc): a message, not immediate
 * data, echoing imm and byte_len, and the checksum the model has now.
 */
static int
check_credit(const struct session *s, int c, const struct ibv_wc *wc, uint32_t imm,
		uint32_t byte_len)
{
	const struct credit_msg *m = &s->mem->credit[c];
	uint32_t sum = checksum(s->model, SERVER_BUF_SIZE);

	if (wc->byte_len != sizeof(*m) || (wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": credit %d has %u bytes%s, expected %zu and no immediate\n",
				c, wc->byte_len,
				(wc->wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(*m));
		return 1;
	}
	if (le32toh(m->magic) != CREDIT_MAGIC || le32toh(m->seq) != (uint32_t)c) {
		fprintf(stderr, WHO ": credit %d has a wrong magic number or number (%u)\n",
				c, le32toh(m->seq));
		return 1;
	}
	if (le32toh(m->imm) != imm || le32toh(m->byte_len) != byte_len) {
		fprintf(stderr, WHO ": credit %d: the server decoded immediate 0x%08x and %u bytes, sent 0x%08x and %u\n",
				c, le32toh(m->imm), le32toh(m->byte_len), imm, byte_len);
		return 1;
	}
	if (le32toh(m->checksum) != sum) {
		fprintf(stderr, WHO ": credit %d: the server's buffer has checksum 0x%08x, expected 0x%08x\n",
				c, le32toh(m->checksum), sum);
		return 1;
	}
	return 0;
}

/*
 * Posts the receive of credit c, then the write (n < N_WRITES: WRITES[n],
 * else the closing 0-byte write) and takes both completions. Returns 0
 * when both succeeded; the credit is not checked here.
 */
static int
write_and_wait(struct session *s, int n, int c, uint32_t imm, struct ibv_wc *credit_wc)
{
	struct ibv_wc wc[2];
	const void *op = n < N_WRITES ? OP_WRITE(n) : OP_DONE;
	const struct wc_want want[2] = {
		{ op, IBV_WC_RDMA_WRITE, "rpma_write_with_imm" },
		{ OP_RECV(c), IBV_WC_RECV, "the receive of a credit" },
	};
	int ret;

	/* posted first: the server answers as soon as it has seen the write */
	ret = rpma_recv(s->conn, s->mr, OFF(credit[c]), sizeof(s->mem->credit[c]), OP_RECV(c));
	if (ret) {
		report(WHO, "rpma_recv", ret);
		return 1;
	}
	if (n < N_WRITES) {
		const struct write_spec *w = &WRITES[n];

		ret = rpma_write_with_imm(s->conn, s->server_mr, (size_t)w->slot * SLOT_SIZE,
				s->mr, OFF(src), w->len, RPMA_F_COMPLETION_ALWAYS, imm, op);
		if (ret) {
			report(WHO, "rpma_write_with_imm", ret);
			return 1;
		}
	} else {
		/* no data: neither a remote nor a local region */
		ret = rpma_write_with_imm(s->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				imm, op);
		if (ret) {
			report(WHO, "rpma_write_with_imm (0 bytes)", ret);
			return 1;
		}
	}
	/* the credit may complete before the write does */
	if (expect_wcs(WHO, s->cq, s->conn_fd, 2, want, wc))
		return 1;
	*credit_wc = wc[1];
	return 0;
}

/* the whole exchange after ESTABLISHED; 0 when everything matched */
static int
exchange(struct session *s)
{
	struct ibv_wc wc;
	uint32_t imm, i;
	int n, ret;

	ret = rpma_conn_get_cq(s->conn, &s->cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}
	if (read_welcome(s))
		return 1;
	model_init(s->model);

	/* credit 0: its receive was posted before connecting */
	if (expect_wc(WHO, s->cq, s->conn_fd, OP_RECV(0), IBV_WC_RECV, IBV_WC_RECV,
			"the receive of credit 0", &wc) ||
			check_credit(s, 0, &wc, 0, 0))
		return 1;
	printf(WHO ": credit 0 received: the server's buffer is in its starting state\n");

	for (n = 0; n < N_WRITES; n++) {
		const struct write_spec *w = &WRITES[n];

		/* the previous write completed, so its source may change now */
		for (i = 0; i < w->len; i++)
			s->mem->src[i] = DATA_BYTE(n, i);
		imm = IMM_WRITE(n, w->slot);
		if (write_and_wait(s, n, n + 1, imm, &wc))
			return 1;
		model_apply(s->model, n);
		if (check_credit(s, n + 1, &wc, imm, w->len))
			return 1;
		printf(WHO ": write %d: %u bytes into slot %u with immediate 0x%08x; credit %d confirms them\n",
				n, w->len, w->slot, imm, n + 1);
	}

	imm = IMM_DONE(N_WRITES);
	if (write_and_wait(s, N_WRITES, N_WRITES + 1, imm, &wc) ||
			check_credit(s, N_WRITES + 1, &wc, imm, 0))
		return 1;
	printf(WHO ": 0-byte write with immediate 0x%08x; last credit: buffer checksum 0x%08x as expected\n",
			imm, checksum(s->model, SERVER_BUF_SIZE));
	return 0;
}

/*
 * Connects, runs the exchange and hangs up. Returns 0 when everything went
 * as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port, struct session *s)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
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
	/* the server sends credit 0 right away: its receive must be there */
	ret = rpma_conn_req_recv(req, s->mr, OFF(credit[0]), sizeof(s->mem->credit[0]),
			OP_RECV(0));
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		teardown_step(WHO, "rpma_conn_req_delete", rpma_conn_req_delete(&req), &failed);
		goto out_cfg;
	}
	ret = rpma_conn_req_connect(&req, NULL, &s->conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		goto out_cfg;
	}
	printf(WHO ": connecting to %s:%s\n", addr, port);

	if (expect_event_within(WHO, s->conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/* the server never hangs up first unless something went wrong */
	ret = rpma_conn_get_event_fd(s->conn, &s->conn_fd);
	if (ret)
		report(WHO, "rpma_conn_get_event_fd", ret);
	/* whatever fails, hang up: the server then ends too */
	else if (!exchange(s))
		failed = 0;

	disconnect_and_wait(WHO, s->conn, CONN_EVENT_TIMEOUT_MS, &failed);

out_conn_delete:
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
	struct rpma_peer *peer = NULL;
	struct session *s = NULL;
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

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		fprintf(stderr, WHO ": cannot allocate the session\n");
		goto out_peer_delete;
	}
	s->conn_fd = -1;
	s->mem = page_alloc(WHO, sizeof(*s->mem));
	if (s->mem == NULL)
		goto out_free_session;
	memset(s->mem, 0, sizeof(*s->mem));
	ret = rpma_mr_reg(peer, s->mem, sizeof(*s->mem), MEM_USAGE, &s->mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free_mem;
	}

	failed = talk(peer, addr, port, s);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&s->mr), &failed);
out_free_mem:
	free(s->mem);
out_free_session:
	free(s);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
