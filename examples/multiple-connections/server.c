/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the multiple-connections example: one
 * endpoint, several clients at once, all driven by a single epoll loop.
 * The loop watches the endpoint's fd (a connection request is there), the
 * event fd of every connection (ESTABLISHED, CLOSED) and the completion fd
 * of every connection (its CQ's, or the connection's shared completion
 * channel with --shared-channel). For each connection it accepts the
 * request with two receives posted, waits for the client's ASK, sends a
 * greeting meant for that connection only, checks the answer that comes
 * back arrived on the connection it belongs to, and handles the client's
 * hang-up. The protocol is described in common.h; how many connections
 * come is said by the client's HELLOs.
 *
 * usage: server <addr> <port> [--shared-channel]
 *
 * --shared-channel: each connection's CQs share one completion channel
 * (rpma_conn_cfg_set_compl_channel()); the loop watches
 * rpma_conn_get_compl_fd() and takes the events with rpma_conn_wait().
 *
 * Exits 0 when every connection the client announced was accepted,
 * asked, greeted, answered correctly and closed, 1 on any error or
 * mismatch, when nothing happened for 30 s, or when a connection's
 * completions did not all come within 10 s of its hang-up (both times
 * EXAMPLE_WAIT_SCALE).
 */
#include <stddef.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "common.h"

#define WHO "server"

/* larger than an ASK or an answer: a longer message shows as a wrong length */
#define MSG_ROOM	64

