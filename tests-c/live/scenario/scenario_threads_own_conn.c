/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_threads_own_conn.c -- threads sharing one peer and one local
 * memory region, each with a connection of its own (upstream's thread
 * safety model: a peer for many threads, a connection for one at a time).
 *
 * Four client threads share the peer and ONE local region registered
 * once, a peer configuration and (in odd rounds) one remote region built
 * from the server's descriptor. Each thread:
 * - connects to the server on its own (rpma_conn_req_new(3) is not
 *   thread-safe upstream: the test serializes it with a mutex of its own;
 *   rpma_conn_req_connect(3) and the rest run concurrently), with a
 *   configuration of its own;
 * - runs ROUNDS rounds on its own slice of the local region and of the
 *   server's region: rpma_write(3) and rpma_atomic_write(3) (unsignalled),
 *   rpma_flush(3) and rpma_read(3) of what was written (checked), then
 *   rpma_recv(3) and rpma_send(3) of a message the server checks and
 *   answers (the answer checked); every completion is checked exactly
 *   once, with its op_context, status, opcode and length (a flush's is
 *   t_flush_opcode(): IBV_WC_FLUSH where the device has native flush, rxe
 *   on Linux 6.12, IBV_WC_RDMA_READ where it is emulated);
 * - waits for completions in a way of its own: thread 0 polls
 *   rpma_cq_get_wc(3) one at a time, thread 1 sleeps in rpma_cq_wait(3),
 *   thread 2 has a shared completion channel and sleeps in
 *   rpma_conn_wait(3), thread 3 polls several completions at a time;
 * - calls, every round, the getters upstream declares thread-safe on the
 *   shared objects (rpma_mr_get_descriptor(3), rpma_mr_get_size(3),
 *   rpma_mr_get_ptr(3), rpma_peer_cfg_get_descriptor(3),
 *   rpma_mr_remote_get_size(3), ...) and on its connection
 *   (rpma_conn_get_event_fd(3), rpma_conn_get_qp_num(3)): each must give
 *   what it gave the main thread;
 * - disconnects and deletes its connection while the others may still work.
 * The server (a forked child) accepts the four connections in turn and
 * serves each in a thread of its own: it checks that each message comes
 * in its round, and that what the client wrote is in its slice, before it
 * answers.
 *
 * Meant to run under valgrind --tool=helgrind (HELGRIND in
 * live/scenario/CMakeLists.txt) and --tool=drd too (the test keeps its own data race free, see threads.h).
 */
#include "threads.h"

#define ROUNDS_MAX 200
#define ROUNDS threads_rounds(ROUNDS_MAX)
#define SLICE 4096		/* each thread's part of both regions */
#define SIZE (TH_N * SLICE)
#define MSG 64			/* a message and an answer */

/* in the client's slice */
#define L_WSRC 0		/* what the writes write (up to 1024 bytes) */
#define L_RDST 1024		/* what the reads read */
#define L_MSG 2048		/* the message */
#define L_ANS 3072		/* the answer */
/* in the server's slice */
#define R_WDST 0		/* what the writes wrote */
#define R_ATOM 1024		/* what the atomic write wrote (8 bytes) */
#define R_MSG 2048		/* the message */
#define R_ANS 3072		/* the answer */

/* kinds of op_context and of pattern */
enum { K_WRITE = 1, K_ATOMIC, K_FLUSH, K_READ, K_RECV, K_SEND, K_ANSWER, K_SRECV,
	K_SSEND };

/* the length of round r's write of thread t: 8 ... 1024 bytes */
static size_t
wlen(int t, int r)
{
	return 8 + (size_t)((r * 131 + t * 17) % 1017);
}

/* ======================= the server (forked child) ======================= */

struct srv {
	int tid;
	pthread_t th;
	struct rpma_conn *conn;
	/* results, read by the server's main thread after pthread_join() */
	int rounds_ok, bad, closed;
	/* a receive completion that came while a send completion was awaited */
	int early_recv;
	uint64_t early_id;
};

static struct rpma_mr_local *srv_mr;
static char *srv_buf;

/*
 * server thread: waits for the completion id (opcode, len: 0 any); the
 * receive early_id (0: none) may come first, and is then kept for the next
 * call
 */
