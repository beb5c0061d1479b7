/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_peer_killed.c -- a peer killed with SIGKILL in the middle of a
 * transfer, and what the survivor (the parent) learns:
 * (a) the server process dies while the client keeps writes, reads and
 *     sends in flight; the client watches its connection's event fd and
 *     its CQ's fd (rpma_cq_get_fd(3), rpma_cq_wait(3)) with poll();
 * (b) the client process dies while it writes into the server and sends
 *     to it, and the server, with receives posted, watches its event fd
 *     and its shared completion channel (rpma_conn_get_compl_fd(3),
 *     rpma_conn_wait(3)) with poll().
 * Either way the survivor must learn of the death within five seconds --
 * by an event (RPMA_CONN_CLOSED or LOST), a completion with an error
 * status, or an error returned by a call -- and can then disconnect
 * (whatever that returns after a death) and delete everything (each delete
 * returns 0) without hanging. How and how fast it learned goes to stderr:
 * "FIGURE death-detect-ms <case> <ms>".
 *
 * Both children are forked before the parent opens the device: a child
 * must own every RDMA file it uses, so that its death closes them.
 */
#include "dying.h"

#define BUF (64 * 1024)	/* every region */
#define SLOT 4096	/* one write or read */
#define NSLOT 8		/* slots at [0, 32 KiB) (source / remote) */
#define READ_OFF (32 * 1024) /* the client's reads land here */
#define MSG 64		/* one send */
#define RECV_OFF (32 * 1024) /* the server's receives */
#define NRECV 32
/*
 * the sends a client makes in all: fewer than the server's receives. The
 * server posts a receive again once it completed, but not fast enough for
 * a client that runs ahead, and on iWARP, where a send completes once it
 * is sent (not once the peer took it), a send that finds no receive
 * breaks the connection: there is no receiver-not-ready retry
 */
#define SENDS (NRECV / 2)
#define WINDOW 16	/* operations a client keeps in flight */
#define KILL_AFTER_MS 300 /* of transfer, before the kill */
#define WAIT_MS 30000	/* for a step of the setup */
#define AFTER_KILL_MS 10000 /* how long the survivor watches */
#define CHILD_LIFE_MS 120000 /* a child that is never killed gives up */

#define ALWAYS RPMA_F_COMPLETION_ALWAYS

/* how the survivor learned of the death */
enum how { NOT_YET, BY_EVENT, BY_COMPLETION, BY_RETURN };

struct watch {
	enum how how;
	int what;	/* the event, the status or the return value */
	long long t;	/* when (d_now_ms()) */
};

static const char *
how_str(enum how h)
{
	switch (h) {
	case BY_EVENT: return "an event";
	case BY_COMPLETION: return "a completion";
	case BY_RETURN: return "an error return";
	default: return "nothing";
	}
}

static void
learn(struct watch *w, enum how how, int what)
{
	if (w->how != NOT_YET)
		return;
	w->how = how;
	w->what = what;
	w->t = d_now_ms();
}

/*
 * the checks of a case: the survivor was transferring when its peer was
 * killed (done by then: done_at_kill, done in all), the kill happened,
 * nothing was learned before it, and the death was learned within
 * D_DETECT_MS; the figure and the details go to stderr
 */
static void
verdict(const struct watch *wp, long long t_kill, long long done_at_kill, long long done,
		const char *figure, char label, const char *what)
{
	struct watch w = *wp;
	int transferring = done_at_kill > 0;
	int killed = t_kill >= 0;
	int nothing_before = w.how == NOT_YET || w.t >= t_kill;
	int detected = killed && w.how != NOT_YET;

	EXPECT_TRUE(transferring);
	EXPECT_TRUE(killed);
	EXPECT_TRUE(nothing_before);
	EXPECT_TRUE(detected);
	if (detected) {
		long long ms = w.t - t_kill;

		fprintf(stderr, "FIGURE death-detect-ms %s %lld\n", figure, ms);
		fprintf(stderr, "case (%c): learned by %s (%d) after %lld ms; %lld %s "
				"before the kill, %lld after\n", label, how_str(w.how),
				w.what, ms, done_at_kill, what, done - done_at_kill);
		EXPECT_TRUE(ms < D_DETECT_MS);
	}
}

