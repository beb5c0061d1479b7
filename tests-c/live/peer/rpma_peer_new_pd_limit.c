/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_new_pd_limit.c -- rpma_peer_new(3), ERRORS: RPMA_E_PROVIDER when
 * the verbs protection domain cannot be allocated for a reason other than
 * ENOMEM. rxe0 holds at most a fixed number of protection domains (2^20 - 1
 * on the guest's kernel) and refuses the next one with EINVAL. The test
 * fills the device with protection domains of its own (libibverbs'
 * ibv_alloc_pd, found with dlsym since the tests do not link libibverbs),
 * then checks that rpma_peer_new() fails with RPMA_E_PROVIDER, leaves
 * *peer_ptr untouched and logs "ibv_alloc_pd() failed: <reason>" at ERROR
 * level; that it succeeds again as soon as one domain is free, and that it
 * fails again once that one is taken by its peer.
 *
 * Filling the device takes about 30 s under the emulated guest.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

/* far above the device's limit: reaching it means the limit was not found */
#define PD_CAP (1 << 21)

static struct ibv_pd *pds[PD_CAP];

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
give_up(const char *why)
{
	fprintf(stderr, "live test setup: %s\n", why);
	exit(2);
}

int
main(void)
{
	struct ibv_pd *(*alloc_pd)(struct ibv_context *);
	int (*dealloc_pd)(struct ibv_pd *);
	struct ibv_context *ctx;
	struct rpma_peer *peer = UP_SENTINEL_PEER, *last = NULL;
	int n = 0;
	double t0;

	t_begin();
	ctx = t_ibv_ctx();
	alloc_pd = (struct ibv_pd *(*)(struct ibv_context *))dlsym(RTLD_DEFAULT, "ibv_alloc_pd");
	dealloc_pd = (int (*)(struct ibv_pd *))dlsym(RTLD_DEFAULT, "ibv_dealloc_pd");
	if (alloc_pd == NULL || dealloc_pd == NULL)
		give_up("ibv_alloc_pd/ibv_dealloc_pd not found");

	/* take every protection domain the device has left */
	t0 = seconds();
	while (n < PD_CAP && (pds[n] = alloc_pd(ctx)) != NULL)
		n++;
	fprintf(stderr, "%d protection domains allocated in %.1f s\n", n, seconds() - t0);
	if (n == 0 || n == PD_CAP)
		give_up("could not fill the device with protection domains");

	/* ERRORS: RPMA_E_PROVIDER, *peer_ptr untouched, the cause logged */
	up_log_begin();
	EXPECT_INT(rpma_peer_new(ctx, &peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == UP_SENTINEL_PEER);
	EXPECT_TRUE(up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_alloc_pd() failed: "));

	/* one free protection domain: the next peer gets it */
	if (dealloc_pd(pds[--n]) != 0)
		give_up("ibv_dealloc_pd failed");
	EXPECT_INT(rpma_peer_new(ctx, &last), 0);
	EXPECT_TRUE(last != NULL);

	/* and the one after that fails again, the same way */
	up_log_begin();
	EXPECT_INT(rpma_peer_new(ctx, &peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == UP_SENTINEL_PEER);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_alloc_pd() failed: "));
	up_log_end();

	/* deleting a peer gives its protection domain back */
	EXPECT_INT(rpma_peer_delete(&last), 0);
	EXPECT_INT(rpma_peer_new(ctx, &last), 0);
	EXPECT_INT(rpma_peer_delete(&last), 0);

	/*
	 * The remaining protection domains are left to the end of the process:
	 * closing the device releases them in a few seconds, where releasing
	 * them one by one takes about as long as allocating them did.
	 */
	return t_end();
}
