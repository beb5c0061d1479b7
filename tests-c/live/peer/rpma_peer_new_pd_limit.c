/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_new_pd_limit.c -- rpma_peer_new(3), ERRORS: RPMA_E_PROVIDER when
 * the verbs protection domain cannot be allocated for a reason other than
 * ENOMEM. The suite runs it in an RDMA cgroup of its own
 * (scripts/rdma-cgroup.sh), which lets it hold a few dozen verbs objects
 * and refuses the next with EAGAIN, as a container's limit does; a
 * device's own table refuses one past its size (2^20 - 1 on rxe) with
 * EINVAL, the same path through the library. The test takes every object
 * left with protection domains of its own (budget.h), then checks that
 * rpma_peer_new() fails with RPMA_E_PROVIDER, leaves *peer_ptr untouched
 * and logs "ibv_alloc_pd() failed: <reason>" at ERROR level; that it
 * succeeds again as soon as one domain is free (a peer holds that one
 * object and no other, in either library), and that it fails again once
 * that one is taken by its peer.
 */
#define _GNU_SOURCE
#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"
#include "budget.h"

int
main(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer = UP_SENTINEL_PEER, *last = NULL;

	t_begin();
	bu_begin();
	ctx = t_ibv_ctx();
	bu_take_all(ctx);

	/* ERRORS: RPMA_E_PROVIDER, *peer_ptr untouched, the cause logged */
	up_log_begin();
	EXPECT_INT(rpma_peer_new(ctx, &peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == UP_SENTINEL_PEER);
	EXPECT_TRUE(up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_alloc_pd() failed: "));

	/* one free protection domain: the next peer gets it */
	if (bu_give_one() != 0)
		bu_give_up("ibv_dealloc_pd failed");
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

	bu_give_all();
	return t_end();
}