/* a connection configuration; NULL on failure */
static struct rpma_conn_cfg *
qcfg(uint32_t sq, uint32_t rq, uint32_t cq, uint32_t rcq, bool shared)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (rpma_conn_cfg_set_sq_size(cfg, sq) || rpma_conn_cfg_set_rq_size(cfg, rq) ||
			rpma_conn_cfg_set_cq_size(cfg, cq) ||
			rpma_conn_cfg_set_rcq_size(cfg, rcq) ||
			rpma_conn_cfg_set_compl_channel(cfg, shared))
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

/* a zeroed region of BUF bytes registered with usage; NULL on failure */
static struct rpma_mr_local *
region(struct rpma_peer *peer, int usage, char **buf)
{
	struct rpma_mr_local *mr = NULL;
	void *p = NULL;

	if (posix_memalign(&p, 4096, BUF) != 0)
		return NULL;
	memset(p, 0, BUF);
	if (rpma_mr_reg(peer, p, BUF, usage, &mr) != 0) {
		free(p);
		return NULL;
	}
	*buf = p;
	return mr;
}

/* the remote region whose descriptor came as conn's private data */
static struct rpma_mr_remote *
remote_of(struct rpma_conn *conn)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_mr_remote *rmr = NULL;

	if (rpma_conn_get_private_data(conn, &pd) != 0 || pd.ptr == NULL ||
			rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &rmr) != 0)
		return NULL;
	return rmr;
}

/* 1 when fd becomes readable within ms */
static int
readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r == 1;
}

/* ---- case (a): the server, killed while the client transfers ---- */

/*
 * The server: accepts one connection with its region's descriptor as
 * private data, keeps NRECV receives posted (reposting each that
 * completes) and otherwise waits, until it is killed. Any other end is a
 * failure: its exit status says which step.
 */
static int
server_a(int in, int out, void *arg)
{
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr;
	struct rpma_cq *cq = NULL;
	char desc[64], *buf = NULL;
	size_t dsize = 0;
	struct rpma_conn_private_data pd = {desc, 0};
	struct pollfd p[2];
	long long end = d_now_ms() + CHILD_LIFE_MS;

	(void) in;
	(void) arg;
	peer = t_peer();
	cfg = qcfg(16, NRECV, 2 * NRECV, 0, false);
	mr = region(peer, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_RECV,
			&buf);
	if (cfg == NULL || mr == NULL)
		return 10;
	if (rpma_ep_listen(peer, t_ip(), d_port(0), &ep) != 0)
		return 11;
	d_send(out, 'L');
	if (rpma_ep_get_fd(ep, &p[0].fd) != 0 || !readable(p[0].fd, WAIT_MS) ||
			rpma_ep_next_conn_req(ep, cfg, &req) != 0)
		return 12;
	for (int k = 0; k < NRECV; k++)
		if (rpma_conn_req_recv(req, mr, RECV_OFF + (size_t)k * MSG, MSG, D_CTX(k + 1)))
			return 13;
	if (rpma_mr_get_descriptor_size(mr, &dsize) != 0 || dsize > sizeof(desc) ||
			rpma_mr_get_descriptor(mr, desc) != 0)
		return 14;
	pd.len = (uint8_t)dsize;
	if (rpma_conn_req_connect(&req, &pd, &conn) != 0 ||
			!c_event_is(conn, RPMA_CONN_ESTABLISHED))
		return 15;
	if (rpma_conn_get_cq(conn, &cq) != 0 || rpma_cq_get_fd(cq, &p[0].fd) != 0 ||
			rpma_conn_get_event_fd(conn, &p[1].fd) != 0)
		return 16;
	p[0].events = p[1].events = POLLIN;
	while (d_now_ms() < end) {
		struct ibv_wc wc[16];
		int n;

		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, 200) < 0 && errno != EINTR)
			return 17;
		if (p[1].revents) {
			fprintf(stderr, "server (a): an event before the kill\n");
			return 18;
		}
		if (p[0].revents && rpma_cq_wait(cq) != 0)
			continue;
		n = d_drain(cq, wc, 16);
		if (n < 0)
			return 19;
		for (int i = 0; i < n; i++) {
			uint64_t k = wc[i].wr_id - 1;

			if (wc[i].status != IBV_WC_SUCCESS || k >= NRECV)
				return 20;
			if (rpma_recv(conn, mr, RECV_OFF + k * MSG, MSG, D_CTX(k + 1)) != 0)
				return 21;
		}
	}
	return 22; /* never killed */
}

