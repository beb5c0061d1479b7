/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_get_srq.c -- mirrors rpma_conn_cfg_get_srq(3): NULL
 * arguments are rejected without writing the output; otherwise NULL (no SRQ,
 * the default) or the pointer last recorded is reported, and once non-NULL
 * it never goes back to NULL.
 *
 * No real SRQ is needed: the configuration only stores the pointer, so two
 * static objects stand in for SRQs (SRQ_A and SRQ_B, from conn_cfg.h).
 */
#include <stddef.h>

#include "conn_cfg.h"

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_srq *srq;

	t_begin();

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL when cfg is NULL; *srq_ptr is not written */
	srq = SRQ_A;
	EXPECT_INT(rpma_conn_cfg_get_srq(NULL, &srq), RPMA_E_INVAL);
	EXPECT_TRUE(srq == SRQ_A);
	srq = NULL;
	EXPECT_INT(rpma_conn_cfg_get_srq(NULL, &srq), RPMA_E_INVAL);
	EXPECT_TRUE(srq == NULL);

	/* ERRORS: RPMA_E_INVAL when srq_ptr is NULL (or both are) */
	EXPECT_INT(rpma_conn_cfg_get_srq(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_get_srq(NULL, NULL), RPMA_E_INVAL);

	/* DESCRIPTION: never recorded -- NULL (overwrites a non-NULL value) */
	EXPECT_SRQ(SRQ_B, NULL);

	/* DESCRIPTION: the pointer recorded by the setter, exactly as given */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, SRQ_A), 0);
	EXPECT_SRQ(NULL, SRQ_A);

	/* reading has no side effect: a second read gives the same value */
	EXPECT_SRQ(NULL, SRQ_A);

	/* NOTES: once non-NULL, never NULL again (the setter refuses NULL) */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, NULL), RPMA_E_INVAL);
	EXPECT_SRQ(NULL, SRQ_A);

	/* the last successful call wins */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, SRQ_B), 0);
	EXPECT_SRQ(SRQ_A, SRQ_B);

	/* a failed call changes nothing in the configuration */
	EXPECT_INT(rpma_conn_cfg_get_srq(cfg, NULL), RPMA_E_INVAL);
	EXPECT_SRQ(NULL, SRQ_B);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
