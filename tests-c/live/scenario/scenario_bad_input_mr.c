/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_mr.c -- bad input for the local and the remote memory
 * regions: one row of the table at the end per entry point; bad_<name>()
 * makes its calls. The live objects, the server and the rules every rejected
 * call is held to are those of badinput.h. (Once one program,
 * scenario_bad_input.c, split by object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- mr ---- */

static size_t
size_of(int (*getter)(const struct rpma_mr_local *, size_t *), const struct rpma_mr_local *mr)
{
	size_t size = 0;

	return getter(mr, &size) == 0 ? size : 0;
}

/* the size of a remote region, or 0 */
static size_t
remote_size(const struct rpma_mr_remote *r)
{
	size_t size = 0;

	return rpma_mr_remote_get_size(r, &size) == 0 ? size : 0;
}


/*
 * rpma_mr_reg() of size bytes from a page that a hole follows: its return
 * value (INT_MIN when it failed but wrote its output); a region it made
 * is deregistered
 */
static int
reg_past(size_t size)
{
	struct rpma_mr_local *m = BI_SENT(struct rpma_mr_local *);
	unsigned char *page;
	int ret;

	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return INT_MAX;
	memset(page, 0, 4096);
	(void) munmap(page + 4096, 4096);
	ret = rpma_mr_reg(x.peer, page, size, RPMA_MR_USAGE_READ_SRC, &m);
	if (ret == 0)
		(void) rpma_mr_dereg(&m);
	else if (m != BI_SENT(struct rpma_mr_local *))
		ret = INT_MIN;
	(void) munmap(page, 4096);
	return ret;
}

static void
bad_rpma_mr_reg(void)
{
	struct rpma_mr_local *m = BI_SENT(struct rpma_mr_local *);
	struct rpma_peer *p = x.peer;
	void *buf = x.lbuf + L_DST;
	const int use = RPMA_MR_USAGE_READ_SRC;

	EXPECT_INT(rpma_mr_reg(NULL, buf, 4096, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, NULL, 4096, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 0, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use, NULL), INVAL);
	EXPECT_INT(rpma_mr_reg(NULL, NULL, 0, 0, NULL), INVAL);
	t_note("usage: none, and bits outside the defined ones");
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 0, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 1 << 8, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use | (1 << 8), &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use | (1 << 30), &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, INT_MIN, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, ~0, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 0x1FF, &m), INVAL);
	EXPECT_TRUE(m == BI_SENT(struct rpma_mr_local *));
	t_note("sizes past the memory: the device refuses them");
	EXPECT_INT(reg_past(8192), PROVIDER);
	EXPECT_INT(reg_past(SIZE_MAX), PROVIDER);
	EXPECT_INT(reg_past((size_t)1 << 40), PROVIDER);
	t_note("the peer still registers");
	m = NULL;
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use, &m), 0);
	EXPECT_INT(rpma_mr_dereg(&m), 0);
}

BI_DESTRUCTOR_ROW(rpma_mr_dereg, struct rpma_mr_local *, x.mr)

static void
bad_rpma_mr_get_ptr(void)
{
	void *p = NULL;

	BI_GETTER_NULLS(rpma_mr_get_ptr, x.mr, void *, BI_SENT(void *));
	EXPECT_INT(rpma_mr_get_ptr(x.mr, &p), 0);
	EXPECT_TRUE(p == x.lbuf);
}

static void
bad_rpma_mr_get_size(void)
{
	BI_GETTER_NULLS(rpma_mr_get_size, x.mr, size_t, BI_SENT_SIZE);
	EXPECT_INT(size_of(rpma_mr_get_size, x.mr), LSIZE);
}

static void
bad_rpma_mr_get_descriptor_size(void)
{
	BI_GETTER_NULLS(rpma_mr_get_descriptor_size, x.mr, size_t, BI_SENT_SIZE);
	EXPECT_INT(size_of(rpma_mr_get_descriptor_size, x.mr), DESC);
}

static void
bad_rpma_mr_get_descriptor(void)
{
	unsigned char d[32];

	memset(d, BI_SENT_BYTE, sizeof(d));
	EXPECT_INT(rpma_mr_get_descriptor(NULL, d), INVAL);
	EXPECT_TRUE(bi_untouched(d, sizeof(d)));
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, NULL), INVAL);
	EXPECT_INT(rpma_mr_get_descriptor(NULL, NULL), INVAL);
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, d), 0);
	EXPECT_TRUE(bi_untouched(d + DESC, sizeof(d) - DESC));
}

/* in a child: a descriptor size of SIZE_MAX (only 21 bytes are there) */
static unsigned char huge_desc[DESC];

