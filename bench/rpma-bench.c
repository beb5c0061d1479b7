/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma-bench.c -- one benchmark program for librpma, public API only, so the
 * same binary runs against any librpma.so.0 (LD_LIBRARY_PATH picks it).
 *
 *   rpma-bench server ADDR PORT
 *   rpma-bench client ADDR PORT CASE SIZE QD (-t SECONDS | -n OPS)
 *   rpma-bench quit ADDR PORT
 *
 * The server listens on PORT (ordinary connections) and on PORT+1 (the same,
 * but with a shared receive queue: the srq case connects there), prints
 * "listening lib=<path>" when ready and serves one connection after another
 * until it is killed, a client sends "quit", or no client came for
 * BENCH_SERVER_IDLE seconds (default 3600). The client names its case in the
 * connect private data; the server answers with the descriptors of a
 * 16 x 64 KiB region (READ_SRC|WRITE_DST|FLUSH_TYPE_VISIBILITY|
 * FLUSH_TYPE_PERSISTENT), of its peer cfg (direct_write_to_pmem = true) and
 * the path of the librpma it runs on.
 *
 * Cases (SIZE 8..1048576, QD 1..16):
 *   read, write          rpma_read / rpma_write of SIZE, signalled
 *   atomic_write         rpma_atomic_write (SIZE must be 8)
 *   flush                rpma_write unsignalled + rpma_flush PERSISTENT signalled
 *   pingpong             rpma_recv + rpma_send SIZE; the server answers with a
 *                        send of SIZE; the op ends at the client's receive
 *   write_imm            rpma_write_with_imm; the server keeps receives posted
 *   send                 rpma_send one way; the server keeps receives posted
 *                        and answers nothing
 *   srq                  as pingpong, the server receives through an rpma_srq
 *   conn                 connect, ESTABLISHED, disconnect, CLOSED, delete
 *   mr                   rpma_mr_reg + rpma_mr_dereg of SIZE bytes (no server;
 *                        SIZE up to 1 GiB)
 *   poll                 one rpma_cq_get_wc on an idle CQ (calibration: the
 *                        cost of an empty busy-poll)
 *   srq_recv             one rpma_srq_recv of SIZE bytes on an SRQ of
 *                        SRQ_RECV_SLOTS receives that nothing consumes (no
 *                        server; at most SRQ_RECV_SLOTS ops, warm-up included)
 *   next_event           one rpma_conn_next_event on the connection's event
 *                        fd made non-blocking, with no event there (the
 *                        call fails with RPMA_E_PROVIDER, as both libraries
 *                        report EAGAIN: the cost of polling for events)
 *   scale_write          QD is the number of connections (1..MAX_CONNS) to
 *                        the server, all set up before the run; each keeps
 *                        one rpma_write of SIZE (at most SCALE_SIZE_MAX) in
 *                        flight; ops/s is their sum
 *   scale_srq            as scale_write, but each connection's op is a
 *                        ping-pong (as srq), and the server receives all of
 *                        them through its one rpma_srq
 * The scale cases end their RESULT line with setup_us=..: the mean time to
 * set up one of the N connections (request, connect, ESTABLISHED, the
 * server's private data read), set up one after another.
 * QD operations are kept in flight; each completion posts the next one.
 * After 100 warm-up operations (see BENCH_WARMUP) the client measures for
 * SECONDS or exactly OPS operations and prints one line
 *   RESULT case=.. size=.. qd=.. ops=.. secs=.. ops_s=.. p50_us=.. p99_us=.. cpu_us_op=.. sys_us_op=..
 * (cpu_us_op: the user and system CPU time of the whole client process over
 * the measured ops, from getrusage, per op; sys_us_op: the system part)
 * and, on stderr, "STATS empty_polls=E polls=P" (rpma_cq_get_wc calls that
 * found nothing / all calls, warm-up included). The conn case also prints
 * there "PHASES cycles=N req_new_us=.. established_us=.. closed_us=..
 * delete_us=..": the mean time of each step of a cycle (rpma_conn_req_new;
 * connect until ESTABLISHED; disconnect until CLOSED; rpma_conn_delete),
 * warm-up included, which `cargo xtask bench run` passes on.
 *
 * Environment:
 *   BENCH_EXPECT_LIB   a path: the librpma.so.0 mapped into this process must
 *                      be that file (and, for the client, the server must run
 *                      on a file of the same path)
 *   BENCH_TIMEOUT      seconds any single wait may take (default 30)
 *   BENCH_SERVER_POLL  how the server waits for completions (pingpong,
 *                      write_imm, srq): "busy" (default: busy-polls
 *                      rpma_cq_get_wc) or "wait" (sleeps on the CQs'
 *                      completion channels, rpma_cq_wait) or "events"
 *                      (busy-polls, and after every empty poll calls
 *                      rpma_conn_next_event on the connection's event fd
 *                      made non-blocking, as a single-threaded program
 *                      polling everything in one loop would)
 *   BENCH_SERVER_IDLE  seconds the server waits for a connection (default 3600)
 *   BENCH_CLIENT_WAIT  how the client of a connected case waits: "busy"
 *                      (default: rpma_cq_get_wc until something comes) or
 *                      "wait" (event-driven: sleeps in rpma_cq_wait on the
 *                      CQ's own channel, takes completions until the CQ is
 *                      empty, sleeps again; at QD 1 a one-sided case
 *                      sleeps for every completion; STATS then also
 *                      counts the waits)
 *   BENCH_WARMUP       warm-up operations (default 100)
 *   RPMA_BENCH_FLUSH   "visibility": the flush case flushes to visibility
 *                      (for a device with native flush; the name passes
 *                      softroce/rxe-run's filter)
 *   BENCH_WARMUP_MS    if set, the warm-up also ends after this many ms (but
 *                      not before QD operations; for time-boxed -t runs)
 *   BENCH_MAX_OPS      at most this many latency slots for -t runs (default
 *                      4194304; a -t run stops early when they are used up
 *                      and then reports the operations it did); the client
 *                      allocates 10 x the warm-up rate x SECONDS of them
 *
 * Any error: a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "bench-time.h"

#define SLOTS 16
#define SLOT_MAX 1048576 /* 1 MiB: the largest operation */
#define REGION_SIZE (SLOTS * SLOT_MAX)
#define SRV_RECV_BUFS 32     /* server receive buffers of SLOT_MAX (pingpong) */
#define SRV_SRQ_BUFS 64      /* SRQ receive buffers of SLOT_MAX: one per connection */
#define SRV_IMM_RECVS 512    /* receives kept posted for write_imm and send: perftest's ib_send_bw keeps 512 */
#define WARMUP_OPS 100
#define MAX_WC 32
#define MAX_CONNS 64         /* the scale cases' connections */
#define SCALE_SIZE_MAX 65536 /* the scale cases' largest operation */

#define REQ_MAGIC "RPB1"
#define REP_MAGIC "RPB2"

/* the srq_recv case's SRQ: room for every receive of a -n 1200 run */
#define SRQ_RECV_SLOTS 2048

enum bcase {
	C_NONE = 0, C_READ, C_WRITE, C_ATOMIC, C_FLUSH, C_PINGPONG, C_WRITE_IMM,
	C_SRQ, C_CONN, C_MR, C_POLL, C_SRQ_RECV, C_SEND, C_NEXT_EVENT,
	C_SCALE_WRITE, C_SCALE_SRQ, C_QUIT
};

static const char *const case_names[] = {
	[C_NONE] = "none", [C_READ] = "read", [C_WRITE] = "write",
	[C_ATOMIC] = "atomic_write", [C_FLUSH] = "flush",
	[C_PINGPONG] = "pingpong", [C_WRITE_IMM] = "write_imm",
	[C_SRQ] = "srq", [C_CONN] = "conn", [C_MR] = "mr", [C_POLL] = "poll",
	[C_SRQ_RECV] = "srq_recv", [C_SEND] = "send", [C_NEXT_EVENT] = "next_event",
	[C_SCALE_WRITE] = "scale_write", [C_SCALE_SRQ] = "scale_srq", [C_QUIT] = "quit",
};

/* connect private data (client -> server; at most 56 bytes on RoCE) */
struct req_pd {
	char magic[4];
	uint32_t bcase;
	uint32_t size;
	uint32_t qd;
};

/* accept private data (server -> client; at most 196 bytes on RoCE) */
#define LIB_PATH_MAX 160
struct rep_pd {
	char magic[4];
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;
	uint8_t desc[24];
	char lib[LIB_PATH_MAX];
};

/* ---------------------------------------------------------------- utils */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "rpma-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

#define CHECK(call) do { \
	int rc_ = (call); \
	if (rc_ != 0) \
		die("%s:%d: %s: %s (%d)", __FILE__, __LINE__, #call, \
		    rpma_err_2str(rc_), rc_); \
} while (0)

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	if (v == NULL || *v == '\0')
		return dflt;
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || *end != '\0' || x <= 0)
		die("bad %s=%s", name, v);
	return x;
}

