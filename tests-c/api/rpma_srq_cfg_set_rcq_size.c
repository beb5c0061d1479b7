/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_set_rcq_size.c -- mirrors rpma_srq_cfg_set_rcq_size(3): INVAL for a
 * NULL cfg, every value from 0 to UINT32_MAX stored as given, the new value
 * replaces the old one, the other size and other objects stay as they were.
 */
#include "rpma_test.h"

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL cfg, whatever the value */
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, 0), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, 20), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, UINT32_MAX), RPMA_E_INVAL);

	struct rpma_srq_cfg *cfg = NULL, *other = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_srq_cfg_new(&other), 0);

	/* NOTES: the value of a new configuration is 20 */
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 20);

	/* RETURN VALUE 0; values are stored as given, no range check */
	static const uint32_t values[] = {
		0, 1, 2, 19, 20, 21, 100, 0x7FFFFFFF, 0x80000000, UINT32_MAX - 1, UINT32_MAX
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		t_note("value %u", (unsigned)values[i]);
		EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, values[i]), 0);
		EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), values[i]);
		/* the other size and the other object are unaffected */
		EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rq_size, cfg), 20);
		EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, other), 20);
	}

	/* the boundaries 0 and UINT32_MAX, one after the other */
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, UINT32_MAX), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), UINT32_MAX);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 0);

	/* back to the default value */
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 20), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 20);

	/* a failed call changes no configuration */
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 5), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, 6), RPMA_E_INVAL);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 5);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, other), 20);

	/* changing the other size leaves this one alone */
	EXPECT_INT(rpma_srq_cfg_set_rq_size(cfg, 77), 0);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, cfg), 5);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rq_size, cfg), 77);

	EXPECT_INT(rpma_srq_cfg_delete(&other), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);

	return t_end();
}