/* operation i of the client of case (a): a write, a read, a send */
static int
post_a(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *rmr,
		long long i)
{
	size_t slot = (size_t)(i % NSLOT) * SLOT;

	switch (i % 3) {
	case 0:
		return rpma_write(conn, rmr, slot, mr, slot, SLOT, ALWAYS, D_CTX(i + 1));
	case 1:
		return rpma_read(conn, mr, READ_OFF + slot, rmr, slot, SLOT, ALWAYS,
				D_CTX(i + 1));
	default:
		/* a send, the first SENDS times */
		if (i / 3 < SENDS)
			return rpma_send(conn, mr, slot, MSG, ALWAYS, D_CTX(i + 1));
		return rpma_write(conn, rmr, slot, mr, slot, SLOT, ALWAYS, D_CTX(i + 1));
	}
}

static void
case_server_killed(struct d_child *srv)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rmr;
	struct rpma_cq *cq = NULL;
	struct pollfd p[2];
	struct watch w = {NOT_YET, 0, 0};
	char *buf = NULL;
	long long posted = 0, ok = 0, ok_at_kill = -1, t_up, t_kill = -1;
	int inflight = 0, ret;

	t_note("(a) the server is killed while the client transfers");
	if (d_recv(srv->from_child, WAIT_MS) != 'L') {
		fprintf(stderr, "the server of case (a) did not listen\n");
		exit(2);
	}
	peer = t_peer();
	cfg = qcfg(2 * WINDOW, 4, 2 * WINDOW, 0, false);
	mr = region(peer, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND,
			&buf);
	if (cfg == NULL || mr == NULL)
		exit(2);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), d_port(0), cfg, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, NULL, &conn), 0);
	if (conn == NULL)
		exit(2);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	rmr = remote_of(conn);
	EXPECT_TRUE(rmr != NULL);
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
	EXPECT_INT(rpma_cq_get_fd(cq, &p[0].fd), 0);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &p[1].fd), 0);
	if (rmr == NULL || cq == NULL)
		exit(2);
	p[0].events = p[1].events = POLLIN;

	t_up = d_now_ms();
	d_watchdog(60, "case (a): the transfer");
	for (;;) {
		long long now = d_now_ms();
		struct ibv_wc wc[2 * WINDOW];
		int n;

		if (t_kill < 0 && ok > 0 && now - t_up >= KILL_AFTER_MS) {
			ok_at_kill = ok;
			kill(srv->pid, SIGKILL);
			t_kill = d_now_ms();
		}
		if ((t_kill < 0 && now - t_up > WAIT_MS) ||
				(t_kill >= 0 && now - t_kill > AFTER_KILL_MS))
			break;
		while (inflight < WINDOW) {
			ret = post_a(conn, mr, rmr, posted);
			if (ret != 0) {
				learn(&w, BY_RETURN, ret);
				break;
			}
			posted++;
			inflight++;
		}
		if (w.how != NOT_YET)
			break;
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, 50) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

			ret = rpma_conn_next_event(conn, &ev);
			learn(&w, ret ? BY_RETURN : BY_EVENT, ret ? ret : (int)ev);
		}
		if (p[0].revents && (ret = rpma_cq_wait(cq)) != 0)
			learn(&w, BY_RETURN, ret);
		n = d_drain(cq, wc, 2 * WINDOW);
		if (n < 0)
			learn(&w, BY_RETURN, n);
		for (int i = 0; i < n; i++) {
			inflight--;
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else
				learn(&w, BY_COMPLETION, wc[i].status);
		}
		if (w.how != NOT_YET)
			break;
	}
	d_watchdog(0, "");

	verdict(&w, t_kill, ok_at_kill, ok, "server-killed", 'a', "operations completed");

	t_note("the client disconnects and deletes everything");
	d_watchdog(30, "case (a): the client's teardown");
	ret = rpma_conn_disconnect(conn);
	fprintf(stderr, "case (a): rpma_conn_disconnect after the death: %d\n", ret);
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	EXPECT_INT(rpma_mr_remote_delete(&rmr), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	free(buf);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	d_watchdog(0, "");
	EXPECT_INT(d_reap(srv, 10000), 128 + SIGKILL);
}

