/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_new.c -- mirrors rpma_srq_new(3):
 * - RPMA_E_INVAL for a NULL peer or srq_ptr (*srq_ptr untouched, nothing
 *   logged);
 * - RPMA_E_NOMEM when the object cannot be allocated, and a later call
 *   works; *srq_ptr is NULL then: the C library stores the failed
 *   allocation's NULL there (the page promises it untouched);
 * - cfg NULL: the defaults, which are 20 and 20 (not the 100 the header
 *   documents): the SRQ has a receive CQ and holds exactly as many
 *   receives as one made with rq_size 20, fewer than one made with 100;
 * - rcq_size 0: no receive CQ (rpma_srq_get_rcq(3) gives NULL);
 * - the sizes reach the device as they are: rcq_size max_cqe works, one
 *   more fails, and so does rq_size max_srq_wr + 1;
 * - RPMA_E_PROVIDER with one ERROR logged, *srq_ptr untouched: from
 *   ibv_create_srq(3) for rq_size 0, max_srq_wr + 1 and UINT32_MAX, from
 *   ibv_create_cq(3) for rcq_size max_cqe + 1 and UINT32_MAX;
 * - each call makes a distinct object; a successful call logs nothing.
 */
#include "srq.h"

/*
 * ERRORS: RPMA_E_NOMEM. In a child, with an SRQ without a receive CQ
 * (whose making allocates nothing but the object itself) and every
 * malloc() failing.
 */
enum { NOMEM_RET, NOMEM_USED, NOMEM_NULLED, NOMEM_LATER, NOMEM_N };

static void
nomem(long long *out, int n)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_srq_cfg *cfg = NULL;
	struct rpma_srq *srq = SRQ_SENTINEL;

	(void) n;
	if (rpma_srq_cfg_new(&cfg) != 0 || rpma_srq_cfg_set_rcq_size(cfg, 0) != 0)
		_exit(4);
	t_malloc_fail(T_MALLOC_FAIL_ALL);
	out[NOMEM_RET] = rpma_srq_new(peer, cfg, &srq);
	t_malloc_fail(0);
	out[NOMEM_USED] = t_malloc_failed() > 0;
	out[NOMEM_NULLED] = srq == NULL;
	srq = NULL;
	out[NOMEM_LATER] = rpma_srq_new(peer, cfg, &srq) == 0 && srq != NULL &&
		rpma_srq_delete(&srq) == 0;
	if (rpma_srq_cfg_delete(&cfg) != 0 || rpma_peer_delete(&peer) != 0)
		_exit(5);
}

