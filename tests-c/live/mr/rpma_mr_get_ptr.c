/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_get_ptr.c -- mirrors rpma_mr_get_ptr(3) on rxe0: INVAL for a NULL
 * mr or ptr with *ptr untouched and nothing logged; the pointer given to
 * rpma_mr_reg(3) comes back unchanged (aligned, unaligned, heap memory,
 * several regions of one buffer), and equals the address field of the
 * region's descriptor.
 */
#include "mr.h"

#define BUF_SIZE 8192

static struct rpma_peer *peer;

/* register [ptr, ptr + size), check that rpma_mr_get_ptr() gives ptr back */
static void
check_ptr(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;
	void *got = SENTINEL_PTR;
	unsigned char desc[MR_DESC_SIZE];

	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_get_ptr(mr, &got), 0);
	EXPECT_TRUE(got == ptr /* equal */);
	EXPECT_INT(mr_nlogs, 0);
	/* the same pointer travels in the descriptor */
	EXPECT_INT(rpma_mr_get_descriptor(mr, desc), 0);
	EXPECT_TRUE(mr_get_le64(desc + MR_DESC_ADDR) == (uint64_t)(uintptr_t)got /* equal */);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
}

int
main(void)
{
	char *buf = mr_begin(&peer, BUF_SIZE);
	struct rpma_mr_local *mr = NULL;
	void *ptr;

	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr), 0);

	/* ERRORS: INVAL for a NULL mr or ptr; *ptr untouched */
	t_note("NULL arguments");
	mr_nlogs = 0;
	ptr = SENTINEL_PTR;
	EXPECT_INT(rpma_mr_get_ptr(NULL, &ptr), RPMA_E_INVAL);
	EXPECT_TRUE(ptr == SENTINEL_PTR);
	ptr = NULL;
	EXPECT_INT(rpma_mr_get_ptr(NULL, &ptr), RPMA_E_INVAL);
	EXPECT_TRUE(ptr == NULL);
	EXPECT_INT(rpma_mr_get_ptr(mr, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_get_ptr(NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(mr_nlogs, 0);

	/* RETURN VALUE: 0 and the registered pointer, on every call */
	t_note("the registered pointer");
	ptr = SENTINEL_PTR;
	EXPECT_INT(rpma_mr_get_ptr(mr, &ptr), 0);
	EXPECT_TRUE(ptr == buf /* equal */);
	ptr = NULL;
	EXPECT_INT(rpma_mr_get_ptr(mr, &ptr), 0);
	EXPECT_TRUE(ptr == buf /* equal */);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	t_note("each usage");
	for (int i = 0; i < 8; i++)
		check_ptr(buf, BUF_SIZE, mr_usages[i].bit);

	t_note("unaligned pointers");
	check_ptr(buf + 1, 100, MR_USAGE_ALL);
	check_ptr(buf + 4095, 2, RPMA_MR_USAGE_WRITE_DST);
	check_ptr(buf + BUF_SIZE - 1, 1, RPMA_MR_USAGE_RECV);

	t_note("heap memory");
	char *heap = malloc(37);
	if (heap == NULL)
		return 2;
	check_ptr(heap, 37, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
	free(heap);

	/* regions overlapping each other each keep their own pointer */
	t_note("overlapping regions");
	struct rpma_mr_local *a = NULL, *b = NULL;
	void *pa = NULL, *pb = NULL;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &a), 0);
	EXPECT_INT(rpma_mr_reg(peer, buf + 64, 64, MR_USAGE_ALL, &b), 0);
	EXPECT_INT(rpma_mr_get_ptr(a, &pa), 0);
	EXPECT_INT(rpma_mr_get_ptr(b, &pb), 0);
	EXPECT_TRUE(pa == buf /* equal */);
	EXPECT_TRUE(pb == buf + 64 /* equal */);
	EXPECT_INT(rpma_mr_dereg(&a), 0);
	pb = NULL;
	EXPECT_INT(rpma_mr_get_ptr(b, &pb), 0);
	EXPECT_TRUE(pb == buf + 64 /* equal */);
	EXPECT_INT(rpma_mr_dereg(&b), 0);

	return mr_end(peer, buf);
}
