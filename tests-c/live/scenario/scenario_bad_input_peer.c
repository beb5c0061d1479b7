/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_peer.c -- bad input for rpma_utils_get_ibv_context,
 * rpma_utils_ibv_context_is_odp_capable and the peer: one row of the table
 * at the end per entry point; bad_<name>() makes its calls. The live
 * objects, the server and the rules every rejected call is held to are those
 * of badinput.h. (Once one program, scenario_bad_input.c, split by object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- utils, peer ---- */

static void
bad_rpma_utils_get_ibv_context(void)
{
	struct ibv_context *c = BI_SENT(struct ibv_context *);
	const char *ip = t_ip();

	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_REMOTE, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_REMOTE, NULL), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL), INVAL);
	t_note("unknown context types");
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)2, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)5, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)-1, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)99, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)INT_MIN, &c),
			INVAL);
	EXPECT_TRUE(c == BI_SENT(struct ibv_context *));
	t_note("the wildcard address binds, on no device");
	EXPECT_INT(rpma_utils_get_ibv_context("0.0.0.0", RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), 0);
	EXPECT_TRUE(c == NULL);
	t_note("still the device of the address");
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), 0);
	EXPECT_TRUE(c == x.ctx);
}

static void
bad_rpma_utils_ibv_context_is_odp_capable(void)
{
	BI_GETTER_NULLS(rpma_utils_ibv_context_is_odp_capable, x.ctx, int, BI_SENT_INT);
}

static void
bad_rpma_peer_new(void)
{
	BI_GETTER_NULLS(rpma_peer_new, x.ctx, struct rpma_peer *, BI_SENT(struct rpma_peer *));
}

BI_DESTRUCTOR_ROW(rpma_peer_delete, struct rpma_peer *, x.peer)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_utils_get_ibv_context),
	ROW(rpma_utils_ibv_context_is_odp_capable),
	ROW(rpma_peer_new),
	STEP("the server stops", the_end),
	ROW(rpma_peer_delete),
};

BI_MAIN(rows)
