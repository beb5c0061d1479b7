/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_shared_channel.c -- both ends of a connection with a shared
 * completion channel and a receive CQ, driven the way an event loop would:
 * epoll on rpma_conn_get_compl_fd(3) (switched to O_NONBLOCK), and on
 * every wake-up rpma_conn_wait(3) to learn which CQ it was, then
 * rpma_cq_get_wc(3) until that CQ is empty, until every expected
 * completion has been seen. Traffic goes both ways at once: each side
 * sends the other N_MSG messages into receives posted beforehand, and the
 * client also writes N_WRITE times into the server's region. Counted per
 * queue and per kind: the main CQ gets exactly the sends (and writes), the
 * receive CQ exactly the receives, each op_context exactly once, every one
 * successful; every wake-up names one of the connection's two CQs, with
 * is_rcq telling which; both CQs are empty at the end, and every message
 * arrived intact.
 *
 * Calls rpma_send(), rpma_recv(), rpma_write(), rpma_conn_wait(),
 * rpma_cq_get_wc() on both sides.
 */
#include <sys/epoll.h>

#include "cq.h"

#define N_MSG 4
#define N_WRITE 3
/* the op_context of message/write i */
#define CTX_RECV(i) (0x100 + (i))
#define CTX_SEND(i) (0x200 + (i))
#define CTX_WRITE(i) (0x300 + (i))
/* where message i is received, in either side's buffer */
#define RECV_AT(i) (CQ_L_RECV + 64 * (i))

/* what one side has seen */
struct tally {
	int on_cq, on_rcq;	/* completions taken from each queue */
	int sends, recvs, writes;	/* successful ones, each on its own queue */
	int failed;		/* status != IBV_WC_SUCCESS */
	int strange;		/* unknown op_context, seen twice, wrong queue or opcode */
	int bad_wakeups;	/* rpma_conn_wait() failed or named another CQ */
	int is_rcq_wrong;	/* is_rcq disagreed with the CQ */
	int recv_bytes_ok;	/* receives of CQ_MSG_LEN bytes */
	int empty_at_end;	/* both queues RPMA_E_NO_COMPLETION afterwards */
};

static void
classify(const struct ibv_wc *wc, int on_rcq, unsigned char *seen, struct tally *t)
{
	uint64_t id = wc->wr_id;
	int kind = (int)(id >> 8), i = (int)(id & 0xFF), ok;

	if (wc->status != IBV_WC_SUCCESS) {
		t->failed++;
		return;
	}
	switch (kind) {
	case 1:
		ok = i < N_MSG && on_rcq && wc->opcode == IBV_WC_RECV;
		if (ok && wc->byte_len == CQ_MSG_LEN)
			t->recv_bytes_ok++;
		break;
	case 2:
		ok = i < N_MSG && !on_rcq && wc->opcode == IBV_WC_SEND;
		break;
	case 3:
		ok = i < N_WRITE && !on_rcq && wc->opcode == IBV_WC_RDMA_WRITE;
		break;
	default:
		ok = 0;
	}
	if (!ok || seen[id & 0x3FF]) {
		t->strange++;
		return;
	}
	seen[id & 0x3FF] = 1;
	t->recvs += kind == 1;
	t->sends += kind == 2;
	t->writes += kind == 3;
}

/*
 * The event loop: until want_cq completions came from the main CQ and
 * want_rcq from the receive CQ, or C_WAIT_MS passed. 0 when the loop could
 * be set up.
 */
static int
drive(struct rpma_conn *conn, int want_cq, int want_rcq, struct tally *t)
{
	struct rpma_cq *cq = NULL, *rcq = NULL;
	struct epoll_event e;
	unsigned char seen[0x400];
	long long end = t_now_ms() + C_WAIT_MS;
	int fd = -1, epfd;

	memset(t, 0, sizeof(*t));
	memset(seen, 0, sizeof(seen));
	if (rpma_conn_get_cq(conn, &cq) != 0 || rpma_conn_get_rcq(conn, &rcq) != 0 ||
			rcq == NULL || rpma_conn_get_compl_fd(conn, &fd) != 0 ||
			cq_set_nonblock(fd) != 0)
		return -1;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -1;
	memset(&e, 0, sizeof(e));
	e.events = EPOLLIN;
	e.data.fd = fd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) != 0) {
		close(epfd);
		return -1;
	}

	while ((t->on_cq < want_cq || t->on_rcq < want_rcq) && t_now_ms() < end) {
		struct rpma_cq *woke = NULL;
		struct ibv_wc wc[3];
		bool is_rcq = false;
		int got = 0, ret;

		if (epoll_wait(epfd, &e, 1, 100) != 1)
			continue;
		ret = rpma_conn_wait(conn, 0, &woke, &is_rcq);
		if (ret == RPMA_E_NO_COMPLETION)
			continue; /* readiness without an event: tolerated, not counted */
		if (ret != 0 || (woke != cq && woke != rcq)) {
			t->bad_wakeups++;
			continue;
		}
		if (is_rcq != (woke == rcq))
			t->is_rcq_wrong++;
		/* everything the CQ holds; 3 at a time, so a batch can be short */
		while (rpma_cq_get_wc(woke, 3, wc, &got) == 0) {
			for (int k = 0; k < got; k++) {
				classify(&wc[k], woke == rcq, seen, t);
				if (woke == rcq)
					t->on_rcq++;
				else
					t->on_cq++;
			}
		}
	}
	close(epfd);
	{
		struct ibv_wc rest[3];
		int n = 0;

		t->empty_at_end =
			rpma_cq_get_wc(cq, 3, rest, &n) == RPMA_E_NO_COMPLETION &&
			rpma_cq_get_wc(rcq, 3, rest, &n) == RPMA_E_NO_COMPLETION;
	}
	return 0;
}

