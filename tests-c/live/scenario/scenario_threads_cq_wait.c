/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_threads_cq_wait.c -- concurrent waits on one CQ.
 * rpma_cq_wait(3) and rpma_cq_get_wc(3) are thread-safe, and our library
 * counts the channel events waits take and acknowledges them in batches
 * (rpma_cq_wait(3), NOTES): the count must stay right when several threads
 * take events of one CQ at once, or the deletion of the connection hangs
 * in ibv_destroy_cq().
 *
 * The main thread keeps up to 8 signalled rpma_write(3)s in flight on one
 * connection (10 x RPMA_THREADS_ROUNDS in all, default 2000) while four
 * threads wait on the CQ's channel, made non-blocking: each polls the fd,
 * calls rpma_cq_wait(3) when it is readable (0, or RPMA_E_NO_COMPLETION
 * when another thread took the event first), then takes completions with
 * rpma_cq_get_wc(3) until there are none. Checked: every write completed
 * exactly once and successfully, every wait returned 0 or
 * RPMA_E_NO_COMPLETION, waits took events, and deleting the connection
 * afterwards (with events still unacknowledged) returns, within a bound.
 *
 * It also runs under helgrind (HELGRIND in live/scenario/CMakeLists.txt):
 * the test's own shared data is under a mutex, so a helgrind report is about the library or below it. rpma_cq_get_wc and
 * rpma_send, rpma_send_with_imm, rpma_recv (the command server of cq.h)
 * are named here so CMake sees them.
 */
#include <poll.h>
#include <pthread.h>

#include "cq.h"

#define NTHREADS 4
#define QD 8
#define BATCH 8

struct shared {
	pthread_mutex_t lock;
	struct rpma_cq *cq;
	int fd;
	uint64_t total;
	/* under lock */
	uint64_t completed;
	int stop;
	unsigned char *seen;	/* one byte per write: completions of it */
	unsigned long waits_ok, waits_empty, bad;
};

static void *
waiter(void *arg)
{
	struct shared *sh = arg;
	struct ibv_wc wc[BATCH];

	for (;;) {
		struct pollfd p = {sh->fd, POLLIN, 0};
		int stop, ret, n, i;

		pthread_mutex_lock(&sh->lock);
		stop = sh->stop;
		pthread_mutex_unlock(&sh->lock);
		if (stop)
			return NULL;
		if (poll(&p, 1, 20) != 1)
			continue;
		ret = rpma_cq_wait(sh->cq);
		pthread_mutex_lock(&sh->lock);
		if (ret == 0)
			sh->waits_ok++;
		else if (ret == RPMA_E_NO_COMPLETION)
			sh->waits_empty++;
		else
			sh->bad++;
		pthread_mutex_unlock(&sh->lock);
		while ((ret = rpma_cq_get_wc(sh->cq, BATCH, wc, &n)) == 0) {
			pthread_mutex_lock(&sh->lock);
			for (i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RDMA_WRITE ||
						wc[i].wr_id >= sh->total)
					sh->bad++;
				else
					sh->seen[wc[i].wr_id]++;
				sh->completed++;
			}
			pthread_mutex_unlock(&sh->lock);
		}
		if (ret != RPMA_E_NO_COMPLETION) {
			pthread_mutex_lock(&sh->lock);
			sh->bad++;
			pthread_mutex_unlock(&sh->lock);
		}
	}
}

int
main(void)
{
	struct shared sh = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rw;
	pthread_t th[NTHREADS];
	const char *env = getenv("RPMA_THREADS_ROUNDS");
	uint64_t posted = 0, i, once = 0;
	int t, post_failed = 0;
	void *buf;

	t_begin();
	sh.total = 10 * (uint64_t)(env ? strtoul(env, NULL, 10) : 200);
	sh.seen = calloc(sh.total, 1);
	if (sh.seen == NULL || sh.total == 0) {
		fprintf(stderr, "test setup: no memory or no writes\n");
		return 2;
	}
	peer = cq_start();
	mr = cq_local(peer, &buf);
	CQ_CONNECT_RW(conn, rw, peer, NULL);
	EXPECT_INT(rpma_conn_get_cq(conn, &sh.cq), 0);
	EXPECT_INT(rpma_cq_get_fd(sh.cq, &sh.fd), 0);
	EXPECT_INT(cq_set_nonblock(sh.fd), 0);

	t_note("%d threads wait on one CQ while %llu writes complete", NTHREADS,
			(unsigned long long)sh.total);
	/* the whole exchange, and the deletion below, are bounded */
	alarm(240);
	for (t = 0; t < NTHREADS; t++)
		EXPECT_INT(pthread_create(&th[t], NULL, waiter, &sh), 0);
	for (;;) {
		uint64_t done;

		pthread_mutex_lock(&sh.lock);
		done = sh.completed;
		pthread_mutex_unlock(&sh.lock);
		if (done >= sh.total || post_failed)
			break;
		if (posted < sh.total && posted - done < QD) {
			if (rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ALWAYS,
					CQ_CTX(posted)) != 0)
				post_failed = 1;
			posted++;
		} else {
			struct timespec ts = {0, 100000};

			nanosleep(&ts, NULL);
		}
	}
	pthread_mutex_lock(&sh.lock);
	sh.stop = 1;
	pthread_mutex_unlock(&sh.lock);
	for (t = 0; t < NTHREADS; t++)
		EXPECT_INT(pthread_join(th[t], NULL), 0);

	EXPECT_INT(post_failed, 0);
	EXPECT_INT(sh.completed, sh.total);
	EXPECT_INT(sh.bad, 0);
	for (i = 0; i < sh.total; i++)
		once += sh.seen[i] == 1;
	EXPECT_INT(once, sh.total /* each write completed exactly once */);
	EXPECT_TRUE(sh.waits_ok > 0);
	fprintf(stderr, "waits: %lu took an event, %lu found none\n", sh.waits_ok, sh.waits_empty);

	t_note("deleting the connection, events still unacknowledged, returns");
	EXPECT_INT(rpma_mr_remote_delete(&rw), 0);
	cq_close(&conn);
	alarm(0);
	free(sh.seen);
	return cq_end(peer, mr, buf);
}
