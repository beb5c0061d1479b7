/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_remote_get_flush_type.c -- mirrors
 * rpma_mr_remote_get_flush_type(3) on rxe0: INVAL for a NULL mr or
 * flush_type with *flush_type untouched and nothing logged; the result is
 * the usage byte of the descriptor masked with
 * RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
 * (0x30) for every one of the 255 accepted usage bytes, and after a round
 * trip of local regions registered with each flush usage.
 */
#include "mr.h"

#define BUF_SIZE 8192

/* the flush type of a hand-made descriptor with the given usage byte */
static int
flush_type_of(uint8_t usage)
{
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = NULL;
	int flush_type = SENTINEL_INT;

	mr_make_desc(desc, 0x10000, 4096, 0x42, usage);
	if (rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote) != 0)
		return -1;
	if (rpma_mr_remote_get_flush_type(remote, &flush_type) != 0)
		flush_type = -2;
	if (rpma_mr_remote_delete(&remote) != 0)
		flush_type = -3;
	return flush_type;
}

/* register a local region with usage, decode its descriptor, get the type */
static int
round_trip(struct rpma_peer *peer, void *buf, int usage)
{
	struct rpma_mr_local *mr = NULL;
	struct rpma_mr_remote *remote;
	int flush_type = SENTINEL_INT;

	if (rpma_mr_reg(peer, buf, BUF_SIZE, usage, &mr) != 0)
		return -1;
	remote = mr_remote_of(mr);
	if (remote == NULL || rpma_mr_remote_get_flush_type(remote, &flush_type) != 0)
		flush_type = -2;
	if (rpma_mr_remote_delete(&remote) != 0 || rpma_mr_dereg(&mr) != 0)
		flush_type = -3;
	return flush_type;
}

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = mr_remote_made(desc, MR_USAGE_ALL);
	int flush_type;

	/* ERRORS: INVAL for a NULL mr or flush_type; *flush_type untouched */
	t_note("NULL arguments");
	mr_nlogs = 0;
	flush_type = SENTINEL_INT;
	EXPECT_INT(rpma_mr_remote_get_flush_type(NULL, &flush_type), RPMA_E_INVAL);
	EXPECT_INT(flush_type, SENTINEL_INT);
	flush_type = 0;
	EXPECT_INT(rpma_mr_remote_get_flush_type(NULL, &flush_type), RPMA_E_INVAL);
	EXPECT_INT(flush_type, 0);
	EXPECT_INT(rpma_mr_remote_get_flush_type(remote, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_remote_get_flush_type(NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(mr_nlogs, 0);

	/* RETURN VALUE: 0 and the flush bits, on every call */
	t_note("usage 0xFF");
	MR_EXPECT_GOT_TWICE(rpma_mr_remote_get_flush_type, remote, flush_type, SENTINEL_INT,
			MR_FLUSH_BITS);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);

	/* the RPMA_MR_USAGE_FLUSH_TYPE_* bits, not enum rpma_flush_type */
	t_note("single usage bits");
	for (int i = 0; i < 8; i++) {
		t_note("usage %s", mr_usages[i].name);
		EXPECT_INT(flush_type_of((uint8_t)mr_usages[i].bit), mr_usages[i].bit & MR_FLUSH_BITS);
	}
	t_note("combinations");
	EXPECT_INT(flush_type_of(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY), 0x10);
	EXPECT_INT(flush_type_of(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT), 0x20);
	EXPECT_INT(flush_type_of(MR_FLUSH_BITS), 0x30);
	EXPECT_INT(flush_type_of(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY), 0x10);
	EXPECT_INT(flush_type_of(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT), 0x20);
	EXPECT_INT(flush_type_of(0xCF), 0);
	EXPECT_INT(flush_type_of(0x3F), 0x30);
	t_note("usage bytes 0x01..0xFF");
	int wrong = 0;
	for (int usage = 1; usage <= 0xFF; usage++)
		if (flush_type_of((uint8_t)usage) != (usage & 0x30))
			wrong++;
	EXPECT_INT(wrong /* usage bytes with another result */, 0);

	/* the usage of a local region travels through its descriptor */
	t_note("round trip");
	for (int i = 0; i < 8; i++) {
		t_note("round trip, usage %s", mr_usages[i].name);
		EXPECT_INT(round_trip(peer, buf, mr_usages[i].bit), mr_usages[i].bit & MR_FLUSH_BITS);
	}
	EXPECT_INT(round_trip(peer, buf, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY), 0x10);
	EXPECT_INT(round_trip(peer, buf, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT), 0x20);
	EXPECT_INT(round_trip(peer, buf, RPMA_MR_USAGE_WRITE_DST | MR_FLUSH_BITS), 0x30);
	EXPECT_INT(round_trip(peer, buf, MR_USAGE_ALL), 0x30);
	EXPECT_INT(round_trip(peer, buf, MR_USAGE_ALL & ~MR_FLUSH_BITS), 0);

	return mr_end(peer, buf);
}
