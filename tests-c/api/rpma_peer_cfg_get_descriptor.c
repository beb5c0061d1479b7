/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_get_descriptor.c -- mirrors rpma_peer_cfg_get_descriptor(3):
 * INVAL for a NULL pcfg or desc (buffer untouched), exactly one byte
 * written, 0x01 / 0x00, normalised whatever byte the configuration came
 * from, no alignment needed, and the round trip through
 * rpma_peer_cfg_from_descriptor(3).
 */
#include <string.h>

#include "rpma_test.h"

static void
expect_untouched_except(const unsigned char *buf, size_t len, size_t idx)
{
	int others = 1;

	for (size_t i = 0; i < len; i++)
		if (i != idx && buf[i] != 0xAA)
			others = 0;
	EXPECT_TRUE(others /* no other byte of the buffer written */);
}

/* the descriptor of pcfg written into buf (0xAA before): buf[0] is want,
 * no other byte written (a macro, so the checks name pcfg and buf) */
#define EXPECT_DESC(pcfg, want) do { \
	memset(buf, 0xAA, sizeof(buf)); \
	EXPECT_INT(rpma_peer_cfg_get_descriptor(pcfg, buf), 0); \
	EXPECT_INT(buf[0], want); \
	expect_untouched_except(buf, sizeof(buf), 0); \
} while (0)

int
main(void)
{
	t_begin();

	unsigned char buf[8];
	struct rpma_peer_cfg *pcfg = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&pcfg), 0);

	/* ERRORS: RPMA_E_INVAL; nothing written to desc */
	memset(buf, 0xAA, sizeof(buf));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, buf), RPMA_E_INVAL);
	expect_untouched_except(buf, sizeof(buf), sizeof(buf));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(pcfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, NULL), RPMA_E_INVAL);

	/* RETURN VALUE 0; default configuration: 0x00, one byte only */
	EXPECT_DESC(pcfg, 0x00);

	/* declared supported: 0x01 */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	EXPECT_DESC(pcfg, 0x01);

	/* a failed call leaves the buffer alone also for a supported config */
	memset(buf, 0xAA, sizeof(buf));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, buf), RPMA_E_INVAL);
	expect_untouched_except(buf, sizeof(buf), sizeof(buf));

	/* no alignment needed: an odd address */
	memset(buf, 0xAA, sizeof(buf));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(pcfg, buf + 3), 0);
	EXPECT_INT(buf[3], 0x01);
	expect_untouched_except(buf, sizeof(buf), 3);

	/* back to unsupported: 0x00 */
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	EXPECT_DESC(pcfg, 0x00);

	/* the size the descriptor occupies is the reported size */
	size_t desc_size = 0;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* NOTES: only 0x00 or 0x01 is written, whatever byte a config came from */
	static const unsigned char in[] = {0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF};
	for (size_t i = 0; i < sizeof(in); i++) {
		struct rpma_peer_cfg *remote = NULL;
		t_note("configuration from descriptor byte 0x%02X", in[i]);
		EXPECT_INT(rpma_peer_cfg_from_descriptor(&in[i], 1, &remote), 0);
		EXPECT_DESC(remote, in[i] != 0 ? 0x01 : 0x00);
		EXPECT_INT(rpma_peer_cfg_delete(&remote), 0);
	}

	/* round trip: get_descriptor -> from_descriptor keeps the value */
	for (int v = 0; v <= 1; v++) {
		struct rpma_peer_cfg *remote = NULL;
		bool supported = !v;
		t_note("round trip of %s", v ? "true" : "false");
		EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, v), 0);
		EXPECT_INT(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size), 0);
		EXPECT_INT(rpma_peer_cfg_get_descriptor(pcfg, buf), 0);
		EXPECT_INT(rpma_peer_cfg_from_descriptor(buf, desc_size, &remote), 0);
		EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(remote, &supported), 0);
		EXPECT_INT(supported, v);
		EXPECT_INT(rpma_peer_cfg_delete(&remote), 0);
	}

	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);

	return t_end();
}