static int
srv_wait(struct srv *s, struct rpma_cq *cq, uint64_t id, int opcode, uint32_t len,
		uint64_t early_id)
{
	struct ibv_wc wc;

	if (s->early_recv && s->early_id == id) {
		s->early_recv = 0;
		return 1;
	}
	for (;;) {
		int ret = th_poll_wc(cq, &wc, TH_WAIT_MS);

		if (ret != 0) {
			th_complain("server", s->tid, "no completion %#llx (%d)",
					(unsigned long long)id, ret);
			s->bad++;
			return 0;
		}
		if (early_id != 0 && wc.wr_id == early_id && wc.status == IBV_WC_SUCCESS &&
				wc.opcode == IBV_WC_RECV && wc.byte_len == MSG && !s->early_recv) {
			s->early_recv = 1;
			s->early_id = early_id;
			continue;
		}
		if (wc.wr_id != id || wc.status != IBV_WC_SUCCESS || (int)wc.opcode != opcode ||
				(len && wc.byte_len != len)) {
			th_complain("server", s->tid, "completion %#llx status %d opcode %d "
					"len %u, waited for %#llx", (unsigned long long)wc.wr_id,
					wc.status, wc.opcode, wc.byte_len,
					(unsigned long long)id);
			s->bad++;
			return 0;
		}
		return 1;
	}
}

static void *
srv_thread(void *arg)
{
	struct srv *s = arg;
	int t = s->tid;
	size_t lo = (size_t)t * SLICE;
	char *b = srv_buf + lo;
	struct rpma_cq *cq = NULL;

	if (!c_event_is(s->conn, RPMA_CONN_ESTABLISHED) ||
			rpma_conn_get_cq(s->conn, &cq) != 0 || cq == NULL) {
		th_complain("server", t, "no connection");
		s->bad++;
		(void) rpma_conn_delete(&s->conn);
		return NULL;
	}
	for (int r = 0; r < ROUNDS; r++) {
		int ok = 1;

		/* the message of round r (its receive is posted) */
		if (!srv_wait(s, cq, th_id(t, 0, r, K_SRECV), IBV_WC_RECV, MSG, 0))
			break;
		if (!os_is_pattern(b + R_MSG, MSG, th_seed(t, 0, r, K_SEND), 0)) {
			th_complain("server", t, "round %d: not the message", r);
			ok = 0;
		}
		/* what the client wrote before it sent the message */
		if (!os_is_pattern(b + R_WDST, wlen(t, r), th_seed(t, 0, r, K_WRITE), 0) ||
				!os_is_pattern(b + R_ATOM, 8, th_seed(t, 0, r, K_ATOMIC), 0)) {
			th_complain("server", t, "round %d: not what was written", r);
			ok = 0;
		}
		if (r + 1 < ROUNDS && rpma_recv(s->conn, srv_mr, lo + R_MSG, MSG,
				TH_CTX(t, 0, r + 1, K_SRECV)) != 0) {
			th_complain("server", t, "round %d: rpma_recv failed", r);
			s->bad++;
			break;
		}
		os_fill(b + R_ANS, MSG, th_seed(t, 0, r, K_ANSWER));
		if (rpma_send(s->conn, srv_mr, lo + R_ANS, MSG, RPMA_F_COMPLETION_ALWAYS,
				TH_CTX(t, 0, r, K_SSEND)) != 0) {
			th_complain("server", t, "round %d: rpma_send failed", r);
			s->bad++;
			break;
		}
		/* the next message may come before this send's completion */
		if (!srv_wait(s, cq, th_id(t, 0, r, K_SSEND), IBV_WC_SEND, 0,
				r + 1 < ROUNDS ? th_id(t, 0, r + 1, K_SRECV) : 0))
			break;
		if (ok)
			s->rounds_ok++;
		else
			s->bad++;
	}
	s->closed = c_closed(&s->conn);
	if (!s->closed) {
		th_complain("server", t, "the connection did not close");
		if (s->conn != NULL)
			(void) rpma_conn_delete(&s->conn);
	}
	return NULL;
}

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct srv s[TH_N];
	char desc[21];
	struct rpma_conn_private_data pd = {desc, sizeof(desc)};
	int accepted = 0;

	memset(s, 0, sizeof(s));
	srv_mr = c_reg_buf(peer, SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_SEND |
			RPMA_MR_USAGE_RECV, (void **)&srv_buf);
	S_CHECK(rpma_mr_get_descriptor(srv_mr, desc) == 0);
	/* the requests come in any order: each names its thread */
	for (int k = 0; k < TH_N; k++) {
		struct rpma_conn_req *req = NULL;
		struct rpma_conn_private_data cpd = {NULL, 0};
		const unsigned char *p;
		int t;

		if (!S_CHECK(rpma_ep_next_conn_req(ep, NULL, &req) == 0))
			break;
		S_CHECK(rpma_conn_req_get_private_data(req, &cpd) == 0);
		p = cpd.ptr;
		t = p != NULL && cpd.len >= 2 && p[0] == 'T' ? p[1] : -1;
		if (!S_CHECK(t >= 0 && t < TH_N && !(accepted & (1 << t)))) {
			(void) rpma_conn_req_delete(&req);
			continue;
		}
		/* the receive of the first message, before the connection is up */
		S_CHECK(rpma_conn_req_recv(req, srv_mr, (size_t)t * SLICE + R_MSG, MSG,
				TH_CTX(t, 0, 0, K_SRECV)) == 0);
		if (!S_CHECK(rpma_conn_req_connect(&req, &pd, &s[t].conn) == 0))
			continue;
		s[t].tid = t;
		/* each connection is served by a thread of its own at once */
		th_must(pthread_create(&s[t].th, NULL, srv_thread, &s[t]), "pthread_create");
		accepted |= 1 << t;
	}
	for (int t = 0; t < TH_N; t++)
		if (accepted & (1 << t))
			th_must(pthread_join(s[t].th, NULL), "pthread_join");
	c_put(accepted);
	for (int t = 0; t < TH_N; t++) {
		c_put(s[t].rounds_ok);
		c_put(s[t].bad);
		c_put(s[t].closed);
	}
	c_dereg_buf(&srv_mr, srv_buf);
}

