/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_remote_delete.c -- mirrors rpma_mr_remote_delete(3) on rxe0:
 * INVAL for a NULL mr_ptr, 0 and nothing done for *mr_ptr NULL, 0 and
 * *mr_ptr set to NULL otherwise; nothing logged; deleting one remote object
 * leaves others (from the same descriptor) and the local region intact.
 */
#include "mr.h"

#define BUF_SIZE 8192

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = NULL;

	/* ERRORS: INVAL for a NULL mr_ptr; DESCRIPTION: *mr_ptr NULL is accepted */
	MR_EXPECT_DESTRUCTOR_NULLS(rpma_mr_remote_delete, remote);

	/* RETURN VALUE: 0, and *mr_ptr is NULL afterwards */
	t_note("a remote object");
	remote = mr_remote_made(desc, RPMA_MR_USAGE_WRITE_DST);
	EXPECT_TRUE(remote != NULL);
	MR_EXPECT_DESTROYED(rpma_mr_remote_delete, remote);

	/* objects from the same descriptor are independent */
	t_note("two objects of one descriptor");
	struct rpma_mr_remote *a = NULL, *b = NULL;
	size_t size = 0;
	int flush_type = -1;
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &a), 0);
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &b), 0);
	EXPECT_INT(rpma_mr_remote_delete(&a), 0);
	EXPECT_TRUE(a == NULL);
	EXPECT_INT(rpma_mr_remote_get_size(b, &size), 0);
	EXPECT_INT(size, 4096);
	EXPECT_INT(rpma_mr_remote_get_flush_type(b, &flush_type), 0);
	EXPECT_INT(flush_type, 0);
	EXPECT_INT(rpma_mr_remote_delete(&b), 0);
	EXPECT_TRUE(b == NULL);

	/* deleting the remote view of a local region leaves the region alone */
	t_note("the local region stays");
	struct rpma_mr_local *mr = NULL;
	unsigned char before[MR_DESC_SIZE], after[MR_DESC_SIZE];
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);
	EXPECT_INT(rpma_mr_get_descriptor(mr, before), 0);
	remote = mr_remote_of(mr);
	EXPECT_TRUE(remote != NULL);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_remote_delete(&remote), 0);
	EXPECT_TRUE(remote == NULL);
	EXPECT_INT(mr_nlogs, 0);
	EXPECT_INT(rpma_mr_get_descriptor(mr, after), 0);
	EXPECT_TRUE(memcmp(before, after, MR_DESC_SIZE) == 0);
	EXPECT_INT(rpma_mr_dereg(&mr), 0);

	/* many objects created and deleted */
	t_note("many objects");
	int bad = 0;
	for (int i = 0; i < 1000; i++) {
		if (rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote) != 0 ||
				rpma_mr_remote_delete(&remote) != 0 || remote != NULL)
			bad++;
	}
	EXPECT_INT(bad, 0);

	return mr_end(peer, buf);
}
