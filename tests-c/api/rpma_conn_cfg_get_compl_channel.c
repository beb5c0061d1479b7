/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_get_compl_channel.c -- mirrors
 * rpma_conn_cfg_get_compl_channel(3): NULL arguments are rejected without
 * writing the output; otherwise false (the default) or the last value set
 * is reported.
 */
#include <stddef.h>

#include "conn_cfg.h"

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	bool shared;

	t_begin();

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL when cfg is NULL; *shared is not written */
	shared = true;
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(NULL, &shared), RPMA_E_INVAL);
	EXPECT_INT(shared, true);
	shared = false;
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(NULL, &shared), RPMA_E_INVAL);
	EXPECT_INT(shared, false);

	/* ERRORS: RPMA_E_INVAL when shared is NULL (or both are) */
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(NULL, NULL), RPMA_E_INVAL);

	/* DESCRIPTION: never changed -- false */
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, true, false);

	/* DESCRIPTION: the value last passed to the setter */
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	/* reading has no side effect: a second read gives the same value */
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	/* a failed call changes nothing in the configuration */
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(cfg, NULL), RPMA_E_INVAL);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, false, true);

	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	GET_EXPECT(rpma_conn_cfg_get_compl_channel, cfg, shared, true, false);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return t_end();
}
