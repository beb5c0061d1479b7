/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the write-with-imm example: exposes a
 * buffer of SLOTS slots, accepts one client with the buffer's descriptor in
 * a WELCOME, and from then on learns about the client's writes only from
 * the receives they complete: each receive is a 0-byte one (the data goes
 * straight into the buffer), its completion says RECV_RDMA_WITH_IMM, how
 * many bytes were written and, in the immediate value, which write it was
 * and into which slot. The server checks those bytes and that nothing else
 * in its buffer changed, and hands out one CREDIT per write so that the
 * client never writes into a slot the server has not checked yet. The
 * protocol is described in common.h.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when every write was as the protocol says, 1 on any error,
 * mismatch, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* the server's messages: the credits, each from a place of its own */
struct server_msgs {
	struct credit_msg credit[N_CREDITS];
};

#define MSGS_USAGE	RPMA_MR_USAGE_SEND

/* op_contexts: receive n (the n-th notification) and credit c */
#define OP_RECV(n)	((const void *)(uintptr_t)(0x7e00 + (n)))
#define OP_CREDIT(c)	((const void *)(uintptr_t)(0xc400 + (c)))

/* what one connection needs along the way */
struct session {
	struct rpma_conn *conn;
	int conn_fd;		/* its event fd: readable once the client hangs up */
	struct rpma_cq *cq;	/* sends and receives alike */
	const uint8_t *buf;	/* the buffer the client writes into */
	uint8_t model[SERVER_BUF_SIZE];	/* what the buffer must hold */
	struct server_msgs *msgs;
	struct rpma_mr_local *msgs_mr;
};

/* reports the first byte where the buffer and the model differ; 0 if none */
static int
check_buffer(const struct session *s, int n)
{
	size_t i;

	for (i = 0; i < SERVER_BUF_SIZE; i++) {
		if (s->buf[i] != s->model[i]) {
			fprintf(stderr, WHO ": after write %d, buffer byte %zu (slot %zu, byte %zu) is 0x%02x, expected 0x%02x\n",
					n, i, i / SLOT_SIZE, i % SLOT_SIZE, s->buf[i], s->model[i]);
			return 1;
		}
	}
	return 0;
}

/*
 * Posts the receive for notification n -- 0 bytes, no memory region: a
 * write with immediate data puts nothing into it -- then sends credit c
 * with what was seen last. Both are posted; their completions are taken
 * later.
 */
static int
grant(struct session *s, int n, int c, uint32_t imm, uint32_t byte_len)
{
	struct credit_msg *m = &s->msgs->credit[c];
	int ret;

	if (n >= 0) {
		ret = rpma_recv(s->conn, NULL, 0, 0, OP_RECV(n));
		if (ret) {
			report(WHO, "rpma_recv (0 bytes)", ret);
			return 1;
		}
	}
	m->magic = htole32(CREDIT_MAGIC);
	m->seq = htole32((uint32_t)c);
	m->imm = htole32(imm);
	m->byte_len = htole32(byte_len);
	m->checksum = htole32(checksum(s->buf, SERVER_BUF_SIZE));
	ret = rpma_send(s->conn, s->msgs_mr, offsetof(struct server_msgs, credit[c]), sizeof(*m),
			RPMA_F_COMPLETION_ALWAYS, OP_CREDIT(c));
	if (ret) {
		report(WHO, "rpma_send (credit)", ret);
		return 1;
	}
	return 0;
}

/*
 * Checks notification n, a write of the protocol's WRITES[n]: the
 * immediate must name it and its slot, byte_len its length, and the buffer
 * must now hold its bytes there and be unchanged elsewhere.
 */
static int
check_write(struct session *s, int n, uint32_t imm, uint32_t byte_len)
{
	const struct write_spec *w = &WRITES[n];
	uint32_t seq = IMM_WRITE_SEQ(imm), slot = IMM_WRITE_SLOT(imm);
	uint32_t i;

	if (seq != (uint32_t)n || slot >= SLOTS) {
		fprintf(stderr, WHO ": notification %d: the immediate 0x%08x names write %u into slot %u\n",
				n, imm, seq, slot);
		return 1;
	}
	if (slot != w->slot || byte_len != w->len) {
		fprintf(stderr, WHO ": write %d: %u bytes into slot %u, the protocol says %u into slot %u\n",
				n, byte_len, slot, w->len, w->slot);
		return 1;
	}
	/* the slot the immediate names must hold what write n carries */
	for (i = 0; i < byte_len; i++) {
		uint8_t got = s->buf[slot * SLOT_SIZE + i];

		if (got != DATA_BYTE(n, i)) {
			fprintf(stderr, WHO ": write %d: byte %u of slot %u is 0x%02x, expected 0x%02x\n",
					n, i, slot, got, DATA_BYTE(n, i));
			return 1;
		}
	}
	/* and every other byte must be what it was */
	model_apply(s->model, n);
	if (check_buffer(s, n))
		return 1;
	printf(WHO ": write %d: immediate 0x%08x, %u bytes in slot %u as expected, rest of the buffer unchanged\n",
			n, imm, byte_len, slot);
	return 0;
}

/*
 * Everything between ESTABLISHED and the last credit. Returns 0 when all
 * went as the protocol says.
 */
