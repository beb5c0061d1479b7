/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_threads_shared_conn.c -- threads posting on ONE connection.
 * Upstream declares the data-path operations (rpma_write(3),
 * rpma_read(3), rpma_flush(3), rpma_send(3), ...) and rpma_cq_*(3)
 * thread-safe, so several threads may post on one connection at once.
 *
 * Four threads share the connection, the local region and the remote
 * region. In each round a thread posts, each with an op_context of its own
 * (thread, phase, round, kind) and on its own slices of both regions: an
 * rpma_write(3), an rpma_flush(3) and an rpma_read(3) of what it wrote,
 * and an rpma_send(3) of a message naming it, all signalled; it waits for
 * its four completions and checks what the read read. Completions are
 * routed to their thread by wr_id, in three phases of ROUNDS rounds each:
 * 0. the main thread alone polls the CQ, the threads sleep on condition
 *    variables;
 * 1. each waiting thread polls the CQ in turn, under a mutex of the test;
 * 2. the waiting threads poll the CQ at the same time, without a mutex
 *    (rpma_cq_get_wc(3) is declared thread-safe).
 * Checked: every operation completed exactly once, successfully, with its
 * opcode (a flush's is IBV_WC_FLUSH where the device has native flush, rxe
 * on Linux 6.12, IBV_WC_RDMA_READ where it is emulated); no completion
 * came that nobody waited for; the getters on the shared connection, CQ
 * and regions give every thread what they gave the main thread; the server
 * (a forked child, one thread) got every message once, intact, and each
 * thread's messages in the order they were sent; and the server's region
 * holds what the writes wrote last.
 *
 * The server posts a receive for every message before it accepts, so no
 * send ever finds the receiver not ready: a receiver-not-ready NAK makes the
 * device send the requests behind the send again, which Debian 13's kernel
 * gets wrong for a native flush (scenario_retry_behind_send.c). With 32
 * receives reposted as they were used, the C library's slower server fell
 * 32 messages behind in about one run in ten there.
 *
 * Meant to run under valgrind --tool=helgrind (HELGRIND in
 * live/scenario/CMakeLists.txt) and --tool=drd too (the test keeps its own data race free, see threads.h).
 */
#include "threads.h"

#define ROUNDS_MAX 100		/* per thread and phase */
#define ROUNDS threads_rounds(ROUNDS_MAX)
#define NPHASE 3
#define SLICE 4096		/* each thread's part of both regions */
#define SIZE (TH_N * SLICE)
#define MSG 64			/* a message: 4 bytes of header and a pattern */
/* the server's receive slots: one for each message */
#define NRECV (NPHASE * TH_N * ROUNDS_MAX)
#define RSIZE (SIZE + NRECV * MSG)	/* the server's region: slices, slots */

/* in the client's slice */
#define L_WSRC 0		/* what the writes write (up to 1024 bytes) */
#define L_RDST 1024		/* what the reads read */
#define L_MSG 2048		/* the message */
/* in the server's slice */
#define R_WDST 0		/* what the writes wrote */
/* the server's receive slot k */
#define R_SLOT(k) (SIZE + (size_t)(k) * MSG)

/* kinds of op_context and of pattern, and the completions of a round */
enum { K_WRITE = 1, K_FLUSH, K_READ, K_SEND, K_SRECV };
#define ALL_KINDS ((1u << K_WRITE) | (1u << K_FLUSH) | (1u << K_READ) | (1u << K_SEND))

#define PH_POLLER 0
#define PH_TURNS 1
#define PH_FREE 2

/* the length of round r's write of thread t in phase ph: 8 ... 1024 bytes */
static size_t
wlen(int t, int ph, int r)
{
	return 8 + (size_t)((r * 131 + t * 17 + ph * 7) % 1017);
}

/* the message of thread t, phase ph, round r */
static void
make_msg(char *m, int t, int ph, int r)
{
	m[0] = (char)t;
	m[1] = (char)ph;
	m[2] = (char)(r & 0xFF);
	m[3] = (char)(r >> 8);
	os_fill(m + 4, MSG - 4, th_seed(t, ph, r, K_SEND));
}

