/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_delete.c -- mirrors rpma_peer_cfg_delete(3): INVAL for a NULL
 * pcfg_ptr, a no-op returning 0 for a pointer to NULL, and freeing plus
 * clearing the caller's pointer for configurations from rpma_peer_cfg_new(3)
 * and rpma_peer_cfg_from_descriptor(3).
 */
#include "rpma_test.h"

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL when pcfg_ptr itself is NULL */
	EXPECT_INT(rpma_peer_cfg_delete(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 when *pcfg_ptr is NULL; nothing happens */
	struct rpma_peer_cfg *pcfg = NULL;
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(pcfg == NULL);

	/* a configuration from rpma_peer_cfg_new(3): freed, pointer set to NULL */
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);
	EXPECT_TRUE(pcfg != NULL);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(pcfg == NULL);

	/* deleting the same variable again is harmless */
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(pcfg == NULL);

	/* a changed configuration */
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(pcfg == NULL);

	/* a configuration from rpma_peer_cfg_from_descriptor(3) */
	const unsigned char desc[1] = {0x01};
	EXPECT_INT(rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &pcfg), 0);
	EXPECT_TRUE(pcfg != NULL);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	EXPECT_TRUE(pcfg == NULL);

	/* several live objects, each deleted through its own variable */
	struct rpma_peer_cfg *a = NULL, *b = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&a), 0);
	EXPECT_INT(rpma_peer_cfg_new(&b), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&a), 0);
	EXPECT_TRUE(a == NULL && b != NULL);
	bool supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(b, &supported), 0);
	EXPECT_INT(supported, false);
	EXPECT_INT(rpma_peer_cfg_delete(&b), 0);
	EXPECT_TRUE(b == NULL);

	return t_end();
}