/* =========================== the client (parent) ========================= */

struct cli {
	int tid;
	pthread_t th;
	/* set by the thread before the first barrier */
	struct rpma_conn *conn;
	struct rpma_mr_remote *own; /* from its connection's private data */
	char desc[21];		/* the server's descriptor, as it came */
	struct rpma_cq *cq;
	int event_fd, wait_fd;
	uint32_t qp;
	/* results, read by the main thread after pthread_join() */
	int connected, rounds_ok, bad_post, bad_wc, bad_wait, bad_data, bad_getters, closed;
};

/* shared by the threads: written before they start or between barriers */
static struct rpma_peer *peer;
static struct rpma_mr_local *mr;
static char *lbuf;
static char local_desc[21];
static struct rpma_peer_cfg *pcfg;
static char pcfg_desc;
static struct rpma_mr_remote *shared_remote;
static const char *inval_str;
/*
 * t_flush_opcode(), set before the threads start: IBV_WC_FLUSH where the
 * flush is native, IBV_WC_RDMA_READ where it is emulated
 */
static int flush_opcode;
static pthread_barrier_t barrier;
/* upstream: rpma_conn_req_new(3) is not thread-safe */
static pthread_mutex_t req_new_lock = PTHREAD_MUTEX_INITIALIZER;

static void
cli_connect(struct cli *c)
{
	int t = c->tid;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pd = {NULL, 0};
	char mine[2] = {'T', (char)t};
	struct rpma_conn_private_data my = {mine, sizeof(mine)};
	int ret;

	if (rpma_conn_cfg_new(&cfg) != 0 || rpma_conn_cfg_set_sq_size(cfg, 16) != 0 ||
			rpma_conn_cfg_set_cq_size(cfg, 16) != 0 ||
			(t == 2 && rpma_conn_cfg_set_compl_channel(cfg, true) != 0)) {
		th_complain("client", t, "no configuration");
		(void) rpma_conn_cfg_delete(&cfg);
		return;
	}
	pthread_mutex_lock(&req_new_lock);
	ret = rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req);
	pthread_mutex_unlock(&req_new_lock);
	if (ret == 0)
		ret = rpma_conn_req_connect(&req, &my, &c->conn);
	(void) rpma_conn_cfg_delete(&cfg);
	if (ret != 0 || c->conn == NULL) {
		th_complain("client", t, "no connection (%d)", ret);
		return;
	}
	if (!c_event_is(c->conn, RPMA_CONN_ESTABLISHED) ||
			rpma_conn_get_private_data(c->conn, &pd) != 0 || pd.ptr == NULL ||
			pd.len < 21 ||
			rpma_mr_remote_from_descriptor(pd.ptr, 21, &c->own) != 0 ||
			rpma_conn_get_cq(c->conn, &c->cq) != 0 || c->cq == NULL ||
			rpma_conn_get_event_fd(c->conn, &c->event_fd) != 0 ||
			rpma_conn_get_qp_num(c->conn, &c->qp) != 0 ||
			(t == 1 && rpma_cq_get_fd(c->cq, &c->wait_fd) != 0) ||
			(t == 2 && rpma_conn_get_compl_fd(c->conn, &c->wait_fd) != 0)) {
		th_complain("client", t, "connection not usable");
		return;
	}
	memcpy(c->desc, pd.ptr, 21);
	c->connected = 1;
}

