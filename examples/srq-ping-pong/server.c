/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the srq-ping-pong example: several
 * clients at once, and one shared receive queue (SRQ) for all of them.
 * The SRQ has a receive CQ of its own; every connection is built with a
 * configuration naming the SRQ, so none has a receive queue or receive CQ
 * of its own. Every ping of every client lands in a buffer posted with
 * rpma_srq_recv() and completes on the SRQ's CQ; the completion's QP
 * number (compared with rpma_conn_get_qp_num()) is the only thing that
 * tells which connection it came on. The server checks the ping is that
 * connection's next one, puts the buffer back on the SRQ and answers with
 * a pong on that connection. The protocol is described in common.h; the
 * number of clients and rounds is said by the clients' HELLOs.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when every round of every client was received, verified and
 * answered and all clients hung up, 1 on any error or mismatch, or when a
 * client did not come within 30 s.
 */
#include <stddef.h>
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* each client has at most one ping on the way: one buffer per client is enough */
#define RECV_SLOTS	MAX_CLIENTS
/* larger than a ping, so a longer message shows as a wrong length */
#define SLOT_ROOM	64
/* the SRQ's receive CQ: more than the receives that can be posted */
#define SRQ_RCQ_SIZE	(2 * RECV_SLOTS)

/* the server's message memory: the SRQ's buffers and one pong per client */
struct server_mem {
	char slot[RECV_SLOTS][SLOT_ROOM];
	struct pong_msg pong[MAX_CLIENTS];
};

#define MEM_USAGE	(RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND)

/* one accepted connection, in the order they were accepted */
struct client_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* its sends; receives are on the SRQ's CQ */
	uint32_t qp_num;
	int event_fd;
	struct hello_msg hello;	/* host byte order */
	unsigned next_round;	/* the round its next ping must have */
};

struct server {
	struct rpma_srq *srq;
	struct rpma_cq *rcq;	/* the SRQ's */
	struct rpma_mr_local *mr;
	struct server_mem *mem;
	bool posted[RECV_SLOTS];	/* the slot waits on the SRQ */
	unsigned count, rounds;	/* announced by the first HELLO */
	unsigned accepted;
	unsigned seq;		/* pings taken so far */
	bool index_seen[MAX_CLIENTS];
	struct client_conn c[MAX_CLIENTS];
};

/* puts slot i (back) on the SRQ */
static int
post_slot(struct server *s, unsigned i)
{
	int ret;

	memset(s->mem->slot[i], 0, SLOT_ROOM);
	ret = rpma_srq_recv(s->srq, s->mr, offsetof(struct server_mem, slot[i]), SLOT_ROOM,
			s->mem->slot[i]);
	if (ret) {
		report(WHO, "rpma_srq_recv", ret);
		return 1;
	}
	s->posted[i] = true;
	return 0;
}

/*
 * Reads the HELLO of req into *hello and checks it: sound header, an
 * index not seen yet, the same count and rounds as every HELLO before.
 * Returns NULL when it is acceptable, else what is wrong with it.
 */
static const char *
check_hello(struct server *s, struct rpma_conn_req *req, struct hello_msg *hello)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	int ret;

	ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret) {
		report(WHO, "rpma_conn_req_get_private_data", ret);
		return "no private data to be had";
	}
	/* IB and RoCE hand over the whole 56-byte area, zero padded: >= */
	if (pdata.ptr == NULL || pdata.len < sizeof(*hello))
		return "no HELLO or a short one";
	memcpy(hello, pdata.ptr, sizeof(*hello));
	hello->magic = le32toh(hello->magic);
	hello->version = le16toh(hello->version);
	hello->index = le16toh(hello->index);
	hello->count = le16toh(hello->count);
	hello->rounds = le16toh(hello->rounds);
	hello->token = le32toh(hello->token);
	if (hello->magic != HELLO_MAGIC || hello->version != PROTO_VERSION)
		return "not a HELLO of this protocol";
	if (hello->count == 0 || hello->count > MAX_CLIENTS ||
			hello->rounds == 0 || hello->rounds > MAX_ROUNDS)
		return "a client count or a number of rounds the server cannot take";
	if (s->count != 0 && (hello->count != s->count || hello->rounds != s->rounds))
		return "a client count or number of rounds different from the earlier HELLOs'";
	if (hello->index >= hello->count)
		return "an index beyond the count";
	if (s->index_seen[hello->index])
		return "an index that came before";
	return NULL;
}

