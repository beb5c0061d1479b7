/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dying.h -- helpers shared by the live tests about dying peers and churn
 * (scenario_peer_killed.c, scenario_disconnect_recvs_posted.c,
 * scenario_shutdown_pending.c, scenario_churn.c); static functions only.
 *
 * - d_fork(): a child of the test's own (t_fork()), with a pipe each way, forked
 *   before the parent touches the RDMA stack (a child that is to be killed
 *   must own every RDMA file it uses, so that its death closes them), its
 *   stdout sent to stderr; d_reap() collects it with a deadline.
 * - d_watchdog(): an alarm for the steps that have no timeout of their own
 *   (the deletes after a death): a step that hangs ends the test with
 *   status 1 and says where, and kills the children first.
 * - d_now_ms(), d_port(): time and ports (t_sleep_ms() sleeps).
 * - d_fds(), d_heap(), d_rss_kib(): what a process holds (for churn).
 * The helpers of conn.h come along.
 */
#ifndef DYING_H
#define DYING_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"

/* the bound every detection must meet */
#define D_DETECT_MS 5000

/* t_now_ms() (a name a test prints) */
T_UNUSED static long long
d_now_ms(void)
{
	return t_now_ms();
}

/* the decimal port t_port() + n (a static string, one per n < 4) */
T_UNUSED static const char *
d_port(int n)
{
	static char ports[4][16];

	snprintf(ports[n], sizeof(ports[n]), "%d", atoi(t_port()) + n);
	return ports[n];
}

/* ---- children ---- */

struct d_child {
	pid_t pid;
	int to_child;	/* parent: write end of parent -> child */
	int from_child;	/* parent: read end of child -> parent */
};

/* the children alive, for the watchdog */
#define D_MAX_CHILDREN 4
static pid_t d_pids[D_MAX_CHILDREN];

/* writes one byte to fd; 0, or -1 when the other side is gone */
T_UNUSED static int
d_send(int fd, char b)
{
	return t_chan_put(fd, &b, 1);
}

/*
 * The next byte from fd within timeout_ms: the byte (0..255), or -1 when
 * none came in time or the other side is gone
 */
T_UNUSED static int
d_recv(int fd, int timeout_ms)
{
	unsigned char b;

	return t_chan_get(fd, &b, 1, timeout_ms) == 0 ? b : -1;
}

/*
 * Forks a child that runs fn(in, out, arg) and exits with its return
 * value: in is the read end of parent -> child, out the write end of
 * child -> parent. The child's stdout goes to stderr (only the parent
 * prints observations). Setup failures end the test with status 2.
 */
/* what the child of d_fork() runs, set just before t_fork() */
static struct {
	int (*fn)(int in, int out, void *arg);
	void *arg;
	int down[2], up[2];
} d_next;

static int
d_child_main(void *unused)
{
	(void) unused;
	close(d_next.down[1]);
	close(d_next.up[0]);
	memset(d_pids, 0, sizeof(d_pids)); /* not the parent's */
	return d_next.fn(d_next.down[0], d_next.up[1], d_next.arg);
}

T_UNUSED static void
d_fork(struct d_child *c, int (*fn)(int in, int out, void *arg), void *arg)
{
	int *down = d_next.down, *up = d_next.up;

	(void) t_port(); /* fixed before the fork: both processes share it */
	t_chan_open(down);
	t_chan_open(up);
	d_next.fn = fn;
	d_next.arg = arg;
	c->pid = t_fork(d_child_main, NULL);
	close(down[0]);
	close(up[1]);
	c->to_child = down[1];
	c->from_child = up[0];
	for (int i = 0; i < D_MAX_CHILDREN; i++)
		if (d_pids[i] == 0) {
			d_pids[i] = c->pid;
			break;
		}
}

/*
 * Waits up to timeout_ms for the child to end: its exit status, 128 + the
 * signal that killed it, or -1 when it did not end in time (it is then
 * killed). Closes the pipes.
 */
T_UNUSED static int
d_reap(struct d_child *c, int timeout_ms)
{
	int ret = t_reap(c->pid, timeout_ms);

	if (ret < 0)
		fprintf(stderr, "dying.h: child %d did not end in time\n", (int)c->pid);
	for (int i = 0; i < D_MAX_CHILDREN; i++)
		if (d_pids[i] == c->pid)
			d_pids[i] = 0;
	close(c->to_child);
	close(c->from_child);
	c->pid = -1;
	return ret;
}

/* ---- the watchdog ---- */

static const char *d_watch_what = "";

static void
d_watch_fire(int sig)
{
	static const char msg[] = "dying.h: watchdog: hung in ";
	ssize_t r;

	(void) sig;
	for (int i = 0; i < D_MAX_CHILDREN; i++)
		if (d_pids[i] > 0)
			kill(d_pids[i], SIGKILL);
	r = write(2, msg, sizeof(msg) - 1);
	r = write(2, d_watch_what, strlen(d_watch_what));
	r = write(2, "\n", 1);
	(void) r;
	_exit(1);
}

/*
 * Arms the watchdog: when the step named what has not ended (the next
 * d_watchdog() call) within seconds, the test ends with status 1.
 * seconds 0 disarms it.
 */
T_UNUSED static void
d_watchdog(unsigned seconds, const char *what)
{
	static int installed;

	if (!installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = d_watch_fire;
		sigaction(SIGALRM, &sa, NULL);
		installed = 1;
	}
	d_watch_what = what;
	alarm(seconds);
}

/* ---- what a process holds ---- */

/* the number of open file descriptors (-1 when they cannot be counted) */
T_UNUSED static int
d_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own */
}

/* bytes of heap in use: malloc'ed chunks and mmap'ed ones */
T_UNUSED static long long
d_heap(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (long long)mi.uordblks + (long long)mi.hblkhd;
}

/* VmRSS in KiB (-1 when it cannot be read) */
T_UNUSED static long long
d_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long long kib = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* ---- completions ---- */

/* an op_context from a number, and back */
#define D_CTX(n) ((const void *)(uintptr_t)(n))

/*
 * Takes every completion cq holds right now into wc[0..max-1]: how many,
 * or the negative error of rpma_cq_get_wc() other than
 * RPMA_E_NO_COMPLETION
 */
T_UNUSED static int
d_drain(struct rpma_cq *cq, struct ibv_wc *wc, int max)
{
	int n = 0;

	while (n < max) {
		int got = 0;
		int r = rpma_cq_get_wc(cq, max - n, wc + n, &got);

		if (r == RPMA_E_NO_COMPLETION)
			break;
		if (r != 0)
			return r;
		n += got;
	}
	return n;
}

/*
 * Collects completions of cq for up to ms (polling, no completion channel)
 * until want of them came: how many came (at most max)
 */
T_UNUSED static int
d_collect(struct rpma_cq *cq, struct ibv_wc *wc, int want, int max, int ms)
{
	long long end = d_now_ms() + ms;
	int n = 0;

	for (;;) {
		int r = d_drain(cq, wc + n, max - n);

		if (r > 0)
			n += r;
		if (r < 0 || n >= want || n >= max || d_now_ms() > end)
			return n;
		t_sleep_ms(5);
	}
}

#endif /* DYING_H */
