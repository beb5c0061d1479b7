/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_get_timeout.c -- mirrors rpma_conn_cfg_get_timeout(3): NULL
 * arguments are rejected without writing the output; otherwise the default
 * (1000) or the last accepted value is reported.
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

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL when cfg is NULL; *timeout_ms is not written */
	timeout_ms = -12345;
	EXPECT_INT(rpma_conn_cfg_get_timeout(NULL, &timeout_ms), RPMA_E_INVAL);
	EXPECT_INT(timeout_ms, -12345);

	/* ERRORS: RPMA_E_INVAL when timeout_ms is NULL (or both are) */
	EXPECT_INT(rpma_conn_cfg_get_timeout(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_get_timeout(NULL, NULL), RPMA_E_INVAL);

	/* DESCRIPTION: never changed -- 1000 (RPMA_DEFAULT_TIMEOUT_MS) */
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, 1000);
	EXPECT_INT(timeout_ms, RPMA_DEFAULT_TIMEOUT_MS);

	/* DESCRIPTION: the value last accepted by the setter */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 2500), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, 2500);

	/* reading has no side effect: a second read gives the same value */
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, 2500);

	/* a rejected value is not reported */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, -5), RPMA_E_INVAL);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, 2500);

	/* boundaries are reported exactly */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, INT_MAX), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -12345, INT_MAX);

	/* a failed call on a live cfg does not write either */
	timeout_ms = -12345;
	EXPECT_INT(rpma_conn_cfg_get_timeout(NULL, &timeout_ms), RPMA_E_INVAL);
	EXPECT_INT(timeout_ms, -12345);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