/* takes the next connection request and accepts it */
static int
accept_one(struct server *s, struct rpma_ep *ep, const struct rpma_conn_cfg *cfg)
{
	struct client_conn *c = &s->c[s->accepted];
	struct rpma_conn_req *req = NULL;
	struct hello_msg hello;
	const char *problem;
	int ret;

	/* the request's connection is built with cfg, so it uses the SRQ */
	if (next_request(WHO, ep, cfg, ACCEPT_TIMEOUT_MS, &req))
		return 1;
	problem = check_hello(s, req, &hello);
	if (problem) {
		fprintf(stderr, WHO ": bad HELLO: %s\n", problem);
		/* deleting a request that was not accepted rejects it */
		ret = rpma_conn_req_delete(&req);
		if (ret)
			report(WHO, "rpma_conn_req_delete", ret);
		return 1;
	}
	if (s->count == 0) {
		s->count = hello.count;
		s->rounds = hello.rounds;
		printf(WHO ": the client announces %u connections of %u rounds each\n",
				s->count, s->rounds);
	}
	s->index_seen[hello.index] = true;
	c->hello = hello;

	/* pongs go by rpma_send, so the accept carries nothing */
	ret = rpma_conn_req_connect(&req, NULL, &c->conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		return 1;
	}
	s->accepted++;
	return 0;
}