static int timeout_ms(void)
{
	return (int)env_long("BENCH_TIMEOUT", 30) * 1000;
}

static enum bcase case_of(const char *name)
{
	for (int i = C_READ; i <= C_QUIT; i++)
		if (strcmp(name, case_names[i]) == 0)
			return (enum bcase)i;
	return C_NONE;
}

/*
 * RPMA_BENCH_FLUSH=visibility: the flush case flushes to visibility, and the
 * server's region does not ask for persistent flush. On a device with native
 * flush (Linux 6.12 rxe) that is the one native flush RAM can take: a native
 * flush to persistence needs persistent memory, and C 1.3.0 cannot even
 * register a persistent-flush region in RAM.
 */
static int
flush_visibility(void)
{
	const char *v = getenv("RPMA_BENCH_FLUSH");

	return v != NULL && strcmp(v, "visibility") == 0;
}

static void *alloc_buf(size_t size)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, size) != 0)
		die("out of memory (%zu bytes)", size);
	memset(p, 0xa5, size);
	return p;
}

/* the path of the librpma.so.0 mapped into this process */
static void mapped_lib(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		die("cannot open /proc/self/maps");
	char line[4096];
	path[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p == NULL || strstr(p, "librpma.so") == NULL)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (path[0] != '\0' && strcmp(path, p) != 0)
			die("two librpma files mapped: %s and %s", path, p);
		if (strlen(p) >= len)
			die("library path too long: %s", p);
		strcpy(path, p);
	}
	fclose(f);
	if (path[0] == '\0')
		die("no librpma mapped in this process");
}

/* checks BENCH_EXPECT_LIB against the mapped library; returns its path */
static void check_own_lib(char *path, size_t len)
{
	mapped_lib(path, len);
	const char *want = getenv("BENCH_EXPECT_LIB");
	if (want == NULL || *want == '\0')
		return;
	char *rw = realpath(want, NULL);
	char *rp = realpath(path, NULL);
	if (rw == NULL || rp == NULL || strcmp(rw, rp) != 0)
		die("BENCH_EXPECT_LIB=%s but this process runs on %s", want, path);
	free(rw);
	free(rp);
}

/* waits (with a deadline) for the next connection event, which must be want */
static void expect_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	int fd;
	CHECK(rpma_conn_get_event_fd(conn, &fd));
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int rc = poll(&pfd, 1, timeout_ms());
	if (rc < 0)
		die("poll: %s", strerror(errno));
	if (rc == 0)
		die("no connection event within the deadline (waiting for %s)",
		    rpma_utils_conn_event_2str(want));
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	CHECK(rpma_conn_next_event(conn, &ev));
	if (ev != want)
		die("connection event %s, expected %s",
		    rpma_utils_conn_event_2str(ev), rpma_utils_conn_event_2str(want));
}

static struct rpma_peer *new_peer(const char *addr, enum rpma_util_ibv_context_type t)
{
	struct ibv_context *ctx = NULL;
	struct rpma_peer *peer = NULL;
	CHECK(rpma_utils_get_ibv_context(addr, t, &ctx));
	if (ctx == NULL)
		die("no RDMA device for %s", addr);
	CHECK(rpma_peer_new(ctx, &peer));
	return peer;
}

static const char *port_plus_one(const char *port, char *buf, size_t len)
{
	char *end;
	long p = strtol(port, &end, 10);
	if (*end != '\0' || p <= 0 || p >= 65535)
		die("bad port %s", port);
	snprintf(buf, len, "%ld", p + 1);
	return buf;
}

/* --------------------------------------------------------------- server */

struct server {
	struct rpma_peer *peer;
	struct rpma_ep *ep, *ep_srq;
	struct rpma_conn_cfg *cfg, *cfg_srq;
	struct rpma_srq *srq;
	struct rpma_cq *srq_rcq;
	struct rpma_peer_cfg *pcfg;
	char *region, *rbuf, *srqbuf, *sbuf;
	struct rpma_mr_local *region_mr, *rbuf_mr, *srqbuf_mr, *sbuf_mr;
	struct rep_pd rep;
	int srq_posted;
	int srq_next;
	int busy;	/* busy-poll the CQs (else sleep on their channels) */
	int events;	/* busy: take events from a non-blocking fd after empty polls */
	/* the scale cases' connections and their QP numbers */
	struct rpma_conn *conns[MAX_CONNS];
	uint32_t qpn[MAX_CONNS];
	int nconns;
};

/* the srq and scale_srq cases receive through the server's SRQ */
static int on_srq(enum bcase c)
{
	return c == C_SRQ || c == C_SCALE_SRQ;
}

/* the scale connection whose QP has number qpn */
static struct rpma_conn *srv_conn_of(const struct server *s, uint32_t qpn)
{
	for (int i = 0; i < s->nconns; i++)
		if (s->qpn[i] == qpn)
			return s->conns[i];
	die("server: a receive on QP %u, which no connection has", qpn);
}

static void set_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl: %s", strerror(errno));
}

static void srv_srq_topup(struct server *s)
{
	while (s->srq_posted < SRV_SRQ_BUFS) {
		int b = s->srq_next;
		s->srq_next = (s->srq_next + 1) % SRV_SRQ_BUFS;
		CHECK(rpma_srq_recv(s->srq, s->srqbuf_mr, (size_t)b * SLOT_MAX,
				    SLOT_MAX, (void *)(uintptr_t)b));
		s->srq_posted++;
	}
}

/*
 * one rpma_cq_get_wc on cq; handles what came: receives are re-posted (and
 * answered for pingpong/srq), send completions are consumed
 */
