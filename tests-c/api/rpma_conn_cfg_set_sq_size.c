/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_set_sq_size.c -- mirrors rpma_conn_cfg_set_sq_size(3):
 * only a NULL cfg is rejected; every uint32_t value (0, INT_MAX + 1,
 * UINT32_MAX included) is stored unchanged, and no other value of the
 * configuration moves.
 */
#include <limits.h>
#include <stddef.h>

#include "conn_cfg.h"

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout_ms;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg is NULL, whatever the value */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(NULL, 5), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(NULL, 0), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(NULL, UINT32_MAX), RPMA_E_INVAL);

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* a new configuration holds 10 */
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 10);

	/* RETURN VALUE: 0, and the value is stored as given */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 64), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 64);

	/* DESCRIPTION: 0 is accepted */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 0);

	/* DESCRIPTION: no limit is checked -- 1, INT_MAX, INT_MAX + 1, UINT32_MAX */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 1), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 1);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, INT_MAX), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), INT_MAX);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, (uint32_t)INT_MAX + 1), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), (uint32_t)INT_MAX + 1);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, UINT32_MAX), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), UINT32_MAX);

	/* a later call replaces the value */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 4096), 0);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 33), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 33);

	/* only this size changes: the other values keep their defaults */
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_cq_size, cfg), 10);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rcq_size, cfg), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 10);
	GET_INTO(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -1);
	EXPECT_INT(timeout_ms, 1000);

	/* a failed call (NULL cfg) leaves a live configuration alone */
	EXPECT_INT(rpma_conn_cfg_set_sq_size(NULL, 7), RPMA_E_INVAL);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 33);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
