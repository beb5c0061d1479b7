/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_new.c -- mirrors rpma_conn_cfg_new(3): a NULL cfg_ptr, an
 * allocation failure (*cfg_ptr becomes NULL, as upstream's implementation
 * does), the default values of a new configuration and the independence of
 * two configurations.
 */
#include <stddef.h>

#include "rpma_test.h"

/*
 * RPMA_E_NOMEM: this program provides malloc() itself, so it serves the
 * library too; when armed, the next call fails once. Everything else goes
 * to glibc's allocator. (Under valgrind pass
 * --soname-synonyms=somalloc=nouserintercepts, or valgrind's own allocator
 * replaces this one and no failure can be injected.)
 */
extern void *__libc_malloc(size_t size);
static volatile int fail_next_malloc;

void *
malloc(size_t size)
{
	if (fail_next_malloc) {
		fail_next_malloc = 0;
		return NULL;
	}
	return __libc_malloc(size);
}

static int sentinel_object;
#define SENTINEL ((struct rpma_conn_cfg *)&sentinel_object)

/* reads every value of cfg and compares it with the documented default */
static void
expect_defaults(const struct rpma_conn_cfg *cfg)
{
	int timeout_ms = -1;
	uint32_t size = 12345;
	bool shared = true;
	struct rpma_srq *srq = (struct rpma_srq *)&sentinel_object;

	EXPECT_INT(rpma_conn_cfg_get_timeout(cfg, &timeout_ms), 0);
	EXPECT_INT(timeout_ms, 1000);
	EXPECT_INT(timeout_ms, RPMA_DEFAULT_TIMEOUT_MS);
	size = 12345;
	EXPECT_INT(rpma_conn_cfg_get_cq_size(cfg, &size), 0);
	EXPECT_INT(size, 10);
	size = 12345;
	EXPECT_INT(rpma_conn_cfg_get_rcq_size(cfg, &size), 0);
	EXPECT_INT(size, 0);
	size = 12345;
	EXPECT_INT(rpma_conn_cfg_get_sq_size(cfg, &size), 0);
	EXPECT_INT(size, 10);
	size = 12345;
	EXPECT_INT(rpma_conn_cfg_get_rq_size(cfg, &size), 0);
	EXPECT_INT(size, 10);
	EXPECT_INT(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	EXPECT_INT(shared, false);
	EXPECT_INT(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	EXPECT_TRUE(srq == NULL);
}

int
main(void)
{
	struct rpma_conn_cfg *cfg = SENTINEL;
	struct rpma_conn_cfg *other = NULL;
	uint32_t size = 0;
	int ret, injected_failure_used;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg_ptr is NULL */
	EXPECT_INT(rpma_conn_cfg_new(NULL), RPMA_E_INVAL);

	/*
	 * ERRORS: RPMA_E_NOMEM when the object cannot be allocated; as upstream's
	 * implementation does (not its documentation), *cfg_ptr becomes NULL
	 */
	fail_next_malloc = 1;
	ret = rpma_conn_cfg_new(&cfg);
	injected_failure_used = fail_next_malloc == 0;
	fail_next_malloc = 0;
	EXPECT_TRUE(injected_failure_used);
	EXPECT_INT(ret, RPMA_E_NOMEM);
	EXPECT_TRUE(cfg == NULL);
	if (ret == 0)
		(void) rpma_conn_cfg_delete(&cfg);
	cfg = SENTINEL;

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
