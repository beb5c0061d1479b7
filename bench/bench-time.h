/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench-time.h -- the clock and the latency statistics rpma-bench.c and
 * verbs-bench.c share, so that both contenders measure the same way.
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds */
static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* qsort's comparison of two uint64_t */
static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* nearest-rank percentile p of n sorted nanosecond figures, in microseconds */
static inline double pct_us(const uint64_t *v, uint64_t n, double p)
{
	if (n == 0)
		return 0.0;
	uint64_t rank = (uint64_t)(p * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)v[rank - 1] / 1000.0;
}

/* a struct timeval (getrusage's) in microseconds */
static inline double tv_us(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e6 + (double)tv->tv_usec;
}

#endif /* BENCH_TIME_H */