static void srv_poll(struct server *s, struct rpma_conn *conn, struct rpma_cq *cq,
		     enum bcase c, uint32_t size, int *progress)
{
	struct ibv_wc wc[MAX_WC];
	int n = 0;
	int rc = rpma_cq_get_wc(cq, MAX_WC, wc, &n);
	if (rc == RPMA_E_NO_COMPLETION)
		return;
	if (rc)
		die("server: rpma_cq_get_wc: %s", rpma_err_2str(rc));
	*progress = 1;
	for (int i = 0; i < n; i++) {
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
			continue; /* the connection is going down */
		if (wc[i].status != IBV_WC_SUCCESS)
			die("server: completion error status %d (opcode %d)",
			    (int)wc[i].status, (int)wc[i].opcode);
		size_t b = (size_t)wc[i].wr_id;
		switch (wc[i].opcode) {
		case IBV_WC_SEND:
			break;
		case IBV_WC_RECV_RDMA_WITH_IMM:
			CHECK(rpma_recv(conn, s->rbuf_mr, (b % SRV_RECV_BUFS) * SLOT_MAX,
					SLOT_MAX, (void *)(uintptr_t)b));
			break;
		case IBV_WC_RECV:
			if (c == C_SEND) {
				/* one-way: the receive is posted again, no answer */
				CHECK(rpma_recv(conn, s->rbuf_mr, (b % SRV_RECV_BUFS) * SLOT_MAX,
						SLOT_MAX, (void *)(uintptr_t)b));
				break;
			}
			if (on_srq(c)) {
				s->srq_posted--;
				srv_srq_topup(s);
			} else {
				CHECK(rpma_recv(conn, s->rbuf_mr, b * SLOT_MAX, SLOT_MAX,
						(void *)(uintptr_t)b));
			}
			CHECK(rpma_send(c == C_SCALE_SRQ ? srv_conn_of(s, wc[i].qp_num) : conn,
					s->sbuf_mr, 0, size, RPMA_F_COMPLETION_ALWAYS, NULL));
			break;
		default:
			die("server: unexpected completion opcode %d", (int)wc[i].opcode);
		}
	}
}

/*
 * what a connection event means to a served connection: 1 when it is
 * CLOSED, 0 for ESTABLISHED; any other event ends the server
 */
static int srv_event(enum rpma_conn_event ev)
{
	if (ev == RPMA_CONN_ESTABLISHED)
		return 0;
	if (ev == RPMA_CONN_CLOSED)
		return 1;
	die("server: unexpected connection event %s", rpma_utils_conn_event_2str(ev));
}

/*
 * serves one accepted connection until the client disconnects; returns when
 * the connection is CLOSED
 */
static void srv_serve(struct server *s, struct rpma_conn *conn, enum bcase c, uint32_t size)
{
	struct rpma_cq *cq = NULL;
	CHECK(rpma_conn_get_cq(conn, &cq));
	/* fds: the connection's events, its CQ, the SRQ's receive CQ */
	struct pollfd pfd[3] = {{.events = POLLIN}, {.events = POLLIN}, {.events = POLLIN}};
	CHECK(rpma_conn_get_event_fd(conn, &pfd[0].fd));
	CHECK(rpma_cq_get_fd(cq, &pfd[1].fd));
	CHECK(rpma_cq_get_fd(s->srq_rcq, &pfd[2].fd));
	const int active = (c == C_PINGPONG || c == C_WRITE_IMM || c == C_SRQ || c == C_SEND);
	const int busy = active && s->busy;
	const int events = busy && s->events;
	const nfds_t nfds = !active ? 1 : c == C_SRQ ? 3 : 2;
	/* a connection may live long (valgrind clients): 20 x the wait deadline */
	const uint64_t limit = (uint64_t)timeout_ms() * 20 * 1000000ull;
	uint64_t last = now_ns();
	unsigned spin = 0;
	if (events)
		set_nonblocking(pfd[0].fd);
	for (;;) {
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		int ready;
		if (busy) {
			int progress = 0;
			srv_poll(s, conn, cq, c, size, &progress);
			if (c == C_SRQ)
				srv_poll(s, conn, s->srq_rcq, c, size, &progress);
			if (progress) {
				spin = 0;
				continue;
			}
			++spin;
			if (events) {
				/* no event yet: the non-blocking fd's EAGAIN */
				int rc = rpma_conn_next_event(conn, &ev);
				ready = rc != RPMA_E_PROVIDER;
				if (ready)
					CHECK(rc);
			} else {
				if (spin % 1024 != 0)
					continue;
				ready = poll(pfd, 1, 0);
			}
			if (ready == 0) {
				uint64_t t = now_ns();
				if (spin % (1024 * 1024) == 0 && t - last > limit)
					die("server: connection idle beyond the deadline");
				continue;
			}
		} else {
			/* sleep until the connection or a CQ has something */
			ready = poll(pfd, nfds, (int)(limit / 1000000ull));
			if (ready == 0)
				die("server: connection idle beyond the deadline");
			if (ready > 0 && nfds > 1) {
				if (pfd[1].revents)
					CHECK(rpma_cq_wait(cq));
				if (nfds > 2 && pfd[2].revents)
					CHECK(rpma_cq_wait(s->srq_rcq));
				/* the CQs are armed again: take all there is */
				int progress;
				do {
					progress = 0;
					srv_poll(s, conn, cq, c, size, &progress);
					if (c == C_SRQ)
						srv_poll(s, conn, s->srq_rcq, c, size, &progress);
				} while (progress);
				if (!pfd[0].revents)
					continue;
			}
		}
		if (ready < 0)
			die("server: poll: %s", strerror(errno));
		if (!events)
			CHECK(rpma_conn_next_event(conn, &ev));
		last = now_ns();
		if (srv_event(ev))
			break;
	}
}

/* the accept private data, the same for every connection */
static struct rpma_conn_private_data srv_rep(struct server *s)
{
	struct rpma_conn_private_data rep = {&s->rep, (uint8_t)sizeof(s->rep)};
	return rep;
}

/*
 * the scale cases: conn (already accepted) is the first of n connections;
 * accepts the other n - 1, serves all of them until every one is CLOSED
 * (scale_srq: answers each receive of the SRQ on the connection that
 * brought it), disconnecting each as it closes, then deletes them
 */
static void srv_scale(struct server *s, struct rpma_ep *ep, struct rpma_conn *conn,
		      enum bcase c, uint32_t size, int n)
{
	struct pollfd pfd[MAX_CONNS];
	int closed[MAX_CONNS] = {0};
	struct rpma_conn_private_data rep = srv_rep(s);
	int epfd;
	CHECK(rpma_ep_get_fd(ep, &epfd));
	s->nconns = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0) {
			struct pollfd e = {.fd = epfd, .events = POLLIN};
			if (poll(&e, 1, timeout_ms()) != 1)
				die("server: %s: connection %d of %d did not come", case_names[c], i + 1, n);
			struct rpma_conn_req *req = NULL;
			CHECK(rpma_ep_next_conn_req(ep, on_srq(c) ? s->cfg_srq : s->cfg, &req));
			CHECK(rpma_conn_req_connect(&req, &rep, &conn));
		}
		s->conns[i] = conn;
		CHECK(rpma_conn_get_qp_num(conn, &s->qpn[i]));
		CHECK(rpma_conn_get_event_fd(conn, &pfd[i].fd));
		pfd[i].events = POLLIN;
		s->nconns++;
	}
	const uint64_t limit = (uint64_t)timeout_ms() * 20 * 1000000ull;
	uint64_t last = now_ns();
	unsigned spin = 0;
	for (int left = n; left > 0;) {
		int ready;
		if (c == C_SCALE_SRQ) {
			int progress = 0;
			srv_poll(s, NULL, s->srq_rcq, c, size, &progress);
			for (int i = 0; i < n; i++) {
				struct rpma_cq *cq = NULL;
				CHECK(rpma_conn_get_cq(s->conns[i], &cq));
				srv_poll(s, s->conns[i], cq, c, size, &progress);
			}
			if (progress || ++spin % 1024 != 0)
				continue;
			ready = poll(pfd, (nfds_t)n, 0);
		} else {
			ready = poll(pfd, (nfds_t)n, (int)(limit / 1000000ull));
		}
		if (ready < 0)
			die("server: poll: %s", strerror(errno));
		uint64_t t = now_ns();
		if (ready == 0) {
			if (t - last > limit)
				die("server: %s: connections idle beyond the deadline", case_names[c]);
			continue;
		}
		last = t;
		for (int i = 0; i < n; i++) {
			if (!pfd[i].revents || closed[i])
				continue;
			enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
			CHECK(rpma_conn_next_event(s->conns[i], &ev));
			if (srv_event(ev)) {
				/* the client's disconnect completes with ours */
				CHECK(rpma_conn_disconnect(s->conns[i]));
				closed[i] = 1;
				pfd[i].fd = -1; /* poll skips it */
				left--;
			}
		}
	}
	for (int i = 0; i < n; i++)
		CHECK(rpma_conn_delete(&s->conns[i]));
	s->nconns = 0;
}

