/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * budget.h -- shared helpers of the live tests that run in an RDMA cgroup
 * (scripts/rdma-cgroup.sh) and take every verbs object its budget has
 * left, so that the library's next allocation fails; static functions
 * only, each test includes it once and defines _GNU_SOURCE before any
 * include (RTLD_DEFAULT).
 *
 * - bu_begin(): finds libibverbs' ibv_alloc_pd/ibv_dealloc_pd with dlsym
 *   (the tests do not link libibverbs);
 * - bu_take_all(): protection domains until the budget refuses one;
 *   bu_give_one(), bu_give_all(): back again, the last taken first.
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "rpma_test.h"

struct ibv_context;
struct ibv_pd;

/* far above any budget the suite gives: reaching it means there is none */
#define BU_CAP 4096

static struct ibv_pd *(*bu_alloc_pd)(struct ibv_context *) T_UNUSED;
static int (*bu_dealloc_pd)(struct ibv_pd *) T_UNUSED;
static struct ibv_pd *bu_pds[BU_CAP] T_UNUSED;
static int bu_taken T_UNUSED;

T_UNUSED static void
bu_give_up(const char *why)
{
	fprintf(stderr, "live test setup: %s\n", why);
	exit(2);
}

T_UNUSED static void
bu_begin(void)
{
	bu_alloc_pd = (struct ibv_pd *(*)(struct ibv_context *))dlsym(RTLD_DEFAULT, "ibv_alloc_pd");
	bu_dealloc_pd = (int (*)(struct ibv_pd *))dlsym(RTLD_DEFAULT, "ibv_dealloc_pd");
	if (bu_alloc_pd == NULL || bu_dealloc_pd == NULL)
		bu_give_up("ibv_alloc_pd/ibv_dealloc_pd not found");
}

/* takes every verbs object left, as protection domains; exits 2 when none */
T_UNUSED static void
bu_take_all(struct ibv_context *ctx)
{
	while (bu_taken < BU_CAP && (bu_pds[bu_taken] = bu_alloc_pd(ctx)) != NULL)
		bu_taken++;
	if (bu_taken == BU_CAP)
		bu_give_up("no limit on verbs objects: not in an RDMA cgroup?");
	if (bu_taken == 0)
		bu_give_up("no verbs object left to take");
}

/* gives back the last domain taken: 0, or -1 when none is left or it failed */
T_UNUSED static int
bu_give_one(void)
{
	if (bu_taken == 0)
		return -1;
	return bu_dealloc_pd(bu_pds[--bu_taken]) == 0 ? 0 : -1;
}

T_UNUSED static void
bu_give_all(void)
{
	while (bu_taken > 0)
		if (bu_give_one() != 0)
			bu_give_up("ibv_dealloc_pd failed");
}

#endif /* BUDGET_H */
