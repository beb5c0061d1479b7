/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_get_rcq_size.c -- mirrors rpma_srq_cfg_get_rcq_size(3): INVAL for a
 * NULL cfg or rcq_size (output untouched), the default 20 (not the documented
 * 100), and the value last set, including 0 and UINT32_MAX.
 */
#include "rpma_test.h"

#define SENTINEL_U32 0xDEADBEEFu

int
main(void)
{
	t_begin();

	struct rpma_srq_cfg *cfg = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL; *rcq_size is not written */
	uint32_t v = SENTINEL_U32;
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(NULL, &v), RPMA_E_INVAL);
	EXPECT_INT(v, SENTINEL_U32);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(NULL, NULL), RPMA_E_INVAL);

	/* RETURN VALUE 0; a never-changed configuration reports 20 */
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 20);

	/* the value last set, including the boundaries */
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 0);

	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, UINT32_MAX), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), UINT32_MAX);

	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 1234), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 1234);

	/* a failed call leaves *rcq_size alone */
	v = 0;
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(NULL, &v), RPMA_E_INVAL);
	EXPECT_INT(v, 0);

	/* reading does not change the value */
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 1234);

	/* the value belongs to this size only */
	uint32_t w = SENTINEL_U32;
	EXPECT_INT(rpma_srq_cfg_get_rq_size(cfg, &w), 0);
	EXPECT_INT(w, 20);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 1234);

	/* another configuration has its own value */
	struct rpma_srq_cfg *other = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&other), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, other), 20);

	EXPECT_INT(rpma_srq_cfg_delete(&other), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);

	return t_end();
}