/* posts the N_MSG receives; 1 when all were accepted */
static int
post_recvs(struct rpma_conn *conn, struct rpma_mr_local *mr)
{
	int ok = 1;

	for (int i = 0; i < N_MSG; i++)
		ok = rpma_recv(conn, mr, RECV_AT(i), 64, CQ_CTX(CTX_RECV(i))) == 0 && ok;
	return ok;
}

/* posts the N_MSG sends (from CQ_MSG_LEN bytes at src); 1 when all were accepted */
static int
post_sends(struct rpma_conn *conn, struct rpma_mr_local *mr, size_t src)
{
	int ok = 1;

	for (int i = 0; i < N_MSG; i++)
		ok = rpma_send(conn, mr, src, CQ_MSG_LEN, RPMA_F_COMPLETION_ALWAYS,
				CQ_CTX(CTX_SEND(i))) == 0 && ok;
	return ok;
}

/* 1 when every message was received intact at buf, pattern seed */
static int
all_arrived(const char *buf, int seed)
{
	for (int i = 0; i < N_MSG; i++)
		if (!cq_holds(buf + RECV_AT(i), 0, CQ_MSG_LEN, seed))
			return 0;
	return 1;
}

/* a configuration with a shared channel and a receive CQ of 8 */
static struct rpma_conn_cfg *
shared_cfg(void)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (rpma_conn_cfg_set_compl_channel(cfg, true) != 0 ||
			rpma_conn_cfg_set_rcq_size(cfg, 8) != 0)
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_cfg *cfg = shared_cfg();
	struct rpma_conn_private_data pd;
	struct rpma_conn *conn;
	struct tally t;

	S_CHECK(cfg != NULL);
	cq_srv_setup(peer);
	memset((char *)cq_srv.msg + CQ_L_RECV, 0, 64 * N_MSG);
	pd = cq_srv_pdata();
	conn = c_accept(ep, cfg, &pd);
	S_CHECK(post_recvs(conn, cq_srv.msg_mr));
	S_CHECK(t_sync_wait() == 0); /* the client's receives are posted */
	t_sync_send();
	S_CHECK(post_sends(conn, cq_srv.msg_mr, 0));
	S_CHECK(drive(conn, N_MSG, N_MSG, &t) == 0);
	c_put(t.on_cq);
	c_put(t.on_rcq);
	c_put(t.sends);
	c_put(t.recvs);
	c_put(t.failed + t.strange + t.bad_wakeups + t.is_rcq_wrong);
	c_put(t.recv_bytes_ok);
	c_put(t.empty_at_end);
	c_put(all_arrived(cq_srv.msg, 'M'));
	S_CHECK(c_closed(&conn));
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
	cq_srv_teardown();
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *conn;
	struct rpma_mr_local *mr = NULL;
	struct rpma_mr_remote *rw;
	struct tally t;
	void *buf;
	char *b;

	t_begin();
	peer = c_start_serving(serve);
	mr = cq_local(peer, &buf);
	b = buf;
	cfg = shared_cfg();
	EXPECT_TRUE(cfg != NULL);

	conn = c_connect(peer, cfg, NULL);
	EXPECT_TRUE(conn != NULL);
	rw = cq_remote(conn, CQ_RW);
	EXPECT_TRUE(rw != NULL);

	t_note("both sides post %d receives, then send %d messages; the client writes %d times",
			N_MSG, N_MSG, N_WRITE);
	EXPECT_TRUE(post_recvs(conn, mr));
	t_sync_send();
	EXPECT_INT(t_sync_wait() /* the server's receives are posted */, 0);
	EXPECT_TRUE(post_sends(conn, mr, CQ_L_SEND));
	for (int i = 0; i < N_WRITE; i++)
		EXPECT_INT(rpma_write(conn, rw, 64 * (size_t)i, mr, CQ_L_WRITE, 64,
				RPMA_F_COMPLETION_ALWAYS, CQ_CTX(CTX_WRITE(i))), 0);

	t_note("the client's event loop");
	EXPECT_INT(drive(conn, N_MSG + N_WRITE, N_MSG, &t), 0);
	EXPECT_INT(t.on_cq, N_MSG + N_WRITE);
	EXPECT_INT(t.on_rcq, N_MSG);
	EXPECT_INT(t.sends, N_MSG);
	EXPECT_INT(t.writes, N_WRITE);
	EXPECT_INT(t.recvs, N_MSG);
	EXPECT_INT(t.failed, 0);
	EXPECT_INT(t.strange, 0);
	EXPECT_INT(t.bad_wakeups, 0);
	EXPECT_INT(t.is_rcq_wrong, 0);
	EXPECT_INT(t.recv_bytes_ok, N_MSG);
	EXPECT_INT(t.empty_at_end, 1);
	EXPECT_TRUE(all_arrived(b, CQ_SEED_SRV));

	t_note("the server's event loop");
	EXPECT_INT(SERVER(completions on the main CQ), N_MSG);
	EXPECT_INT(SERVER(completions on the receive CQ), N_MSG);
	EXPECT_INT(SERVER(sends), N_MSG);
	EXPECT_INT(SERVER(receives), N_MSG);
	EXPECT_INT(SERVER(anything wrong), 0);
	EXPECT_INT(SERVER(receives of the full length), N_MSG);
	EXPECT_INT(SERVER(both queues empty at the end), 1);
	EXPECT_INT(SERVER(every message arrived), 1);

	EXPECT_INT(rpma_mr_remote_delete(&rw), 0);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	free(buf);
	return c_end(peer);
}
