/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_advise.c -- mirrors rpma_mr_advise(3) on rxe0. The rxe provider
 * does not implement ibv_advise_mr(), so every call ends in RPMA_E_NOSUPP
 * with one ERROR message naming ibv_advise_mr(): the usual prefetch advice
 * with IBV_ADVISE_MR_FLAG_FLUSH, the other advice values, a range out of the
 * region's bounds, a zero length, unknown advice and flags. The region is
 * unaffected. (A NULL mr is not tried: the C library dereferences it.)
 */
#include "mr.h"

#define BUF_SIZE 8192

static struct rpma_mr_local *mr;

/* the advice must fail with NOSUPP and one ERROR message */
static void
expect_nosupp(size_t offset, size_t len, int advice, uint32_t flags)
{
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_advise(mr, offset, len, advice, flags), RPMA_E_NOSUPP);
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_INT(mr_logs[0].level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_TRUE(mr_logs[0].where_ok);
	EXPECT_STR(mr_logs[0].function, "rpma_mr_advise");
	/* the rest of the message is the system's text for the errno */
	EXPECT_TRUE(mr_starts_with(mr_logs[0].message, "ibv_advise_mr() failed: "));
}

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);

	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);

	/* what applications use for a file-backed region (FSDAX) */
	t_note("PREFETCH_WRITE with FLAG_FLUSH");
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_nosupp(4096, 4096, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);

	t_note("other advice and flags");
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, 0);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, IBV_ADVISE_MR_FLAG_FLUSH);

	/* librpma checks no range itself; the provider decides */
	t_note("range out of bounds");
	expect_nosupp(1 << 20, 4096, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_nosupp(BUF_SIZE - 1, 2, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_nosupp(0, BUF_SIZE + 1, IBV_ADVISE_MR_ADVICE_PREFETCH, 0);
	t_note("length 0");
	expect_nosupp(0, 0, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	t_note("unknown advice and flags");
	expect_nosupp(0, BUF_SIZE, 99, 0);
	expect_nosupp(0, BUF_SIZE, -1, 0);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, 0x80);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, UINT32_MAX);

	/* the ERROR message passes the default threshold too */
	t_note("threshold WARNING");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	expect_nosupp(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);

	/* other usages: the same answer */
	t_note("a region with usage READ_SRC");
	struct rpma_mr_local *ro = NULL;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &ro), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_advise(ro, 0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			IBV_ADVISE_MR_FLAG_FLUSH), RPMA_E_NOSUPP);
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_INT(rpma_mr_dereg(&ro), 0);

	/* the region is unaffected */
	t_note("the region afterwards");
	size_t size = 0;
	void *ptr = NULL;
	EXPECT_INT(rpma_mr_get_size(mr, &size), 0);
	EXPECT_INT(size, BUF_SIZE);
	EXPECT_INT(rpma_mr_get_ptr(mr, &ptr), 0);
	EXPECT_TRUE(ptr == buf);
	EXPECT_INT(mr_desc_usage(mr), MR_USAGE_ALL);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	return mr_end(peer, buf);
}