/* ======================= the server (forked child) ======================= */

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_mr_local *smr;
	char *buf;
	char desc[21];
	struct rpma_conn_private_data pd = {desc, sizeof(desc)};
	struct rpma_conn_cfg *cfg = os_cfg(16, NRECV);
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	int next[NPHASE][TH_N];
	long long got = 0, bad = 0, disorder = 0;

	memset(next, 0, sizeof(next));
	smr = c_reg_buf(peer, RSIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_RECV,
			(void **)&buf);
	S_CHECK(rpma_mr_get_descriptor(smr, desc) == 0);
	S_CHECK(cfg != NULL && rpma_conn_cfg_set_rq_size(cfg, NRECV) == 0);
	if (S_CHECK(rpma_ep_next_conn_req(ep, cfg, &req) == 0)) {
		for (int k = 0; k < NPHASE * TH_N * ROUNDS; k++)
			S_CHECK(rpma_conn_req_recv(req, smr, R_SLOT(k), MSG,
					TH_CTX(0, 0, k, K_SRECV)) == 0);
		S_CHECK(rpma_conn_req_connect(&req, &pd, &conn) == 0);
	}
	if (conn != NULL && (!S_CHECK(c_event_is(conn, RPMA_CONN_ESTABLISHED)) ||
			!S_CHECK(rpma_conn_get_cq(conn, &cq) == 0))) {
		(void) rpma_conn_delete(&conn);
		conn = NULL;
	}
	/* every message of every thread */
	while (conn != NULL && got + bad < (long long)NPHASE * TH_N * ROUNDS) {
		struct ibv_wc wc;
		int t = -1, ph = -1, r = -1, k = -1, kind = -1;
		const char *m;

		if (th_poll_wc(cq, &wc, TH_WAIT_MS) != 0) {
			fprintf(stderr, "server: %lld messages came, then none\n", got + bad);
			break;
		}
		if (!th_decode(wc.wr_id, &t, &ph, &k, &kind) || kind != K_SRECV || k < 0 ||
				k >= NRECV || wc.status != IBV_WC_SUCCESS ||
				wc.opcode != IBV_WC_RECV || wc.byte_len != MSG) {
			fprintf(stderr, "server: completion %#llx status %d opcode %d len %u\n",
					(unsigned long long)wc.wr_id, wc.status, wc.opcode,
					wc.byte_len);
			bad++;
			break;
		}
		m = buf + R_SLOT(k);
		t = (unsigned char)m[0];
		ph = (unsigned char)m[1];
		r = (unsigned char)m[2] | (unsigned char)m[3] << 8;
		if (t >= TH_N || ph >= NPHASE || r >= ROUNDS ||
				!os_is_pattern(m + 4, MSG - 4, th_seed(t, ph, r, K_SEND), 0)) {
			fprintf(stderr, "server: slot %d holds no message\n", k);
			bad++;
		} else if (r != next[ph][t]) {
			fprintf(stderr, "server: thread %d phase %d: round %d came, "
					"round %d was next\n", t, ph, r, next[ph][t]);
			disorder++;
			bad++;
		} else {
			next[ph][t]++;
			got++;
		}
	}
	/* the client's os_checkpoint(): the slices */
	if (S_CHECK(t_sync_wait() == 0))
		c_put(os_hash(buf, SIZE));
	else
		c_put(LLONG_MIN);
	c_put(got);
	c_put(bad);
	c_put(disorder);
	if (conn != NULL)
		S_CHECK(c_closed(&conn));
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
	c_dereg_buf(&smr, buf);
}

/* =========================== the client (parent) ========================= */

/* what the main thread saw; the threads compare */
static struct {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *remote;
	char *lbuf;
	char desc[21];
	uint32_t qp;
	int event_fd, cq_fd;
} g;

/* what the server's slices should hold; each thread writes its own slice */
static unsigned char model[SIZE];

