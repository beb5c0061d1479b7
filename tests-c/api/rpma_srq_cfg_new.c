/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_new.c -- mirrors rpma_srq_cfg_new(3): INVAL for a NULL
 * cfg_ptr, the defaults 20 / 20 (not the documented 100), separate objects,
 * and NOMEM, which stores NULL in *cfg_ptr as upstream's implementation does.
 */
#include "rpma_test.h"

static char sentinel_obj;
#define SENTINEL ((struct rpma_srq_cfg *)&sentinel_obj)

/*
 * the NOMEM case: every allocation fails (see t_malloc_fail()), in a child
 * so a crash cannot take the other checks with it
 */
enum { NOMEM_RET, NOMEM_USED, NOMEM_CFG_NULL, NOMEM_N };

static void
nomem_body(long long *out, int n)
{
	struct rpma_srq_cfg *cfg = SENTINEL;

	(void) n;
	t_malloc_fail(T_MALLOC_FAIL_ALL);
	out[NOMEM_RET] = rpma_srq_cfg_new(&cfg);
	t_malloc_fail(0);
	out[NOMEM_USED] = t_malloc_failed() > 0;
	out[NOMEM_CFG_NULL] = cfg == NULL;
}

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL cfg_ptr */
	EXPECT_INT(rpma_srq_cfg_new(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and *cfg_ptr points to a new configuration */
	struct rpma_srq_cfg *a = SENTINEL;
	EXPECT_INT(rpma_srq_cfg_new(&a), 0);
	EXPECT_TRUE(a != NULL && a != SENTINEL);

	/* DESCRIPTION / NOTES: the defaults are 20 and 20 */
	uint32_t rq_size = 0, rcq_size = 0;
	EXPECT_INT(rpma_srq_cfg_get_rq_size(a, &rq_size), 0);
	EXPECT_INT(rq_size, 20);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(a, &rcq_size), 0);
	EXPECT_INT(rcq_size, 20);

	/* every call makes a separate object */
	struct rpma_srq_cfg *b = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&b), 0);
	EXPECT_TRUE(b != NULL && b != a);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(a, 7), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(a, 9), 0);
	EXPECT_INT(rpma_srq_cfg_get_rq_size(b, &rq_size), 0);
	EXPECT_INT(rq_size, 20);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(b, &rcq_size), 0);
	EXPECT_INT(rcq_size, 20);

	/* ERRORS: RPMA_E_NOMEM, and *cfg_ptr is set to NULL (see nomem_body()) */
	long long res[NOMEM_N] = {0, 0, 0};
	EXPECT_INT(t_in_child(nomem_body, res, NOMEM_N), 0);
	EXPECT_TRUE(res[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(res[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(res[NOMEM_CFG_NULL] /* cfg_ptr set to NULL after NOMEM */);

	EXPECT_INT(rpma_srq_cfg_delete(&a), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&b), 0);
	EXPECT_TRUE(a == NULL && b == NULL);

	return t_end();
}