/* one connection's message memory: its greeting, the places of its ASK and answer */
struct slot_mem {
	struct greeting_msg greeting;
	char ask[MSG_ROOM];
	char answer[MSG_ROOM];
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
#define SLOT_OFF(i, field) \
	((size_t)(i) * sizeof(struct slot_mem) + offsetof(struct slot_mem, field))

/* what an fd in the epoll set stands for */
enum watch_kind { WATCH_EP, WATCH_EVENT, WATCH_COMPL };

struct watch {
	enum watch_kind kind;
	unsigned serial;	/* the connection's, for WATCH_EVENT and WATCH_COMPL */
};

/* one accepted connection, indexed by the order it was accepted in */
struct slot {
	struct rpma_conn *conn;	/* NULL once closed and deleted */
	struct rpma_cq *cq;	/* sends and receives: the connection has no RCQ */
	uint32_t qp_num;
	int event_fd;
	int compl_fd;		/* the CQ's fd, or the shared channel's */
	struct hello_msg hello;	/* as received, host byte order */
	bool established;
	bool asked;		/* the ASK arrived and was right */
	bool greeted;		/* the greeting's send completed */
	bool answered;		/* the answer arrived and was right */
	bool closing;		/* CLOSED came; completions may still be missing */
	struct timespec close_deadline;	/* until when they may come */
	struct watch event_watch, compl_watch;
};

struct server {
	bool shared;		/* --shared-channel */
	struct rpma_ep *ep;
	struct rpma_conn_cfg *cfg;
	struct rpma_mr_local *mr;
	struct slot_mem *mem;	/* MAX_CONNECTIONS of them, registered as mr */
	int epfd;
	unsigned expected;	/* announced by the first HELLO; 0 before it */
	unsigned accepted;	/* so far, and the serial of the next one */
	unsigned served;	/* closed after a full exchange */
	bool index_seen[MAX_CONNECTIONS];
	struct slot slot[MAX_CONNECTIONS];
	struct watch ep_watch;
};

static int
watch_fd(struct server *s, int fd, struct watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		fprintf(stderr, WHO ": epoll_ctl(ADD): %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static void
unwatch_fd(struct server *s, int fd)
{
	/* the fd goes away with its connection anyway; this keeps epoll tidy */
	if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL))
		fprintf(stderr, WHO ": epoll_ctl(DEL): %s\n", strerror(errno));
}

/*
 * Reads the HELLO of req into *hello and checks it: sound header, an
 * index not seen yet, the same count as every HELLO before. Returns NULL
 * when it is acceptable, else what is wrong with it.
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
	hello_decode(hello, pdata.ptr);
	if (hello->magic != HELLO_MAGIC || hello->version != PROTO_VERSION ||
			hello->reserved != 0)
		return "not a HELLO of this protocol";
	if (hello->count == 0 || hello->count > MAX_CONNECTIONS)
		return "a connection count the server cannot take";
	if (s->expected != 0 && hello->count != s->expected)
		return "a connection count different from the earlier HELLOs'";
	if (hello->index >= hello->count)
		return "an index beyond the count";
	if (s->index_seen[hello->index])
		return "an index that came before";
	if (s->expected != 0 && s->accepted >= s->expected)
		return "one connection more than announced";
	return NULL;
}

/*
 * Checks the completion fd the connection reports matches the channel
 * mode asked for. Returns 0 when it does.
 */
static int
check_channel(struct server *s, struct slot *sl)
{
	int cq_fd = -1;
	int ret;

	ret = rpma_cq_get_fd(sl->cq, &cq_fd);
	if (ret) {
		report(WHO, "rpma_cq_get_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_compl_fd(sl->conn, &sl->compl_fd);
	if (!s->shared) {
		/* each CQ has its own channel; the connection has none to share */
		if (ret != RPMA_E_NOT_SHARED_CHNL) {
			fprintf(stderr, WHO ": rpma_conn_get_compl_fd without a shared channel: %s, expected RPMA_E_NOT_SHARED_CHNL\n",
					ret ? rpma_err_2str(ret) : "it gave an fd");
			return 1;
		}
		sl->compl_fd = cq_fd;
		return 0;
	}
	if (ret) {
		report(WHO, "rpma_conn_get_compl_fd", ret);
		return 1;
	}
	/* with a shared channel the CQ reports that channel's fd */
	if (cq_fd != sl->compl_fd) {
		fprintf(stderr, WHO ": the CQ's fd %d is not the shared channel's %d\n",
				cq_fd, sl->compl_fd);
		return 1;
	}
	/* and its events belong to rpma_conn_wait(): rpma_cq_wait() refuses */
	ret = rpma_cq_wait(sl->cq);
	if (ret != RPMA_E_SHARED_CHANNEL) {
		fprintf(stderr, WHO ": rpma_cq_wait on a shared channel: %s, expected RPMA_E_SHARED_CHANNEL\n",
				ret ? rpma_err_2str(ret) : "it waited");
		return 1;
	}
	return 0;
}

/* a receive on req into place, one of a slot's MSG_ROOM places */
static int
post_receive(struct server *s, struct rpma_conn_req *req, char *place)
{
	int ret;

	memset(place, 0, MSG_ROOM);
	ret = rpma_conn_req_recv(req, s->mr, (size_t)(place - (char *)s->mem), MSG_ROOM, place);
	if (ret) {
		report(WHO, "rpma_conn_req_recv", ret);
		return 1;
	}
	return 0;
}

/* a connection request is waiting on the endpoint: accept it */
static int
on_request(struct server *s)
{
	struct rpma_conn_req *req = NULL;
	struct hello_msg hello;
	const char *problem;
	struct slot *sl;
	int ret;

	ret = rpma_ep_next_conn_req(s->ep, s->cfg, &req);
	if (ret) {
		report(WHO, "rpma_ep_next_conn_req", ret);
		return 1;
	}
	problem = check_hello(s, req, &hello);
	if (problem) {
		fprintf(stderr, WHO ": bad HELLO: %s\n", problem);
		/* deleting a request that was not accepted rejects it */
		ret = rpma_conn_req_delete(&req);
		if (ret)
			report(WHO, "rpma_conn_req_delete", ret);
		return 1;
	}
	if (s->expected == 0) {
		s->expected = hello.count;
		printf(WHO ": the client announces %u connections\n", s->expected);
	}
	s->index_seen[hello.index] = true;
	sl = &s->slot[s->accepted];
	sl->hello = hello;
	sl->event_watch = (struct watch){ WATCH_EVENT, s->accepted };
	sl->compl_watch = (struct watch){ WATCH_COMPL, s->accepted };

	/*
	 * Both receives go on the request, so they are there before the
	 * client can send; they complete in the order they were posted.
	 */
	if (post_receive(s, req, s->mem[s->accepted].ask) ||
			post_receive(s, req, s->mem[s->accepted].answer)) {
		ret = rpma_conn_req_delete(&req);
		if (ret)
			report(WHO, "rpma_conn_req_delete", ret);
		return 1;
	}
	/* the greeting goes by rpma_send, so the accept carries nothing */
	ret = rpma_conn_req_connect(&req, NULL, &sl->conn);
	if (ret) {
		report(WHO, "rpma_conn_req_connect", ret);
		return 1;
	}
	s->accepted++;

	ret = rpma_conn_get_event_fd(sl->conn, &sl->event_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_cq(sl->conn, &sl->cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}
	ret = rpma_conn_get_qp_num(sl->conn, &sl->qp_num);
	if (ret) {
		report(WHO, "rpma_conn_get_qp_num", ret);
		return 1;
	}
	if (check_channel(s, sl))
		return 1;
	if (watch_fd(s, sl->event_fd, &sl->event_watch) ||
			watch_fd(s, sl->compl_fd, &sl->compl_watch))
		return 1;
	printf(WHO ": request for connection %u of %u (token 0x%08x) accepted as #%u\n",
			hello.index, hello.count, hello.token, sl->event_watch.serial);
	return 0;
}

/* a right ASK came: the greeting, meant for this connection only */
static int
greet(struct server *s, struct slot *sl, unsigned serial)
{
	struct greeting_msg *g = &s->mem[serial].greeting;
	int ret;

	g->magic = htole32(GREETING_MAGIC);
	g->index = htole16(sl->hello.index);
	g->serial = htole16((uint16_t)serial);
	g->token = htole32(sl->hello.token);
	g->cookie = htole32(greeting_cookie(serial));
	greeting_text(g->text, sl->hello.index, sl->hello.count, serial);
	ret = rpma_send(sl->conn, s->mr, SLOT_OFF(serial, greeting), sizeof(*g),
			RPMA_F_COMPLETION_ALWAYS, g);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	printf(WHO ": #%u asked: greeting sent: \"%s\"\n", serial, g->text);
	return 0;
}

/* checks a receive of slot serial completed with len bytes and no immediate */
static int
check_recv(unsigned serial, const char *what, const struct ibv_wc *wc, size_t len)
{
	if (wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, WHO ": #%u: the %s's receive completed as %s (%d)\n",
				serial, what, wc_opcode_name(wc->opcode), (int)wc->opcode);
		return 1;
	}
	if (wc->byte_len != len || (wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": #%u: the %s has %u bytes%s, expected %zu and no immediate\n",
				serial, what, wc->byte_len,
				(wc->wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "", len);
		return 1;
	}
	return 0;
}

/* checks the ASK that arrived in slot serial's first receive buffer */
static int
check_ask(struct server *s, struct slot *sl, unsigned serial, const struct ibv_wc *wc)
{
	struct hello_msg a;

	if (check_recv(serial, "ASK", wc, sizeof(a)))
		return 1;
	hello_decode(&a, s->mem[serial].ask);
	if (a.magic != ASK_MAGIC || a.version != PROTO_VERSION || a.reserved != 0) {
		fprintf(stderr, WHO ": #%u: not an ASK of this protocol\n", serial);
		return 1;
	}
	/* an ASK sent on another connection shows here */
	if (a.index != sl->hello.index || a.count != sl->hello.count ||
			a.token != sl->hello.token) {
		fprintf(stderr, WHO ": #%u: the ASK is connection %u's (token 0x%08x); expected connection %u's (token 0x%08x)\n",
				serial, a.index, a.token, sl->hello.index, sl->hello.token);
		return 1;
	}
	return 0;
}

/* checks the answer that arrived in slot serial's receive buffer */
static int
check_answer(struct server *s, struct slot *sl, unsigned serial, const struct ibv_wc *wc)
{
	struct answer_msg a;

	if (check_recv(serial, "answer", wc, sizeof(a)))
		return 1;
	memcpy(&a, s->mem[serial].answer, sizeof(a));
	if (le32toh(a.magic) != ANSWER_MAGIC) {
		fprintf(stderr, WHO ": #%u: the answer has a wrong magic number\n", serial);
		return 1;
	}
	/* an answer meant for another connection shows here */
	if (le16toh(a.index) != sl->hello.index || le32toh(a.token) != sl->hello.token ||
			le16toh(a.serial) != serial || le32toh(a.cookie) != greeting_cookie(serial)) {
		fprintf(stderr, WHO ": #%u: the answer is connection %u's (token 0x%08x) to greeting #%u (cookie 0x%08x); expected connection %u's (token 0x%08x) to #%u (cookie 0x%08x)\n",
				serial, le16toh(a.index), le32toh(a.token), le16toh(a.serial),
				le32toh(a.cookie), sl->hello.index, sl->hello.token, serial,
				greeting_cookie(serial));
		return 1;
	}
	printf(WHO ": #%u: answer from connection %u verified\n", serial, sl->hello.index);
	return 0;
}

/* one completion taken from slot serial's CQ */
static int
on_wc(struct server *s, struct slot *sl, unsigned serial, const struct ibv_wc *wc)
{
	struct slot_mem *m = &s->mem[serial];
	unsigned i;

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, WHO ": #%u: a completion with status %s (%d)\n", serial,
				wc_status_name(wc->status), (int)wc->status);
		return 1;
	}
	if (wc->qp_num != sl->qp_num) {
		fprintf(stderr, WHO ": #%u: a completion of QP %u on the CQ of QP %u\n", serial,
				wc->qp_num, sl->qp_num);
		return 1;
	}
	if (wc->wr_id == (uint64_t)(uintptr_t)&m->greeting) {
		if (wc->opcode != IBV_WC_SEND || sl->greeted) {
			fprintf(stderr, WHO ": #%u: the greeting's send completed %s as %s\n",
					serial, sl->greeted ? "twice" : "once", wc_opcode_name(wc->opcode));
			return 1;
		}
		sl->greeted = true;
		return 0;
	}
	if (wc->wr_id == (uint64_t)(uintptr_t)m->ask) {
		if (sl->asked) {
			fprintf(stderr, WHO ": #%u: a second ASK\n", serial);
			return 1;
		}
		if (check_ask(s, sl, serial, wc))
			return 1;
		sl->asked = true;
		return greet(s, sl, serial);
	}
	if (wc->wr_id == (uint64_t)(uintptr_t)m->answer) {
		if (!sl->asked || sl->answered) {
			fprintf(stderr, WHO ": #%u: %s\n", serial,
					sl->answered ? "a second answer" : "an answer before the ASK");
			return 1;
		}
		if (check_answer(s, sl, serial, wc))
			return 1;
		sl->answered = true;
		return 0;
	}
	for (i = 0; i < MAX_CONNECTIONS; i++) {
		if (wc->wr_id == (uint64_t)(uintptr_t)&s->mem[i].greeting ||
				wc->wr_id == (uint64_t)(uintptr_t)s->mem[i].ask ||
				wc->wr_id == (uint64_t)(uintptr_t)s->mem[i].answer) {
			fprintf(stderr, WHO ": #%u: a completion of #%u's operation on #%u's CQ\n",
					serial, i, serial);
			return 1;
		}
	}
	fprintf(stderr, WHO ": #%u: a completion with an unknown wr_id 0x%llx\n", serial,
			(unsigned long long)wc->wr_id);
	return 1;
}

/* takes every completion there is on slot serial's CQ */
static int
drain(struct server *s, struct slot *sl, unsigned serial)
{
	struct ibv_wc wc;
	int ret;

	for (;;) {
		ret = rpma_cq_get_wc(sl->cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION)
			return 0;
		if (ret) {
			report(WHO, "rpma_cq_get_wc", ret);
			return 1;
		}
		if (on_wc(s, sl, serial, &wc))
			return 1;
	}
}

/*
 * Lets slot serial go once the client has hung up and everything of the
 * connection is in: the disconnection is completed on this side and the
 * connection deleted. Returns 0 also when it is not time yet.
 */
static int
finish_slot(struct server *s, struct slot *sl, unsigned serial)
{
	int failed = 0;

	if (!sl->closing || !sl->greeted || !sl->answered)
		return 0;
	unwatch_fd(s, sl->compl_fd);
	/* completes the disconnection on this side, also after CLOSED */
	drop_connection(WHO, &sl->conn, &failed);
	if (failed)
		return 1;
	s->served++;
	printf(WHO ": #%u closed by the client (%u of %u served)\n", serial, s->served,
			s->expected);
	return 0;
}

/* slot serial's completion fd is readable */
static int
on_completion(struct server *s, struct slot *sl, unsigned serial)
{
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;
	int ret;

	if (s->shared) {
		/* the channel is the connection's: it says which CQ woke up */
		ret = rpma_conn_wait(sl->conn, 0, &cq, &is_rcq);
		if (ret) {
			report(WHO, "rpma_conn_wait", ret);
			return 1;
		}
		if (cq != sl->cq || is_rcq) {
			fprintf(stderr, WHO ": #%u: rpma_conn_wait named %s, not the connection's CQ\n",
					serial, is_rcq ? "a receive CQ" : "another CQ");
			return 1;
		}
	} else {
		/* readable, so this does not block; it re-arms the CQ */
		ret = rpma_cq_wait(sl->cq);
		if (ret) {
			report(WHO, "rpma_cq_wait", ret);
			return 1;
		}
	}
	if (drain(s, sl, serial))
		return 1;
	return finish_slot(s, sl, serial);
}

/*
 * The client hung up slot serial. Normally all of the connection's
 * completions are in by now, but the last ones may still be on their way:
 * the greeting's send completes only when its acknowledgement arrives,
 * which may come late (e.g. after a retransmission). Then the slot waits
 * for them, and the connection is disconnected only afterwards, so that
 * they are real completions and not ones flushed by the disconnection.
 * They have COMPLETION_TIMEOUT_MS to come; a client that hangs up
 * without answering is caught when that has passed.
 */
static int
close_slot(struct server *s, struct slot *sl, unsigned serial)
{
	/* completions that came before the hang-up may still wait in the CQ */
	if (drain(s, sl, serial))
		return 1;
	sl->closing = true;
	sl->close_deadline = deadline_in(scaled_ms(COMPLETION_TIMEOUT_MS));
	/* nothing more may happen on the connection but those completions */
	unwatch_fd(s, sl->event_fd);
	if (!sl->greeted || !sl->answered)
		printf(WHO ": #%u hung up before %s: waiting for it\n", serial,
				!sl->asked ? "its ASK came" :
				!sl->answered ? "its answer came" :
				"the greeting's send completion came");
	return finish_slot(s, sl, serial);
}

/* slot serial's event fd is readable */
static int
on_event(struct server *s, struct slot *sl, unsigned serial)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int ret;

	ret = rpma_conn_next_event(sl->conn, &event);
	if (ret) {
		report(WHO, "rpma_conn_next_event", ret);
		return 1;
	}
	if (event == RPMA_CONN_ESTABLISHED && !sl->established) {
		/* the greeting waits for the client's ASK (common.h says why) */
		sl->established = true;
		printf(WHO ": #%u established\n", serial);
		return 0;
	}
	if (event == RPMA_CONN_CLOSED && sl->established)
		return close_slot(s, sl, serial);
	fprintf(stderr, WHO ": #%u: unexpected %s\n", serial, rpma_utils_conn_event_2str(event));
	return 1;
}

static int
dispatch(struct server *s, const struct watch *w)
{
	struct slot *sl;

	if (w->kind == WATCH_EP)
		return on_request(s);
	sl = &s->slot[w->serial];
	/* closed earlier in the same batch of events: nothing left to do */
	if (sl->conn == NULL)
		return 0;
	if (w->kind == WATCH_EVENT)
		return on_event(s, sl, w->serial);
	return on_completion(s, sl, w->serial);
}

/*
 * How long the loop may wait: until the idle deadline or the first
 * deadline of a hung-up connection still missing completions, whichever
 * comes first. *late is set to that connection's serial, or -1.
 */
static int
wait_ms(const struct server *s, const struct timespec *idle, int *late)
{
	int ms = ms_left(idle), m;
	unsigned i;

	*late = -1;
	for (i = 0; i < s->accepted; i++) {
		if (s->slot[i].conn == NULL || !s->slot[i].closing)
			continue;
		m = ms_left(&s->slot[i].close_deadline);
		if (m < ms) {
			ms = m;
			*late = (int)i;
		}
	}
	return ms;
}

/* the single loop: runs until every announced connection was served */
static int
loop(struct server *s)
{
	struct epoll_event evs[8];
	/* both stretched when a side runs under valgrind (EXAMPLE_WAIT_SCALE) */
	const int idle_ms = scaled_ms(IDLE_TIMEOUT_MS);
	const int close_ms = scaled_ms(COMPLETION_TIMEOUT_MS);
	struct timespec deadline = deadline_in(idle_ms);
	int n, i, late;

	while (s->expected == 0 || s->served < s->expected) {
		n = epoll_wait(s->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])),
				wait_ms(s, &deadline, &late));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, WHO ": epoll_wait: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0 && late >= 0) {
			fprintf(stderr, WHO ": #%d: %s did not come within %d s of the hang-up\n",
					late, s->slot[late].answered ? "the greeting's send completion" :
					"the answer", close_ms / 1000);
			return 1;
		}
		if (n == 0) {
			fprintf(stderr, WHO ": nothing happened for %d s (%u of %u connections served)\n",
					idle_ms / 1000, s->served, s->expected);
			return 1;
		}
		for (i = 0; i < n; i++)
			if (dispatch(s, evs[i].data.ptr))
				return 1;
		deadline = deadline_in(idle_ms);
	}
	printf(WHO ": all %u connections served\n", s->served);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct server s = { .epfd = -1 };
	const char *addr, *port;
	int ep_fd = -1;
	int failed = 1;
	int ret;
	unsigned i;

	if (argc == 4 && strcmp(argv[3], SHARED_CHANNEL_ARG) == 0)
		s.shared = true;
	else if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port> [" SHARED_CHANNEL_ARG "]\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* line by line even into a file: a script waits for "listening" */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is this host's own: the device is the one that has it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer))
		return 1;

	s.mem = page_alloc(WHO, MAX_CONNECTIONS * sizeof(*s.mem));
	if (s.mem == NULL)
		goto err_peer_delete;
	memset(s.mem, 0, MAX_CONNECTIONS * sizeof(*s.mem));
	ret = rpma_mr_reg(peer, s.mem, MAX_CONNECTIONS * sizeof(*s.mem), MEM_USAGE, &s.mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	/* every connection is built with this: the defaults, or a shared channel */
	ret = rpma_conn_cfg_new(&s.cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		goto err_mr_dereg;
	}
	ret = rpma_conn_cfg_set_compl_channel(s.cfg, s.shared);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_compl_channel", ret);
		goto err_cfg_delete;
	}

	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s.epfd < 0) {
		fprintf(stderr, WHO ": epoll_create1: %s\n", strerror(errno));
		goto err_cfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &s.ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_close_epfd;
	}
	ret = rpma_ep_get_fd(s.ep, &ep_fd);
	if (ret) {
		report(WHO, "rpma_ep_get_fd", ret);
		goto err_ep_shutdown;
	}
	s.ep_watch.kind = WATCH_EP;
	if (watch_fd(&s, ep_fd, &s.ep_watch))
		goto err_ep_shutdown;
	printf(WHO ": listening on %s:%s, completions through %s\n", addr, port,
			s.shared ? "each connection's shared channel" : "each CQ's own channel");

	failed = loop(&s);

	/* connections still open (only after a failure): hang up on them */
	for (i = 0; i < s.accepted; i++) {
		if (s.slot[i].conn == NULL)
			continue;
		drop_connection(WHO, &s.slot[i].conn, &failed);
	}

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&s.ep), &failed);
err_close_epfd:
	close(s.epfd);
err_cfg_delete:
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&s.cfg), &failed);
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
