/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_get_rq_size.c -- mirrors rpma_conn_cfg_get_rq_size(3):
 * NULL arguments are rejected without writing the output; otherwise the
 * default (10) or the last value set is reported exactly, even far beyond
 * what a device can provide.
 */
#include <limits.h>
#include <stddef.h>

#include "rpma_test.h"

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	uint32_t rq_size;

	t_begin();

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL when cfg is NULL; *rq_size is not written */
	rq_size = 12345;
	EXPECT_INT(rpma_conn_cfg_get_rq_size(NULL, &rq_size), RPMA_E_INVAL);
	EXPECT_INT(rq_size, 12345);

	/* ERRORS: RPMA_E_INVAL when rq_size is NULL (or both are) */
	EXPECT_INT(rpma_conn_cfg_get_rq_size(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_get_rq_size(NULL, NULL), RPMA_E_INVAL);

	/* DESCRIPTION: never changed -- 10 */
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 10);

	/* DESCRIPTION: the value last passed to the setter */
	EXPECT_INT(rpma_conn_cfg_set_rq_size(cfg, 256), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 256);

	/* reading has no side effect: a second read gives the same value */
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 256);

	/* reported exactly as set: 0 and UINT32_MAX */
	EXPECT_INT(rpma_conn_cfg_set_rq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rq_size(cfg, UINT32_MAX), 0);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), UINT32_MAX);

	/* a failed call changes nothing in the configuration */
	EXPECT_INT(rpma_conn_cfg_get_rq_size(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), UINT32_MAX);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
