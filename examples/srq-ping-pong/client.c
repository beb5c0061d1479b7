/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the srq-ping-pong example: one process
 * opens several connections to the server at once and plays ping-pong on
 * all of them interleaved. Each round it posts a receive for the pong and
 * sends a ping on every connection before it waits for any pong, so the
 * server gets the pings of all connections mixed on its one SRQ. Each pong
 * must come back on the connection its ping went out on and answer that
 * very ping: same connection index and token, same round, and the ping's
 * payload turned around. The protocol is described in common.h.
 *
 * usage: client <addr> <port> [connections [rounds]]
 *
 * connections: 1 to 8 (default 3); rounds: 1 to 100 (default 5).
 *
 * Exits 0 when every pong of every round was verified, 1 on any error or
 * mismatch.
 */
#include <stddef.h>
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000
/* pongs complete on a receive CQ of their own, one at a time */
#define CLIENT_RCQ_SIZE		4
/* larger than a pong, so a longer message shows as a wrong length */
#define PONG_ROOM		96

/* one connection's message memory */
struct slot_mem {
	struct ping_msg ping;
	char pong[PONG_ROOM];
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
#define SLOT_OFF(i, field) \
	((size_t)(i) * sizeof(struct slot_mem) + offsetof(struct slot_mem, field))

/* one of the client's connections */
struct client_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* pings */
	struct rpma_cq *rcq;	/* pongs */
	int event_fd;		/* readable once the server hangs up */
	uint32_t qp_num;
	uint32_t token;
};

struct client {
	unsigned count, rounds;
	struct rpma_mr_local *mr;
	struct slot_mem *mem;	/* count of them, registered as mr */
	struct client_conn c[MAX_CLIENTS];
	bool seq_seen[MAX_CLIENTS * MAX_ROUNDS];
};

/* sends connection i's request with its HELLO */
static int
connect_one(struct client *cl, struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, unsigned i)
{
	struct client_conn *c = &cl->c[i];
	struct rpma_conn_private_data pdata;
	struct hello_msg hello;

	memset(&hello, 0, sizeof(hello));
	hello.magic = htole32(HELLO_MAGIC);
	hello.version = htole16(PROTO_VERSION);
	hello.index = htole16((uint16_t)i);
	hello.count = htole16((uint16_t)cl->count);
	hello.rounds = htole16((uint16_t)cl->rounds);
	hello.token = htole32(c->token);
	pdata.ptr = &hello;
	pdata.len = sizeof(hello);
	if (connect_to(WHO, peer, addr, port, cfg, &pdata, &c->conn))
		return 1;
	printf(WHO ": connection %u: request sent (token 0x%08x)\n", i, c->token);
	return 0;
}

