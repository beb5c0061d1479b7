/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_cfg.h -- shared by the rpma_conn_cfg_* tests
 */
#ifndef CONN_CFG_H
#define CONN_CFG_H

#include "rpma_test.h"

/*
 * GET_INTO(getter, obj, var, reset): var set to reset (so a value left
 * unwritten shows), then the check that getter(obj, &var) returns 0. A
 * macro, so the check names getter, obj and var; the caller checks var.
 */
#define GET_INTO(getter, obj, var, reset) do { \
	var = reset; \
	EXPECT_INT(getter(obj, &var), 0); \
} while (0)

#endif /* CONN_CFG_H */