/* ---- case (b): the client, killed while the server receives ---- */

/*
 * The client: when the parent says 'G', connects to it, then keeps WINDOW
 * writes into the server's region and (the first SENDS) sends to it in
 * flight; after its
 * first completions it says 'T' (transferring) and goes on until it is
 * killed. Any other end is a failure: its exit status says which step.
 */
static int
client_b(int in, int out, void *arg)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rmr;
	struct rpma_cq *cq = NULL;
	char *buf = NULL;
	long long end = d_now_ms() + CHILD_LIFE_MS, posted = 0, ok = 0;
	int inflight = 0, said = 0;

	(void) arg;
	if (d_recv(in, CHILD_LIFE_MS) != 'G')
		return 30;
	peer = t_peer();
	cfg = qcfg(2 * WINDOW, 4, 2 * WINDOW, 0, false);
	mr = region(peer, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND, &buf);
	if (cfg == NULL || mr == NULL)
		return 31;
	if (rpma_conn_req_new(peer, t_ip(), d_port(1), cfg, &req) != 0 ||
			rpma_conn_req_connect(&req, NULL, &conn) != 0 ||
			!c_event_is(conn, RPMA_CONN_ESTABLISHED))
		return 32;
	rmr = remote_of(conn);
	if (rmr == NULL || rpma_conn_get_cq(conn, &cq) != 0)
		return 33;
	while (d_now_ms() < end) {
		struct ibv_wc wc[2 * WINDOW];
		int n;

		while (inflight < WINDOW) {
			size_t slot = (size_t)(posted % NSLOT) * SLOT;
			/* every other operation is a send, the first SENDS */
			int r = posted % 2 && posted / 2 < SENDS ?
				rpma_send(conn, mr, slot, MSG, ALWAYS, D_CTX(posted + 1)) :
				rpma_write(conn, rmr, slot, mr, slot, SLOT, ALWAYS,
						D_CTX(posted + 1));

			if (r != 0)
				return 34;
			posted++;
			inflight++;
		}
		n = d_drain(cq, wc, 2 * WINDOW);
		if (n < 0)
			return 35;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				return 36;
			inflight--;
			ok++;
		}
		if (!said && ok >= 2 * WINDOW) {
			d_send(out, 'T');
			said = 1;
		}
		if (c_event_pending(conn, 0)) {
			fprintf(stderr, "client (b): an event before the kill\n");
			return 37;
		}
		if (n == 0)
			t_sleep_ms(1);
	}
	return 38; /* never killed */
}

