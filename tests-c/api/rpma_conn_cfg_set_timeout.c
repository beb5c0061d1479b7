/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_set_timeout.c -- mirrors rpma_conn_cfg_set_timeout(3): a NULL
 * cfg and a negative timeout are rejected and leave the stored value alone;
 * every value from 0 to INT_MAX is stored as given.
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

	/* ERRORS: RPMA_E_INVAL when cfg is NULL (whatever the value) */
	EXPECT_INT(rpma_conn_cfg_set_timeout(NULL, 500), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(NULL, 0), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(NULL, -1), RPMA_E_INVAL);

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* a new configuration holds RPMA_DEFAULT_TIMEOUT_MS */
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, RPMA_DEFAULT_TIMEOUT_MS);

	/* ERRORS: RPMA_E_INVAL for a negative timeout; the old value stays */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, -1), RPMA_E_INVAL);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, 1000);

	/* DESCRIPTION: 0 is accepted and stored as is */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, 0);

	/* DESCRIPTION: the upper bound INT_MAX is accepted */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, INT_MAX), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, INT_MAX);

	/* an ordinary value, then failures that must not change it */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 1), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, -1), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, -1000), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, INT_MIN), RPMA_E_INVAL);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, 1);

	/* a later call replaces the value */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 2500), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, RPMA_DEFAULT_TIMEOUT_MS), 0);
	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -7, 1000);

	/* only the timeout changes: the other values keep their defaults */
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 42), 0);
	expect_default_sizes(cfg, NULL);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
