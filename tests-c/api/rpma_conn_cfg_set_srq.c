/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_set_srq.c -- mirrors rpma_conn_cfg_set_srq(3): a NULL cfg
 * and (following upstream's implementation, not its documentation) a NULL
 * srq are rejected and change nothing, so an SRQ cannot be unset; a later
 * call replaces the SRQ; the configuration neither touches nor owns it.
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
	bool shared;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg is NULL */
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, SRQ_A), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, NULL), RPMA_E_INVAL);

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* a new configuration holds no SRQ */
	EXPECT_SRQ(SRQ_B, NULL);

	/* ERRORS/NOTES: RPMA_E_INVAL when srq is NULL; still no SRQ */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, NULL), RPMA_E_INVAL);
	EXPECT_SRQ(SRQ_B, NULL);

	/* RETURN VALUE: 0, and the pointer is stored as given */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, SRQ_A), 0);
	EXPECT_SRQ(NULL, SRQ_A);

	/* NOTES: an SRQ cannot be unset -- NULL is rejected, SRQ_A stays */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, NULL), RPMA_E_INVAL);
	EXPECT_SRQ(NULL, SRQ_A);

	/* a failed call (NULL cfg) leaves a live configuration alone */
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, SRQ_B), RPMA_E_INVAL);
	EXPECT_SRQ(NULL, SRQ_A);

	/* DESCRIPTION: a later call replaces the SRQ recorded earlier */
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, SRQ_B), 0);
	EXPECT_SRQ(NULL, SRQ_B);
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, SRQ_B), 0);
	EXPECT_SRQ(NULL, SRQ_B);

	/* only the SRQ changes: the other values keep their defaults */
	expect_default_timeout(cfg);
	expect_default_sizes(cfg, NULL);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, true, false);

	/* DESCRIPTION: the SRQ is neither checked nor owned: deleting the
	 * configuration leaves it as it was */
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);
	EXPECT_INT(fake_srq_a, 0x0a0a);
	EXPECT_INT(fake_srq_b, 0x0b0b);

	return t_end();
}