/* the mailboxes: completions routed to their thread */
static pthread_mutex_t mb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int round;		/* the round the thread waits for */
	unsigned got;		/* 1 << kind of each completion of that round */
	int bad;		/* completions of it that were not right */
	pthread_cond_t cv;	/* signalled at every completion routed to it */
} mb[TH_N];
static int finished;		/* threads done with the phase */
static long routed, stray;	/* completions routed, and not routable */
/* phase 1: the CQ is polled by one thread at a time */
static pthread_mutex_t poll_lock = PTHREAD_MUTEX_INITIALIZER;
/* set before the threads of a phase are created */
static int phase;
/*
 * t_flush_opcode(), set before any thread is created: IBV_WC_FLUSH where
 * the flush is native, IBV_WC_RDMA_READ where it is emulated
 */
static int flush_opcode;

struct cli {
	int tid;
	pthread_t th;
	/* results, read by the main thread after pthread_join() */
	int rounds_ok, bad_post, bad_wc, bad_data, bad_getters;
};

/* the completion opcode of a kind */
static int
opcode_of(int kind)
{
	switch (kind) {
	case K_WRITE:
		return IBV_WC_RDMA_WRITE;
	case K_SEND:
		return IBV_WC_SEND;
	case K_FLUSH:
		return flush_opcode;
	default:
		return IBV_WC_RDMA_READ;
	}
}

/* routes a completion to the mailbox of its thread */
static void
route(const struct ibv_wc *wc)
{
	int t, ph, r, kind;

	pthread_mutex_lock(&mb_lock);
	if (th_decode(wc->wr_id, &t, &ph, &r, &kind) && t < TH_N && ph == phase &&
			kind >= K_WRITE && kind <= K_SEND && r == mb[t].round &&
			!(mb[t].got & (1u << kind))) {
		mb[t].got |= 1u << kind;
		if (wc->status != IBV_WC_SUCCESS || (int)wc->opcode != opcode_of(kind)) {
			th_complain("client", t, "completion %#llx: status %d opcode %d",
					(unsigned long long)wc->wr_id, wc->status, wc->opcode);
			mb[t].bad++;
		}
		routed++;
		pthread_cond_signal(&mb[t].cv);
	} else {
		fprintf(stderr, "client: a completion nobody waits for: %#llx status %d\n",
				(unsigned long long)wc->wr_id, wc->status);
		stray++;
	}
	pthread_mutex_unlock(&mb_lock);
}

/* polls the CQ once, routes what came; the number routed, or -1 on error */
static int
poll_once(void)
{
	struct ibv_wc wc[8];
	int got = 0, ret = rpma_cq_get_wc(g.cq, 8, wc, &got);

	if (ret == RPMA_E_NO_COMPLETION)
		return 0;
	if (ret != 0 || got < 1 || got > 8) {
		fprintf(stderr, "client: rpma_cq_get_wc: %d (%d)\n", ret, got);
		return -1;
	}
	for (int i = 0; i < got; i++)
		route(&wc[i]);
	return got;
}

/* thread t waits for the four completions of its round; 1 when they came */
static int
wait_round(struct cli *c)
{
	long long end = t_now_ms() + TH_WAIT_MS;
	int t = c->tid, done = 0;

	for (;;) {
		int n;

		pthread_mutex_lock(&mb_lock);
		if (phase == PH_POLLER)
			while (mb[t].got != ALL_KINDS && t_now_ms() < end)
				th_cond_wait_until(&mb[t].cv, &mb_lock, end);
		done = mb[t].got == ALL_KINDS;
		pthread_mutex_unlock(&mb_lock);
		if (done || phase == PH_POLLER || t_now_ms() > end)
			break;
		if (phase == PH_TURNS)
			pthread_mutex_lock(&poll_lock);
		n = poll_once();
		if (phase == PH_TURNS)
			pthread_mutex_unlock(&poll_lock);
		if (n < 0) {
			c->bad_wc++;
			return 0;
		}
		if (n == 0)
			th_sleep_us(20);
	}
	if (!done) {
		th_complain("client", t, "the completions of a round did not come");
		c->bad_wc++;
	}
	return done;
}

