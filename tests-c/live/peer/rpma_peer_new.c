/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_new.c -- mirrors rpma_peer_new(3): RPMA_E_INVAL for a NULL
 * ibv_ctx or peer_ptr (nothing logged, *peer_ptr untouched); RPMA_E_NOMEM
 * when the peer cannot be allocated (*peer_ptr untouched, and a later call
 * works); a new peer on rxe0 (distinct objects per call, each released by
 * rpma_peer_delete(3), usable for rpma_mr_reg(3)); the INFO message about
 * native atomic write, logged when the device lacks it, and no error logged
 * on success. RPMA_E_PROVIDER from a failing protection-domain
 * allocation is rpma_peer_new_pd_limit.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

/*
 * ERRORS: RPMA_E_NOMEM. The next malloc() (or every one) fails, in a child
 * so that a crash cannot take the other checks with it; the child then
 * checks that *peer_ptr was not written and that a later call succeeds.
 */
enum { NOMEM_RET, NOMEM_USED, NOMEM_UNTOUCHED, NOMEM_LATER, NOMEM_N };

static void
nomem(long long *out, int fail_count)
{
	struct ibv_context *ctx = t_ibv_ctx();
	struct rpma_peer *peer = UP_SENTINEL_PEER;

	t_malloc_fail(fail_count);
	out[NOMEM_RET] = rpma_peer_new(ctx, &peer);
	t_malloc_fail(0);
	out[NOMEM_USED] = t_malloc_failed() > 0;
	out[NOMEM_UNTOUCHED] = peer == UP_SENTINEL_PEER;
	peer = NULL;
	out[NOMEM_LATER] = rpma_peer_new(ctx, &peer) == 0 && peer != NULL &&
		rpma_peer_delete(&peer) == 0;
}

static void
nomem_next(long long *out, int n)
{
	(void) n;
	nomem(out, 1);
}

static void
nomem_all(long long *out, int n)
{
	(void) n;
	nomem(out, T_MALLOC_FAIL_ALL);
}

int
main(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer = UP_SENTINEL_PEER, *other = NULL;
	struct rpma_mr_local *mr = NULL;
	long long out[NOMEM_N] = {0, 0, 0, 0};
	static char buf[4096] __attribute__((aligned(4096)));
	int atomic_write;

	t_begin();
	ctx = t_ibv_ctx();
	atomic_write = up_known(up_device_atomic_write_capable(ctx), "capabilities");
	up_log_begin();

	/* ERRORS: RPMA_E_INVAL when ibv_ctx or peer_ptr is NULL */
	EXPECT_INT(rpma_peer_new(NULL, &peer), RPMA_E_INVAL);
	EXPECT_TRUE(peer == UP_SENTINEL_PEER);
	EXPECT_INT(rpma_peer_new(ctx, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_peer_new(NULL, NULL), RPMA_E_INVAL);
	/* the argument checks come first: nothing is logged */
	EXPECT_INT(up_log.n, 0);

	/* ERRORS: RPMA_E_NOMEM, *peer_ptr untouched (see nomem()) */
	EXPECT_INT(t_in_child(nomem_next, out, NOMEM_N), 0);
	EXPECT_TRUE(out[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(out[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(out[NOMEM_UNTOUCHED] /* peer_ptr untouched after NOMEM */);
	EXPECT_TRUE(out[NOMEM_LATER] /* the next rpma_peer_new() works */);

	EXPECT_INT(t_in_child(nomem_all, out, NOMEM_N), 0);
	EXPECT_TRUE(out[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(out[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(out[NOMEM_UNTOUCHED] /* peer_ptr untouched after NOMEM */);
	EXPECT_TRUE(out[NOMEM_LATER] /* the next rpma_peer_new() works */);

	/* RETURN VALUE: 0, and *peer_ptr points to a new peer */
	up_log_begin();
	EXPECT_INT(rpma_peer_new(ctx, &peer), 0);
	EXPECT_TRUE(peer != NULL);
	EXPECT_TRUE(peer != UP_SENTINEL_PEER);

	/*
	 * DESCRIPTION: without native atomic write on the device, an INFO
	 * message says so (with it, whether the library uses it depends on how
	 * the library was built: not checked); a successful call logs no error
	 */
	if (!atomic_write)
		EXPECT_TRUE(up_logged(RPMA_LOG_LEVEL_INFO, UP_MSG_NO_ATOMIC_WRITE));
	EXPECT_INT(up_log_count(RPMA_LOG_LEVEL_ERROR), 0);
	EXPECT_INT(up_log_count(RPMA_LOG_LEVEL_FATAL), 0);

	/* DESCRIPTION: each call creates a distinct peer */
	EXPECT_INT(rpma_peer_new(ctx, &other), 0);
	EXPECT_TRUE(other != NULL);
	EXPECT_TRUE(other != peer);

	/* DESCRIPTION: memory is registered through a peer */
	EXPECT_INT(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_READ_SRC, &mr), 0);
	EXPECT_TRUE(mr != NULL);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_INT(rpma_mr_reg(other, buf, sizeof(buf), RPMA_MR_USAGE_WRITE_DST, &mr), 0);
	EXPECT_TRUE(mr != NULL);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	/* DESCRIPTION: each peer is released with rpma_peer_delete(3) */
	EXPECT_INT(rpma_peer_delete(&other), 0);
	EXPECT_TRUE(other == NULL);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);

	up_log_end();
	return t_end();
}
