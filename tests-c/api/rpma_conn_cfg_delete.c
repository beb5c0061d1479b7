/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_delete.c -- mirrors rpma_conn_cfg_delete(3): a NULL cfg_ptr
 * is an error, a pointer to NULL is a successful no-op, a real object is
 * freed and the caller's pointer becomes NULL; an attached SRQ is not
 * touched.
 */
#include <stddef.h>

#include "rpma_test.h"

/* stands in for an SRQ: the configuration only stores the pointer */
static int fake_srq_object = 0x5a5a;
#define FAKE_SRQ ((struct rpma_srq *)&fake_srq_object)

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_cfg *copy;
	int i, failures;

	t_begin();

	/* ERRORS: RPMA_E_INVAL when cfg_ptr is NULL */
	EXPECT_INT(rpma_conn_cfg_delete(NULL), RPMA_E_INVAL);

	/* DESCRIPTION: *cfg_ptr == NULL -- nothing to do, success */
	cfg = NULL;
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* RETURN VALUE: 0; the object is freed and *cfg_ptr set to NULL */
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_TRUE(cfg != NULL);
	copy = cfg;
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);
	EXPECT_TRUE(copy != NULL); /* only the pointer passed in is cleared */

	/* DESCRIPTION: deleting through the same variable twice is harmless */
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);

	/* a configuration with every value changed and an SRQ attached */
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 3), 0);
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 1), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 2), 0);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 3), 0);
	EXPECT_INT(rpma_conn_cfg_set_rq_size(cfg, 4), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, FAKE_SRQ), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_TRUE(cfg == NULL);
	/* NOTES: the SRQ is not owned by the configuration and stays as it was */
	EXPECT_INT(fake_srq_object, 0x5a5a);

	/* every object is released (valgrind sees no leak): many cycles */
	failures = 0;
	for (i = 0; i < 1000; i++) {
		cfg = NULL;
		if (rpma_conn_cfg_new(&cfg) != 0 || cfg == NULL)
			failures++;
		if (rpma_conn_cfg_delete(&cfg) != 0 || cfg != NULL)
			failures++;
	}
	EXPECT_INT(failures, 0);

	return t_end();
}
