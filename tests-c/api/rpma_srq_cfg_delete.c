/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_delete.c -- mirrors rpma_srq_cfg_delete(3): INVAL for a NULL
 * cfg_ptr, a no-op returning 0 for a pointer to NULL, and freeing plus
 * clearing the caller's pointer.
 */
#include "rpma_test.h"

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg_ptr itself is NULL */
	EXPECT_INT(rpma_srq_cfg_delete(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 when *cfg_ptr is NULL; nothing happens */
	struct rpma_srq_cfg *cfg = NULL;
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* a fresh configuration: freed, pointer set to NULL */
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* releasing the same variable twice in a row is harmless */
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* a changed configuration */
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(cfg, UINT32_MAX), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* several live objects, each deleted through its own variable */
	struct rpma_srq_cfg *a = NULL, *b = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&a), 0);
	EXPECT_INT(rpma_srq_cfg_new(&b), 0);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(b, 33), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&a), 0);
	EXPECT_TRUE(a == NULL && b != NULL);
	uint32_t rq_size = 0;
	EXPECT_INT(rpma_srq_cfg_get_rq_size(b, &rq_size), 0);
	EXPECT_INT(rq_size, 33);
	EXPECT_INT(rpma_srq_cfg_delete(&b), 0);
	EXPECT_TRUE(b == NULL);

	return t_end();
}