static void
getters(struct cli *c)
{
	struct rpma_cq *cq = NULL, *rcq = (struct rpma_cq *)&rcq;
	uint32_t qp = 0;
	int fd = -1, cfd = -1, ft = -1, bad = 0;
	size_t rsz = 0, sz = 0;
	char d[21];

	bad += rpma_conn_get_cq(g.conn, &cq) != 0 || cq != g.cq;
	bad += rpma_conn_get_rcq(g.conn, &rcq) != 0 || rcq != NULL;
	bad += rpma_conn_get_qp_num(g.conn, &qp) != 0 || qp != g.qp;
	bad += rpma_conn_get_event_fd(g.conn, &fd) != 0 || fd != g.event_fd;
	bad += rpma_cq_get_fd(g.cq, &cfd) != 0 || cfd != g.cq_fd;
	bad += rpma_mr_remote_get_size(g.remote, &rsz) != 0 || rsz != RSIZE;
	bad += rpma_mr_remote_get_flush_type(g.remote, &ft) != 0 ||
		ft != RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	bad += rpma_mr_get_descriptor(g.mr, d) != 0 || memcmp(d, g.desc, 21) != 0;
	bad += rpma_mr_get_size(g.mr, &sz) != 0 || sz != SIZE;
	if (bad) {
		th_complain("client", c->tid, "%d getters gave something else", bad);
		c->bad_getters += bad;
	}
}

/* round r of a thread; 1 when it went through (its checks counted) */
static int
one_round(struct cli *c, int r)
{
	int t = c->tid, ph = phase, ret;
	size_t lo = (size_t)t * SLICE, len = wlen(t, ph, r);
	char *l = g.lbuf + lo;

	pthread_mutex_lock(&mb_lock);
	mb[t].round = r;
	mb[t].got = 0;
	pthread_mutex_unlock(&mb_lock);

	os_fill(l + L_WSRC, len, th_seed(t, ph, r, K_WRITE));
	memset(l + L_RDST, 0, len);
	make_msg(l + L_MSG, t, ph, r);
	ret = rpma_write(g.conn, g.remote, lo + R_WDST, g.mr, lo + L_WSRC, len,
			RPMA_F_COMPLETION_ALWAYS, TH_CTX(t, ph, r, K_WRITE));
	if (ret == 0)
		ret = rpma_flush(g.conn, g.remote, lo + R_WDST, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, TH_CTX(t, ph, r, K_FLUSH));
	if (ret == 0)
		ret = rpma_read(g.conn, g.mr, lo + L_RDST, g.remote, lo + R_WDST, len,
				RPMA_F_COMPLETION_ALWAYS, TH_CTX(t, ph, r, K_READ));
	if (ret == 0)
		ret = rpma_send(g.conn, g.mr, lo + L_MSG, MSG, RPMA_F_COMPLETION_ALWAYS,
				TH_CTX(t, ph, r, K_SEND));
	if (ret != 0) {
		th_complain("client", t, "phase %d round %d: a post failed: %d", ph, r, ret);
		c->bad_post++;
		return 0;
	}
	if (!wait_round(c))
		return 0;
	memcpy(model + lo + R_WDST, l + L_WSRC, len);
	getters(c);
	if (!os_is_pattern(l + L_RDST, len, th_seed(t, ph, r, K_WRITE), 0)) {
		th_complain("client", t, "phase %d round %d: the read did not read what "
				"was written", ph, r);
		c->bad_data++;
		return 0;
	}
	return 1;
}

static void *
cli_thread(void *arg)
{
	struct cli *c = arg;

	for (int r = 0; r < ROUNDS; r++) {
		if (!one_round(c, r))
			break;
		c->rounds_ok++;
	}
	pthread_mutex_lock(&mb_lock);
	finished++;
	pthread_mutex_unlock(&mb_lock);
	return NULL;
}

/* the main thread's part in phase PH_POLLER: polls until all threads finish */
static void
main_polls(void)
{
	long long idle_since = t_now_ms();

	for (;;) {
		int n, all;

		pthread_mutex_lock(&mb_lock);
		all = finished == TH_N;
		pthread_mutex_unlock(&mb_lock);
		if (all)
			return;
		n = poll_once();
		if (n < 0)
			return;
		if (n > 0)
			idle_since = t_now_ms();
		else if (t_now_ms() - idle_since > 2 * TH_WAIT_MS)
			return;
		else
			th_sleep_us(20);
	}
}

