/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the multiple-connections example: one
 * process opens several connections to the same server at once. It sends
 * all the connect requests (each with a HELLO naming the connection and
 * carrying a token of its own, and with a receive for the greeting already
 * posted on it), waits until all are established, sends an ASK on each
 * (the server greets only when asked: common.h says why), then takes the
 * greeting of each connection, checks it is the one meant for that
 * connection and not another's, and answers it. Only when every connection
 * has answered does it hang them all up. The protocol is described in common.h.
 *
 * usage: client <addr> <port> [--shared-channel] [connections]
 *
 * connections: how many to open, 1 to 16 (default 4).
 * --shared-channel: each connection's CQs share one completion channel;
 * completions are waited for with rpma_conn_wait().
 *
 * Exits 0 when every greeting was right and every answer went out, 1 on
 * any error or mismatch.
 */
#include <stddef.h>
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000
/* how long a connection may take to be established or closed (see CONN_EVENT_TIMEOUT_MS) */
#define EVENT_TIMEOUT_MS	60000

/* larger than a greeting, so a longer message shows as a wrong length */
#define GREETING_ROOM	128

/* one connection's message memory */
struct slot_mem {
	char greeting[GREETING_ROOM];
	struct hello_msg ask;
	struct answer_msg answer;
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
#define SLOT_OFF(i, field) \
	((size_t)(i) * sizeof(struct slot_mem) + offsetof(struct slot_mem, field))

/* one of the client's connections */
struct client_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* sends and receives: no separate RCQ */
	int event_fd;		/* readable once the server hangs up */
	uint32_t qp_num;
	uint32_t token;
};

struct client {
	bool shared;		/* --shared-channel */
	unsigned count;		/* connections to open */
	struct rpma_mr_local *mr;
	struct slot_mem *mem;	/* count of them, registered as mr */
	struct client_conn c[MAX_CONNECTIONS];
	bool serial_seen[MAX_CONNECTIONS];
};

/* the next completion of connection i, by the channel mode in use */
static int
next_completion(struct client *cl, unsigned i, struct ibv_wc *wc)
{
	struct client_conn *c = &cl->c[i];
	bool is_rcq = false;

	if (!cl->shared)
		return next_wc(WHO, c->cq, c->event_fd, wc);
	if (next_wc_shared(WHO, c->conn, c->event_fd, wc, &is_rcq))
		return 1;
	if (is_rcq) {
		fprintf(stderr, WHO ": connection %u: a completion on a receive CQ it does not have\n",
				i);
		return 1;
	}
	return 0;
}

/*
 * Sends connection i's request: a receive for the greeting is posted on
 * the request first, so it is there before the server can send anything.
 */
static int
connect_one(struct client *cl, struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, unsigned i)
{
	struct client_conn *c = &cl->c[i];
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pdata;
	struct hello_msg hello;
	int ret;

	ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		report(WHO, "rpma_conn_req_new", ret);
		return 1;
	}
	memset(cl->mem[i].greeting, 0, GREETING_ROOM);
	ret = rpma_conn_req_recv(req, cl->mr, SLOT_OFF(i, greeting), GREETING_ROOM,
			cl->mem[i].greeting);
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		/* an active request that goes unconnected is simply destroyed */
		ret = rpma_conn_req_delete(&req);
		if (ret)
			report(WHO, "rpma_conn_req_delete", ret);
		return 1;
	}

	hello_encode(&hello, HELLO_MAGIC, i, cl->count, c->token);
	pdata.ptr = &hello;
	pdata.len = sizeof(hello);
	/* the library copies the data into the request: hello may go after this */
	ret = rpma_conn_req_connect(&req, &pdata, &c->conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		return 1;
	}
	printf(WHO ": connection %u: request sent (token 0x%08x), receive for the greeting posted\n",
			i, c->token);
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
	ret = rpma_conn_get_qp_num(c->conn, &c->qp_num);
	if (ret) {
		report(WHO, "rpma_conn_get_qp_num", ret);
		return 1;
	}
	printf(WHO ": connection %u: established\n", i);
	return 0;
}

/*
 * Sends connection i's ASK. Only a failed send makes a completion: a
 * successful one may complete after the greeting it asked for has come.
 */
