/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_advise.c -- mirrors rpma_mr_advise(3) on rxe0. librpma hands the
 * range to ibv_advise_mr() unchecked and maps the device's answer, so each
 * call is first put to the device through a region of the test's own
 * (t_device_advise()): librpma must return 0 where the device accepted the
 * advice and otherwise the code the page gives for the errno, with one
 * ERROR message naming ibv_advise_mr(). The calls: the usual prefetch
 * advice with IBV_ADVISE_MR_FLAG_FLUSH, the other advice values, a range
 * out of the region's bounds, a zero length, unknown advice and flags.
 * Debian 12's and 13's rxe refuse every advice with EOPNOTSUPP. A device
 * with On-Demand Paging, such as the rxe of Linux 7.2, gets no advice: it
 * may oops the kernel there (t_device_odp()). The region is unaffected. (A
 * NULL mr is not tried: the C library dereferences it.)
 */
#include "mr.h"

#define BUF_SIZE 8192

static struct rpma_mr_local *mr;

/* the access flags librpma registers MR_USAGE_ALL with, bar the flush rights */
#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

/*
 * rpma_mr_advise() of region m over buf must give what the device answers
 * for the same range of a region with access flags access: 0 without a
 * message, or the mapped code with one ERROR message
 */
static void
expect_device_on(struct rpma_mr_local *m, char *buf, int access, size_t offset, size_t len,
		int advice, uint32_t flags)
{
	int want = t_advise_code(
			t_device_advise(buf, BUF_SIZE, access, offset, len, advice, flags));

	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_advise(m, offset, len, advice, flags), want);
	if (want == 0) {
		EXPECT_INT(mr_nlogs, 0);
		return;
	}
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_INT(mr_logs[0].level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_TRUE(mr_logs[0].where_ok);
	EXPECT_STR(mr_logs[0].function, "rpma_mr_advise");
	/* the rest of the message is the system's text for the errno */
	EXPECT_TRUE(mr_starts_with(mr_logs[0].message, "ibv_advise_mr() failed: "));
}

static char *buf;

static void
expect_device(size_t offset, size_t len, int advice, uint32_t flags)
{
	expect_device_on(mr, buf, ACCESS_ALL, offset, len, advice, flags);
}

/* every advice of the page, on mr and on a region of another usage */
static void
advise_all(struct rpma_peer *peer)
{
	/* what applications use for a file-backed region (FSDAX) */
	t_note("PREFETCH_WRITE with FLAG_FLUSH");
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_device(4096, 4096, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);

	t_note("other advice and flags");
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, 0);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, IBV_ADVISE_MR_FLAG_FLUSH);

	/* librpma checks no range itself; the provider decides */
	t_note("range out of bounds");
	expect_device(1 << 20, 4096, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_device(BUF_SIZE - 1, 2, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_device(0, BUF_SIZE + 1, IBV_ADVISE_MR_ADVICE_PREFETCH, 0);
	t_note("length 0");
	expect_device(0, 0, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	t_note("unknown advice and flags");
	expect_device(0, BUF_SIZE, 99, 0);
	expect_device(0, BUF_SIZE, -1, 0);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, 0x80);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, UINT32_MAX);

	/* the ERROR message passes the default threshold too */
	t_note("threshold WARNING");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	expect_device(0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);

	/* a region without local write: the device may refuse a write prefetch */
	t_note("a region with usage READ_SRC");
	struct rpma_mr_local *ro = NULL;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &ro), 0);
	expect_device_on(ro, buf, IBV_ACCESS_REMOTE_READ, 0, BUF_SIZE,
			IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH);
	expect_device_on(ro, buf, IBV_ACCESS_REMOTE_READ, 0, BUF_SIZE,
			IBV_ADVISE_MR_ADVICE_PREFETCH, 0);
	EXPECT_INT(rpma_mr_dereg(&ro), 0);

}

int
main(void)
{
	struct rpma_peer *peer;
	buf = mr_begin(&peer, BUF_SIZE);

	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);
	if (t_device_odp())
		t_note("the device offers ODP: no advice (t_device_odp() in rpma_live.h says why)");
	else
		advise_all(peer);

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
