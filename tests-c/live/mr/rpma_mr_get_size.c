/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_get_size.c -- mirrors rpma_mr_get_size(3) on rxe0: INVAL for a
 * NULL mr or size with *size untouched and nothing logged; the size given to
 * rpma_mr_reg(3) comes back unchanged (whole pages, odd sizes, sizes that
 * cross page boundaries, one byte), and equals the size field of the
 * region's descriptor.
 */
#include "mr.h"

#define BUF_SIZE (4 * 4096)

static struct rpma_peer *peer;

/* register [ptr, ptr + size), check that rpma_mr_get_size() gives size back */
static void
check_size(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;
	size_t got = SENTINEL_SIZE;
	unsigned char desc[MR_DESC_SIZE];

	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_get_size(mr, &got), 0);
	EXPECT_INT(got, size);
	EXPECT_INT(mr_nlogs, 0);
	/* the same size travels in the descriptor */
	EXPECT_INT(rpma_mr_get_descriptor(mr, desc), 0);
	EXPECT_INT(mr_get_le64(desc + MR_DESC_SIZE_FIELD), size);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
}

int
main(void)
{
	char *buf = mr_begin(&peer, BUF_SIZE);
	struct rpma_mr_local *mr = NULL;
	size_t size;

	EXPECT_INT(rpma_mr_reg(peer, buf, 8192, RPMA_MR_USAGE_READ_SRC, &mr), 0);

	/* ERRORS: INVAL for a NULL mr or size; *size untouched */
	t_note("NULL arguments");
	MR_EXPECT_SIZE_GETTER_NULLS(rpma_mr_get_size, mr, size);

	/* RETURN VALUE: 0 and the registered size, on every call */
	t_note("the registered size");
	MR_EXPECT_GOT_TWICE(rpma_mr_get_size, mr, size, SENTINEL_SIZE, 8192);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	t_note("each usage");
	for (int i = 0; i < 8; i++)
		check_size(buf, 4096, mr_usages[i].bit);

	t_note("various sizes");
	check_size(buf, 1, MR_USAGE_ALL);
	check_size(buf, 100, MR_USAGE_ALL);
	check_size(buf, 4095, MR_USAGE_ALL);
	check_size(buf, 4097, MR_USAGE_ALL);
	check_size(buf, BUF_SIZE, MR_USAGE_ALL);
	check_size(buf + 4000, 200, RPMA_MR_USAGE_WRITE_DST);
	check_size(buf + 1, BUF_SIZE - 1, RPMA_MR_USAGE_READ_SRC);
	check_size(buf + BUF_SIZE - 1, 1, RPMA_MR_USAGE_RECV);

	/* regions of one buffer each keep their own size */
	t_note("overlapping regions");
	struct rpma_mr_local *a = NULL, *b = NULL;
	size_t sa = 0, sb = 0;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &a), 0);
	EXPECT_INT(rpma_mr_reg(peer, buf + 64, 64, MR_USAGE_ALL, &b), 0);
	EXPECT_INT(rpma_mr_get_size(a, &sa), 0);
	EXPECT_INT(rpma_mr_get_size(b, &sb), 0);
	EXPECT_INT(sa, BUF_SIZE);
	EXPECT_INT(sb, 64);
	EXPECT_INT(rpma_mr_dereg(&a), 0);
	sb = 0;
	EXPECT_INT(rpma_mr_get_size(b, &sb), 0);
	EXPECT_INT(sb, 64);
	EXPECT_INT(rpma_mr_dereg(&b), 0);

	return mr_end(peer, buf);
}