/* sleeps until a completion may be there (threads 1 and 2) or naps */
static void
cli_wait_event(struct cli *c, long long end)
{
	struct pollfd p = {.fd = c->wait_fd, .events = POLLIN};
	long long left = end - t_now_ms();
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;
	int ret;

	if (c->tid != 1 && c->tid != 2) {
		th_sleep_us(50);
		return;
	}
	if (left <= 0 || poll(&p, 1, (int)left) != 1)
		return;
	if (c->tid == 1) {
		ret = rpma_cq_wait(c->cq);
	} else {
		ret = rpma_conn_wait(c->conn, 0, &cq, &is_rcq);
		if (ret == 0 && (cq != c->cq || is_rcq))
			ret = -1000;
	}
	if (ret != 0) {
		th_complain("client", c->tid, "waiting: %d", ret);
		c->bad_wait++;
	}
}

struct want {
	uint64_t id;
	int opcode;
	uint32_t len; /* 0: any */
	int got;
};

/* collects the completions want[0..n-1], in any order; 1 when all came */
static int
cli_collect(struct cli *c, struct want *want, int n)
{
	long long end = t_now_ms() + TH_WAIT_MS;
	int left = n, max = c->tid == 3 ? 4 : 1;

	while (left > 0) {
		struct ibv_wc wc[4];
		int got = 0, ret = rpma_cq_get_wc(c->cq, max, wc, max > 1 ? &got : NULL);

		if (ret == RPMA_E_NO_COMPLETION) {
			if (t_now_ms() > end) {
				th_complain("client", c->tid, "%d completions did not come", left);
				c->bad_wc++;
				return 0;
			}
			cli_wait_event(c, end);
			continue;
		}
		if (ret != 0 || (max > 1 && (got < 1 || got > max))) {
			th_complain("client", c->tid, "rpma_cq_get_wc: %d (%d)", ret, got);
			c->bad_wc++;
			return 0;
		}
		if (max == 1)
			got = 1;
		for (int i = 0; i < got; i++) {
			int k;

			for (k = 0; k < n; k++)
				if (!want[k].got && want[k].id == wc[i].wr_id)
					break;
			if (k == n) {
				th_complain("client", c->tid, "unexpected completion %#llx",
						(unsigned long long)wc[i].wr_id);
				c->bad_wc++;
				continue;
			}
			want[k].got = 1;
			left--;
			if (wc[i].status != IBV_WC_SUCCESS || (int)wc[i].opcode != want[k].opcode ||
					(want[k].len && wc[i].byte_len != want[k].len)) {
				th_complain("client", c->tid, "completion %#llx: status %d "
						"opcode %d len %u", (unsigned long long)wc[i].wr_id,
						wc[i].status, wc[i].opcode, wc[i].byte_len);
				c->bad_wc++;
			}
		}
	}
	return 1;
}

