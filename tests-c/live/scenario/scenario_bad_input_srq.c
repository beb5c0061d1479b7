/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_srq.c -- bad input for the shared receive queue: one
 * row of the table at the end per entry point; bad_<name>() makes its calls.
 * The live objects, the server and the rules every rejected call is held to
 * are those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- srq ---- */

static void
bad_rpma_srq_new(void)
{
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);
	struct rpma_srq_cfg *tmp = NULL;

	EXPECT_INT(rpma_srq_new(NULL, x.scfg, &s), INVAL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, &s), INVAL);
	EXPECT_INT(rpma_srq_new(x.peer, x.scfg, NULL), INVAL);
	EXPECT_INT(rpma_srq_new(x.peer, NULL, NULL), INVAL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(s == BI_SENT(struct rpma_srq *));
	t_note("queues larger than the device makes");
	EXPECT_INT(rpma_srq_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(tmp, UINT32_MAX), 0);
	EXPECT_INT(rpma_srq_new(x.peer, tmp, &s), PROVIDER);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(tmp, S_RQ), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(tmp, UINT32_MAX), 0);
	EXPECT_INT(rpma_srq_new(x.peer, tmp, &s), PROVIDER);
	EXPECT_TRUE(s == BI_SENT(struct rpma_srq *));
	EXPECT_INT(rpma_srq_cfg_delete(&tmp), 0);
}

static void
bad_rpma_srq_get_rcq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_srq_get_rcq, x.srq, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_srq_get_rcq(x.srq, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.srq_rcq);
}

static void
bad_rpma_srq_recv(void)
{
	struct ibv_wc wc;

	EXPECT_INT(rpma_srq_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x301)), INVAL);
	EXPECT_INT(rpma_srq_recv(x.srq, NULL, 8, 0, OS_CTX(0x302)), INVAL);
	EXPECT_INT(rpma_srq_recv(x.srq, NULL, 0, 8, OS_CTX(0x303)), INVAL);
	EXPECT_INT(rpma_srq_recv(NULL, NULL, 0, 0, OS_CTX(0x304)), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.srq_rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
}

BI_DESTRUCTOR_ROW(rpma_srq_delete, struct rpma_srq *, x.srq)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_srq_new),
	ROW(rpma_srq_get_rcq),
	ROW(rpma_srq_recv),
	ROW(rpma_srq_delete),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
