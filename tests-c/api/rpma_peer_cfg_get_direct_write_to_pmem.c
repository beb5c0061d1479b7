/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_get_direct_write_to_pmem.c -- mirrors
 * rpma_peer_cfg_get_direct_write_to_pmem(3): INVAL for a NULL pcfg or
 * supported (output untouched), the default false, the last value set, and
 * the value carried by a descriptor.
 */
#include "rpma_test.h"

/* supported preset to reset, then read from pcfg: returns 0, gives want */
#define EXPECT_SUPPORTED(pcfg, reset, want) do { \
	supported = reset; \
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0); \
	EXPECT_INT(supported, want); \
} while (0)

int
main(void)
{
	t_begin();

	struct rpma_peer_cfg *pcfg = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);

	/* ERRORS: RPMA_E_INVAL; *supported is not written */
	bool supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	EXPECT_INT(supported, true);
	supported = false;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	EXPECT_INT(supported, false);
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(NULL, NULL), RPMA_E_INVAL);

	/* RETURN VALUE 0; a never-changed configuration reports false */
	EXPECT_SUPPORTED(pcfg, true, false);

	/* the value last set */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_SUPPORTED(pcfg, false, true);

	/* a failed call leaves *supported alone, also when pcfg is set */
	supported = false;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	EXPECT_INT(supported, false);

	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	EXPECT_SUPPORTED(pcfg, true, false);

	/* reading twice gives the same answer */
	EXPECT_SUPPORTED(pcfg, true, false);

	/* the value carried by a descriptor: 0 is false, any other byte true */
	static const unsigned char bytes[] = {0x00, 0x01, 0x02, 0x80, 0xFF};
	for (size_t i = 0; i < sizeof(bytes); i++) {
		struct rpma_peer_cfg *remote = NULL;
		t_note("descriptor byte 0x%02X", bytes[i]);
		EXPECT_INT(rpma_peer_cfg_from_descriptor(&bytes[i], 1, &remote), 0);
		EXPECT_SUPPORTED(remote, bytes[i] == 0, bytes[i] != 0);
		EXPECT_INT(rpma_peer_cfg_delete(&remote), 0);
	}

	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);

	return t_end();
}