/* ERRORS: RPMA_E_PROVIDER, *srq_ptr untouched, one ERROR starting with msg */
static void
expect_provider(struct rpma_peer *peer, uint32_t rq_size, uint32_t rcq_size, const char *msg)
{
	struct rpma_srq *srq = SRQ_SENTINEL;

	t_note("rq_size %u, rcq_size %u", rq_size, rcq_size);
	c_nlogs = 0;
	EXPECT_INT(s_srq(peer, rq_size, rcq_size, &srq), RPMA_E_PROVIDER);
	EXPECT_TRUE(srq == SRQ_SENTINEL);
	EXPECT_INT(s_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_TRUE(s_logged_prefix(RPMA_LOG_LEVEL_ERROR, msg));
}

/* rpma_srq_new() with these sizes works, and the SRQ is deleted again */
static void
expect_made(struct rpma_peer *peer, uint32_t rq_size, uint32_t rcq_size)
{
	struct rpma_srq *srq = NULL;

	EXPECT_INT(s_srq(peer, rq_size, rcq_size, &srq), 0);
	EXPECT_TRUE(srq != NULL);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
}

int
main(void)
{
	long long out[NOMEM_N] = {0, 0, 0, 0};
	struct rpma_peer *peer;
	struct rpma_srq_cfg *cfg = NULL;
	struct rpma_srq *srq = SRQ_SENTINEL, *other = NULL;
	struct rpma_cq *rcq = CQ_SENTINEL;
	uint32_t max_srq_wr = 0, max_cqe = 0;
	int last = 0, cap_default, cap_20, cap_100;

	t_begin();

	/* ERRORS: RPMA_E_NOMEM, *srq_ptr NULL (see above), a later call works */
	EXPECT_INT(t_in_child(nomem, out, NOMEM_N), 0);
	EXPECT_TRUE(out[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(out[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(out[NOMEM_NULLED] /* *srq_ptr NULL after NOMEM */);
	EXPECT_TRUE(out[NOMEM_LATER] /* the next rpma_srq_new() works */);

	peer = t_peer();
	s_dev_limits(t_ibv_ctx(), &max_srq_wr, &max_cqe);
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	s_log_begin();

	/* ERRORS: RPMA_E_INVAL when peer or srq_ptr is NULL, nothing logged */
	t_note("INVAL");
	EXPECT_INT(rpma_srq_new(NULL, cfg, &srq), RPMA_E_INVAL);
	EXPECT_TRUE(srq == SRQ_SENTINEL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, &srq), RPMA_E_INVAL);
	EXPECT_TRUE(srq == SRQ_SENTINEL);
	EXPECT_INT(rpma_srq_new(peer, cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_new(peer, NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	/* RETURN VALUE: 0 and a new SRQ; cfg NULL: the defaults, with a receive CQ */
	t_note("cfg NULL: the defaults");
	c_nlogs = 0;
	EXPECT_INT(rpma_srq_new(peer, NULL, &srq), 0);
	EXPECT_TRUE(srq != NULL && srq != SRQ_SENTINEL);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq != NULL && rcq != CQ_SENTINEL);
	EXPECT_INT(c_nlogs, 0);
	/*
	 * The default rq_size is 20: the SRQ takes as many receives as one
	 * made with rq_size 20 (the provider may round the size up, but the
	 * same way for both) and fewer than one made with the 100 of the
	 * documentation.
	 */
	cap_default = s_fill(srq, 100000, &last);
	EXPECT_INT(last, RPMA_E_PROVIDER);
	EXPECT_TRUE(cap_default >= 20);
	cap_20 = s_capacity(peer, 20, 100000);
	cap_100 = s_capacity(peer, 100, 100000);
	fprintf(stderr, "receives an SRQ takes: cfg NULL %d, rq_size 20 %d, rq_size 100 %d\n",
			cap_default, cap_20, cap_100);
	EXPECT_TRUE(cap_20 == cap_default);
	EXPECT_TRUE(cap_100 >= 100);
	EXPECT_TRUE(cap_default < cap_100 /* not the documented 100 */);

	/* DESCRIPTION: each call makes a distinct object */
	EXPECT_INT(rpma_srq_new(peer, NULL, &other), 0);
	EXPECT_TRUE(other != NULL && other != srq);
	EXPECT_INT(rpma_srq_delete(&other), 0);
	EXPECT_INT(rpma_srq_delete(&srq), 0);

	/* DESCRIPTION: a configuration with the default values works the same */
	t_note("a new configuration");
	srq = NULL;
	rcq = CQ_SENTINEL;
	EXPECT_INT(rpma_srq_new(peer, cfg, &srq), 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq != NULL && rcq != CQ_SENTINEL);
	EXPECT_INT(s_fill(srq, 100000, &last), cap_default);
	EXPECT_INT(rpma_srq_delete(&srq), 0);

	/* DESCRIPTION: rcq_size 0, no receive CQ */
	t_note("rcq_size 0: no receive CQ");
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(rpma_srq_new(peer, cfg, &srq), 0);
	EXPECT_TRUE(srq != NULL);
	rcq = CQ_SENTINEL;
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq == NULL);
	EXPECT_INT(rpma_srq_delete(&srq), 0);
	/* the smallest queue */
	EXPECT_INT(rpma_srq_cfg_set_rq_size(cfg, 1), 0);
	EXPECT_INT(rpma_srq_new(peer, cfg, &srq), 0);
	EXPECT_TRUE(s_fill(srq, 100000, &last) >= 1);
	EXPECT_INT(rpma_srq_delete(&srq), 0);

	/* the device's limits, passed on as they are */
	t_note("the device's largest queues");
	fprintf(stderr, "device: max_srq_wr %u, max_cqe %u\n", max_srq_wr, max_cqe);
	EXPECT_TRUE(max_srq_wr > 0 && max_srq_wr < UINT32_MAX);
	EXPECT_TRUE(max_cqe > 0 && max_cqe < UINT32_MAX);
	c_nlogs = 0;
	/* (not max_srq_wr: on rxe that is 2^20 receives, 128 MiB of queue) */
	expect_made(peer, 1, max_cqe);
	EXPECT_INT(c_nlogs, 0);

	/* ERRORS: RPMA_E_PROVIDER, ibv_create_srq() failed */
	t_note("PROVIDER: ibv_create_srq");
	expect_provider(peer, max_srq_wr + 1, 0, "ibv_create_srq() failed: ");
	expect_provider(peer, max_srq_wr + 1, 5, "ibv_create_srq() failed: ");
	expect_provider(peer, UINT32_MAX, 5, "ibv_create_srq() failed: ");
	/* rxe refuses an empty queue */
	expect_provider(peer, 0, 5, "ibv_create_srq() failed: ");

	/* ERRORS: RPMA_E_PROVIDER, ibv_create_cq() failed (the SRQ is undone) */
	t_note("PROVIDER: ibv_create_cq");
	expect_provider(peer, 5, max_cqe + 1, "ibv_create_cq() failed: ");
	expect_provider(peer, 5, UINT32_MAX, "ibv_create_cq() failed: ");

	/* after all those failures, the peer still makes SRQs */
	t_note("after the failures");
	c_nlogs = 0;
	expect_made(peer, 5, 5);
	EXPECT_INT(c_nlogs, 0);

	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
