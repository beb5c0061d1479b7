/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_new.c -- mirrors rpma_peer_cfg_new(3): INVAL for a NULL
 * pcfg_ptr, NOMEM when the allocation fails (output untouched), the default
 * (direct write to PMem unsupported) and independent objects.
 */
#include "rpma_test.h"

static char sentinel_obj;
#define SENTINEL ((struct rpma_peer_cfg *)&sentinel_obj)

/*
 * the NOMEM case: every allocation fails (see t_malloc_fail()), in a child
 * so a crash cannot take the other checks with it
 */
enum { NOMEM_RET, NOMEM_USED, NOMEM_UNTOUCHED, NOMEM_N };

static void
nomem_body(long long *out, int n)
{
	struct rpma_peer_cfg *pcfg = SENTINEL;

	(void) n;
	t_malloc_fail(T_MALLOC_FAIL_ALL);
	out[NOMEM_RET] = rpma_peer_cfg_new(&pcfg);
	t_malloc_fail(0);
	out[NOMEM_USED] = t_malloc_failed() > 0;
	out[NOMEM_UNTOUCHED] = pcfg == SENTINEL;
}

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL pcfg_ptr */
	EXPECT_INT(rpma_peer_cfg_new(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and *pcfg_ptr points to a new configuration */
	struct rpma_peer_cfg *a = SENTINEL;
	EXPECT_INT(rpma_peer_cfg_new(&a), 0);
	EXPECT_TRUE(a != NULL && a != SENTINEL);

	/* DESCRIPTION: the default is "direct write to PMem unsupported" */
	bool supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(a, &supported), 0);
	EXPECT_INT(supported, false);
	unsigned char desc[2] = {0xAA, 0xAA};
	EXPECT_INT(rpma_peer_cfg_get_descriptor(a, desc), 0);
	EXPECT_INT(desc[0], 0x00);
	EXPECT_INT(desc[1], 0xAA);
	size_t desc_size = 0;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(a, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* every call makes a separate object */
	struct rpma_peer_cfg *b = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&b), 0);
	EXPECT_TRUE(b != NULL && b != a);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(a, true), 0);
	supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(b, &supported), 0);
	EXPECT_INT(supported, false);
	supported = false;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(a, &supported), 0);
	EXPECT_INT(supported, true);

	/* ERRORS: RPMA_E_NOMEM, *pcfg_ptr keeps its value (see nomem_body()) */
	long long res[NOMEM_N] = {0, 0, 0};
	EXPECT_INT(t_in_child(nomem_body, res, NOMEM_N), 0);
	EXPECT_TRUE(res[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(res[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(res[NOMEM_UNTOUCHED] /* pcfg_ptr untouched after NOMEM */);

	/* released with rpma_peer_cfg_delete(3) */
	EXPECT_INT(rpma_peer_cfg_delete(&a), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&b), 0);
	EXPECT_TRUE(a == NULL && b == NULL);

	return t_end();
}
