/* SPDX-License-Identifier: BSD-3-Clause */
/* net.h -- what net_client.c and net_server.c share */
#ifndef NET_H
#define NET_H

#include <stdio.h>
#include <time.h>

#include <librpma.h>

/* the program's name in its messages: "client" or "server" */
extern const char *net_side;

/* the monotonic clock in seconds */
static inline double
net_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* reports a failed call; the exit status to give */
static inline int
net_fail(const char *what, int ret)
{
	fprintf(stderr, "%s: %s failed: %s\n", net_side, what, rpma_err_2str(ret));
	return 1;
}

#endif
