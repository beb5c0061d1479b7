/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_get_descriptor.c -- mirrors rpma_mr_get_descriptor(3) on rxe0:
 * INVAL for a NULL mr or desc with the buffer untouched and nothing logged;
 * exactly 21 bytes written (no alignment needed): the region's address and
 * size as little-endian 64-bit numbers (decoded here and compared with
 * rpma_mr_get_ptr(3) / rpma_mr_get_size(3)), its rkey (the same on every
 * call, different for another region) and its usage byte; the descriptor
 * decodes with rpma_mr_remote_from_descriptor(3).
 */
#include "mr.h"

#define BUF_SIZE 8192
#define OUT_SIZE 32
#define FILL 0xA5

static struct rpma_peer *peer;

/* how many bytes of out[from..to) are no longer FILL */
static int
changed(const unsigned char *out, int from, int to)
{
	int n = 0;

	for (int i = from; i < to; i++)
		n += out[i] != FILL;
	return n;
}

/*
 * register [ptr, ptr + size) with usage, take its descriptor into a filled
 * buffer and check every field
 */
static void
check_layout(void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;
	unsigned char out[OUT_SIZE];
	void *got_ptr = NULL;
	size_t got_size = 0;

	EXPECT_INT(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	EXPECT_INT(rpma_mr_get_ptr(mr, &got_ptr), 0);
	EXPECT_INT(rpma_mr_get_size(mr, &got_size), 0);
	memset(out, FILL, sizeof(out));
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_get_descriptor(mr, out), 0);
	EXPECT_INT(mr_nlogs, 0);
	/* nothing written past the 21 bytes */
	EXPECT_INT(changed(out, MR_DESC_SIZE, OUT_SIZE), 0);
	/* bytes 0..7: the address, little endian */
	EXPECT_TRUE(mr_get_le64(out + MR_DESC_ADDR) == (uint64_t)(uintptr_t)ptr /* equal */);
	EXPECT_TRUE(mr_get_le64(out + MR_DESC_ADDR) == (uint64_t)(uintptr_t)got_ptr /* equal */);
	/* bytes 8..15: the size, little endian */
	EXPECT_INT(mr_get_le64(out + MR_DESC_SIZE_FIELD), size);
	EXPECT_TRUE(mr_get_le64(out + MR_DESC_SIZE_FIELD) == got_size /* equal */);
	/* byte 20: the usage */
	EXPECT_INT(out[MR_DESC_USAGE], usage & 0xFF);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
}