static const char *const phase_name[NPHASE] = {
	"the main thread polls, the threads sleep on condition variables",
	"each waiting thread polls in turn, under a mutex of the test",
	"the waiting threads poll at the same time, without a mutex",
};

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg = os_cfg(32, 32);
	struct rpma_mr_remote *remote[1] = {NULL};
	long long t0;

	t_begin();
	EXPECT_TRUE(cfg != NULL);
	peer = c_start_serving(serve);
	flush_opcode = t_flush_opcode();
	g.mr = os_local(peer, SIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_SEND, 0, (void **)&g.lbuf);
	EXPECT_TRUE(g.mr != NULL);
	g.conn = c_connect(peer, cfg, NULL);
	EXPECT_TRUE(g.conn != NULL);
	if (g.mr == NULL || g.conn == NULL)
		exit(2);
	EXPECT_INT(os_remotes(g.conn, 1, remote), 1);
	g.remote = remote[0];
	EXPECT_INT(rpma_conn_get_cq(g.conn, &g.cq), 0);
	EXPECT_INT(rpma_conn_get_qp_num(g.conn, &g.qp), 0);
	EXPECT_INT(rpma_conn_get_event_fd(g.conn, &g.event_fd), 0);
	EXPECT_INT(rpma_cq_get_fd(g.cq, &g.cq_fd), 0);
	EXPECT_INT(rpma_mr_get_descriptor(g.mr, g.desc), 0);
	if (g.remote == NULL || g.cq == NULL)
		exit(2);
	for (int t = 0; t < TH_N; t++)
		th_cond_init(&mb[t].cv);

	t0 = t_now_ms();
	for (int ph = 0; ph < NPHASE; ph++) {
		struct cli c[TH_N];

		t_note("phase %d: %d threads, %d rounds each: %s", ph, TH_N, ROUNDS,
				phase_name[ph]);
		/* the threads see all this: it is written before they start */
		phase = ph;
		finished = 0;
		routed = 0;
		stray = 0;
		memset(c, 0, sizeof(c));
		for (int t = 0; t < TH_N; t++) {
			mb[t].round = -1;
			mb[t].got = 0;
			mb[t].bad = 0;
			c[t].tid = t;
			th_must(pthread_create(&c[t].th, NULL, cli_thread, &c[t]),
					"pthread_create");
		}
		if (ph == PH_POLLER)
			main_polls();
		for (int t = 0; t < TH_N; t++)
			th_must(pthread_join(c[t].th, NULL), "pthread_join");
		for (int t = 0; t < TH_N; t++) {
			t_note("phase %d, thread %d", ph, t);
			EXPECT_INT(c[t].rounds_ok, ROUNDS);
			EXPECT_INT(c[t].bad_post, 0);
			EXPECT_INT(c[t].bad_wc, 0);
			EXPECT_INT(mb[t].bad, 0);
			EXPECT_INT(c[t].bad_data, 0);
			EXPECT_INT(c[t].bad_getters, 0);
		}
		t_note("phase %d: every operation completed once, nothing else came", ph);
		EXPECT_INT(routed, 4 * TH_N * ROUNDS);
		EXPECT_INT(stray, 0);
		EXPECT_TRUE(os_cq_empty(g.conn));
	}
	fprintf(stderr, "FIGURE threads-shared-conn-ms %lld\n", t_now_ms() - t0);

	t_note("the server");
	EXPECT_INT(os_checkpoint(), os_hash(model, SIZE));
	EXPECT_INT(SERVER(messages), NPHASE * TH_N * ROUNDS);
	EXPECT_INT(SERVER(bad), 0);
	EXPECT_INT(SERVER(out of order), 0);

	for (int t = 0; t < TH_N; t++)
		th_must(pthread_cond_destroy(&mb[t].cv), "pthread_cond_destroy");
	EXPECT_TRUE(c_close(&g.conn));
	EXPECT_TRUE(os_remotes_delete(1, remote));
	EXPECT_TRUE(os_local_delete(&g.mr, g.lbuf));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	return c_end(peer);
}