static int srv_one(struct server *s, struct rpma_ep *ep, int on_srq_port)
{
	struct rpma_conn_req *req = NULL;
	CHECK(rpma_ep_next_conn_req(ep, on_srq_port ? s->cfg_srq : s->cfg, &req));
	struct rpma_conn_private_data pd = {NULL, 0};
	CHECK(rpma_conn_req_get_private_data(req, &pd));
	struct req_pd rq;
	if (pd.ptr == NULL || pd.len < sizeof(rq)) {
		fprintf(stderr, "rpma-bench server: a request without a case; rejected\n");
		CHECK(rpma_conn_req_delete(&req));
		return 1;
	}
	memcpy(&rq, pd.ptr, sizeof(rq));
	enum bcase c = (enum bcase)rq.bcase;
	const int scale = c == C_SCALE_WRITE || c == C_SCALE_SRQ;
	if (memcmp(rq.magic, REQ_MAGIC, 4) != 0 || c <= C_NONE || c > C_QUIT ||
	    c == C_MR || rq.size > SLOT_MAX || on_srq(c) != (on_srq_port != 0) ||
	    (scale && (rq.size > SCALE_SIZE_MAX || rq.qd < 1 || rq.qd > MAX_CONNS))) {
		fprintf(stderr, "rpma-bench server: a bad request (case %u on %s port); rejected\n",
			rq.bcase, on_srq_port ? "the srq" : "the main");
		CHECK(rpma_conn_req_delete(&req));
		return 1;
	}
	if (c == C_QUIT) {
		CHECK(rpma_conn_req_delete(&req));
		return 0;
	}
	if (c == C_PINGPONG) {
		for (int b = 0; b < SRV_RECV_BUFS; b++)
			CHECK(rpma_conn_req_recv(req, s->rbuf_mr, (size_t)b * SLOT_MAX,
						 SLOT_MAX, (void *)(uintptr_t)b));
	} else if (c == C_WRITE_IMM || c == C_SEND) {
		for (int b = 0; b < SRV_IMM_RECVS; b++)
			CHECK(rpma_conn_req_recv(req, s->rbuf_mr,
						 (size_t)(b % SRV_RECV_BUFS) * SLOT_MAX,
						 SLOT_MAX, (void *)(uintptr_t)b));
	} else if (on_srq(c)) {
		srv_srq_topup(s);
	}
	struct rpma_conn_private_data rep = srv_rep(s);
	struct rpma_conn *conn = NULL;
	CHECK(rpma_conn_req_connect(&req, &rep, &conn));
	if (scale) {
		srv_scale(s, ep, conn, c, rq.size, (int)rq.qd);
		return 1;
	}
	srv_serve(s, conn, c, rq.size);
	CHECK(rpma_conn_disconnect(conn));
	CHECK(rpma_conn_delete(&conn));
	return 1;
}

static struct rpma_conn_cfg *srv_cfg(struct rpma_srq *srq)
{
	struct rpma_conn_cfg *cfg = NULL;
	CHECK(rpma_conn_cfg_new(&cfg));
	CHECK(rpma_conn_cfg_set_cq_size(cfg, 512));
	CHECK(rpma_conn_cfg_set_sq_size(cfg, 64));
	CHECK(rpma_conn_cfg_set_rq_size(cfg, SRV_IMM_RECVS));
	CHECK(rpma_conn_cfg_set_timeout(cfg, timeout_ms()));
	if (srq)
		CHECK(rpma_conn_cfg_set_srq(cfg, srq));
	return cfg;
}

