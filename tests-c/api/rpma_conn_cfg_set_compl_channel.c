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
	int timeout_ms;
	struct rpma_srq *srq;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg is NULL, whatever the value */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, true), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), RPMA_E_INVAL);

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* DESCRIPTION: a new configuration holds false (one channel per CQ) */
	GET_INTO(rpma_conn_cfg_get_compl_channel, cfg, shared, true);
	EXPECT_INT(shared, false);

	/* RETURN VALUE: 0, and true is stored */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_INTO(rpma_conn_cfg_get_compl_channel, cfg, shared, false);
	EXPECT_INT(shared, true);

	/* setting the same value again is fine */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_INTO(rpma_conn_cfg_get_compl_channel, cfg, shared, false);
	EXPECT_INT(shared, true);

	/* a failed call (NULL cfg) leaves a live configuration alone */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), RPMA_E_INVAL);
	GET_INTO(rpma_conn_cfg_get_compl_channel, cfg, shared, false);
	EXPECT_INT(shared, true);

	/* back to false */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	GET_INTO(rpma_conn_cfg_get_compl_channel, cfg, shared, true);
	EXPECT_INT(shared, false);

	/* only the channel setting changes: the other values keep their defaults */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_INTO(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -1);
	EXPECT_INT(timeout_ms, 1000);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_cq_size, cfg), 10);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rcq_size, cfg), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 10);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 10);
	GET_INTO(rpma_conn_cfg_get_srq, cfg, srq, (struct rpma_srq *)&timeout_ms);
	EXPECT_TRUE(srq == NULL);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
