/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_reg.c -- mirrors rpma_mr_reg(3) on rxe0: INVAL for NULL peer /
 * ptr / mr_ptr, size 0, usage 0 and usage bits above 0xFF (nothing logged);
 * every single usage bit, all of them together and every one of the 255
 * combinations registers; the usage reaches the descriptor; the access
 * rights each usage asks for (seen through a read-only mapping); PROVIDER
 * (with an ERROR message) for memory the kernel cannot pin; NOMEM; *mr_ptr
 * untouched on every failure; nothing logged on success.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "mr.h"

#define BUF_SIZE 8192

static struct rpma_peer *peer;
static char *buf;

/* rpma_mr_reg() must fail with want, leave *mr_ptr alone and log nothing */
static void
expect_reg_fails(const char *what, struct rpma_peer *p, void *ptr, size_t size, int usage,
		int want)
{
	struct rpma_mr_local *mr = SENTINEL_LOCAL;

	t_note("%s", what);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_reg(p, ptr, size, usage, &mr), want);
	EXPECT_TRUE(mr == SENTINEL_LOCAL);
	EXPECT_INT(mr_nlogs, 0);
}

/* register, check the object and its usage byte, deregister */
static void
expect_reg_ok(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = SENTINEL_LOCAL;

	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	EXPECT_TRUE(mr != NULL && mr != SENTINEL_LOCAL);
	EXPECT_INT(mr_nlogs /* nothing logged on success */, 0);
	if (mr == NULL || mr == SENTINEL_LOCAL)
		return;
	EXPECT_INT(mr_desc_usage(mr), usage);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_TRUE(mr == NULL);
}

/* a provider failure: PROVIDER, one ERROR message, *mr_ptr untouched */
static void
expect_reg_provider(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = SENTINEL_LOCAL;

	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), RPMA_E_PROVIDER);
	EXPECT_TRUE(mr == SENTINEL_LOCAL);
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_INT(mr_logs[0].level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_TRUE(mr_logs[0].where_ok);
	EXPECT_TRUE(mr_starts_with(mr_logs[0].message, "ibv_reg_mr() failed: "));
	EXPECT_TRUE(mr_logs[0].message[strlen(mr_logs[0].message) - 1] == '\n');
}

/* NOMEM: every allocation fails (see mr_expect_nomem()) */
static void
nomem_body(long long *out, int n)
{
	struct rpma_mr_local *mr = SENTINEL_LOCAL;

	(void) n;
	MR_NOMEM_RUN(out, rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr),
			mr == SENTINEL_LOCAL);
}

