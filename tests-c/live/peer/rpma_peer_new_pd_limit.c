/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_new_pd_limit.c -- rpma_peer_new(3), ERRORS: RPMA_E_PROVIDER when
 * the verbs protection domain cannot be allocated for a reason other than
 * ENOMEM. The suite runs it in an RDMA cgroup of its own
 * (scripts/rdma-cgroup.sh), which lets it hold a few dozen verbs objects
 * and refuses the next with EAGAIN, as a container's limit does; a
 * device's own table refuses one past its size (2^20 - 1 on rxe) with
 * EINVAL, the same path through the library. The test takes every object
 * left with protection domains of its own (libibverbs' ibv_alloc_pd, found
 * with dlsym since the tests do not link libibverbs), then checks that
 * rpma_peer_new() fails with RPMA_E_PROVIDER, leaves *peer_ptr untouched
 * and logs "ibv_alloc_pd() failed: <reason>" at ERROR level; that it
 * succeeds again as soon as one domain is free (a peer holds that one
 * object and no other, in either library), and that it fails again once
 * that one is taken by its peer.
 *
 * Without a cgroup it fills the device, which takes about 30 s under the
 * emulated guest with one thread; FILLERS threads share the work, one per
 * CPU of the guest.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

/* far above the device's limit: reaching it means the limit was not found */
#define PD_CAP (1 << 21)
#define FILLERS 2

static struct ibv_pd *(*alloc_pd)(struct ibv_context *);
static int (*dealloc_pd)(struct ibv_pd *);

/* one thread's share of the device: it allocates until the device refuses */
static struct filler {
	pthread_t th;
	struct ibv_context *ctx;
	int n;
	struct ibv_pd *pds[PD_CAP / FILLERS];
} fillers[FILLERS];

static void *
fill(void *arg)
{
	struct filler *f = arg;

	while (f->n < PD_CAP / FILLERS && (f->pds[f->n] = alloc_pd(f->ctx)) != NULL)
		f->n++;
	return NULL;
}

/* gives back the last domain a filler holds: 0, or -1 when it failed */
static int
free_one(void)
{
	for (int i = 0; i < FILLERS; i++) {
		struct filler *f = &fillers[i];

		if (f->n > 0)
			return dealloc_pd(f->pds[--f->n]) == 0 ? 0 : -1;
	}
	return -1;
}

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

	/*
	 * take every protection domain the device has left: each filler stops
	 * at its first refusal, and once one is refused the device is full
	 */
	t0 = seconds();
	for (int i = 0; i < FILLERS; i++) {
		fillers[i].ctx = ctx;
		if (pthread_create(&fillers[i].th, NULL, fill, &fillers[i]) != 0)
			give_up("pthread_create failed");
	}
	for (int i = 0; i < FILLERS; i++) {
		if (pthread_join(fillers[i].th, NULL) != 0)
			give_up("pthread_join failed");
		if (fillers[i].n == PD_CAP / FILLERS)
			give_up("a filler reached its cap: the device's limit was not found");
		n += fillers[i].n;
	}
	fprintf(stderr, "%d protection domains allocated by %d threads in %.1f s\n", n,
			FILLERS, seconds() - t0);
	if (n == 0)
		give_up("could not fill the device with protection domains");

	/* ERRORS: RPMA_E_PROVIDER, *peer_ptr untouched, the cause logged */
	up_log_begin();
	EXPECT_INT(rpma_peer_new(ctx, &peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == UP_SENTINEL_PEER);
	EXPECT_TRUE(up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_alloc_pd() failed: "));

	/* one free protection domain: the next peer gets it */
	if (free_one() != 0)
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
