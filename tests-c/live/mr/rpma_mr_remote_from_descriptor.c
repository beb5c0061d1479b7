/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_remote_from_descriptor.c -- mirrors
 * rpma_mr_remote_from_descriptor(3) on rxe0: INVAL for a NULL desc or mr_ptr
 * (nothing logged), for desc_size below 21 and for a usage byte of 0 (each
 * with its ERROR message); sizes of 21 and more accepted, extra bytes
 * ignored; any address, size, rkey and non-zero usage accepted (never
 * NOSUPP); the DEBUG message of a new object; the round trip of a local
 * region's descriptor; NOMEM; *mr_ptr untouched on every failure; the
 * descriptor itself is not modified.
 */
#include "mr.h"

#define BUF_SIZE 8192

#define MSG_SIZE(n) "incorrect size of the descriptor: " #n " bytes (should be at least: 21 bytes)\n"
#define MSG_USAGE0 "usage type of memory is not set\n"

static void
expect_one_log(int level, const char *message)
{
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_INT(mr_logs[0].level, level);
	EXPECT_TRUE(mr_logs[0].where_ok);
	EXPECT_STR(mr_logs[0].function, "rpma_mr_remote_from_descriptor");
	EXPECT_STR(mr_logs[0].message, message);
}

/* decoding must fail with INVAL and the given message, *mr_ptr untouched */
static void
expect_inval(const void *desc, size_t desc_size, const char *message)
{
	struct rpma_mr_remote *remote = SENTINEL_REMOTE;

	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, desc_size, &remote), RPMA_E_INVAL);
	EXPECT_TRUE(remote == SENTINEL_REMOTE);
	if (message)
		expect_one_log(RPMA_LOG_LEVEL_ERROR, message);
	else
		EXPECT_INT(mr_nlogs, 0);
}

/*
 * decoding must succeed and give the wanted size and flush type; the
 * descriptor must not change; the object is deleted
 */
static void
expect_decoded(const unsigned char *desc, size_t desc_size, uint64_t want_size,
		int want_flush_type)
{
	struct rpma_mr_remote *remote = SENTINEL_REMOTE;
	unsigned char copy[MR_DESC_SIZE];
	size_t size = 0;
	int flush_type = -1;

	memcpy(copy, desc, MR_DESC_SIZE);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, desc_size, &remote), 0);
	EXPECT_TRUE(remote != NULL && remote != SENTINEL_REMOTE);
	EXPECT_INT(mr_nlogs, 1);
	EXPECT_TRUE(memcmp(copy, desc, MR_DESC_SIZE) == 0);
	if (remote == NULL || remote == SENTINEL_REMOTE)
		return;
	EXPECT_INT(rpma_mr_remote_get_size(remote, &size), 0);
	EXPECT_TRUE(size == want_size);
	EXPECT_INT(rpma_mr_remote_get_flush_type(remote, &flush_type), 0);
	EXPECT_INT(flush_type, want_flush_type);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	EXPECT_TRUE(remote == NULL);
}