static int
ask_one(struct client *cl, unsigned i)
{
	struct client_conn *c = &cl->c[i];
	struct hello_msg *a = &cl->mem[i].ask;
	int ret;

	hello_encode(a, ASK_MAGIC, i, cl->count, c->token);
	ret = rpma_send(c->conn, cl->mr, SLOT_OFF(i, ask), sizeof(*a),
			RPMA_F_COMPLETION_ON_ERROR, a);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	printf(WHO ": connection %u: ASK sent\n", i);
	return 0;
}

/*
 * Takes connection i's greeting and checks it was meant for this very
 * connection; *serial and *cookie are what the answer has to echo.
 */
static int
take_greeting(struct client *cl, unsigned i, uint16_t *serial, uint32_t *cookie)
{
	struct client_conn *c = &cl->c[i];
	struct greeting_msg g;
	char text[GREETING_TEXT_LEN];
	struct ibv_wc wc;

	if (next_completion(cl, i, &wc))
		return 1;
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, WHO ": connection %u: the greeting's receive completed with status %s (%d)\n",
				i, wc_status_name(wc.status), (int)wc.status);
		return 1;
	}
	if (wc.wr_id != (uint64_t)(uintptr_t)cl->mem[i].greeting || wc.opcode != IBV_WC_RECV ||
			wc.qp_num != c->qp_num) {
		fprintf(stderr, WHO ": connection %u: expected the greeting's receive (wr_id 0x%llx, RECV, QP %u), got wr_id 0x%llx, %s, QP %u\n",
				i, (unsigned long long)(uintptr_t)cl->mem[i].greeting, c->qp_num,
				(unsigned long long)wc.wr_id, wc_opcode_name(wc.opcode), wc.qp_num);
		return 1;
	}
	if (wc.byte_len != sizeof(g) || (wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": connection %u: the greeting has %u bytes%s, expected %zu and no immediate\n",
				i, wc.byte_len, (wc.wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(g));
		return 1;
	}
	memcpy(&g, cl->mem[i].greeting, sizeof(g));
	if (le32toh(g.magic) != GREETING_MAGIC) {
		fprintf(stderr, WHO ": connection %u: the greeting has a wrong magic number\n", i);
		return 1;
	}
	/* a greeting meant for another connection shows here */
	if (le16toh(g.index) != i || le32toh(g.token) != c->token) {
		fprintf(stderr, WHO ": connection %u (token 0x%08x) got the greeting of connection %u (token 0x%08x)\n",
				i, c->token, le16toh(g.index), le32toh(g.token));
		return 1;
	}
	*serial = le16toh(g.serial);
	*cookie = le32toh(g.cookie);
	if (*serial >= cl->count || cl->serial_seen[*serial]) {
		fprintf(stderr, WHO ": connection %u: serial #%u is out of range or another connection's\n",
				i, *serial);
		return 1;
	}
	cl->serial_seen[*serial] = true;
	if (*cookie != greeting_cookie(*serial)) {
		fprintf(stderr, WHO ": connection %u: cookie 0x%08x, expected 0x%08x for #%u\n",
				i, *cookie, greeting_cookie(*serial), *serial);
		return 1;
	}
	greeting_text(text, i, cl->count, *serial);
	if (memcmp(g.text, text, GREETING_TEXT_LEN) != 0) {
		fprintf(stderr, WHO ": connection %u: greeting text \"%.*s\", expected \"%s\"\n",
				i, GREETING_TEXT_LEN, g.text, text);
		return 1;
	}
	printf(WHO ": connection %u: greeting verified: \"%s\"\n", i, text);
	return 0;
}

