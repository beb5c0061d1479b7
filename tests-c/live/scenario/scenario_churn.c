/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_churn.c -- many connections, one after the other, between one
 * pair of processes: the client (the parent) requests a connection
 * (rpma_conn_req_new(3), rpma_conn_req_connect(3)), waits for
 * RPMA_CONN_ESTABLISHED, disconnects, waits for RPMA_CONN_CLOSED and
 * deletes it; the server (a forked child) takes each request, accepts it,
 * waits for ESTABLISHED and CLOSED, disconnects and deletes (the client
 * disconnects once the server saw ESTABLISHED: the gate of conn.h). After
 * a warm-up of WARMUP cycles, each side notes what it holds -- open file
 * descriptors, heap in use (mallinfo2(3): uordblks + hblkhd) and VmRSS --
 * and again after RPMA_CHURN_CYCLES more cycles (default 2000): no file
 * descriptor and less than 1 MiB of heap and of RSS may have been gained.
 * The figures go to stderr ("FIGURE churn-..."); the server checks its own
 * and fails its exit status otherwise.
 *
 * The test suite runs both libraries in one guest test, so it asks for
 * fewer cycles (without the variable it runs the full count; RELIABILITY.md
 * has the command): RPMA_CHURN_CYCLES=500, the env of its entry in
 * tests.toml.
 */
#include "dying.h"

#define WARMUP 20
#define DEFAULT_CYCLES 2000
#define MIB (1024LL * 1024)

struct holding {
	int fds;
	long long heap, rss_kib;
};

static struct holding
holding(void)
{
	struct holding h;

	h.fds = d_fds();
	h.heap = d_heap();
	h.rss_kib = d_rss_kib();
	return h;
}

static int cycles = DEFAULT_CYCLES;

static void
figures(const char *who, const struct holding *b, const struct holding *a)
{
	fprintf(stderr, "FIGURE churn-%sfd-delta %d\n", who, a->fds - b->fds);
	fprintf(stderr, "FIGURE churn-%sheap-delta-bytes %lld\n", who, a->heap - b->heap);
	fprintf(stderr, "FIGURE churn-%srss-delta-kib %lld\n", who, a->rss_kib - b->rss_kib);
	fprintf(stderr, "churn: %s: %d fds, %lld bytes of heap, %lld KiB RSS after the "
			"warm-up\n", *who ? "server" : "client", b->fds, b->heap, b->rss_kib);
}

static int
server(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = c_listen(peer);
	struct holding before = {0, 0, 0}, after;
	int done = 0, fd = -1;

	(void) arg;
	if (ep == NULL || !S_CHECK(rpma_ep_get_fd(ep, &fd) == 0))
		return 1;
	for (int i = 0; i < WARMUP + cycles; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		struct rpma_conn *conn;
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		int r;

		if (i == WARMUP)
			before = holding();
		if (!S_CHECK(poll(&p, 1, C_WAIT_MS) == 1 /* a request came */))
			break;
		conn = c_take(ep, NULL, NULL);
		if (conn == NULL)
			break;
		r = c_next_event(conn, C_WAIT_MS, &ev);
		if (!S_CHECK(r == 0 && ev == RPMA_CONN_ESTABLISHED) ||
				!S_CHECK(c_closed(&conn))) {
			fprintf(stderr, "server: cycle %d: ret %d event %d\n", i, r, (int)ev);
			(void) rpma_conn_delete(&conn);
			break;
		}
		done++;
	}
	after = holding();
	figures("server-", &before, &after);
	S_CHECK(done == WARMUP + cycles);
	S_CHECK(after.fds == before.fds);
	S_CHECK(after.heap - before.heap < MIB);
	S_CHECK(after.rss_kib - before.rss_kib < 1024);
	S_CHECK(c_server_end(&ep, &peer));
	return c_server_status();
}

int
main(void)
{
	struct rpma_peer *peer;
	struct holding before = {0, 0, 0}, mid = {0, 0, 0}, after;
	const char *env = getenv("RPMA_CHURN_CYCLES");
	long long t_start = 0, ms;
	int done = 0;

	t_begin();
	if (env != NULL && *env != '\0')
		cycles = atoi(env);
	if (cycles < 1) {
		fprintf(stderr, "RPMA_CHURN_CYCLES must be a positive number\n");
		return 2;
	}
	peer = c_start(server);

	t_note("connect, disconnect and delete, again and again");
	for (int i = 0; i < WARMUP + cycles; i++) {
		struct rpma_conn *conn;

		if (i == WARMUP) {
			before = holding();
			t_start = d_now_ms();
		}
		if (i == WARMUP + cycles / 2)
			mid = holding();
		conn = c_connect(peer, NULL, NULL);
		if (conn == NULL) {
			fprintf(stderr, "cycle %d: no connection\n", i);
			break;
		}
		if (!c_close(&conn)) {
			fprintf(stderr, "cycle %d: the connection did not close\n", i);
			break;
		}
		done++;
	}
	after = holding();
	ms = d_now_ms() - t_start;
	EXPECT_TRUE(done == WARMUP + cycles /* every cycle went through */);

	fprintf(stderr, "FIGURE churn-cycles %d\n", cycles);
	fprintf(stderr, "FIGURE churn-seconds %.1f\n", (double)ms / 1000.0);
	fprintf(stderr, "FIGURE churn-ms-per-cycle %.2f\n", (double)ms / cycles);
	figures("", &before, &after);
	/* not figures: whether what was gained grew with the cycles */
	fprintf(stderr, "churn: client: half-way: %+d fds, %+lld bytes of heap, %+lld KiB RSS\n",
			mid.fds - before.fds, mid.heap - before.heap, mid.rss_kib - before.rss_kib);
	EXPECT_INT(after.fds - before.fds /* file descriptors gained */, 0);
	EXPECT_TRUE(after.heap - before.heap < MIB /* heap gained */);
	EXPECT_TRUE(after.rss_kib - before.rss_kib < 1024 /* RSS gained, KiB */);
	return c_end(peer);
}