/* NOMEM: every allocation fails (see mr_expect_nomem()) */
static void
nomem_body(long long *out, int n)
{
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = SENTINEL_REMOTE;

	(void) n;
	mr_make_desc(desc, 0x1000, 4096, 0x1234, RPMA_MR_USAGE_WRITE_DST);
	MR_NOMEM_RUN(out, rpma_mr_remote_from_descriptor(desc, sizeof(desc), &remote),
			remote == SENTINEL_REMOTE);
}

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);
	unsigned char desc[64];
	struct rpma_mr_remote *remote;

	/* a valid hand-made descriptor */
	memset(desc, 0, sizeof(desc));
	mr_make_desc(desc, 0x123456789ABCDEF0ULL, 4096, 0x1234ABCD,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	/* ERRORS: INVAL for a NULL desc or mr_ptr, nothing logged */
	t_note("NULL arguments");
	expect_inval(NULL, MR_DESC_SIZE, NULL);
	expect_inval(NULL, 0, NULL);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(NULL, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(mr_nlogs, 0);

	/* ERRORS: INVAL for a descriptor shorter than 21 bytes */
	t_note("desc_size below 21");
	expect_inval(desc, 0, MSG_SIZE(0));
	expect_inval(desc, 1, MSG_SIZE(1));
	expect_inval(desc, 20, MSG_SIZE(20));
	/* *mr_ptr NULL stays NULL */
	remote = NULL;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, 20, &remote), RPMA_E_INVAL);
	EXPECT_TRUE(remote == NULL);

	/* ERRORS: INVAL for the usage byte 0 (not NOSUPP) */
	t_note("usage byte 0");
	unsigned char zero_usage[MR_DESC_SIZE];
	mr_make_desc(zero_usage, 0x1000, 4096, 0x1234, 0);
	expect_inval(zero_usage, MR_DESC_SIZE, MSG_USAGE0);
	expect_inval(zero_usage, MR_DESC_SIZE + 1, MSG_USAGE0);
	/* the size is checked first */
	expect_inval(zero_usage, 20, MSG_SIZE(20));
	unsigned char all_zero[MR_DESC_SIZE] = {0};
	expect_inval(all_zero, MR_DESC_SIZE, MSG_USAGE0);

	/* RETURN VALUE, and the DEBUG message naming the decoded fields */
	t_note("a hand-made descriptor");
	remote = SENTINEL_REMOTE;
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
	EXPECT_TRUE(remote != NULL && remote != SENTINEL_REMOTE);
	expect_one_log(RPMA_LOG_LEVEL_DEBUG,
			"new struct rpma_mr_remote {raddr=0x123456789abcdef0, size=4096, rkey=0x1234abcd, usage=0x18}\n");
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	expect_decoded(desc, MR_DESC_SIZE, 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	/* the example of the descriptor format, byte by byte */
	t_note("the wire format");
	const unsigned char wire[MR_DESC_SIZE] = {
		0x00, 0x00, 0x56, 0x34, 0x12, 0x7f, 0x00, 0x00,
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xcd, 0xab, 0x34, 0x12,
		0x18,
	};
	remote = NULL;
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(wire, sizeof(wire), &remote), 0);
	expect_one_log(RPMA_LOG_LEVEL_DEBUG,
			"new struct rpma_mr_remote {raddr=0x7f1234560000, size=4096, rkey=0x1234abcd, usage=0x18}\n");
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	/* little endian: the size field 08 07 06 05 04 03 02 01 */
	unsigned char le[MR_DESC_SIZE];
	mr_make_desc(le, 1, 0x0102030405060708ULL, 1, 1);
	EXPECT_INT(le[MR_DESC_SIZE_FIELD], 0x08);
	expect_decoded(le, MR_DESC_SIZE, 0x0102030405060708ULL, 0);

	/* DESCRIPTION: 21 bytes or more; only the first 21 are read */
	t_note("desc_size 21 and more");
	expect_decoded(desc, 21, 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	expect_decoded(desc, 22, 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	expect_decoded(desc, sizeof(desc), 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	memset(desc + MR_DESC_SIZE, 0xFF, sizeof(desc) - MR_DESC_SIZE);
	expect_decoded(desc, sizeof(desc), 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	expect_decoded(desc, SIZE_MAX, 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	/* no alignment needed */
	t_note("unaligned descriptor");
	unsigned char odd[MR_DESC_SIZE + 3];
	memcpy(odd + 3, desc, MR_DESC_SIZE);
	expect_decoded(odd + 3, MR_DESC_SIZE, 4096, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	/* any non-zero usage byte is accepted, unknown bits included */
	t_note("usage bytes");
	for (int i = 0; i < 8; i++) {
		unsigned char d[MR_DESC_SIZE];
		mr_make_desc(d, 0x1000, 4096, 0x1234, (uint8_t)mr_usages[i].bit);
		expect_decoded(d, MR_DESC_SIZE, 4096, mr_usages[i].bit & MR_FLUSH_BITS);
	}
	unsigned char ff[MR_DESC_SIZE];
	mr_make_desc(ff, 0x1000, 4096, 0x1234, 0xFF);
	expect_decoded(ff, MR_DESC_SIZE, 4096, 0x30);
	int rejected = 0;
	for (int usage = 1; usage <= 0xFF; usage++) {
		unsigned char d[MR_DESC_SIZE];
		mr_make_desc(d, 0x1000, 4096, 0x1234, (uint8_t)usage);
		remote = NULL;
		if (rpma_mr_remote_from_descriptor(d, MR_DESC_SIZE, &remote) != 0 || remote == NULL)
			rejected++;
		else if (rpma_mr_remote_delete(&remote) != 0)
			rejected++;
	}
	EXPECT_INT(rejected /* usage bytes 0x01..0xFF rejected */, 0);

	/* nothing but the size and the usage byte is checked */
	t_note("arbitrary address, size and rkey");
	unsigned char g[MR_DESC_SIZE];
	mr_make_desc(g, 0, 0, 0, RPMA_MR_USAGE_READ_SRC);
	expect_decoded(g, MR_DESC_SIZE, 0, 0);
	mr_make_desc(g, UINT64_MAX, UINT64_MAX, UINT32_MAX, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	expect_decoded(g, MR_DESC_SIZE, UINT64_MAX, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	mr_make_desc(g, 0xDEADBEEFDEADBEEFULL, 0x8000000000000001ULL, 0xFFFF0000, 0x81);
	expect_decoded(g, MR_DESC_SIZE, 0x8000000000000001ULL, 0);
	for (int i = 0; i < MR_DESC_SIZE; i++)
		g[i] = (unsigned char)(0x9B * (i + 7));
	g[MR_DESC_USAGE] = 0x3C;
	expect_decoded(g, MR_DESC_SIZE, mr_get_le64(g + MR_DESC_SIZE_FIELD), 0x30);

	/* every call makes a new, separate object */
	t_note("separate objects");
	struct rpma_mr_remote *a = NULL, *b = NULL;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &a), 0);
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &b), 0);
	EXPECT_TRUE(a != NULL && b != NULL && a != b);
	EXPECT_INT(rpma_mr_remote_delete(&a), 0);
	size_t bsize = 0;
	EXPECT_INT(rpma_mr_remote_get_size(b, &bsize), 0);
	EXPECT_INT(bsize, 4096);
	EXPECT_INT(rpma_mr_remote_delete(&b), 0);

	/* the round trip of a local region's descriptor */
	t_note("round trip");
	for (int i = 0; i < 8; i++) {
		struct rpma_mr_local *mr = NULL;
		unsigned char local[MR_DESC_SIZE];
		char want[256];
		t_note("round trip, usage %s", mr_usages[i].name);
		EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, mr_usages[i].bit, &mr), 0);
		EXPECT_INT(rpma_mr_get_descriptor(mr, local), 0);
		remote = NULL;
		mr_nlogs = 0;
		EXPECT_INT(rpma_mr_remote_from_descriptor(local, MR_DESC_SIZE, &remote), 0);
		/* the message names the region's own address, size, rkey, usage */
		snprintf(want, sizeof(want),
				"new struct rpma_mr_remote {raddr=0x%llx, size=%llu, rkey=0x%x, usage=0x%x}\n",
				(unsigned long long)(uintptr_t)buf, (unsigned long long)BUF_SIZE,
				(unsigned)mr_get_le32(local + MR_DESC_RKEY), (unsigned)mr_usages[i].bit);
		EXPECT_INT(mr_nlogs, 1);
		EXPECT_INT(mr_logs[0].level, RPMA_LOG_LEVEL_DEBUG);
		EXPECT_TRUE(strcmp(mr_logs[0].message, want) == 0);
		EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
		expect_decoded(local, MR_DESC_SIZE, BUF_SIZE, mr_usages[i].bit & MR_FLUSH_BITS);
		EXPECT_INT(rpma_mr_dereg(&mr), 0);
	}
	struct rpma_mr_local *part = NULL;
	unsigned char local[MR_DESC_SIZE];
	EXPECT_INT(rpma_mr_reg(peer, buf + 3, 1000, MR_USAGE_ALL, &part), 0);
	EXPECT_INT(rpma_mr_get_descriptor(part, local), 0);
	expect_decoded(local, MR_DESC_SIZE, 1000, MR_FLUSH_BITS);
	EXPECT_INT(rpma_mr_dereg(&part), 0);
	/* the remote object outlives the local region it describes */
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST, &part), 0);
	EXPECT_INT(rpma_mr_get_descriptor(part, local), 0);
	remote = NULL;
	EXPECT_INT(rpma_mr_remote_from_descriptor(local, MR_DESC_SIZE, &remote), 0);
	EXPECT_INT(rpma_mr_dereg(&part), 0);
	bsize = 0;
	EXPECT_INT(rpma_mr_remote_get_size(remote, &bsize), 0);
	EXPECT_INT(bsize, BUF_SIZE);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);

	/* the DEBUG message needs the threshold at DEBUG; the ERROR ones do not */
	t_note("threshold WARNING");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	remote = NULL;
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	expect_inval(desc, 20, MSG_SIZE(20));
	expect_inval(zero_usage, MR_DESC_SIZE, MSG_USAGE0);
	t_note("threshold INFO");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	t_note("threshold DISABLED");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	mr_nlogs = 0;
	remote = SENTINEL_REMOTE;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, 20, &remote), RPMA_E_INVAL);
	EXPECT_TRUE(remote == SENTINEL_REMOTE);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);

	/* ERRORS: NOMEM, nothing logged, *mr_ptr untouched */
	t_note("NOMEM");
	mr_expect_nomem(nomem_body);

	return mr_end(peer, buf);
}