static int run_server(const char *addr, const char *port)
{
	struct server s;
	memset(&s, 0, sizeof(s));
	const char *mode = getenv("BENCH_SERVER_POLL");
	s.events = mode != NULL && strcmp(mode, "events") == 0;
	s.busy = mode == NULL || strcmp(mode, "busy") == 0 || s.events;
	if (!s.busy && strcmp(mode, "wait") != 0)
		die("BENCH_SERVER_POLL must be busy, wait or events");
	char lib[PATH_MAX];
	check_own_lib(lib, sizeof(lib));
	if (strlen(lib) >= LIB_PATH_MAX)
		die("library path too long for the private data: %s", lib);

	s.peer = new_peer(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	s.region = alloc_buf(REGION_SIZE);
	s.rbuf = alloc_buf((size_t)SRV_RECV_BUFS * SLOT_MAX);
	s.srqbuf = alloc_buf((size_t)SRV_SRQ_BUFS * SLOT_MAX);
	s.sbuf = alloc_buf(SLOT_MAX);
	CHECK(rpma_mr_reg(s.peer, s.region, REGION_SIZE,
			  RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			  RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			  (flush_visibility() ? 0 : RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT),
			  &s.region_mr));
	CHECK(rpma_mr_reg(s.peer, s.rbuf, (size_t)SRV_RECV_BUFS * SLOT_MAX,
			  RPMA_MR_USAGE_RECV, &s.rbuf_mr));
	CHECK(rpma_mr_reg(s.peer, s.srqbuf, (size_t)SRV_SRQ_BUFS * SLOT_MAX,
			  RPMA_MR_USAGE_RECV, &s.srqbuf_mr));
	CHECK(rpma_mr_reg(s.peer, s.sbuf, SLOT_MAX, RPMA_MR_USAGE_SEND, &s.sbuf_mr));
	CHECK(rpma_peer_cfg_new(&s.pcfg));
	CHECK(rpma_peer_cfg_set_direct_write_to_pmem(s.pcfg, true));

	/* the accept private data: both descriptors and the library path */
	memcpy(s.rep.magic, REP_MAGIC, 4);
	size_t mr_sz = 0, pcfg_sz = 0;
	CHECK(rpma_mr_get_descriptor_size(s.region_mr, &mr_sz));
	CHECK(rpma_peer_cfg_get_descriptor_size(s.pcfg, &pcfg_sz));
	if (mr_sz + pcfg_sz > sizeof(s.rep.desc))
		die("descriptors too big (%zu + %zu)", mr_sz, pcfg_sz);
	s.rep.mr_desc_size = (uint8_t)mr_sz;
	s.rep.pcfg_desc_size = (uint8_t)pcfg_sz;
	CHECK(rpma_mr_get_descriptor(s.region_mr, s.rep.desc));
	CHECK(rpma_peer_cfg_get_descriptor(s.pcfg, s.rep.desc + mr_sz));
	strcpy(s.rep.lib, lib);

	struct rpma_srq_cfg *scfg = NULL;
	CHECK(rpma_srq_cfg_new(&scfg));
	CHECK(rpma_srq_cfg_set_rq_size(scfg, 64));
	CHECK(rpma_srq_cfg_set_rcq_size(scfg, 128));
	CHECK(rpma_srq_new(s.peer, scfg, &s.srq));
	CHECK(rpma_srq_cfg_delete(&scfg));
	CHECK(rpma_srq_get_rcq(s.srq, &s.srq_rcq));
	if (s.srq_rcq == NULL)
		die("the SRQ has no receive CQ");
	s.cfg = srv_cfg(NULL);
	s.cfg_srq = srv_cfg(s.srq);

	char p1[16];
	CHECK(rpma_ep_listen(s.peer, addr, port, &s.ep));
	CHECK(rpma_ep_listen(s.peer, addr, port_plus_one(port, p1, sizeof(p1)), &s.ep_srq));
	struct pollfd pfd[2] = {{.events = POLLIN}, {.events = POLLIN}};
	CHECK(rpma_ep_get_fd(s.ep, &pfd[0].fd));
	CHECK(rpma_ep_get_fd(s.ep_srq, &pfd[1].fd));
	printf("listening lib=%s\n", lib);
	fflush(stdout);

	int idle_ms = (int)env_long("BENCH_SERVER_IDLE", 3600) * 1000;
	for (int more = 1; more;) {
		int rc = poll(pfd, 2, idle_ms);
		if (rc < 0)
			die("server: poll: %s", strerror(errno));
		if (rc == 0)
			die("server: no connection for BENCH_SERVER_IDLE seconds");
		if (pfd[0].revents)
			more = srv_one(&s, s.ep, 0);
		else if (pfd[1].revents)
			more = srv_one(&s, s.ep_srq, 1);
	}

	CHECK(rpma_ep_shutdown(&s.ep_srq));
	CHECK(rpma_ep_shutdown(&s.ep));
	CHECK(rpma_conn_cfg_delete(&s.cfg_srq));
	CHECK(rpma_conn_cfg_delete(&s.cfg));
	CHECK(rpma_srq_delete(&s.srq));
	CHECK(rpma_peer_cfg_delete(&s.pcfg));
	CHECK(rpma_mr_dereg(&s.sbuf_mr));
	CHECK(rpma_mr_dereg(&s.srqbuf_mr));
	CHECK(rpma_mr_dereg(&s.rbuf_mr));
	CHECK(rpma_mr_dereg(&s.region_mr));
	CHECK(rpma_peer_delete(&s.peer));
	free(s.sbuf);
	free(s.srqbuf);
	free(s.rbuf);
	free(s.region);
	printf("server done\n");
	return 0;
}

/* --------------------------------------------------------------- client */

/* SIGALRM of an event-driven client: a wait that never returned */
static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "rpma-bench: an event-driven run outlived its alarm\n";
	ssize_t unused = write(2, msg, sizeof(msg) - 1);
	(void)unused;
	_exit(1);
}

struct client {
	const char *addr, *port;
	enum bcase c;
	size_t size;
	int qd;
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	char *buf;              /* 2 x REGION_SIZE: sources/destinations, receives */
	struct rpma_mr_local *lmr;
	struct rpma_conn *conn;
	struct rpma_mr_remote *rmr;
	struct rpma_peer_cfg *rpcfg;
	struct rpma_cq *cq;
	struct rpma_srq *srq;           /* srq_recv */
	struct rpma_mr_local *srq_mr;   /* srq_recv: the receives' buffer */
	char lib[PATH_MAX];
	uint64_t empty_polls, polls, waits;
	int event_driven;       /* BENCH_CLIENT_WAIT=wait */
	uint64_t phase_ns[4];   /* conn: the sums of its four phases */
	uint64_t phase_n;       /* conn: cycles summed there */
	/* the scale cases' connections, set up in setup_ns */
	struct rpma_conn *conns[MAX_CONNS];
	struct rpma_cq *cqs[MAX_CONNS];
	int nconns;
	uint64_t setup_ns;
};

static int is_scale(enum bcase c)
{
	return c == C_SCALE_WRITE || c == C_SCALE_SRQ;
}

static void cli_pd(const struct client *k, enum bcase c, struct req_pd *rq)
{
	memset(rq, 0, sizeof(*rq));
	memcpy(rq->magic, REQ_MAGIC, 4);
	rq->bcase = (uint32_t)c;
	rq->size = (uint32_t)k->size;
	rq->qd = (uint32_t)k->qd;
}

/*
 * connects k->conn; the first connection also makes k->rmr and k->rpcfg
 * from the server's private data
 */
static void cli_connect(struct client *k)
{
	char p1[16];
	const char *port = on_srq(k->c) ? port_plus_one(k->port, p1, sizeof(p1)) : k->port;
	struct rpma_conn_req *req = NULL;
	CHECK(rpma_conn_req_new(k->peer, k->addr, port, k->cfg, &req));
	struct req_pd rq;
	cli_pd(k, k->c, &rq);
	struct rpma_conn_private_data pd = {&rq, (uint8_t)sizeof(rq)};
	CHECK(rpma_conn_req_connect(&req, &pd, &k->conn));
	expect_event(k->conn, RPMA_CONN_ESTABLISHED);

	struct rpma_conn_private_data in = {NULL, 0};
	CHECK(rpma_conn_get_private_data(k->conn, &in));
	struct rep_pd rep;
	if (in.ptr == NULL || in.len < sizeof(rep))
		die("the server's private data is too short (%u bytes)", (unsigned)in.len);
	memcpy(&rep, in.ptr, sizeof(rep));
	if (memcmp(rep.magic, REP_MAGIC, 4) != 0)
		die("the server's private data is not ours");
	rep.lib[LIB_PATH_MAX - 1] = '\0';
	if (strcmp(rep.lib, k->lib) != 0 && getenv("BENCH_ALLOW_MIXED") == NULL)
		die("the server runs on %s, this client on %s", rep.lib, k->lib);
	if (k->rmr == NULL) {
		CHECK(rpma_mr_remote_from_descriptor(rep.desc, rep.mr_desc_size, &k->rmr));
		CHECK(rpma_peer_cfg_from_descriptor(rep.desc + rep.mr_desc_size,
						    rep.pcfg_desc_size, &k->rpcfg));
		size_t rsize = 0;
		CHECK(rpma_mr_remote_get_size(k->rmr, &rsize));
		if (rsize < REGION_SIZE)
			die("the server's region is too small (%zu)", rsize);
	}
	CHECK(rpma_conn_apply_remote_peer_cfg(k->conn, k->rpcfg));
	CHECK(rpma_conn_get_cq(k->conn, &k->cq));
}

/* connects the case's connections: one, or QD for the scale cases */
static void cli_connect_all(struct client *k)
{
	const int n = is_scale(k->c) ? k->qd : 1;
	uint64_t t0 = now_ns();
	for (int i = 0; i < n; i++) {
		cli_connect(k);
		k->conns[i] = k->conn;
		k->cqs[i] = k->cq;
	}
	k->setup_ns = now_ns() - t0;
	k->nconns = n;
}

static void cli_disconnect(struct client *k)
{
	for (int i = 0; i < k->nconns; i++) {
		CHECK(rpma_conn_disconnect(k->conns[i]));
		expect_event(k->conns[i], RPMA_CONN_CLOSED);
		CHECK(rpma_conn_delete(&k->conns[i]));
	}
	k->conn = NULL;
	CHECK(rpma_mr_remote_delete(&k->rmr));
	CHECK(rpma_peer_cfg_delete(&k->rpcfg));
}