/* the thread-safe getters on the shared objects and the thread's connection */
static void
cli_getters(struct cli *c, struct rpma_mr_remote *rem)
{
	char d[21];
	size_t ds = 0, sz = 0, rsz = 0;
	void *p = NULL;
	char pc = 0x55;
	bool direct = false;
	int fd = -1, ft = -1, bad = 0;
	uint32_t qp = 0;
	struct rpma_cq *cq = NULL;

	bad += rpma_mr_get_descriptor(mr, d) != 0 || memcmp(d, local_desc, 21) != 0;
	bad += rpma_mr_get_descriptor_size(mr, &ds) != 0 || ds != 21;
	bad += rpma_mr_get_size(mr, &sz) != 0 || sz != SIZE;
	bad += rpma_mr_get_ptr(mr, &p) != 0 || p != lbuf;
	bad += rpma_peer_cfg_get_descriptor(pcfg, &pc) != 0 || pc != pcfg_desc;
	bad += rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct) != 0 || !direct;
	bad += rpma_mr_remote_get_size(rem, &rsz) != 0 || rsz != SIZE;
	bad += rpma_mr_remote_get_flush_type(rem, &ft) != 0 ||
		ft != RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	bad += rpma_conn_get_event_fd(c->conn, &fd) != 0 || fd != c->event_fd;
	bad += rpma_conn_get_qp_num(c->conn, &qp) != 0 || qp != c->qp;
	bad += rpma_conn_get_cq(c->conn, &cq) != 0 || cq != c->cq;
	bad += strcmp(rpma_err_2str(RPMA_E_INVAL), inval_str) != 0;
	if (bad) {
		th_complain("client", c->tid, "%d getters gave something else", bad);
		c->bad_getters += bad;
	}
}

/* round r of a thread; 1 when it went through (its checks counted) */
static int
cli_round(struct cli *c, int r)
{
	int t = c->tid;
	size_t lo = (size_t)t * SLICE, len = wlen(t, r);
	char *l = lbuf + lo;
	/* odd rounds: the remote region all threads share */
	struct rpma_mr_remote *rem = (r & 1) && shared_remote != NULL ? shared_remote : c->own;
	char src8[8];
	int ret, ok = 1;
	struct want one[2] = {
		{th_id(t, 0, r, K_FLUSH), flush_opcode, 0, 0},
		{th_id(t, 0, r, K_READ), IBV_WC_RDMA_READ, 0, 0},
	};
	struct want two[2] = {
		{th_id(t, 0, r, K_SEND), IBV_WC_SEND, 0, 0},
		{th_id(t, 0, r, K_RECV), IBV_WC_RECV, MSG, 0},
	};

	os_fill(l + L_WSRC, len, th_seed(t, 0, r, K_WRITE));
	memset(l + L_RDST, 0, len);
	os_fill(src8, 8, th_seed(t, 0, r, K_ATOMIC));
	ret = rpma_write(c->conn, rem, lo + R_WDST, mr, lo + L_WSRC, len,
			RPMA_F_COMPLETION_ON_ERROR, TH_CTX(t, 0, r, K_WRITE));
	if (ret == 0)
		ret = rpma_atomic_write(c->conn, rem, lo + R_ATOM, src8,
				RPMA_F_COMPLETION_ON_ERROR, TH_CTX(t, 0, r, K_ATOMIC));
	if (ret == 0)
		ret = rpma_flush(c->conn, rem, lo + R_WDST, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, TH_CTX(t, 0, r, K_FLUSH));
	if (ret == 0)
		ret = rpma_read(c->conn, mr, lo + L_RDST, rem, lo + R_WDST, len,
				RPMA_F_COMPLETION_ALWAYS, TH_CTX(t, 0, r, K_READ));
	if (ret != 0) {
		th_complain("client", t, "round %d: a one-sided post failed: %d", r, ret);
		c->bad_post++;
		return 0;
	}
	if (!cli_collect(c, one, 2))
		return 0;
	if (!os_is_pattern(l + L_RDST, len, th_seed(t, 0, r, K_WRITE), 0)) {
		th_complain("client", t, "round %d: the read did not read what was written", r);
		ok = 0;
	}

	os_fill(l + L_MSG, MSG, th_seed(t, 0, r, K_SEND));
	memset(l + L_ANS, 0, MSG);
	ret = rpma_recv(c->conn, mr, lo + L_ANS, MSG, TH_CTX(t, 0, r, K_RECV));
	if (ret == 0)
		ret = rpma_send(c->conn, mr, lo + L_MSG, MSG, RPMA_F_COMPLETION_ALWAYS,
				TH_CTX(t, 0, r, K_SEND));
	if (ret != 0) {
		th_complain("client", t, "round %d: a two-sided post failed: %d", r, ret);
		c->bad_post++;
		return 0;
	}
	if (!cli_collect(c, two, 2))
		return 0;
	if (!os_is_pattern(l + L_ANS, MSG, th_seed(t, 0, r, K_ANSWER), 0)) {
		th_complain("client", t, "round %d: not the server's answer", r);
		ok = 0;
	}
	cli_getters(c, rem);
	if (!ok)
		c->bad_data++;
	return ok;
}