/* waits for ESTABLISHED on accepted connection i and learns what it needs of it */
static int
establish_one(struct server *s, unsigned i)
{
	struct client_conn *c = &s->c[i];
	struct rpma_cq *conn_rcq = NULL;
	int ret;

	if (expect_event_within(WHO, c->conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED", EVENT_TIMEOUT_MS)) {
		fprintf(stderr, WHO ": (connection %u, the %u. request taken)\n", c->hello.index, i + 1);
		return 1;
	}

	ret = rpma_conn_get_event_fd(c->conn, &c->event_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_cq(c->conn, &c->cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}
	ret = rpma_conn_get_rcq(c->conn, &conn_rcq);
	if (ret) {
		report(WHO, "rpma_conn_get_rcq", ret);
		return 1;
	}
	/* the SRQ has a CQ of its own, so the connection gets none */
	if (conn_rcq != NULL) {
		fprintf(stderr, WHO ": a connection on an SRQ with a receive CQ has one of its own\n");
		return 1;
	}
	ret = rpma_conn_get_qp_num(c->conn, &c->qp_num);
	if (ret) {
		report(WHO, "rpma_conn_get_qp_num", ret);
		return 1;
	}
	printf(WHO ": connection %u of %u (token 0x%08x) established on QP %u\n",
			c->hello.index, c->hello.count, c->hello.token, c->qp_num);
	return 0;
}

/*
 * The next completion of the SRQ's CQ. Like next_wc(), but watching the
 * event fd of every connection: receives on an SRQ are not flushed when
 * a connection breaks, so a client that gave up shows only there.
 */
static int
next_srq_wc(struct server *s, struct ibv_wc *wc)
{
	const int timeout_ms = scaled_ms(COMPLETION_TIMEOUT_MS);
	struct timespec deadline = deadline_in(timeout_ms);
	struct pollfd pfd[1 + MAX_CLIENTS];
	unsigned i, n = 1 + s->accepted;
	int ret;

	memset(pfd, 0, sizeof(pfd));
	ret = rpma_cq_get_fd(s->rcq, &pfd[0].fd);
	if (ret) {
		report(WHO, "rpma_cq_get_fd", ret);
		return 1;
	}
	pfd[0].events = POLLIN;
	for (i = 0; i < s->accepted; i++) {
		pfd[1 + i].fd = s->c[i].event_fd;
		pfd[1 + i].events = POLLIN;
	}
	for (;;) {
		ret = rpma_cq_get_wc(s->rcq, 1, wc, NULL);
		if (ret == 0)
			return 0;
		if (ret != RPMA_E_NO_COMPLETION) {
			report(WHO, "rpma_cq_get_wc", ret);
			return 1;
		}
		for (i = 1; i < n; i++) {
			if (pfd[i].revents) {
				fprintf(stderr, WHO ": connection %u ended while pings were awaited\n",
						s->c[i - 1].hello.index);
				return 1;
			}
		}
		do
			ret = poll(pfd, n, ms_left(&deadline));
		while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			fprintf(stderr, WHO ": poll: %s\n", strerror(errno));
			return 1;
		}
		if (ret == 0) {
			fprintf(stderr, WHO ": no ping within %d s (%u taken so far)\n",
					timeout_ms / 1000, s->seq);
			return 1;
		}
		if (!pfd[0].revents)
			continue;
		/* readable, so this does not block; it re-arms the CQ */
		ret = rpma_cq_wait(s->rcq);
		if (ret) {
			report(WHO, "rpma_cq_wait", ret);
			return 1;
		}
	}
}

/*
 * Takes one ping from the SRQ's CQ, finds its connection by QP number,
 * checks it, re-posts its buffer and answers with a pong.
 */
static int
serve_ping(struct server *s)
{
	struct client_conn *c = NULL;
	struct pong_msg *pong;
	struct ping_msg ping;
	struct ibv_wc wc;
	unsigned i, slot = RECV_SLOTS;
	int ret;

	if (next_srq_wc(s, &wc))
		return 1;
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, WHO ": an SRQ receive completed with status %s (%d)\n",
				wc_status_name(wc.status), (int)wc.status);
		return 1;
	}
	for (i = 0; i < RECV_SLOTS; i++)
		if (wc.wr_id == (uint64_t)(uintptr_t)s->mem->slot[i] && s->posted[i])
			slot = i;
	if (slot == RECV_SLOTS) {
		fprintf(stderr, WHO ": an SRQ receive completed with wr_id 0x%llx, none of the posted buffers\n",
				(unsigned long long)wc.wr_id);
		return 1;
	}
	s->posted[slot] = false;
	/* the QP number is all that says which connection the ping came on */
	for (i = 0; i < s->accepted; i++)
		if (s->c[i].qp_num == wc.qp_num)
			c = &s->c[i];
	if (c == NULL) {
		fprintf(stderr, WHO ": a ping came on QP %u, which is none of the connections'\n",
				wc.qp_num);
		return 1;
	}
	if (wc.opcode != IBV_WC_RECV || wc.byte_len != sizeof(ping) ||
			(wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": a ping completed as %s with %u bytes%s; expected RECV with %zu bytes and no immediate\n",
				wc_opcode_name(wc.opcode), wc.byte_len,
				(wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(ping));
		return 1;
	}
	memcpy(&ping, s->mem->slot[slot], sizeof(ping));
	if (le32toh(ping.magic) != PING_MAGIC || le32toh(ping.reserved) != 0) {
		fprintf(stderr, WHO ": QP %u: not a PING of this protocol\n", wc.qp_num);
		return 1;
	}
	/* a ping routed to the wrong connection shows here */
	if (le16toh(ping.index) != c->hello.index || le32toh(ping.token) != c->hello.token) {
		fprintf(stderr, WHO ": QP %u belongs to connection %u (token 0x%08x), but its ping is connection %u's (token 0x%08x)\n",
				wc.qp_num, c->hello.index, c->hello.token, le16toh(ping.index),
				le32toh(ping.token));
		return 1;
	}
	/* one connection keeps its order, whatever the others do */
	if (le16toh(ping.round) != c->next_round || c->next_round >= s->rounds) {
		fprintf(stderr, WHO ": connection %u: ping of round %u, expected round %u of %u\n",
				c->hello.index, le16toh(ping.round), c->next_round, s->rounds);
		return 1;
	}
	for (i = 0; i < PAYLOAD_LEN; i++) {
		if (ping.payload[i] != ping_byte(c->hello.token, c->next_round, i)) {
			fprintf(stderr, WHO ": connection %u round %u: payload byte %u is 0x%02x, expected 0x%02x\n",
					c->hello.index, c->next_round, i, ping.payload[i],
					ping_byte(c->hello.token, c->next_round, i));
			return 1;
		}
	}

	/* the buffer goes back to the SRQ before the answer: the next ping may use it */
	if (post_slot(s, slot))
		return 1;

	pong = &s->mem->pong[c - s->c];
	pong->magic = htole32(PONG_MAGIC);
	pong->index = ping.index;
	pong->round = ping.round;
	pong->token = ping.token;
	pong->seq = htole32(s->seq);
	pong_payload(pong->payload, ping.payload);
	ret = rpma_send(c->conn, s->mr, offsetof(struct server_mem, pong[c - s->c]), sizeof(*pong),
			RPMA_F_COMPLETION_ALWAYS, pong);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	/*
	 * No hang-up watch: the client waits for every pong; after its last
	 * one it may hang up before this side has seen the send complete.
	 */
	if (c->next_round + 1 == s->rounds) {
		if (last_send_done(WHO, c->conn, c->cq, pong, IBV_WC_SEND, "the last pong"))
			return 1;
	} else if (expect_wc(WHO, c->cq, -1, pong, IBV_WC_SEND, IBV_WC_SEND, "rpma_send (pong)",
			&wc)) {
		return 1;
	}
	printf(WHO ": ping #%u: connection %u round %u, QP %u, buffer %u: verified, pong sent\n",
			s->seq, c->hello.index, c->next_round, c->qp_num, slot);
	c->next_round++;
	s->seq++;
	return 0;
}

