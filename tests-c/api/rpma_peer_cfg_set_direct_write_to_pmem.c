/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_set_direct_write_to_pmem.c -- mirrors
 * rpma_peer_cfg_set_direct_write_to_pmem(3): INVAL for a NULL pcfg, the new
 * value replaces the old one and shows in the getter and the descriptor,
 * the default is false, objects are independent.
 */
#include "rpma_test.h"

static int
get(const struct rpma_peer_cfg *pcfg)
{
	bool supported = false;
	int ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported);

	return ret != 0 ? ret : (int)supported;
}

static int
desc_byte(const struct rpma_peer_cfg *pcfg)
{
	unsigned char desc = 0xAA;
	int ret = rpma_peer_cfg_get_descriptor(pcfg, &desc);

	return ret != 0 ? ret : (int)desc;
}

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL pcfg, whatever the value */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), RPMA_E_INVAL);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, false), RPMA_E_INVAL);

	struct rpma_peer_cfg *pcfg = NULL, *other = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);
	EXPECT_INT(rpma_peer_cfg_new(&other), 0);

	/* NOTES: a new configuration starts with false */
	EXPECT_INT(get(pcfg), 0);
	EXPECT_INT(desc_byte(pcfg), 0x00);

	/* RETURN VALUE 0; true declares support */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_INT(get(pcfg), 1);
	EXPECT_INT(desc_byte(pcfg), 0x01);
	/* only that configuration changed */
	EXPECT_INT(get(other), 0);

	/* setting the same value again */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_INT(get(pcfg), 1);

	/* false replaces true */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	EXPECT_INT(get(pcfg), 0);
	EXPECT_INT(desc_byte(pcfg), 0x00);

	/* false on a false configuration */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	EXPECT_INT(get(pcfg), 0);

	/* and back to true */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_INT(get(pcfg), 1);

	/* a failed call on NULL changes no configuration */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, false), RPMA_E_INVAL);
	EXPECT_INT(get(pcfg), 1);
	EXPECT_INT(get(other), 0);

	/* a configuration rebuilt from a descriptor can be changed too */
	struct rpma_peer_cfg *remote = NULL;
	const unsigned char desc[1] = {0x01};
	EXPECT_INT(rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &remote), 0);
	EXPECT_INT(get(remote), 1);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(remote, false), 0);
	EXPECT_INT(get(remote), 0);
	EXPECT_INT(desc_byte(remote), 0x00);

	EXPECT_INT(rpma_peer_cfg_delete(&remote), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&other), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);

	return t_end();
}
