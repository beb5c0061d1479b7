/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_delete.c -- mirrors rpma_peer_delete(3): RPMA_E_INVAL for a NULL
 * peer_ptr, 0 for a pointer to NULL, 0 and *peer_ptr set to NULL for a peer
 * (also once its memory regions are gone), nothing logged in those cases;
 * and RPMA_E_PROVIDER when a memory region is still registered on the peer:
 * the protection domain cannot be released, an ERROR is logged, yet the peer
 * is freed and *peer_ptr set to NULL as upstream's implementation does; the
 * memory region can still be deregistered afterwards and new peers work.
 */
#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

static char buf[4096] __attribute__((aligned(4096)));

/*
 * ERRORS: RPMA_E_PROVIDER with a memory region still registered on the peer.
 * In a child, so that a crash is a failed check, not a crashed test.
 */
enum {
	BUSY_NEW, BUSY_REG, BUSY_RET, BUSY_NULLED, BUSY_ERROR_LOGGED, BUSY_MSG,
	BUSY_AGAIN, BUSY_DEREG, BUSY_MR_NULLED, BUSY_NEW_PEER, BUSY_NEW_PEER_DELETE,
	BUSY_N
};

static void
busy(long long *out, int n)
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;

	(void) n;
	out[BUSY_NEW] = rpma_peer_new(t_ibv_ctx(), &peer);
	out[BUSY_REG] = rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_READ_SRC, &mr);

	up_log_begin();
	out[BUSY_RET] = rpma_peer_delete(&peer);
	out[BUSY_NULLED] = peer == NULL;
	out[BUSY_ERROR_LOGGED] = up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1;
	out[BUSY_MSG] = up_logged_prefix(RPMA_LOG_LEVEL_ERROR, "ibv_dealloc_pd() failed: ");
	up_log_end();

	/* the peer is gone: deleting through the NULLed pointer is a no-op */
	out[BUSY_AGAIN] = rpma_peer_delete(&peer);

	/* the memory region outlives its peer and can still be deregistered */
	out[BUSY_DEREG] = rpma_mr_dereg(&mr);
	out[BUSY_MR_NULLED] = mr == NULL;

	/* and the device still gives new peers */
	out[BUSY_NEW_PEER] = rpma_peer_new(t_ibv_ctx(), &peer);
	out[BUSY_NEW_PEER_DELETE] = rpma_peer_delete(&peer);
}

int
main(void)
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	long long out[BUSY_N] = {0};

	t_begin();
	up_log_begin();

	/* ERRORS: RPMA_E_INVAL when peer_ptr is NULL */
	EXPECT_INT(rpma_peer_delete(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 for a pointer to NULL, which stays NULL */
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);
	/* neither logs anything */
	EXPECT_INT(up_log.n, 0);

	/* RETURN VALUE: 0 for a peer, and *peer_ptr becomes NULL */
	peer = t_peer();
	up_log_begin();
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);
	/* a second call through the same pointer is a no-op */
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);
	/* a successful deletion logs nothing */
	EXPECT_INT(up_log.n, 0);

	/* RETURN VALUE: 0 once every memory region of the peer is deregistered */
	peer = t_peer();
	EXPECT_INT(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_WRITE_DST, &mr), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	up_log_begin();
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);
	EXPECT_INT(up_log.n, 0);
	up_log_end();

	/*
	 * ERRORS: RPMA_E_PROVIDER when the protection domain cannot be released
	 * (a memory region is still registered); NOTES: the peer is freed and
	 * *peer_ptr set to NULL all the same (see busy())
	 */
	EXPECT_INT(t_in_child(busy, out, BUSY_N), 0);
	EXPECT_INT(out[BUSY_NEW], 0);
	EXPECT_INT(out[BUSY_REG], 0);
	EXPECT_INT(out[BUSY_RET], RPMA_E_PROVIDER);
	EXPECT_TRUE(out[BUSY_NULLED] /* peer_ptr set to NULL despite the failure */);
	EXPECT_TRUE(out[BUSY_ERROR_LOGGED] /* the failure is logged at ERROR level */);
	EXPECT_TRUE(out[BUSY_MSG] /* "ibv_dealloc_pd() failed: <reason>" */);
	EXPECT_INT(out[BUSY_AGAIN], 0);
	EXPECT_INT(out[BUSY_DEREG], 0);
	EXPECT_TRUE(out[BUSY_MR_NULLED]);
	EXPECT_INT(out[BUSY_NEW_PEER], 0);
	EXPECT_INT(out[BUSY_NEW_PEER_DELETE], 0);

	return t_end();
}