/* posts operation `slot`; the case is a constant in each inlined copy */
static inline __attribute__((always_inline)) int
cli_post(struct client *k, enum bcase c, int slot)
{
	size_t off = (size_t)slot * k->size;
	const void *ctx = (const void *)(uintptr_t)slot;
	int rc;
	switch (c) {
	case C_READ:
		return rpma_read(k->conn, k->lmr, off, k->rmr, off, k->size,
				 RPMA_F_COMPLETION_ALWAYS, ctx);
	case C_WRITE:
		return rpma_write(k->conn, k->rmr, off, k->lmr, off, k->size,
				  RPMA_F_COMPLETION_ALWAYS, ctx);
	case C_ATOMIC:
		return rpma_atomic_write(k->conn, k->rmr, off, k->buf + off,
					 RPMA_F_COMPLETION_ALWAYS, ctx);
	case C_FLUSH:
		rc = rpma_write(k->conn, k->rmr, off, k->lmr, off, k->size,
				RPMA_F_COMPLETION_ON_ERROR, NULL);
		if (rc)
			return rc;
		return rpma_flush(k->conn, k->rmr, off, k->size,
				  flush_visibility() ? RPMA_FLUSH_TYPE_VISIBILITY :
				  RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, ctx);
	case C_WRITE_IMM:
		return rpma_write_with_imm(k->conn, k->rmr, off, k->lmr, off, k->size,
					   RPMA_F_COMPLETION_ALWAYS, (uint32_t)slot, ctx);
	case C_SEND:
		return rpma_send(k->conn, k->lmr, off, k->size,
				 RPMA_F_COMPLETION_ALWAYS, ctx);
	case C_PINGPONG:
	case C_SRQ:
		rc = rpma_recv(k->conn, k->lmr, REGION_SIZE + off, k->size, ctx);
		if (rc)
			return rc;
		return rpma_send(k->conn, k->lmr, off, k->size,
				 RPMA_F_COMPLETION_ALWAYS, ctx);
	default:
		return RPMA_E_INVAL;
	}
}

struct run {
	uint64_t nops;     /* exact count (nops > 0) or ... */
	uint64_t secs_ns;  /* ... a duration */
	uint64_t *lat;     /* NULL: warm-up */
	uint64_t cap;
	uint64_t warmup_ns; /* > 0: stop posting after this time even if nops are not done */
	uint64_t done;
	uint64_t t_start, t_end;
};

/*
 * the measured loop of the connected cases: keeps qd ops in flight, each
 * completion posts the next op
 */
static inline __attribute__((always_inline)) void
cli_loop(struct client *k, enum bcase c, struct run *r)
{
	uint64_t tpost[SLOTS];
	struct ibv_wc wc[MAX_WC];
	const int two = (c == C_PINGPONG || c == C_SRQ);
	const int nwc = two ? 2 * k->qd : k->qd;
	const uint64_t limit = r->nops ? r->nops : r->cap;
	const uint64_t tmo = (uint64_t)timeout_ms() * 1000000ull;
	uint64_t posted = 0, done = 0, end_ns;
	unsigned spin = 0;
	int rc, n;

	uint64_t t = now_ns();
	r->t_start = t;
	end_ns = t + r->secs_ns;
	const uint64_t stop_ns = r->warmup_ns ? t + r->warmup_ns : UINT64_MAX;
	uint64_t last = t;
	for (int s = 0; s < k->qd && posted < limit; s++) {
		tpost[s] = now_ns();
		rc = cli_post(k, c, s);
		if (rc)
			die("posting %s: %s", case_names[c], rpma_err_2str(rc));
		posted++;
	}
	/* event-driven: sleep first, then take completions until none is left */
	int must_wait = k->event_driven;
	while (done < posted) {
		if (must_wait) {
			/* the run's alarm bounds a wait that never returns */
			rc = rpma_cq_wait(k->cq);
			if (rc)
				die("rpma_cq_wait: %s", rpma_err_2str(rc));
			k->waits++;
			must_wait = 0;
		}
		rc = rpma_cq_get_wc(k->cq, nwc, wc, &n);
		k->polls++;
		if (rc == RPMA_E_NO_COMPLETION) {
			k->empty_polls++;
			if (k->event_driven) {
				must_wait = 1;
				continue;
			}
			if (++spin % 65536 == 0 && now_ns() - last > tmo)
				die("%s: no completion within the deadline", case_names[c]);
			continue;
		}
		if (rc)
			die("rpma_cq_get_wc: %s", rpma_err_2str(rc));
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die("%s: completion error status %d (opcode %d)", case_names[c],
				    (int)wc[i].status, (int)wc[i].opcode);
			if (two && wc[i].opcode == IBV_WC_SEND)
				continue;
			int s = (int)wc[i].wr_id;
			t = now_ns();
			if (r->lat)
				r->lat[done] = t - tpost[s];
			done++;
			if (posted < limit && (r->nops ? t < stop_ns : t < end_ns)) {
				tpost[s] = t;
				rc = cli_post(k, c, s);
				if (rc)
					die("posting %s: %s", case_names[c], rpma_err_2str(rc));
				posted++;
			}
		}
		/*
		 * At QD 1 a one-sided event-driven client sleeps for every
		 * completion: the next one comes after this re-arm, so its event
		 * does too
		 */
		if (k->event_driven && k->qd == 1 && !two)
			must_wait = 1;
		last = t;
	}
	r->t_end = t;
	r->done = done;
}

/*
 * the measured loop of the scale cases: one op in flight on each of the
 * connections (scale_write: a write; scale_srq: a ping-pong, which ends at
 * its receive), which are polled in turn
 */
static void cli_scale(struct client *k, struct run *r)
{
	uint64_t tpost[MAX_CONNS];
	struct ibv_wc wc[2];
	const enum bcase op = k->c == C_SCALE_SRQ ? C_SRQ : C_WRITE;
	const uint64_t limit = r->nops ? r->nops : r->cap;
	const uint64_t tmo = (uint64_t)timeout_ms() * 1000000ull;
	uint64_t posted = 0, done = 0;
	unsigned spin = 0;
	int rc, n;

	uint64_t t = now_ns();
	r->t_start = t;
	const uint64_t end_ns = t + r->secs_ns;
	const uint64_t stop_ns = r->warmup_ns ? t + r->warmup_ns : UINT64_MAX;
	uint64_t last = t;
	for (int i = 0; i < k->nconns && posted < limit; i++) {
		k->conn = k->conns[i];
		tpost[i] = now_ns();
		if ((rc = cli_post(k, op, i)))
			die("posting %s: %s", case_names[k->c], rpma_err_2str(rc));
		posted++;
	}
	while (done < posted) {
		for (int i = 0; i < k->nconns; i++) {
			rc = rpma_cq_get_wc(k->cqs[i], 2, wc, &n);
			k->polls++;
			if (rc == RPMA_E_NO_COMPLETION) {
				k->empty_polls++;
				continue;
			}
			if (rc)
				die("rpma_cq_get_wc: %s", rpma_err_2str(rc));
			for (int j = 0; j < n; j++) {
				if (wc[j].status != IBV_WC_SUCCESS)
					die("%s: completion error status %d (opcode %d)", case_names[k->c],
					    (int)wc[j].status, (int)wc[j].opcode);
				if (op == C_SRQ && wc[j].opcode == IBV_WC_SEND)
					continue;
				t = now_ns();
				last = t;
				if (r->lat)
					r->lat[done] = t - tpost[i];
				done++;
				if (posted < limit && (r->nops ? t < stop_ns : t < end_ns)) {
					k->conn = k->conns[i];
					tpost[i] = t;
					if ((rc = cli_post(k, op, i)))
						die("posting %s: %s", case_names[k->c], rpma_err_2str(rc));
					posted++;
				}
			}
		}
		if (++spin % 4096 == 0 && now_ns() - last > tmo)
			die("%s: no completion within the deadline", case_names[k->c]);
	}
	r->t_end = now_ns();
	r->done = done;
}