int
main(void)
{
	char *buf = mr_begin(&peer, BUF_SIZE);
	struct rpma_mr_local *mr = NULL;
	unsigned char out[OUT_SIZE];

	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);

	/* ERRORS: INVAL for a NULL mr or desc; the buffer untouched */
	t_note("NULL arguments");
	mr_nlogs = 0;
	memset(out, FILL, sizeof(out));
	EXPECT_INT(rpma_mr_get_descriptor(NULL, out), RPMA_E_INVAL);
	EXPECT_INT(changed(out, 0, OUT_SIZE), 0);
	EXPECT_INT(rpma_mr_get_descriptor(mr, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_mr_get_descriptor(NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(mr_nlogs, 0);

	/* the size the descriptor occupies */
	t_note("descriptor size");
	size_t desc_size = 0;
	EXPECT_INT(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	EXPECT_INT(desc_size, MR_DESC_SIZE);

	/* RETURN VALUE and layout */
	t_note("layout");
	unsigned char first[OUT_SIZE], second[OUT_SIZE];
	memset(first, FILL, sizeof(first));
	memset(second, FILL, sizeof(second));
	EXPECT_INT(rpma_mr_get_descriptor(mr, first), 0);
	EXPECT_INT(changed(first, MR_DESC_SIZE, OUT_SIZE), 0);
	EXPECT_TRUE(mr_get_le64(first + MR_DESC_ADDR) == (uint64_t)(uintptr_t)buf /* equal */);
	EXPECT_INT(mr_get_le64(first + MR_DESC_SIZE_FIELD), BUF_SIZE);
	EXPECT_INT(first[MR_DESC_USAGE], MR_USAGE_ALL);
	/* every call writes the same bytes, the rkey included */
	EXPECT_INT(rpma_mr_get_descriptor(mr, second), 0);
	EXPECT_TRUE(memcmp(first, second, OUT_SIZE) == 0);
	EXPECT_TRUE(mr_get_le32(first + MR_DESC_RKEY) == mr_get_le32(second + MR_DESC_RKEY));

	/* no alignment needed: the same bytes at an odd address */
	t_note("unaligned destination");
	unsigned char odd[OUT_SIZE + 1];
	memset(odd, FILL, sizeof(odd));
	EXPECT_INT(rpma_mr_get_descriptor(mr, odd + 1), 0);
	EXPECT_INT(odd[0], FILL);
	EXPECT_TRUE(memcmp(odd + 1, first, MR_DESC_SIZE) == 0);
	EXPECT_INT(changed(odd, MR_DESC_SIZE + 1, OUT_SIZE + 1), 0);

	/*
	 * a second region of the same memory: the same address and size,
	 * but its own rkey (bytes 16..19), which stays stable too
	 */
	t_note("another region of the same memory");
	struct rpma_mr_local *other = NULL;
	unsigned char o1[MR_DESC_SIZE], o2[MR_DESC_SIZE];
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &other), 0);
	EXPECT_INT(rpma_mr_get_descriptor(other, o1), 0);
	EXPECT_INT(rpma_mr_get_descriptor(other, o2), 0);
	EXPECT_TRUE(memcmp(o1, o2, MR_DESC_SIZE) == 0);
	EXPECT_TRUE(memcmp(o1 + MR_DESC_ADDR, first + MR_DESC_ADDR, 16) == 0);
	EXPECT_TRUE(mr_get_le32(o1 + MR_DESC_RKEY) != mr_get_le32(first + MR_DESC_RKEY));
	EXPECT_INT(o1[MR_DESC_USAGE], first[MR_DESC_USAGE]);
	/* deregistering the other region changes nothing in the first one's */
	EXPECT_INT(rpma_mr_dereg(&other), 0);
	EXPECT_INT(rpma_mr_get_descriptor(mr, second), 0);
	EXPECT_TRUE(memcmp(first, second, MR_DESC_SIZE) == 0);

	/* the descriptor decodes on the receiving side */
	t_note("round trip");
	struct rpma_mr_remote *remote = NULL;
	size_t rsize = 0;
	int flush_type = 0;
	EXPECT_INT(rpma_mr_remote_from_descriptor(first, MR_DESC_SIZE, &remote), 0);
	EXPECT_INT(rpma_mr_remote_get_size(remote, &rsize), 0);
	EXPECT_INT(rsize, BUF_SIZE);
	EXPECT_INT(rpma_mr_remote_get_flush_type(remote, &flush_type), 0);
	EXPECT_INT(flush_type, MR_FLUSH_BITS);
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	/* byte 20 is the usage given to rpma_mr_reg(3) */
	for (int i = 0; i < 8; i++) {
		t_note("usage %s", mr_usages[i].name);
		check_layout(buf, BUF_SIZE, mr_usages[i].bit);
	}
	t_note("usage combinations");
	check_layout(buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	check_layout(buf, BUF_SIZE, MR_FLUSH_BITS);
	check_layout(buf, BUF_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
	check_layout(buf, BUF_SIZE, 0x7F);

	/* bytes 0..15 follow the registered address and size */
	t_note("other addresses and sizes");
	check_layout(buf + 1, 100, RPMA_MR_USAGE_READ_SRC);
	check_layout(buf + 4000, 200, RPMA_MR_USAGE_WRITE_DST);
	check_layout(buf + BUF_SIZE - 1, 1, RPMA_MR_USAGE_RECV);
	check_layout(buf, 4097, MR_USAGE_ALL);

	return mr_end(peer, buf);
}
