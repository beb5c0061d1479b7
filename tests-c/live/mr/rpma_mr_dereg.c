/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mr_dereg.c -- mirrors rpma_mr_dereg(3) on rxe0: INVAL for a NULL
 * mr_ptr, 0 and nothing done for *mr_ptr NULL, 0 and *mr_ptr set to NULL
 * for a registered region; nothing logged; deregistering one region leaves
 * another region of the same memory intact; the registration is really
 * released (the peer can be deleted afterwards), and a region can still be
 * deregistered after its peer's deletion failed because of it.
 */
#include "mr.h"

#define BUF_SIZE 8192

int
main(void)
{
	struct rpma_peer *peer;
	char *buf = mr_begin(&peer, BUF_SIZE);
	struct rpma_mr_local *mr = NULL;

	/* ERRORS: INVAL for a NULL mr_ptr; DESCRIPTION: *mr_ptr NULL is accepted */
	MR_EXPECT_DESTRUCTOR_NULLS(rpma_mr_dereg, mr);

	/* RETURN VALUE: 0, and *mr_ptr is NULL afterwards */
	t_note("a registered region");
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);
	EXPECT_TRUE(mr != NULL);
	MR_EXPECT_DESTROYED(rpma_mr_dereg, mr);

	/* each usage */
	for (int i = 0; i < 8; i++) {
		t_note("usage %s", mr_usages[i].name);
		mr = NULL;
		EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, mr_usages[i].bit, &mr), 0);
		EXPECT_INT(rpma_mr_dereg(&mr), 0);
		EXPECT_TRUE(mr == NULL);
	}

	/* the same memory registered twice: the other region is unaffected */
	t_note("two regions of one buffer");
	struct rpma_mr_local *a = NULL, *b = NULL;
	unsigned char before[MR_DESC_SIZE], after[MR_DESC_SIZE];
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &a), 0);
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST, &b), 0);
	EXPECT_INT(rpma_mr_get_descriptor(b, before), 0);
	EXPECT_INT(rpma_mr_dereg(&a), 0);
	EXPECT_TRUE(a == NULL);
	EXPECT_INT(rpma_mr_get_descriptor(b, after), 0);
	EXPECT_TRUE(memcmp(before, after, MR_DESC_SIZE) == 0);
	size_t size = 0;
	EXPECT_INT(rpma_mr_get_size(b, &size), 0);
	EXPECT_INT(size, BUF_SIZE);
	EXPECT_INT(rpma_mr_dereg(&b), 0);
	EXPECT_TRUE(b == NULL);

	/* the same memory can be registered again once deregistered */
	t_note("register again");
	for (int i = 0; i < 100; i++) {
		if (rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr) != 0 ||
				rpma_mr_dereg(&mr) != 0 || mr != NULL) {
			EXPECT_TRUE(!"register/deregister cycle failed");
			break;
		}
	}
	EXPECT_INT(mr_nlogs, 0);

	/* nothing is left registered: the protection domain can go */
	t_note("the peer after deregistration");
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);

	/*
	 * A region still registered keeps the protection domain busy, so
	 * deleting its peer fails; the region can still be deregistered.
	 */
	t_note("deregistration after the peer's deletion failed");
	peer = t_peer();
	EXPECT_INT(rpma_mr_reg(peer, buf, BUF_SIZE, MR_USAGE_ALL, &mr), 0);
	mr_nlogs = 0;
	EXPECT_INT(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == NULL);
	mr_nlogs = 0;
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	EXPECT_TRUE(mr == NULL);
	EXPECT_INT(mr_nlogs, 0);

	mr_log_restore();
	free(buf);

	return t_end();
}
