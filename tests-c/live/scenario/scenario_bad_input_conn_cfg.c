/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_conn_cfg.c -- bad input for the connection
 * configuration: one row of the table at the end per entry point;
 * bad_<name>() makes its calls. The live objects, the server and the rules
 * every rejected call is held to are those of badinput.h. (Once one program,
 * scenario_bad_input.c, split by object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- conn_cfg ---- */

static int
bool_of(int (*getter)(const struct rpma_conn_cfg *, bool *), const struct rpma_conn_cfg *cfg)
{
	bool b = false;
	int ret = getter(cfg, &b);

	return ret != 0 ? ret : b;
}

static void
bad_rpma_conn_cfg_new(void)
{
	EXPECT_INT(rpma_conn_cfg_new(NULL), INVAL);
}

static void
bad_rpma_conn_cfg_set_timeout(void)
{
	struct rpma_conn_cfg *tmp = NULL;
	struct rpma_conn_req *req = NULL;

	EXPECT_INT(rpma_conn_cfg_set_timeout(NULL, 100), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(x.ccfg, -1), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(x.ccfg, INT_MIN), INVAL);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, x.ccfg), CC_TIMEOUT);
	t_note("the longest timeout is taken, and a request made with it");
	EXPECT_INT(rpma_conn_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(tmp, INT_MAX), 0);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, tmp), INT_MAX);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), tmp, &req), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&tmp), 0);
}

static void
bad_rpma_conn_cfg_get_timeout(void)
{
	BI_GETTER_NULLS(rpma_conn_cfg_get_timeout, x.ccfg, int, BI_SENT_INT);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, x.ccfg), CC_TIMEOUT);
}

/*
 * The rows of a size's setter and getter: a NULL configuration is refused
 * and the main one keeps its value; the largest size is taken (the device
 * refuses it later, see rpma_conn_req_new); the getter's NULLs
 */
#define BI_SIZE_ROWS(setter, getter, value) \
static void \
bad_##setter(void) \
{ \
	struct rpma_conn_cfg *tmp_ = NULL; \
	EXPECT_INT(setter(NULL, 5), INVAL); \
	EXPECT_INT(setter(NULL, UINT32_MAX), INVAL); \
	EXPECT_INT(T_GET_U32(getter, x.ccfg), value); \
	EXPECT_INT(rpma_conn_cfg_new(&tmp_), 0); \
	EXPECT_INT(setter(tmp_, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(getter, tmp_), UINT32_MAX); \
	EXPECT_INT(rpma_conn_cfg_delete(&tmp_), 0); \
} \
static void \
bad_##getter(void) \
{ \
	BI_GETTER_NULLS(getter, x.ccfg, uint32_t, BI_SENT_U32); \
	EXPECT_INT(T_GET_U32(getter, x.ccfg), value); \
}

BI_SIZE_ROWS(rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, C_CQ)
BI_SIZE_ROWS(rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, C_RQ)
BI_SIZE_ROWS(rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, C_SQ)
BI_SIZE_ROWS(rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, C_RCQ)

static void
bad_rpma_conn_cfg_set_compl_channel(void)
{
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, true), INVAL);
	EXPECT_INT(bool_of(rpma_conn_cfg_get_compl_channel, x.ccfg), 1);
}

static void
bad_rpma_conn_cfg_get_compl_channel(void)
{
	BI_GETTER_NULLS_RAW(rpma_conn_cfg_get_compl_channel, x.ccfg, bool);
	EXPECT_INT(bool_of(rpma_conn_cfg_get_compl_channel, x.ccfg), 1);
}

static void
bad_rpma_conn_cfg_set_srq(void)
{
	struct rpma_conn_cfg *tmp = NULL;
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);

	EXPECT_INT(rpma_conn_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, x.srq), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_get_srq(tmp, &s), 0);
	EXPECT_TRUE(s == NULL);
	/* a set SRQ cannot be unset either */
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, x.srq), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_get_srq(tmp, &s), 0);
	EXPECT_TRUE(s == x.srq);
	EXPECT_INT(rpma_conn_cfg_delete(&tmp), 0);
}

static void
bad_rpma_conn_cfg_get_srq(void)
{
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);

	BI_GETTER_NULLS(rpma_conn_cfg_get_srq, x.ccfg, struct rpma_srq *,
			BI_SENT(struct rpma_srq *));
	EXPECT_INT(rpma_conn_cfg_get_srq(x.ccfg, &s), 0);
	EXPECT_TRUE(s == NULL);
}

BI_DESTRUCTOR_ROW(rpma_conn_cfg_delete, struct rpma_conn_cfg *, x.ccfg)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_conn_cfg_new),
	ROW(rpma_conn_cfg_set_timeout),
	ROW(rpma_conn_cfg_get_timeout),
	ROW(rpma_conn_cfg_set_cq_size),
	ROW(rpma_conn_cfg_get_cq_size),
	ROW(rpma_conn_cfg_set_rq_size),
	ROW(rpma_conn_cfg_get_rq_size),
	ROW(rpma_conn_cfg_set_sq_size),
	ROW(rpma_conn_cfg_get_sq_size),
	ROW(rpma_conn_cfg_set_rcq_size),
	ROW(rpma_conn_cfg_get_rcq_size),
	ROW(rpma_conn_cfg_set_compl_channel),
	ROW(rpma_conn_cfg_get_compl_channel),
	ROW(rpma_conn_cfg_set_srq),
	ROW(rpma_conn_cfg_get_srq),
	ROW(rpma_conn_cfg_delete),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
