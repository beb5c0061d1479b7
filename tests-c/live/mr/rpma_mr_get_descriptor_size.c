/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_get_descriptor_size.c -- mirrors rpma_mr_get_descriptor_size(3)
 * on rxe0: INVAL for a NULL mr or desc_size with *desc_size untouched and
 * nothing logged; 21 for every region whatever its address, size and usage,
 * which is exactly what rpma_mr_get_descriptor(3) writes.
 */
#include "mr.h"

#define BUF_SIZE 8192

static struct rpma_peer *peer;

static void
check_size(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;
	size_t desc_size = SENTINEL_SIZE;

	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	EXPECT_INT(desc_size, MR_DESC_SIZE);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
}

int
main(void)
{
	char *buf = mr_begin(&peer, BUF_SIZE);
	struct rpma_mr_local *mr = NULL;
	size_t desc_size;

	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);

	/* ERRORS: INVAL for a NULL mr or desc_size; *desc_size untouched */
	t_note("NULL arguments");
	MR_EXPECT_SIZE_GETTER_NULLS(rpma_mr_get_descriptor_size, mr, desc_size);

	/* RETURN VALUE: 0 and 21 */
	t_note("a registered region");
	desc_size = SENTINEL_SIZE;
	EXPECT_INT(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	EXPECT_INT(desc_size, MR_DESC_SIZE);
	EXPECT_INT(mr_nlogs, 0);

	/* rpma_mr_get_descriptor(3) writes exactly that many bytes */
	t_note("what rpma_mr_get_descriptor writes");
	unsigned char out[64];
	memset(out, 0xA5, sizeof(out));
	EXPECT_INT(rpma_mr_get_descriptor(mr, out), 0);
	int last = -1;
	for (int i = 0; i < (int)sizeof(out); i++)
		if (out[i] != 0xA5)
			last = i;
	EXPECT_TRUE(last < (int)desc_size);
	EXPECT_INT(out[desc_size - 1], MR_USAGE_ALL);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	/* the same for any usage, address and size */
	t_note("each usage");
	for (int i = 0; i < 8; i++)
		check_size(buf, BUF_SIZE, mr_usages[i].bit);
	t_note("other addresses and sizes");
	check_size(buf + 1, 1, RPMA_MR_USAGE_READ_SRC);
	check_size(buf + 100, 4000, RPMA_MR_USAGE_WRITE_DST);
	check_size(buf, 4097, RPMA_MR_USAGE_RECV);

	return mr_end(peer, buf);
}