static void
remote_huge_size(long long *out, int n)
{
	struct rpma_mr_remote *r = NULL;
	size_t size = 0;

	(void) n;
	out[0] = rpma_mr_remote_from_descriptor(huge_desc, SIZE_MAX, &r);
	out[1] = r != NULL && rpma_mr_remote_get_size(r, &size) == 0 ? (long long)size : -1;
	(void) rpma_mr_remote_delete(&r);
}

static void
bad_rpma_mr_remote_from_descriptor(void)
{
	struct rpma_mr_remote *r = BI_SENT(struct rpma_mr_remote *);
	unsigned char d[32], d0[DESC];
	long long out[2] = {0, 0};

	memset(d, 0, sizeof(d));
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, d), 0);
	memcpy(d0, d, DESC);
	d0[DESC - 1] = 0; /* no usage */
	EXPECT_INT(rpma_mr_remote_from_descriptor(NULL, DESC, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, DESC, NULL), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(NULL, 0, NULL), INVAL);
	t_note("too short, no usage");
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, DESC - 1, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, 1, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, 0, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d0, DESC, &r), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_mr_remote *));
	t_note("longer than a descriptor: the rest is not read");
	r = NULL;
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, sizeof(d), &r), 0);
	EXPECT_INT(remote_size(r), LSIZE);
	EXPECT_INT(rpma_mr_remote_delete(&r), 0);
	memcpy(huge_desc, d, DESC);
	EXPECT_INT(t_in_child(remote_huge_size, out, 2), 0);
	EXPECT_INT(out[0], 0);
	EXPECT_INT(out[1], LSIZE);
}

static void
bad_rpma_mr_remote_get_size(void)
{
	BI_GETTER_NULLS(rpma_mr_remote_get_size, x.r[R_FULL], size_t, BI_SENT_SIZE);
	EXPECT_INT(remote_size(x.r[R_FULL]), RSIZE);
}

static void
bad_rpma_mr_remote_get_flush_type(void)
{
	BI_GETTER_NULLS(rpma_mr_remote_get_flush_type, x.r[R_FULL], int, BI_SENT_INT);
	EXPECT_INT(BI_GET_INT(rpma_mr_remote_get_flush_type, x.r[R_FULL]),
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	EXPECT_INT(BI_GET_INT(rpma_mr_remote_get_flush_type, x.r[R_PLAIN]), 0);
}

static void
bad_rpma_mr_remote_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_mr_remote_delete, struct rpma_mr_remote *);
	EXPECT_TRUE(os_remotes_delete(R_N, x.r));
}

/*
 * rpma_mr_advise() of x.mr must give the code librpma makes of the device's
 * own answer for the same range (asked through a region with the access
 * flags librpma gives L_USAGE)
 */
static int
advise_want(size_t offset, size_t len, int advice, uint32_t flags)
{
	return t_advise_code(t_device_advise(x.lbuf, LSIZE, IBV_ACCESS_LOCAL_WRITE, offset, len,
			advice, flags));
}

#define EXPECT_ADVISE(offset, len, advice, flags) \
	EXPECT_INT(rpma_mr_advise(x.mr, offset, len, advice, flags), \
			advise_want(offset, len, advice, flags))

static void
bad_rpma_mr_advise(void)
{
	const int pw = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	const uint32_t fl = IBV_ADVISE_MR_FLAG_FLUSH;

	/* (a NULL region is not tried: the C library dereferences it) */
	if (t_device_odp()) {
		t_note("the device offers ODP: no advice (t_device_odp() in rpma_live.h says why)");
		return;
	}
	t_note("the device judges each call (older rxe refuses every advice)");
	EXPECT_ADVISE(0, LSIZE, 99, fl);
	EXPECT_ADVISE(0, LSIZE, -1, fl);
	EXPECT_ADVISE(0, LSIZE, pw, 1u << 7);
	EXPECT_ADVISE(0, LSIZE, pw, 0x80000000u);
	EXPECT_ADVISE(0, LSIZE, pw, ~0u);
	EXPECT_ADVISE(LSIZE, 8, pw, fl);
	EXPECT_ADVISE(SIZE_MAX, 8, pw, fl);
	EXPECT_ADVISE(0, 0, pw, fl);
	EXPECT_ADVISE(0, SIZE_MAX, pw, fl);
	EXPECT_INT(size_of(rpma_mr_get_size, x.mr), LSIZE);
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_mr_reg),
	ROW(rpma_mr_get_ptr),
	ROW(rpma_mr_get_size),
	ROW(rpma_mr_get_descriptor_size),
	ROW(rpma_mr_get_descriptor),
	ROW(rpma_mr_remote_from_descriptor),
	ROW(rpma_mr_remote_get_size),
	ROW(rpma_mr_remote_get_flush_type),
	ROW(rpma_mr_advise),
	ROW(rpma_mr_remote_delete),
	ROW(rpma_mr_dereg),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