/* waits for ESTABLISHED on connection i and learns what it needs of it */
static int
establish_one(struct client *cl, unsigned i)
{
	struct client_conn *c = &cl->c[i];
	int ret;

	/* REJECTED instead means the server did not like our HELLO */
	if (expect_event_within(WHO, c->conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED", EVENT_TIMEOUT_MS))
		return 1;
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
	ret = rpma_conn_get_rcq(c->conn, &c->rcq);
	if (ret) {
		report(WHO, "rpma_conn_get_rcq", ret);
		return 1;
	}
	if (c->rcq == NULL) {
		fprintf(stderr, WHO ": connection %u has no receive CQ\n", i);
		return 1;
	}
	ret = rpma_conn_get_qp_num(c->conn, &c->qp_num);
	if (ret) {
		report(WHO, "rpma_conn_get_qp_num", ret);
		return 1;
	}
	printf(WHO ": connection %u: established on QP %u\n", i, c->qp_num);
	return 0;
}

/* posts the receive for connection i's pong, then sends its ping of round r */
static int
ping(struct client *cl, unsigned i, unsigned r)
{
	struct client_conn *c = &cl->c[i];
	struct slot_mem *m = &cl->mem[i];
	unsigned k;
	int ret;

	memset(m->pong, 0, PONG_ROOM);
	ret = rpma_recv(c->conn, cl->mr, SLOT_OFF(i, pong), PONG_ROOM, m->pong);
	if (ret) {
		report(WHO, "rpma_recv", ret);
		return 1;
	}
	m->ping.magic = htole32(PING_MAGIC);
	m->ping.index = htole16((uint16_t)i);
	m->ping.round = htole16((uint16_t)r);
	m->ping.token = htole32(c->token);
	m->ping.reserved = 0;
	for (k = 0; k < PAYLOAD_LEN; k++)
		m->ping.payload[k] = ping_byte(c->token, r, k);
	ret = rpma_send(c->conn, cl->mr, SLOT_OFF(i, ping), sizeof(m->ping),
			RPMA_F_COMPLETION_ALWAYS, &m->ping);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	return 0;
}

/* waits for connection i's ping of round r to go out and checks its pong */
static int
take_pong(struct client *cl, unsigned i, unsigned r)
{
	struct client_conn *c = &cl->c[i];
	struct slot_mem *m = &cl->mem[i];
	uint8_t sent[PAYLOAD_LEN], want[PAYLOAD_LEN];
	struct pong_msg pong;
	struct ibv_wc wc;
	unsigned k, seq;

	if (expect_wc(WHO, c->cq, c->event_fd, &m->ping, IBV_WC_SEND, IBV_WC_SEND,
			"rpma_send (ping)", &wc))
		return 1;
	if (expect_wc(WHO, c->rcq, c->event_fd, m->pong, IBV_WC_RECV, IBV_WC_RECV,
			"rpma_recv (pong)", &wc))
		return 1;
	if (wc.qp_num != c->qp_num) {
		fprintf(stderr, WHO ": connection %u: the pong completed for QP %u, not %u\n",
				i, wc.qp_num, c->qp_num);
		return 1;
	}
	if (wc.byte_len != sizeof(pong) || (wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": connection %u: the pong has %u bytes%s, expected %zu and no immediate\n",
				i, wc.byte_len, (wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(pong));
		return 1;
	}
	memcpy(&pong, m->pong, sizeof(pong));
	if (le32toh(pong.magic) != PONG_MAGIC) {
		fprintf(stderr, WHO ": connection %u: the pong has a wrong magic number\n", i);
		return 1;
	}
	/* another connection's pong, or an old one, shows here */
	if (le16toh(pong.index) != i || le32toh(pong.token) != c->token ||
			le16toh(pong.round) != r) {
		fprintf(stderr, WHO ": connection %u (token 0x%08x) round %u got the pong of connection %u (token 0x%08x) round %u\n",
				i, c->token, r, le16toh(pong.index), le32toh(pong.token),
				le16toh(pong.round));
		return 1;
	}
	seq = le32toh(pong.seq);
	if (seq >= cl->count * cl->rounds || cl->seq_seen[seq]) {
		fprintf(stderr, WHO ": connection %u round %u: the server's count %u is out of range or repeated\n",
				i, r, seq);
		return 1;
	}
	cl->seq_seen[seq] = true;
	for (k = 0; k < PAYLOAD_LEN; k++)
		sent[k] = ping_byte(c->token, r, k);
	pong_payload(want, sent);
	for (k = 0; k < PAYLOAD_LEN; k++) {
		if (pong.payload[k] != want[k]) {
			fprintf(stderr, WHO ": connection %u round %u: pong payload byte %u is 0x%02x, expected 0x%02x\n",
					i, r, k, pong.payload[k], want[k]);
			return 1;
		}
	}
	printf(WHO ": connection %u round %u: pong verified (server's ping #%u)\n", i, r, seq);
	return 0;
}

/*
 * All connections at once: all requests, then all ESTABLISHED, then the
 * rounds, each with a ping on every connection before any pong is taken.
 * Returns 0 when every pong was right; the connections made are in cl->c
 * either way.
 */
static int
run(struct client *cl, struct rpma_peer *peer, const char *addr, const char *port)
{
	struct rpma_conn_cfg *cfg = NULL;
	int failed = 1;
	unsigned i, r;
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
	/* pongs get a CQ of their own, so they never mix with the pings' */
	ret = rpma_conn_cfg_set_rcq_size(cfg, CLIENT_RCQ_SIZE);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_rcq_size", ret);
		goto out_cfg;
	}

	for (i = 0; i < cl->count; i++)
		if (connect_one(cl, peer, addr, port, cfg, i))
			goto out_cfg;
	for (i = 0; i < cl->count; i++)
		if (establish_one(cl, i))
			goto out_cfg;
	printf(WHO ": all %u connections established\n", cl->count);

	for (r = 0; r < cl->rounds; r++) {
		for (i = 0; i < cl->count; i++)
			if (ping(cl, i, r))
				goto out_cfg;
		for (i = 0; i < cl->count; i++)
			if (take_pong(cl, i, r))
				goto out_cfg;
	}
	printf(WHO ": all %u rounds on all %u connections verified\n", cl->rounds, cl->count);
	failed = 0;

out_cfg:
	/* each request took a copy of the configuration, it may go any time */
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
	return failed;
}

/*
 * Hangs up every connection there is: all of them first, so the server may
 * see the hang-ups in any order, then waits for each to close. After a
 * clean run each must end with CLOSED; after a failure the client does not
 * wait for that.
 */
static void
hang_up(struct client *cl, int *failed)
{
	bool clean = !*failed;
	unsigned i;

	for (i = 0; i < cl->count; i++) {
		if (cl->c[i].conn == NULL)
			continue;
		teardown_step(WHO, "rpma_conn_disconnect", rpma_conn_disconnect(cl->c[i].conn),
				failed);
	}
	for (i = 0; i < cl->count && clean && !*failed; i++) {
		if (expect_event_within(WHO, cl->c[i].conn, RPMA_CONN_CLOSED, "CLOSED", EVENT_TIMEOUT_MS))
			*failed = 1;
		else
			printf(WHO ": connection %u: closed\n", i);
	}
	for (i = 0; i < cl->count; i++)
		teardown_step(WHO, "rpma_conn_delete", rpma_conn_delete(&cl->c[i].conn), failed);
}

/* a number from 1 to max, or 0 when arg is not one */
static unsigned
parse_count(const char *arg, unsigned max)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || *end != '\0' || n < 1 || n > max)
		return 0;
	return (unsigned)n;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct client *cl = NULL;
	size_t mem_size;
	const char *addr, *port;
	int failed = 1;
	int ret;
	unsigned i;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: %s <addr> <port> [connections [rounds]]\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* keep stdout and stderr in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);

	cl = calloc(1, sizeof(*cl));
	if (cl == NULL) {
		fprintf(stderr, WHO ": out of memory\n");
		return 1;
	}
	cl->count = DEFAULT_CLIENTS;
	cl->rounds = DEFAULT_ROUNDS;
	if (argc > 3 && (cl->count = parse_count(argv[3], MAX_CLIENTS)) == 0) {
		fprintf(stderr, WHO ": connections must be 1 to %d, not \"%s\"\n", MAX_CLIENTS,
				argv[3]);
		goto out_free_client;
	}
	if (argc > 4 && (cl->rounds = parse_count(argv[4], MAX_ROUNDS)) == 0) {
		fprintf(stderr, WHO ": rounds must be 1 to %d, not \"%s\"\n", MAX_ROUNDS, argv[4]);
		goto out_free_client;
	}
	/* a token per connection, different from run to run and from each other */
	for (i = 0; i < cl->count; i++)
		cl->c[i].token = ((uint32_t)getpid() << 8) + i * 0x01000193u;

	/* addr is the server's: the device is the one that reaches it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		goto out_free_client;

	mem_size = cl->count * sizeof(*cl->mem);
	cl->mem = page_alloc(WHO, mem_size);
	if (cl->mem == NULL)
		goto out_peer_delete;
	memset(cl->mem, 0, mem_size);
	ret = rpma_mr_reg(peer, cl->mem, mem_size, MEM_USAGE, &cl->mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free_mem;
	}

	printf(WHO ": opening %u connections to %s:%s for %u rounds each\n", cl->count, addr,
			port, cl->rounds);
	failed = run(cl, peer, addr, port);
	hang_up(cl, &failed);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&cl->mr), &failed);
out_free_mem:
	free(cl->mem);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
out_free_client:
	free(cl);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
