/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.h -- helpers shared by the live tests about threads
 * (scenario_threads_*.c).
 *
 * The frame is conn.h's and onesided.h's: the parent is the client and
 * prints every observation, the server runs in a forked child. The tests
 * start their threads only after the fork.
 *
 * Rules of these tests, so that a run under helgrind or drd reports
 * nothing of the tests' own making:
 * - threads never print observations and never touch the harness's
 *   counters (EXPECT_*, S_CHECK): each thread counts what went wrong in a
 *   structure of its own (what went wrong goes to stderr, a line of its
 *   own, through th_complain()), and the thread that created it reads that
 *   structure only after pthread_join();
 * - whatever threads share is written before pthread_create(), between two
 *   waits on a barrier, or under a mutex.
 * A helgrind or drd report is then about the library under test or below
 * it (libibverbs, librdmacm, libc).
 */
#ifndef THREADS_H
#define THREADS_H

#include <stdlib.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "onesided.h"

/* the threads of a test */
#define TH_N 4

/* how long one wait for a completion or an event may take */
#define TH_WAIT_MS 15000

/* ---- an op_context that names its thread, phase, round and kind ---- */

#define TH_TAG 0x7EULL

static T_UNUSED uint64_t
th_id(int tid, int phase, int round, int kind)
{
	return (TH_TAG << 56) | ((uint64_t)tid << 48) | ((uint64_t)phase << 40) |
		((uint64_t)round << 8) | (uint64_t)kind;
}

#define TH_CTX(tid, phase, round, kind) \
	((const void *)(uintptr_t)th_id((tid), (phase), (round), (kind)))

/* decodes th_id(); 0 when id is not one (no tag) */
static T_UNUSED int
th_decode(uint64_t id, int *tid, int *phase, int *round, int *kind)
{
	if ((id >> 56) != TH_TAG)
		return 0;
	*tid = (int)((id >> 48) & 0xFF);
	*phase = (int)((id >> 40) & 0xFF);
	*round = (int)((id >> 8) & 0xFFFFFFFF);
	*kind = (int)(id & 0xFF);
	return 1;
}

/* ---- contents ---- */

/* the pattern of thread tid, phase, round, kind (see os_fill()) */
static T_UNUSED unsigned
th_seed(int tid, int phase, int round, int kind)
{
	return ((((unsigned)phase * 16 + (unsigned)tid) * 4096 + (unsigned)round) * 16 +
		(unsigned)kind);
}

/* ---- time ---- */

static T_UNUSED void
th_sleep_us(long us)
{
	struct timespec t = {0, us * 1000};

	nanosleep(&t, NULL);
}

/* ---- what went wrong in a thread: stderr only ---- */

static T_UNUSED void
th_complain(const char *who, int tid, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write, so lines of different threads do not mix */
	fprintf(stderr, "%s thread %d: %s\n", who, tid, line);
}

/* ---- pthread calls that must not fail (an infrastructure failure) ---- */

static T_UNUSED void
th_must(int ret, const char *what)
{
	if (ret != 0) {
		fprintf(stderr, "threads.h: %s failed (%d)\n", what, ret);
		exit(2);
	}
}

/* a condition variable whose timed waits use CLOCK_MONOTONIC */
static T_UNUSED void
th_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	th_must(pthread_condattr_init(&a), "pthread_condattr_init");
	th_must(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), "pthread_condattr_setclock");
	th_must(pthread_cond_init(cv, &a), "pthread_cond_init");
	th_must(pthread_condattr_destroy(&a), "pthread_condattr_destroy");
}

/* waits on cv (mutex m held) until at most deadline_ms (t_now_ms()) */
static T_UNUSED void
th_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, long long deadline_ms)
{
	struct timespec t;

	t.tv_sec = deadline_ms / 1000;
	t.tv_nsec = (deadline_ms % 1000) * 1000000;
	(void) pthread_cond_timedwait(cv, m, &t);
}

/* a barrier wait, whoever is the serial thread */
static T_UNUSED void
th_barrier(pthread_barrier_t *b)
{
	int ret = pthread_barrier_wait(b);

	if (ret != 0 && ret != PTHREAD_BARRIER_SERIAL_THREAD)
		th_must(ret, "pthread_barrier_wait");
}

/* ---- completions ---- */

/*
 * the next completion of cq into *wc, polling (with naps) for up to
 * timeout_ms: rpma_cq_get_wc()'s result, RPMA_E_NO_COMPLETION when none came
 */
static T_UNUSED int
th_poll_wc(struct rpma_cq *cq, struct ibv_wc *wc, long timeout_ms)
{
	long long end = t_now_ms() + timeout_ms;
	int ret;

	memset(wc, 0, sizeof(*wc));
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret != RPMA_E_NO_COMPLETION || t_now_ms() > end)
			return ret;
		th_sleep_us(50);
	}
}

/*
 * The rounds each thread runs: `max`, or fewer when RPMA_THREADS_ROUNDS
 * says so (the helgrind lane, where every round costs a hundred times more).
 */
static inline int
threads_rounds(int max)
{
	/* read each time: a cached value written by whichever thread came
	 * first would be a race of the test's own */
	const char *env = getenv("RPMA_THREADS_ROUNDS");
	int n = env ? atoi(env) : 0;

	return n > 0 && n < max ? n : max;
}

#endif /* THREADS_H */
