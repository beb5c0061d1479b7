/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_set_compl_channel.c -- mirrors
 * rpma_conn_cfg_set_compl_channel(3): only a NULL cfg is rejected; true and
 * false are stored, a new configuration holds false, and no other value of
 * the configuration moves.
 */
#include <stddef.h>

#include "conn_cfg.h"

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	bool shared;
	struct rpma_srq *srq;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg is NULL, whatever the value */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, true), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), RPMA_E_INVAL);

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* DESCRIPTION: a new configuration holds false (one channel per CQ) */
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, true, false);

	/* RETURN VALUE: 0, and true is stored */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	/* setting the same value again is fine */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	/* a failed call (NULL cfg) leaves a live configuration alone */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), RPMA_E_INVAL);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	/* back to false */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, true, false);

	/* only the channel setting changes: the other values keep their defaults */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	expect_default_timeout(cfg);
	expect_default_sizes(cfg, NULL);
	EXPECT_SRQ((struct rpma_srq *)&cfg, NULL);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
