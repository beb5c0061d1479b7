/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_srq.c -- RPMA_E_PROVIDER of rpma_srq_new(3) and rpma_srq_delete(3)
 * (no connection needed, one process):
 * - rpma_srq_new fails with RPMA_E_PROVIDER when ibv_create_srq(),
 *   ibv_create_comp_channel(), ibv_create_cq() or ibv_req_notify_cq() fails;
 *   *srq_ptr stays untouched and every object made before the failure has
 *   been destroyed again (counted through the mocks, whatever the order of
 *   the steps); a later call succeeds.
 * - rpma_srq_delete returns RPMA_E_PROVIDER when ibv_destroy_cq(),
 *   ibv_destroy_comp_channel() or ibv_destroy_srq() fails, and still frees
 *   the SRQ and sets *srq_ptr to NULL (the mocks fail after the real
 *   destruction, so nothing is left on the protection domain); with
 *   rcq_size 0 there is no receive CQ to destroy.
 */
#include "rpma_mock.h"
#include "mock.h"

/* how many objects of each kind are alive, as far as the mocks saw */
struct alive {
	int srq, cq, channel;
};

static struct alive
alive(void)
{
	struct alive a = {
		t_mock_succeeded("ibv_create_srq") - t_mock_succeeded("ibv_destroy_srq"),
		t_mock_succeeded("ibv_create_cq") - t_mock_succeeded("ibv_destroy_cq"),
		t_mock_succeeded("ibv_create_comp_channel") -
			t_mock_succeeded("ibv_destroy_comp_channel"),
	};
	return a;
}

static void
expect_alive(struct alive before, int srqs, int cqs, int channels)
{
	struct alive now = alive();

	EXPECT_INT(now.srq - before.srq, srqs);
	EXPECT_INT(now.cq - before.cq, cqs);
	EXPECT_INT(now.channel - before.channel, channels);
}

/* rpma_srq_new fails with PROVIDER, leaving nothing behind */
static void
new_fails(struct rpma_peer *peer, const char *fn, int err)
{
	struct rpma_srq *srq = M_SENTINEL_SRQ;
	struct alive before = alive();

	t_note("rpma_srq_new: %s fails", fn);
	M_FAIL(fn, err, rpma_srq_new(peer, NULL, &srq), RPMA_E_PROVIDER);
	EXPECT_TRUE(srq == M_SENTINEL_SRQ);
	expect_alive(before, 0, 0, 0);
}

/* rpma_srq_delete of a new SRQ (cfg) fails with PROVIDER when fn fails */
static void
delete_fails(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, const char *fn)
{
	struct rpma_srq *srq = NULL;
	struct alive before = alive();

	t_note("rpma_srq_delete: %s fails", fn);
	EXPECT_INT(rpma_srq_new(peer, cfg, &srq), 0);
	M_FAIL_AFTER(fn, EBUSY, rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	EXPECT_TRUE(srq == NULL);
	expect_alive(before, 0, 0, 0);
	t_mock_disarm();
}

int
main(void)
{
	struct rpma_peer *peer;
	struct ibv_context *ctx;
	struct rpma_srq_cfg *cfg = NULL;
	struct rpma_srq *srq = M_SENTINEL_SRQ;
	struct alive before;
	int destroy_cqs;

	t_begin();
	ctx = t_ibv_ctx();
	peer = t_peer();
	t_mock_ops_install(ctx);

	new_fails(peer, "ibv_create_srq", ENOMEM);
	new_fails(peer, "ibv_create_comp_channel", EMFILE);
	new_fails(peer, "ibv_create_cq", ENOMEM);

	t_note("rpma_srq_new: ibv_req_notify_cq fails");
	before = alive();
	M_OP_FAIL(ctx, T_OP_REQ_NOTIFY_CQ, EIO, rpma_srq_new(peer, NULL, &srq), RPMA_E_PROVIDER);
	EXPECT_TRUE(srq == M_SENTINEL_SRQ);
	expect_alive(before, 0, 0, 0);

	t_note("rpma_srq_new works again: an SRQ and its receive CQ");
	srq = NULL;
	before = alive();
	EXPECT_INT(rpma_srq_new(peer, NULL, &srq), 0);
	expect_alive(before, 1, 1, 1);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	expect_alive(before, 0, 0, 0);

	delete_fails(peer, NULL, "ibv_destroy_cq");
	delete_fails(peer, NULL, "ibv_destroy_comp_channel");
	delete_fails(peer, NULL, "ibv_destroy_srq");

	t_note("rpma_srq_delete: rcq_size 0, ibv_destroy_srq fails");
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	destroy_cqs = t_mock_calls("ibv_destroy_cq");
	delete_fails(peer, cfg, "ibv_destroy_srq");
	EXPECT_INT(t_mock_calls("ibv_destroy_cq") - destroy_cqs, 0);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);

	t_mock_ops_uninstall();
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
