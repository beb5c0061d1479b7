/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_new.c -- mirrors rpma_conn_cfg_new(3): a NULL cfg_ptr, an
 * allocation failure (*cfg_ptr becomes NULL, as upstream's implementation
 * does), the default values of a new configuration and the independence of
 * two configurations.
 */
#include "conn_cfg.h"

static int sentinel_object;
#define SENTINEL ((struct rpma_conn_cfg *)&sentinel_object)

/* reads every value of cfg and compares it with the documented default */
static void
expect_defaults(const struct rpma_conn_cfg *cfg)
{
	int timeout_ms = -1;
	bool shared = true;
	struct rpma_srq *srq = (struct rpma_srq *)&sentinel_object;

	EXPECT_INT(rpma_conn_cfg_get_timeout(cfg, &timeout_ms), 0);
	EXPECT_INT(timeout_ms, 1000);
	EXPECT_INT(timeout_ms, RPMA_DEFAULT_TIMEOUT_MS);
	expect_default_sizes(cfg, NULL);
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	EXPECT_INT(shared, false);
	EXPECT_INT(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	EXPECT_TRUE(srq == NULL);
}

/*
 * ERRORS: RPMA_E_NOMEM when the object cannot be allocated; as upstream's
 * implementation does (not its documentation), *cfg_ptr becomes NULL. The
 * next allocation fails (see t_malloc_fail()), in a child so a crash cannot
 * take the other checks with it.
 */
enum { NOMEM_RET, NOMEM_USED, NOMEM_CFG_NULL, NOMEM_N };

static void
nomem_body(long long *out, int n)
{
	struct rpma_conn_cfg *cfg = SENTINEL;

	(void) n;
	t_malloc_fail(1);
	out[NOMEM_RET] = rpma_conn_cfg_new(&cfg);
	t_malloc_fail(0);
	out[NOMEM_USED] = t_malloc_failed() > 0;
	out[NOMEM_CFG_NULL] = cfg == NULL;
}

int
main(void)
{
	struct rpma_conn_cfg *cfg = SENTINEL;
	struct rpma_conn_cfg *other = NULL;
	uint32_t size = 0;
	long long nomem[NOMEM_N] = {0, 0, 0};

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg_ptr is NULL */
	EXPECT_INT(rpma_conn_cfg_new(NULL), RPMA_E_INVAL);

	/* ERRORS: RPMA_E_NOMEM, and *cfg_ptr becomes NULL (see nomem_body()) */
	EXPECT_INT(t_in_child(nomem_body, nomem, NOMEM_N), 0);
	EXPECT_TRUE(nomem[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(nomem[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(nomem[NOMEM_CFG_NULL] /* cfg_ptr set to NULL after NOMEM */);

	/* RETURN VALUE: 0, and *cfg_ptr points to a new object */
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_TRUE(cfg != NULL);
	EXPECT_TRUE(cfg != SENTINEL);

	/* DESCRIPTION: a new configuration holds the default values */
	expect_defaults(cfg);

	/* DESCRIPTION: each call gives a distinct, independent object */
	EXPECT_INT(rpma_conn_cfg_new(&other), 0);
	EXPECT_TRUE(other != NULL);
	EXPECT_TRUE(other != cfg);
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 77), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 5), 0);
	EXPECT_INT(rpma_conn_cfg_get_cq_size(other, &size), 0);
	EXPECT_INT(size, 10);
	expect_defaults(other);
	EXPECT_INT(rpma_conn_cfg_get_cq_size(cfg, &size), 0);
	EXPECT_INT(size, 77);

	/* the object is released with rpma_conn_cfg_delete(3) */
	EXPECT_INT(rpma_conn_cfg_delete(&other), 0);
	EXPECT_TRUE(other == NULL);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	return t_end();
}