int
main(void)
{
	buf = mr_begin(&peer, BUF_SIZE);

	/* ERRORS: INVAL for NULL peer, ptr or mr_ptr and for size 0 */
	expect_reg_fails("NULL peer", NULL, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, RPMA_E_INVAL);
	expect_reg_fails("NULL ptr", peer, NULL, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, RPMA_E_INVAL);
	expect_reg_fails("size 0", peer, buf, 0, RPMA_MR_USAGE_READ_SRC, RPMA_E_INVAL);
	expect_reg_fails("all of them", NULL, NULL, 0, RPMA_MR_USAGE_READ_SRC, RPMA_E_INVAL);
	expect_reg_fails("NULL peer, usage 0", NULL, buf, BUF_SIZE, 0, RPMA_E_INVAL);
	t_note("NULL mr_ptr");
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_reg(NULL, NULL, 0, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(mr_nlogs, 0);

	/* ERRORS: INVAL for usage 0 and for any bit outside the eight usages */
	expect_reg_fails("usage 0", peer, buf, BUF_SIZE, 0, RPMA_E_INVAL);
	expect_reg_fails("usage 0x100", peer, buf, BUF_SIZE, 0x100, RPMA_E_INVAL);
	expect_reg_fails("usage 0x1FF", peer, buf, BUF_SIZE, 0x1FF, RPMA_E_INVAL);
	expect_reg_fails("usage READ_SRC | 0x200", peer, buf, BUF_SIZE,
			RPMA_MR_USAGE_READ_SRC | 0x200, RPMA_E_INVAL);
	expect_reg_fails("usage 0x40000000", peer, buf, BUF_SIZE, 0x40000000, RPMA_E_INVAL);
	expect_reg_fails("usage INT_MIN", peer, buf, BUF_SIZE, INT_MIN, RPMA_E_INVAL);
	expect_reg_fails("usage -1", peer, buf, BUF_SIZE, -1, RPMA_E_INVAL);
	expect_reg_fails("usage INT_MIN | 0xFF", peer, buf, BUF_SIZE, INT_MIN | 0xFF, RPMA_E_INVAL);

	/* DESCRIPTION: each usage on its own, and all together */
	for (int i = 0; i < 8; i++) {
		t_note("usage %s", mr_usages[i].name);
		expect_reg_ok(buf, BUF_SIZE, mr_usages[i].bit);
	}
	t_note("all usages");
	expect_reg_ok(buf, BUF_SIZE, MR_USAGE_ALL);

	/* every combination registers and its usage reaches the descriptor */
	t_note("usages 0x01..0xFF");
	int bad = 0;
	for (int usage = 1; usage <= MR_USAGE_ALL; usage++) {
		struct rpma_mr_local *mr = NULL;
		if (rpma_mr_reg(peer, buf, BUF_SIZE, usage, &mr) != 0 || mr == NULL) {
			bad++;
			continue;
		}
		if (mr_desc_usage(mr) != usage)
			bad++;
		if (rpma_mr_dereg(&mr) != 0 || mr != NULL)
			bad++;
	}
	EXPECT_INT(bad /* combinations that failed */, 0);
	EXPECT_INT(mr_nlogs, 0);

	/* any address and length: no alignment needed */
	t_note("unaligned region");
	expect_reg_ok(buf + 1, 100, RPMA_MR_USAGE_WRITE_SRC);
	expect_reg_ok(buf + 4000, 200, RPMA_MR_USAGE_READ_DST);
	expect_reg_ok(buf + BUF_SIZE - 1, 1, RPMA_MR_USAGE_SEND);

	/* the same memory can be registered twice: two separate objects */
	t_note("the same buffer twice");
	struct rpma_mr_local *a = NULL, *b = NULL;
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &a), 0);
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST, &b), 0);
	EXPECT_TRUE(a != NULL && b != NULL && a != b);
	EXPECT_INT(mr_desc_usage(a), RPMA_MR_USAGE_READ_SRC);
	EXPECT_INT(mr_desc_usage(b), RPMA_MR_USAGE_WRITE_DST);
	EXPECT_INT(rpma_mr_dereg(&a), 0);
	EXPECT_INT(rpma_mr_dereg(&b), 0);

	/*
	 * DESCRIPTION: the access each usage asks for. A read-only mapping
	 * can be registered only when no local write access is needed:
	 * READ_SRC and the two flush types ask for remote read, SEND for
	 * nothing; READ_DST, WRITE_SRC, WRITE_DST and RECV need local write.
	 */
	t_note("read-only memory");
	char *ro = mmap(NULL, BUF_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		fprintf(stderr, "live test setup: mmap failed\n");
		return 2;
	}
	for (int i = 0; i < 8; i++) {
		int bit = mr_usages[i].bit;
		int writes = bit & (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
				RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_RECV);
		t_note("read-only, usage %s", mr_usages[i].name);
		if (writes)
			expect_reg_provider(ro, BUF_SIZE, bit);
		else
			expect_reg_ok(ro, BUF_SIZE, bit);
	}
	t_note("read-only, READ_SRC | FLUSH_TYPE_VISIBILITY | FLUSH_TYPE_PERSISTENT | SEND");
	expect_reg_ok(ro, BUF_SIZE, RPMA_MR_USAGE_READ_SRC | MR_FLUSH_BITS | RPMA_MR_USAGE_SEND);
	t_note("read-only, all usages");
	expect_reg_provider(ro, BUF_SIZE, MR_USAGE_ALL);
	munmap(ro, BUF_SIZE);

	/* ERRORS: PROVIDER when the memory cannot be registered */
	t_note("unmapped memory");
	char *gone = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED) {
		fprintf(stderr, "live test setup: mmap failed\n");
		return 2;
	}
	munmap(gone, BUF_SIZE);
	expect_reg_provider(gone, BUF_SIZE, RPMA_MR_USAGE_READ_SRC);
	expect_reg_provider(gone, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST);
	t_note("size SIZE_MAX");
	expect_reg_provider(buf, SIZE_MAX, RPMA_MR_USAGE_READ_SRC);

	/* ERRORS: NOMEM, nothing logged, *mr_ptr untouched */
	t_note("NOMEM");
	mr_expect_nomem(nomem_body);

	/* every region was deregistered: the peer's protection domain is free */
	t_note("cleanup");
	return mr_end(peer, buf);
}
