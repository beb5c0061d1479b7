/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_remote_get_size.c -- mirrors rpma_mr_remote_get_size(3) on rxe0:
 * INVAL for a NULL mr or size with *size untouched and nothing logged; the
 * size field of the descriptor, little endian, whatever its value (0 and
 * 2^64-1 included, nothing is validated); the registered size after a
 * round trip of a local region's descriptor.
 */
#include "mr.h"

#define BUF_SIZE 8192

/* decode a hand-made descriptor with the given size field, read it back */
static void
check_size(uint64_t size_field)
{
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = NULL;
	size_t size = SENTINEL_SIZE;

	mr_make_desc(desc, 0x10000, size_field, 0x42, RPMA_MR_USAGE_WRITE_DST);
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_get_size(remote, &size), 0);
	EXPECT_TRUE(size == size_field);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
}

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = mr_remote_made(desc, RPMA_MR_USAGE_WRITE_DST);
	size_t size;

	/* ERRORS: INVAL for a NULL mr or size; *size untouched */
	t_note("NULL arguments");
	MR_EXPECT_SIZE_GETTER_NULLS(rpma_mr_remote_get_size, remote, size);

	/* RETURN VALUE: 0 and the size field, on every call */
	t_note("the size field");
	MR_EXPECT_GOT_TWICE(rpma_mr_remote_get_size, remote, size, SENTINEL_SIZE, 4096);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);

	/* any value, unchecked */
	t_note("any size");
	check_size(0);
	check_size(1);
	check_size(21);
	check_size(4095);
	check_size(0x100000000ULL);
	check_size(0x0102030405060708ULL);
	check_size(0x8000000000000000ULL);
	check_size(UINT64_MAX);

	/* the registered size travels through the descriptor */
	t_note("round trip");
	static const size_t sizes[] = {1, 100, 4096, 4097, BUF_SIZE - 3};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct rpma_mr_local *mr = NULL;
		EXPECT_INT(rpma_mr_reg(peer, buf + 3, sizes[i], RPMA_MR_USAGE_READ_SRC, &mr), 0);
		EXPECT_INT(rpma_mr_get_descriptor(mr, desc), 0);
		remote = NULL;
		EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
		size = 0;
		EXPECT_INT(rpma_mr_remote_get_size(remote, &size), 0);
		EXPECT_INT(size, sizes[i]);
		EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
		EXPECT_INT(rpma_mr_dereg(&mr), 0);
	}

	return mr_end(peer, buf);
}