/* one connect/disconnect cycle; verify: check the server's library */
static void cli_conn_op(struct client *k, int verify)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct req_pd rq;
	cli_pd(k, C_CONN, &rq);
	struct rpma_conn_private_data pd = {&rq, (uint8_t)sizeof(rq)};
	uint64_t t[5];
	t[0] = now_ns();
	CHECK(rpma_conn_req_new(k->peer, k->addr, k->port, k->cfg, &req));
	t[1] = now_ns();
	CHECK(rpma_conn_req_connect(&req, &pd, &conn));
	expect_event(conn, RPMA_CONN_ESTABLISHED);
	t[2] = now_ns();
	if (verify) {
		struct rpma_conn_private_data in = {NULL, 0};
		CHECK(rpma_conn_get_private_data(conn, &in));
		struct rep_pd rep;
		if (in.ptr == NULL || in.len < sizeof(rep))
			die("the server's private data is too short");
		memcpy(&rep, in.ptr, sizeof(rep));
		rep.lib[LIB_PATH_MAX - 1] = '\0';
		if (strcmp(rep.lib, k->lib) != 0 && getenv("BENCH_ALLOW_MIXED") == NULL)
			die("the server runs on %s, this client on %s", rep.lib, k->lib);
	}
	CHECK(rpma_conn_disconnect(conn));
	expect_event(conn, RPMA_CONN_CLOSED);
	t[3] = now_ns();
	CHECK(rpma_conn_delete(&conn));
	t[4] = now_ns();
	for (int i = 0; i < 4; i++)
		k->phase_ns[i] += t[i + 1] - t[i];
	k->phase_n++;
}

/* the loop of the unconnected/serial cases: conn, mr, poll */
static void cli_serial(struct client *k, struct run *r, void *mrbuf)
{
	const uint64_t limit = r->nops ? r->nops : r->cap;
	struct ibv_wc wc;
	struct rpma_mr_local *mr = NULL;
	uint64_t t = now_ns(), t0, done = 0;
	const uint64_t end_ns = t + r->secs_ns;
	r->t_start = t;
	const uint64_t stop_ns = r->warmup_ns ? t + r->warmup_ns : UINT64_MAX;
	while (done < limit && (r->nops ? t < stop_ns : t < end_ns)) {
		t0 = t;
		switch (k->c) {
		case C_CONN:
			cli_conn_op(k, r->lat == NULL && done == 0);
			break;
		case C_MR:
			CHECK(rpma_mr_reg(k->peer, mrbuf, k->size,
					  RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, &mr));
			CHECK(rpma_mr_dereg(&mr));
			break;
		case C_SRQ_RECV:
			CHECK(rpma_srq_recv(k->srq, k->srq_mr, 0, k->size, NULL));
			break;
		case C_NEXT_EVENT: {
			enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
			int rc = rpma_conn_next_event(k->conn, &ev);
			if (rc != RPMA_E_PROVIDER)
				die("next_event: a connection with no event gave %s (%s)",
				    rpma_err_2str(rc), rpma_utils_conn_event_2str(ev));
			break;
		}
		case C_POLL: {
			int n = 0;
			int rc = rpma_cq_get_wc(k->cq, 1, &wc, &n);
			k->polls++;
			if (rc != RPMA_E_NO_COMPLETION)
				die("poll: an idle CQ gave %s", rpma_err_2str(rc));
			k->empty_polls++;
			break;
		}
		default:
			die("internal: serial case %s", case_names[k->c]);
		}
		t = now_ns();
		if (r->lat)
			r->lat[done] = t - t0;
		done++;
	}
	r->t_end = t;
	r->done = done;
}

static void cli_run(struct client *k, struct run *r, void *mrbuf)
{
	switch (k->c) {
	case C_READ: cli_loop(k, C_READ, r); break;
	case C_WRITE: cli_loop(k, C_WRITE, r); break;
	case C_ATOMIC: cli_loop(k, C_ATOMIC, r); break;
	case C_FLUSH: cli_loop(k, C_FLUSH, r); break;
	case C_PINGPONG: cli_loop(k, C_PINGPONG, r); break;
	case C_WRITE_IMM: cli_loop(k, C_WRITE_IMM, r); break;
	case C_SEND: cli_loop(k, C_SEND, r); break;
	case C_SRQ: cli_loop(k, C_SRQ, r); break;
	case C_SCALE_WRITE:
	case C_SCALE_SRQ: cli_scale(k, r); break;
	default: cli_serial(k, r, mrbuf); break;
	}
}

static void usage(void) __attribute__((noreturn));
static void usage(void)
{
	fprintf(stderr,
		"usage: rpma-bench server ADDR PORT\n"
		"       rpma-bench client ADDR PORT CASE SIZE QD (-t SECONDS | -n OPS)\n"
		"       rpma-bench quit ADDR PORT\n"
		"cases: read write atomic_write flush pingpong write_imm send srq conn mr poll\n"
		"       srq_recv next_event scale_write scale_srq (QD: connections)\n");
	exit(1);
}

static long parse_pos(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v <= 0)
		die("bad %s: %s", what, s);
	return v;
}

