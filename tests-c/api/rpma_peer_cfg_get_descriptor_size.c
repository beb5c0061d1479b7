/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_get_descriptor_size.c -- mirrors
 * rpma_peer_cfg_get_descriptor_size(3): INVAL for a NULL pcfg or desc_size
 * (output untouched), and the size is always 1 whatever the contents.
 */
#include "rpma_test.h"

#define SENTINEL_SIZE ((size_t)0xDEADBEEF)

int
main(void)
{
	t_begin();

	struct rpma_peer_cfg *pcfg = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);

	/* ERRORS: RPMA_E_INVAL; *desc_size is not written */
	size_t desc_size = SENTINEL_SIZE;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(NULL, &desc_size), RPMA_E_INVAL);
	EXPECT_TRUE(desc_size == SENTINEL_SIZE);
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(pcfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(NULL, NULL), RPMA_E_INVAL);

	/* RETURN VALUE 0 and the size 1, for a default configuration */
	desc_size = SENTINEL_SIZE;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* the size does not depend on the contents */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	desc_size = SENTINEL_SIZE;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* nor on the size of the buffer a configuration was rebuilt from */
	const unsigned char longer[16] = {0x01, 0xFF, 0xFF, 0xFF};
	struct rpma_peer_cfg *remote = NULL;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(longer, sizeof(longer), &remote), 0);
	desc_size = SENTINEL_SIZE;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(remote, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* the reported size is what get_descriptor writes */
	unsigned char buf[4] = {0xAA, 0xAA, 0xAA, 0xAA};
	EXPECT_INT(rpma_peer_cfg_get_descriptor(remote, buf), 0);
	EXPECT_INT(buf[0], 0x01);
	EXPECT_INT(buf[desc_size], 0xAA);

	/* a failed call keeps a previously stored size */
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(NULL, &desc_size), RPMA_E_INVAL);
	EXPECT_INT(desc_size, 1);

	EXPECT_INT(rpma_peer_cfg_delete(&remote), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);

	return t_end();
}