static void *
cli_thread(void *arg)
{
	struct cli *c = arg;

	cli_connect(c);
	th_barrier(&barrier); /* all threads connected (or failed to) */
	th_barrier(&barrier); /* the main thread has built shared_remote */
	if (c->connected) {
		for (int r = 0; r < ROUNDS; r++) {
			if (!cli_round(c, r))
				break;
			c->rounds_ok++;
		}
	}
	if (c->conn != NULL) {
		c->closed = c_close(&c->conn);
		if (c->conn != NULL)
			(void) rpma_conn_delete(&c->conn);
	}
	if (c->own != NULL && rpma_mr_remote_delete(&c->own) != 0)
		c->closed = 0;
	return NULL;
}

int
main(void)
{
	struct cli c[TH_N];
	int same_desc = 0;
	long long t0;
	size_t size = 0;

	t_begin();
	peer = c_start_serving(serve);
	mr = os_local(peer, SIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, 0, (void **)&lbuf);
	EXPECT_TRUE(mr != NULL);
	if (mr == NULL)
		exit(2);
	EXPECT_INT(rpma_mr_get_descriptor(mr, local_desc), 0);
	EXPECT_INT(rpma_mr_get_size(mr, &size), 0);
	EXPECT_INT(size, SIZE);
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_INT(rpma_peer_cfg_get_descriptor(pcfg, &pcfg_desc), 0);
	EXPECT_INT(pcfg_desc, 1);
	inval_str = rpma_err_2str(RPMA_E_INVAL);
	flush_opcode = t_flush_opcode();

	t_note("%d threads, each with a connection of its own, %d rounds each", TH_N, ROUNDS);
	th_must(pthread_barrier_init(&barrier, NULL, TH_N + 1), "pthread_barrier_init");
	memset(c, 0, sizeof(c));
	t0 = t_now_ms();
	for (int t = 0; t < TH_N; t++) {
		c[t].tid = t;
		th_must(pthread_create(&c[t].th, NULL, cli_thread, &c[t]), "pthread_create");
	}
	th_barrier(&barrier);
	/* between the barriers the threads wait: the shared remote region */
	for (int t = 0; t < TH_N; t++) {
		if (!c[t].connected)
			continue;
		if (shared_remote == NULL &&
				rpma_mr_remote_from_descriptor(c[t].desc, 21, &shared_remote) != 0)
			shared_remote = NULL;
		if (memcmp(c[t].desc, c[0].desc, 21) == 0)
			same_desc++;
	}
	th_barrier(&barrier);
	for (int t = 0; t < TH_N; t++)
		th_must(pthread_join(c[t].th, NULL), "pthread_join");
	fprintf(stderr, "FIGURE threads-own-conn-ms %lld\n", t_now_ms() - t0);

	EXPECT_TRUE(shared_remote != NULL);
	EXPECT_INT(same_desc, TH_N);
	for (int t = 0; t < TH_N; t++) {
		t_note("client thread %d", t);
		EXPECT_INT(c[t].connected, 1);
		EXPECT_INT(c[t].rounds_ok, ROUNDS);
		EXPECT_INT(c[t].bad_post, 0);
		EXPECT_INT(c[t].bad_wc, 0);
		EXPECT_INT(c[t].bad_wait, 0);
		EXPECT_INT(c[t].bad_data, 0);
		EXPECT_INT(c[t].bad_getters, 0);
		EXPECT_INT(c[t].closed, 1);
	}
	t_note("the server");
	EXPECT_INT(SERVER(connections accepted), (1 << TH_N) - 1);
	for (int t = 0; t < TH_N; t++) {
		t_note("server thread %d", t);
		EXPECT_INT(SERVER(rounds checked), ROUNDS);
		EXPECT_INT(SERVER(bad), 0);
		EXPECT_INT(SERVER(closed), 1);
	}

	th_must(pthread_barrier_destroy(&barrier), "pthread_barrier_destroy");
	if (shared_remote != NULL)
		EXPECT_INT(rpma_mr_remote_delete(&shared_remote), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(os_local_delete(&mr, lbuf));
	return c_end(peer);
}