static int
exchange(struct session *s)
{
	struct ibv_wc wc[2];
	uint32_t imm;
	int n, ret;

	ret = rpma_conn_get_event_fd(s->conn, &s->conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_cq(s->conn, &s->cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}
	model_init(s->model);

	/* the first receive is there before the client may write at all */
	if (grant(s, 0, 0, 0, 0))
		return 1;
	printf(WHO ": a 0-byte receive posted, credit 0 sent\n");

	for (n = 0;; n++) {
		/*
		 * Credit n's send and notification n: once the client has the
		 * credit it may write, so the two complete in either order.
		 */
		const struct wc_want want[2] = {
			{ OP_CREDIT(n), IBV_WC_SEND, "rpma_send (credit)" },
			{ OP_RECV(n), IBV_WC_RECV_RDMA_WITH_IMM, "a receive for a write with immediate" },
		};

		if (expect_wcs(WHO, s->cq, s->conn_fd, 2, want, wc))
			return 1;
		if (!(wc[1].wc_flags & IBV_WC_WITH_IMM)) {
			fprintf(stderr, WHO ": notification %d carries no immediate data\n", n);
			return 1;
		}
		/* the library hands over the raw completion: network byte order */
		imm = ntohl(wc[1].imm_data);

		if (IMM_KIND(imm) == IMM_KIND_DONE)
			break;
		if (IMM_KIND(imm) != IMM_KIND_WRITE) {
			fprintf(stderr, WHO ": notification %d: immediate 0x%08x (raw 0x%08x) is of no known kind\n",
					n, imm, wc[1].imm_data);
			return 1;
		}
		if (n >= N_WRITES) {
			fprintf(stderr, WHO ": notification %d: more writes than the protocol's %d\n",
					n, N_WRITES);
			return 1;
		}
		if (check_write(s, n, imm, wc[1].byte_len))
			return 1;
		if (grant(s, n + 1, n + 1, imm, wc[1].byte_len))
			return 1;
	}

	/* the end: nothing written, the value alone says how many writes came */
	if (IMM_DONE_COUNT(imm) != (uint32_t)n || n != N_WRITES || wc[1].byte_len != 0) {
		fprintf(stderr, WHO ": the last notification says %u writes with %u bytes; %d came, %d expected, 0 bytes\n",
				IMM_DONE_COUNT(imm), wc[1].byte_len, n, N_WRITES);
		return 1;
	}
	if (check_buffer(s, n))
		return 1;
	printf(WHO ": 0-byte write with immediate 0x%08x: all %d writes arrived\n", imm, n);

	/* the last credit; no receive goes with it */
	if (grant(s, -1, n + 1, imm, wc[1].byte_len))
		return 1;
	/* the client may read the credit and leave before it completes here */
	if (last_send_done(WHO, s->conn, s->cq, OP_CREDIT(n + 1), IBV_WC_SEND, "the last credit"))
		return 1;
	printf(WHO ": last credit sent, buffer checksum 0x%08x\n",
			checksum(s->buf, SERVER_BUF_SIZE));
	return 0;
}

/*
 * Accepts req (consumed in every case) and runs the exchange. Returns 0
 * when the client came, did all the protocol says and left cleanly.
 */
static int
serve(struct rpma_conn_req *req, const struct welcome_msg *welcome, struct session *s)
{
	struct rpma_conn_private_data pdata;
	int failed = 1;

	/* the library only reads the accept data, the cast drops const for the API */
	pdata.ptr = (void *)welcome;
	pdata.len = sizeof(*welcome);
	if (accept_and_wait(WHO, &req, &pdata, CONN_EVENT_TIMEOUT_MS, &s->conn))
		return 1;
	printf(WHO ": connection established, WELCOME sent with the accept\n");

	/* on a failure, hang up at once: the client's waits end with an error */
	if (exchange(s))
		goto err_disconnect;

	/* the client has its last credit; it is the one who hangs up */
	if (expect_event_within(WHO, s->conn, RPMA_CONN_CLOSED, "CLOSED", CONN_EVENT_TIMEOUT_MS))
		goto err_disconnect;
	printf(WHO ": the client closed the connection\n");
	failed = 0;

err_disconnect:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(WHO, &s->conn, &failed);
	return failed;
}

/* the WELCOME for mr; 0, or a librpma error code (*what names the step) */
static int
pack_welcome(struct welcome_msg *msg, const struct rpma_mr_local *mr, const char **what)
{
	size_t size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &size);
	if (ret)
		return ret;
	/* the size comes from the library: never trust it to fit blindly */
	*what = "fitting the descriptor into the WELCOME";
	if (size > sizeof(msg->descriptor))
		return RPMA_E_INVAL;
	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptor);
	if (ret)
		return ret;
	msg->magic = htole32(WELCOME_MAGIC);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)size;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct session *s = NULL;
	struct welcome_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
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

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		fprintf(stderr, WHO ": cannot allocate the session\n");
		goto err_peer_delete;
	}
	s->conn_fd = -1;

	/* the buffer the client writes into, filled with the starting pattern */
	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_free_session;
	model_init(buf);
	s->buf = buf;
	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (buffer)", ret);
		goto err_free_buf;
	}

	/* the memory the credits leave from */
	s->msgs = page_alloc(WHO, sizeof(*s->msgs));
	if (s->msgs == NULL)
		goto err_mr_dereg;
	memset(s->msgs, 0, sizeof(*s->msgs));
	ret = rpma_mr_reg(peer, s->msgs, sizeof(*s->msgs), MSGS_USAGE, &s->msgs_mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (messages)", ret);
		goto err_free_msgs;
	}

	ret = pack_welcome(&welcome, mr, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_msgs_mr_dereg;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_msgs_mr_dereg;
	}
	printf(WHO ": listening on %s:%s, %d slots of %d bytes registered\n",
			addr, port, SLOTS, SLOT_SIZE);

	/* default connection configuration: one CQ for sends and receives */
	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, &welcome, s);

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_msgs_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (messages)", rpma_mr_dereg(&s->msgs_mr), &failed);
err_free_msgs:
	free(s->msgs);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (buffer)", rpma_mr_dereg(&mr), &failed);
err_free_buf:
	free(buf);
err_free_session:
	free(s);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