/* answers connection i's greeting and waits until the answer is out */
static int
answer_one(struct client *cl, unsigned i, uint16_t serial, uint32_t cookie)
{
	struct client_conn *c = &cl->c[i];
	struct answer_msg *a = &cl->mem[i].answer;
	struct ibv_wc wc;
	int ret;

	a->magic = htole32(ANSWER_MAGIC);
	a->index = htole16((uint16_t)i);
	a->serial = htole16(serial);
	a->token = htole32(c->token);
	a->cookie = htole32(cookie);
	ret = rpma_send(c->conn, cl->mr, SLOT_OFF(i, answer), sizeof(*a),
			RPMA_F_COMPLETION_ALWAYS, a);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	if (next_completion(cl, i, &wc))
		return 1;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)(uintptr_t)a ||
			wc.opcode != IBV_WC_SEND || wc.qp_num != c->qp_num) {
		fprintf(stderr, WHO ": connection %u: expected the answer's send to succeed (wr_id 0x%llx, SEND, QP %u), got %s, wr_id 0x%llx, %s, QP %u\n",
				i, (unsigned long long)(uintptr_t)a, c->qp_num, wc_status_name(wc.status),
				(unsigned long long)wc.wr_id, wc_opcode_name(wc.opcode), wc.qp_num);
		return 1;
	}
	printf(WHO ": connection %u: answer to greeting #%u sent\n", i, serial);
	return 0;
}

/*
 * All connections at once: all requests, then all ESTABLISHED, all ASKs,
 * then each greeting and its answer. Returns 0 when every step went right;
 * the connections made are in cl->c either way.
 */
static int
run(struct client *cl, struct rpma_peer *peer, const char *addr, const char *port)
{
	struct rpma_conn_cfg *cfg = NULL;
	uint32_t cookie = 0;
	uint16_t serial = 0;
	int failed = 1;
	unsigned i;
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
	ret = rpma_conn_cfg_set_compl_channel(cfg, cl->shared);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_compl_channel", ret);
		goto out_cfg;
	}

	for (i = 0; i < cl->count; i++)
		if (connect_one(cl, peer, addr, port, cfg, i))
			goto out_cfg;
	for (i = 0; i < cl->count; i++)
		if (establish_one(cl, i))
			goto out_cfg;
	printf(WHO ": all %u connections established\n", cl->count);
	for (i = 0; i < cl->count; i++)
		if (ask_one(cl, i))
			goto out_cfg;
	for (i = 0; i < cl->count; i++)
		if (take_greeting(cl, i, &serial, &cookie) || answer_one(cl, i, serial, cookie))
			goto out_cfg;
	printf(WHO ": all %u greetings verified and answered\n", cl->count);
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

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct client cl = { .count = DEFAULT_CONNECTIONS };
	size_t mem_size;
	const char *addr, *port;
	char *end;
	unsigned long n;
	int failed = 1;
	int ret, a;
	unsigned i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <addr> <port> [" SHARED_CHANNEL_ARG "] [connections]\n",
				argv[0]);
		return 1;
	}
	for (a = 3; a < argc; a++) {
		if (strcmp(argv[a], SHARED_CHANNEL_ARG) == 0) {
			cl.shared = true;
			continue;
		}
		errno = 0;
		n = strtoul(argv[a], &end, 10);
		if (errno || *end != '\0' || n < 1 || n > MAX_CONNECTIONS) {
			fprintf(stderr, WHO ": connections must be 1 to %d, not \"%s\"\n",
					MAX_CONNECTIONS, argv[a]);
			return 1;
		}
		cl.count = (unsigned)n;
	}
	addr = argv[1];
	port = argv[2];
	/* keep stdout and stderr in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* a token per connection, different from run to run and from each other */
	for (i = 0; i < cl.count; i++)
		cl.c[i].token = ((uint32_t)getpid() << 8) + i * 0x01000193u;

	/* addr is the server's: the device is the one that reaches it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;

	mem_size = cl.count * sizeof(*cl.mem);
	cl.mem = page_alloc(WHO, mem_size);
	if (cl.mem == NULL)
		goto out_peer_delete;
	memset(cl.mem, 0, mem_size);
	ret = rpma_mr_reg(peer, cl.mem, mem_size, MEM_USAGE, &cl.mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free;
	}

	printf(WHO ": opening %u connections to %s:%s, completions through %s\n", cl.count,
			addr, port, cl.shared ? "each connection's shared channel" : "each CQ's own channel");
	failed = run(&cl, peer, addr, port);
	hang_up(&cl, &failed);

	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&cl.mr), &failed);
out_free:
	free(cl.mem);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
