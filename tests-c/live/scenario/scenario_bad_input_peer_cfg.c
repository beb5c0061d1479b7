/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_peer_cfg.c -- bad input for the peer configuration: one
 * row of the table at the end per entry point; bad_<name>() makes its calls.
 * The live objects, the server and the rules every rejected call is held to
 * are those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- peer_cfg ---- */

static int
pcfg_direct(void)
{
	bool b = false;

	if (rpma_peer_cfg_get_direct_write_to_pmem(x.pcfg, &b) != 0)
		return -1;
	return b;
}

static void
bad_rpma_peer_cfg_new(void)
{
	EXPECT_INT(rpma_peer_cfg_new(NULL), INVAL);
}

static void
bad_rpma_peer_cfg_set_direct_write_to_pmem(void)
{
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, false), INVAL);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), INVAL);
	EXPECT_INT(pcfg_direct(), 1);
}

static void
bad_rpma_peer_cfg_get_direct_write_to_pmem(void)
{
	BI_GETTER_NULLS_RAW(rpma_peer_cfg_get_direct_write_to_pmem, x.pcfg, bool);
	EXPECT_INT(pcfg_direct(), 1);
}

static void
bad_rpma_peer_cfg_get_descriptor(void)
{
	unsigned char d[8];

	memset(d, BI_SENT_BYTE, sizeof(d));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, d), INVAL);
	EXPECT_TRUE(bi_untouched(d, sizeof(d)));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(x.pcfg, NULL), INVAL);
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, NULL), INVAL);
	/* one byte, and only one */
	EXPECT_INT(rpma_peer_cfg_get_descriptor(x.pcfg, d), 0);
	EXPECT_INT(d[0], 1);
	EXPECT_TRUE(bi_untouched(d + 1, sizeof(d) - 1));
}

static void
bad_rpma_peer_cfg_get_descriptor_size(void)
{
	size_t size = 0;

	BI_GETTER_NULLS(rpma_peer_cfg_get_descriptor_size, x.pcfg, size_t, BI_SENT_SIZE);
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(x.pcfg, &size), 0);
	EXPECT_INT(size, 1);
}

/* in a child: a descriptor size of SIZE_MAX (only one byte is there) */
static void
pcfg_huge_size(long long *out, int n)
{
	char one = 1;
	struct rpma_peer_cfg *p = NULL;
	bool b = false;

	(void) n;
	out[0] = rpma_peer_cfg_from_descriptor(&one, SIZE_MAX, &p);
	out[1] = p != NULL && rpma_peer_cfg_get_direct_write_to_pmem(p, &b) == 0 ? b : -1;
	(void) rpma_peer_cfg_delete(&p);
}

static void
bad_rpma_peer_cfg_from_descriptor(void)
{
	struct rpma_peer_cfg *p = BI_SENT(struct rpma_peer_cfg *);
	char one = 1;
	long long out[2] = {0, 0};

	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 1, &p), INVAL);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(&one, 0, &p), INVAL);
	EXPECT_TRUE(p == BI_SENT(struct rpma_peer_cfg *));
	EXPECT_INT(rpma_peer_cfg_from_descriptor(&one, 1, NULL), INVAL);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 0, NULL), INVAL);
	t_note("a size past the descriptor: its one byte is what counts");
	EXPECT_INT(t_in_child(pcfg_huge_size, out, 2), 0);
	EXPECT_INT(out[0], 0);
	EXPECT_INT(out[1], 1);
}

BI_DESTRUCTOR_ROW(rpma_peer_cfg_delete, struct rpma_peer_cfg *, x.pcfg)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_peer_cfg_new),
	ROW(rpma_peer_cfg_set_direct_write_to_pmem),
	ROW(rpma_peer_cfg_get_direct_write_to_pmem),
	ROW(rpma_peer_cfg_get_descriptor),
	ROW(rpma_peer_cfg_get_descriptor_size),
	ROW(rpma_peer_cfg_from_descriptor),
	ROW(rpma_peer_cfg_delete),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