/* every ping of every round, then nothing more */
static int
play(struct server *s)
{
	struct ibv_wc wc;
	unsigned i;
	int ret;

	for (i = 0; i < s->count * s->rounds; i++)
		if (serve_ping(s))
			return 1;
	for (i = 0; i < s->count; i++) {
		if (s->c[i].next_round != s->rounds) {
			fprintf(stderr, WHO ": connection %u played %u rounds of %u\n",
					s->c[i].hello.index, s->c[i].next_round, s->rounds);
			return 1;
		}
	}
	ret = rpma_cq_get_wc(s->rcq, 1, &wc, NULL);
	if (ret != RPMA_E_NO_COMPLETION) {
		fprintf(stderr, WHO ": the SRQ's CQ has more than the pings announced (%s)\n",
				ret ? rpma_err_2str(ret) : "a completion");
		return 1;
	}
	printf(WHO ": all %u rounds of all %u connections verified and answered\n",
			s->rounds, s->count);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_srq_cfg *srq_cfg = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_ep *ep = NULL;
	struct server s = { .srq = NULL };
	const char *addr, *port;
	int failed = 1;
	int ret;
	unsigned i;

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

	s.mem = page_alloc(WHO, sizeof(*s.mem));
	if (s.mem == NULL)
		goto err_peer_delete;
	memset(s.mem, 0, sizeof(*s.mem));
	ret = rpma_mr_reg(peer, s.mem, sizeof(*s.mem), MEM_USAGE, &s.mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	/* the SRQ: room for every buffer, and a receive CQ of its own */
	ret = rpma_srq_cfg_new(&srq_cfg);
	if (ret) {
		report(WHO, "rpma_srq_cfg_new", ret);
		goto err_mr_dereg;
	}
	ret = rpma_srq_cfg_set_rq_size(srq_cfg, RECV_SLOTS);
	if (ret) {
		report(WHO, "rpma_srq_cfg_set_rq_size", ret);
		goto err_srq_cfg_delete;
	}
	ret = rpma_srq_cfg_set_rcq_size(srq_cfg, SRQ_RCQ_SIZE);
	if (ret) {
		report(WHO, "rpma_srq_cfg_set_rcq_size", ret);
		goto err_srq_cfg_delete;
	}
	ret = rpma_srq_new(peer, srq_cfg, &s.srq);
	if (ret) {
		report(WHO, "rpma_srq_new", ret);
		goto err_srq_cfg_delete;
	}
	ret = rpma_srq_get_rcq(s.srq, &s.rcq);
	if (ret) {
		report(WHO, "rpma_srq_get_rcq", ret);
		goto err_srq_delete;
	}
	if (s.rcq == NULL) {
		fprintf(stderr, WHO ": the SRQ has no receive CQ although one was configured\n");
		goto err_srq_delete;
	}
	/* posted before anyone connects: every ping finds a buffer */
	for (i = 0; i < RECV_SLOTS; i++)
		if (post_slot(&s, i))
			goto err_srq_delete;

	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		goto err_srq_delete;
	}
	ret = rpma_conn_cfg_set_srq(cfg, s.srq);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_srq", ret);
		goto err_cfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_cfg_delete;
	}
	printf(WHO ": listening on %s:%s, %d receives posted on the SRQ\n", addr, port,
			RECV_SLOTS);

	/*
	 * The first HELLO says how many come; each later one must agree. All
	 * are accepted before any ESTABLISHED is awaited: the client's end of
	 * a connection is made only when the client takes that connection's
	 * event, and it takes them in its own order, which the requests need
	 * not arrive in (a lost request comes again seconds later). Waiting
	 * for one connection before accepting the next could wait for a
	 * client that waits for this side.
	 */
	do {
		if (accept_one(&s, ep, cfg))
			goto err_conns;
	} while (s.accepted < s.count);
	for (i = 0; i < s.accepted; i++)
		if (establish_one(&s, i))
			goto err_conns;
	printf(WHO ": all %u connections established\n", s.count);

	if (play(&s))
		goto err_conns;

	/*
	 * The clients hang up once they have all their pongs. Each CLOSED is
	 * answered with rpma_conn_disconnect() at once: the client, which
	 * waits for its own CLOSED, gets it only once this side disconnected
	 * too.
	 */
	failed = 0;
	for (i = 0; i < s.accepted && !failed; i++) {
		if (expect_event_within(WHO, s.c[i].conn, RPMA_CONN_CLOSED, "CLOSED", EVENT_TIMEOUT_MS)) {
			failed = 1;
			break;
		}
		drop_connection(WHO, &s.c[i].conn, &failed);
		if (!failed)
			printf(WHO ": connection %u closed by the client\n", s.c[i].hello.index);
	}

	/* tear down in reverse; any failure here still fails the run */
err_conns:
	/* connections still open (only after a failure): hang up on them */
	for (i = 0; i < s.accepted; i++) {
		if (s.c[i].conn == NULL)
			continue;
		drop_connection(WHO, &s.c[i].conn, &failed);
	}
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_cfg_delete:
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
err_srq_delete:
	/* after the connections: their QPs used the SRQ */
	teardown_step(WHO, "rpma_srq_delete", rpma_srq_delete(&s.srq), &failed);
err_srq_cfg_delete:
	teardown_step(WHO, "rpma_srq_cfg_delete", rpma_srq_cfg_delete(&srq_cfg), &failed);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&s.mr), &failed);
err_free:
	free(s.mem);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