static int run_quit(const char *addr, const char *port)
{
	struct client k;
	memset(&k, 0, sizeof(k));
	k.peer = new_peer(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct req_pd rq;
	cli_pd(&k, C_QUIT, &rq);
	struct rpma_conn_private_data pd = {&rq, (uint8_t)sizeof(rq)};
	CHECK(rpma_conn_req_new(k.peer, addr, port, NULL, &req));
	CHECK(rpma_conn_req_connect(&req, &pd, &conn));
	expect_event(conn, RPMA_CONN_REJECTED);
	CHECK(rpma_conn_delete(&conn));
	CHECK(rpma_peer_delete(&k.peer));
	return 0;
}

static int run_client(int argc, char **argv)
{
	if (argc != 9)
		usage();
	struct client k;
	memset(&k, 0, sizeof(k));
	k.addr = argv[2];
	k.port = argv[3];
	k.c = case_of(argv[4]);
	if (k.c == C_NONE || k.c == C_QUIT)
		die("unknown case %s", argv[4]);
	k.size = (size_t)parse_pos(argv[5], "SIZE");
	k.qd = (int)parse_pos(argv[6], "QD");
	/* a registration may be larger than an operation: 1 GiB */
	if (k.size > (k.c == C_MR ? (size_t)1 << 30 : (size_t)SLOT_MAX))
		die("SIZE must be at most %d (mr: 1 GiB)", SLOT_MAX);
	if (is_scale(k.c) && (k.qd > MAX_CONNS || k.size > SCALE_SIZE_MAX))
		die("%s: at most %d connections of SIZE up to %d", argv[4], MAX_CONNS,
		    SCALE_SIZE_MAX);
	if (!is_scale(k.c) && k.qd > SLOTS)
		die("QD must be at most %d", SLOTS);
	if (k.c == C_ATOMIC && k.size != 8)
		die("atomic_write needs SIZE 8");
	struct run r;
	memset(&r, 0, sizeof(r));
	long v = parse_pos(argv[8], "count");
	if (strcmp(argv[7], "-t") == 0) {
		r.secs_ns = (uint64_t)v * 1000000000ull;
		r.cap = (uint64_t)env_long("BENCH_MAX_OPS", 4194304);
	} else if (strcmp(argv[7], "-n") == 0) {
		r.nops = (uint64_t)v;
		r.cap = r.nops;
	} else {
		usage();
	}
	check_own_lib(k.lib, sizeof(k.lib));

	const int connected = k.c != C_MR && k.c != C_CONN && k.c != C_SRQ_RECV;
	const char *cw = getenv("BENCH_CLIENT_WAIT");
	if (cw != NULL && strcmp(cw, "wait") != 0 && strcmp(cw, "busy") != 0)
		die("BENCH_CLIENT_WAIT must be busy or wait");
	k.event_driven = connected && k.c != C_POLL && cw != NULL && strcmp(cw, "wait") == 0;
	if (k.event_driven) {
		/* a wait that never returns ends the process, not the machine's CI */
		signal(SIGALRM, on_alarm);
		alarm((unsigned)(r.secs_ns / 1000000000ull) + 2u * (unsigned)(timeout_ms() / 1000) + 60u);
	}
	k.peer = new_peer(k.addr, k.c == C_MR || k.c == C_SRQ_RECV ? RPMA_UTIL_IBV_CONTEXT_LOCAL
								   : RPMA_UTIL_IBV_CONTEXT_REMOTE);
	CHECK(rpma_conn_cfg_new(&k.cfg));
	CHECK(rpma_conn_cfg_set_cq_size(k.cfg, 64));
	CHECK(rpma_conn_cfg_set_sq_size(k.cfg, 64));
	CHECK(rpma_conn_cfg_set_rq_size(k.cfg, 32));
	CHECK(rpma_conn_cfg_set_timeout(k.cfg, timeout_ms()));
	void *mrbuf = NULL;
	if (k.c == C_MR || k.c == C_SRQ_RECV)
		mrbuf = alloc_buf(k.size);
	if (k.c == C_SRQ_RECV) {
		struct rpma_srq_cfg *scfg = NULL;
		CHECK(rpma_srq_cfg_new(&scfg));
		CHECK(rpma_srq_cfg_set_rq_size(scfg, SRQ_RECV_SLOTS));
		CHECK(rpma_srq_new(k.peer, scfg, &k.srq));
		CHECK(rpma_srq_cfg_delete(&scfg));
		CHECK(rpma_mr_reg(k.peer, mrbuf, k.size, RPMA_MR_USAGE_RECV, &k.srq_mr));
	}
	if (connected) {
		k.buf = alloc_buf(2 * (size_t)REGION_SIZE);
		CHECK(rpma_mr_reg(k.peer, k.buf, 2 * (size_t)REGION_SIZE,
				  RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
				  RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &k.lmr));
		cli_connect_all(&k);
	}
	if (k.c == C_NEXT_EVENT) {
		int fd;
		CHECK(rpma_conn_get_event_fd(k.conn, &fd));
		set_nonblocking(fd);
	}

	/*
	 * warm-up: BENCH_WARMUP ops (default 100); with BENCH_WARMUP_MS it
	 * stops earlier once that time has passed (then at least QD ops)
	 */
	struct run w;
	memset(&w, 0, sizeof(w));
	w.nops = (uint64_t)env_long("BENCH_WARMUP", WARMUP_OPS);
	w.warmup_ns = (uint64_t)env_long("BENCH_WARMUP_MS", 0) * 1000000ull;
	cli_run(&k, &w, mrbuf);
	if (w.done != w.nops && (w.warmup_ns == 0 || w.done < (uint64_t)k.qd))
		die("warm-up did %" PRIu64 " ops", w.done);
	if (r.secs_ns) {
		/* room for 10 x the warm-up rate (at least 10000 ops) */
		double rate = (double)w.done * 1e9 / (double)(w.t_end - w.t_start + 1);
		double want = 10.0 * rate * (double)r.secs_ns / 1e9;
		if (want < 10000.0)
			want = 10000.0;
		if (want < (double)r.cap)
			r.cap = (uint64_t)want;
	}
	r.lat = calloc(r.cap, sizeof(uint64_t));
	if (r.lat == NULL)
		die("out of memory for %" PRIu64 " latencies", r.cap);
	/* touch every page now, not in the measured loop */
	memset(r.lat, 0, r.cap * sizeof(uint64_t));
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	cli_run(&k, &r, mrbuf);
	getrusage(RUSAGE_SELF, &ru1);
	double sys_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	double cpu_us = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime) + sys_us;

	if (connected) {
		cli_disconnect(&k);
		CHECK(rpma_mr_dereg(&k.lmr));
		free(k.buf);
	}
	if (k.c == C_SRQ_RECV) {
		/* the posted receives go with the SRQ */
		CHECK(rpma_srq_delete(&k.srq));
		CHECK(rpma_mr_dereg(&k.srq_mr));
	}
	free(mrbuf);
	CHECK(rpma_conn_cfg_delete(&k.cfg));
	CHECK(rpma_peer_delete(&k.peer));

	if (r.secs_ns && r.done == r.cap)
		fprintf(stderr, "NOTE the run stopped after %" PRIu64
			" ops (its latency slots); secs is its real length\n", r.done);
	if (r.nops && r.done != r.nops)
		die("did %" PRIu64 " ops instead of %" PRIu64, r.done, r.nops);
	double secs = (double)(r.t_end - r.t_start) / 1e9;
	qsort(r.lat, r.done, sizeof(uint64_t), cmp_u64);
	printf("RESULT case=%s size=%zu qd=%d ops=%" PRIu64 " secs=%.6f ops_s=%.1f"
	       " p50_us=%.2f p99_us=%.2f cpu_us_op=%.3f sys_us_op=%.3f",
	       case_names[k.c], k.size, k.qd, r.done, secs,
	       secs > 0 ? (double)r.done / secs : 0.0,
	       pct_us(r.lat, r.done, 0.50), pct_us(r.lat, r.done, 0.99),
	       r.done ? cpu_us / (double)r.done : 0.0, r.done ? sys_us / (double)r.done : 0.0);
	if (is_scale(k.c))
		printf(" setup_us=%.1f", (double)k.setup_ns / 1e3 / k.qd);
	printf("\n");
	fflush(stdout);
	fprintf(stderr, "STATS empty_polls=%" PRIu64 " polls=%" PRIu64 " waits=%" PRIu64 "\n",
		k.empty_polls, k.polls, k.waits);

	if (k.phase_n)
		fprintf(stderr, "PHASES cycles=%" PRIu64 " req_new_us=%.1f established_us=%.1f"
			" closed_us=%.1f delete_us=%.1f\n", k.phase_n,
			k.phase_ns[0] / 1e3 / k.phase_n, k.phase_ns[1] / 1e3 / k.phase_n,
			k.phase_ns[2] / 1e3 / k.phase_n, k.phase_ns[3] / 1e3 / k.phase_n);
	free(r.lat);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "server") == 0) {
		if (argc != 4)
			usage();
		return run_server(argv[2], argv[3]);
	}
	if (strcmp(argv[1], "quit") == 0) {
		if (argc != 4)
			usage();
		return run_quit(argv[2], argv[3]);
	}
	if (strcmp(argv[1], "client") == 0)
		return run_client(argc, argv);
	usage();
}