static void
case_client_killed(struct d_child *cli)
{
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *mr;
	struct rpma_cq *rcq = NULL;
	char desc[64], *buf = NULL;
	size_t dsize = 0;
	struct rpma_conn_private_data pd = {desc, 0};
	struct pollfd p[3];
	struct watch w = {NOT_YET, 0, 0};
	long long received = 0, received_at_kill = -1, t_go, t_transfer = -1, t_kill = -1;
	int fd = -1, ret, flushed = 0, recvs_failed = 0;

	t_note("(b) the client is killed while the server receives");
	peer = t_peer();
	cfg = qcfg(4, NRECV, 4, 2 * NRECV, true);
	mr = region(peer, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_RECV, &buf);
	if (cfg == NULL || mr == NULL)
		exit(2);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), d_port(1), &ep), 0);
	if (ep == NULL)
		exit(2);
	d_send(cli->to_child, 'G');
	EXPECT_INT(rpma_ep_get_fd(ep, &fd), 0);
	EXPECT_TRUE(readable(fd, WAIT_MS) /* a connection request */);
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), 0);
	if (req == NULL)
		exit(2);
	for (int k = 0; k < NRECV; k++)
		recvs_failed += rpma_conn_req_recv(req, mr, RECV_OFF + (size_t)k * MSG, MSG,
				D_CTX(k + 1)) != 0;
	EXPECT_INT(recvs_failed, 0);
	EXPECT_INT(rpma_mr_get_descriptor_size(mr, &dsize), 0);
	if (dsize > sizeof(desc))
		exit(2);
	EXPECT_INT(rpma_mr_get_descriptor(mr, desc), 0);
	pd.len = (uint8_t)dsize;
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &conn), 0);
	if (conn == NULL)
		exit(2);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &p[0].fd), 0);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &p[1].fd), 0);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	if (rcq == NULL)
		exit(2);
	p[2].fd = cli->from_child;
	p[0].events = p[1].events = p[2].events = POLLIN;

	t_go = d_now_ms();
	d_watchdog(60, "case (b): the transfer");
	for (;;) {
		long long now = d_now_ms();

		if (t_kill < 0 && t_transfer >= 0 && now - t_transfer >= KILL_AFTER_MS) {
			received_at_kill = received;
			kill(cli->pid, SIGKILL);
			t_kill = d_now_ms();
			p[2].fd = -1; /* its end of the pipe is gone too */
		}
		if ((t_kill < 0 && now - t_go > WAIT_MS) ||
				(t_kill >= 0 && now - t_kill > AFTER_KILL_MS))
			break;
		p[0].revents = p[1].revents = p[2].revents = 0;
		if (poll(p, 3, 50) < 0 && errno != EINTR)
			break;
		if (p[2].fd >= 0 && p[2].revents) {
			if (d_recv(p[2].fd, 0) == 'T') {
				t_transfer = d_now_ms();
			} else {
				fprintf(stderr, "case (b): the client ended by itself\n");
				p[2].fd = -1;
				break;
			}
		}
		if (p[1].revents) {
			enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

			ret = rpma_conn_next_event(conn, &ev);
			learn(&w, ret ? BY_RETURN : BY_EVENT, ret ? ret : (int)ev);
		}
		if (p[0].revents) {
			struct rpma_cq *cq = NULL;
			struct ibv_wc wc[2 * NRECV];
			bool is_rcq = false;
			int n;

			ret = rpma_conn_wait(conn, 0, &cq, &is_rcq);
			if (ret != 0) {
				learn(&w, BY_RETURN, ret);
				break;
			}
			n = d_drain(cq, wc, 2 * NRECV);
			if (n < 0)
				learn(&w, BY_RETURN, n);
			for (int i = 0; i < n; i++) {
				uint64_t k = wc[i].wr_id - 1;

				if (wc[i].status != IBV_WC_SUCCESS) {
					learn(&w, BY_COMPLETION, wc[i].status);
					continue;
				}
				if (wc[i].opcode != IBV_WC_RECV || k >= NRECV)
					continue;
				received++;
				ret = rpma_recv(conn, mr, RECV_OFF + k * MSG, MSG, D_CTX(k + 1));
				if (ret != 0)
					learn(&w, BY_RETURN, ret);
			}
		}
		if (w.how != NOT_YET)
			break;
	}
	d_watchdog(0, "");

	verdict(&w, t_kill, received_at_kill, received, "client-killed", 'b',
			"messages received");

	t_note("the server disconnects and deletes everything");
	d_watchdog(30, "case (b): the server's teardown");
	ret = rpma_conn_disconnect(conn);
	fprintf(stderr, "case (b): rpma_conn_disconnect after the death: %d\n", ret);
	{
		/* not an observation: what became of the receives */
		struct ibv_wc wc[2 * NRECV];
		int n = d_collect(rcq, wc, NRECV, 2 * NRECV, 500);

		for (int i = 0; i < n; i++)
			flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR;
		fprintf(stderr, "case (b): after the disconnect, %d completions on the "
				"receive CQ, %d flushed\n", n, flushed);
	}
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(conn == NULL);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	free(buf);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	d_watchdog(0, "");
	EXPECT_INT(d_reap(cli, 10000), 128 + SIGKILL);
}

int
main(void)
{
	struct d_child srv, cli;

	t_begin();
	d_fork(&srv, server_a, NULL);
	d_fork(&cli, client_b, NULL);
	case_server_killed(&srv);
	case_client_killed(&cli);
	return t_end();
}
