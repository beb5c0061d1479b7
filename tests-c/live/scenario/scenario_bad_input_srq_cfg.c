/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_srq_cfg.c -- bad input for the SRQ configuration: one
 * row of the table at the end per entry point; bad_<name>() makes its calls.
 * The live objects, the server and the rules every rejected call is held to
 * are those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- srq_cfg ---- */

static void
bad_rpma_srq_cfg_new(void)
{
	EXPECT_INT(rpma_srq_cfg_new(NULL), INVAL);
}

/* the rows of a size's setter (NULL refused, the value kept) and getter */
#define BI_SIZE_ROWS(setter, getter, value) \
static void \
bad_##setter(void) \
{ \
	EXPECT_INT(setter(NULL, 5), INVAL); \
	EXPECT_INT(setter(NULL, UINT32_MAX), INVAL); \
	EXPECT_INT(T_GET_U32(getter, x.scfg), value); \
} \
static void \
bad_##getter(void) \
{ \
	BI_GETTER_NULLS(getter, x.scfg, uint32_t, BI_SENT_U32); \
	EXPECT_INT(T_GET_U32(getter, x.scfg), value); \
}

BI_SIZE_ROWS(rpma_srq_cfg_set_rq_size, rpma_srq_cfg_get_rq_size, S_RQ)
BI_SIZE_ROWS(rpma_srq_cfg_set_rcq_size, rpma_srq_cfg_get_rcq_size, S_RCQ)

BI_DESTRUCTOR_ROW(rpma_srq_cfg_delete, struct rpma_srq_cfg *, x.scfg)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_srq_cfg_new),
	ROW(rpma_srq_cfg_set_rq_size),
	ROW(rpma_srq_cfg_get_rq_size),
	ROW(rpma_srq_cfg_set_rcq_size),
	ROW(rpma_srq_cfg_get_rcq_size),
	ROW(rpma_srq_cfg_delete),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
