/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_conn_req.c -- bad input for the connection request: one
 * row of the table at the end per entry point; bad_<name>() makes its calls.
 * The live objects, the server and the rules every rejected call is held to
 * are those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- conn_req ---- */

/* a configuration of the main one's sizes with one size changed */
static struct rpma_conn_cfg *
cfg_with(int (*setter)(struct rpma_conn_cfg *, uint32_t), uint32_t value)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (setter(cfg, value) != 0)
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

/* rpma_conn_req_new() with cfg; the request, when one came, is deleted */
static int
req_new_with(struct rpma_conn_cfg *cfg, struct rpma_conn_req **r)
{
	int ret = rpma_conn_req_new(x.peer, t_ip(), t_port(), cfg, r);

	if (ret == 0)
		(void) rpma_conn_req_delete(r);
	(void) rpma_conn_cfg_delete(&cfg);
	return ret;
}

static void
bad_rpma_conn_req_new(void)
{
	struct rpma_conn_req *r = BI_SENT(struct rpma_conn_req *);
	struct rpma_conn_cfg *cfg = NULL;
	const char *ip = t_ip(), *port = t_port();

	EXPECT_INT(rpma_conn_req_new(NULL, ip, port, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, NULL, port, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, NULL, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, port, NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_req_new(NULL, NULL, NULL, NULL, NULL), INVAL);
	t_note("a port that is neither a number nor a service");
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, "no-such-port", NULL, &r), PROVIDER);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("queue sizes the device cannot make");
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_cq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_cq_size, 0), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_sq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_rq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_rcq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("a shared completion channel with an SRQ that has its own receive CQ");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, x.srq), 0);
	EXPECT_INT(req_new_with(cfg, &r), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("a real request still comes");
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, port, NULL, &x.req), 0);
}

static void
bad_rpma_conn_req_get_private_data(void)
{
	struct rpma_conn_private_data pd;

	BI_GETTER_NULLS_RAW(rpma_conn_req_get_private_data, x.req, struct rpma_conn_private_data);
	memset(&pd, BI_SENT_BYTE, sizeof(pd));
	EXPECT_INT(rpma_conn_req_get_private_data(x.req, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
}

static void
bad_rpma_conn_req_recv(void)
{
	EXPECT_INT(rpma_conn_req_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x401)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 0, 8, OS_CTX(0x402)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 8, 0, OS_CTX(0x403)), INVAL);
	/* no 0-byte form here */
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 0, 0, OS_CTX(0x404)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(NULL, NULL, 0, 0, NULL), INVAL);
}

static void
bad_rpma_conn_req_connect(void)
{
	struct rpma_conn_req *r = NULL;
	struct rpma_conn *c = BI_SENT(struct rpma_conn *);
	char data[4] = "abc";
	struct rpma_conn_private_data empty = {data, 0}, no_ptr = {NULL, 4};

	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, &c), INVAL);
	EXPECT_INT(rpma_conn_req_connect(&r, NULL, &c), INVAL);
	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(c == BI_SENT(struct rpma_conn *));
	t_note("a request with a NULL conn_ptr or bad private data is deleted");
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, NULL, NULL), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, &empty, &c), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, &no_ptr, &c), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_TRUE(c == BI_SENT(struct rpma_conn *));
	/* (the server saw none of them: see the count of its connections) */
}

BI_DESTRUCTOR_ROW(rpma_conn_req_delete, struct rpma_conn_req *, x.req)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_conn_req_new),
	ROW(rpma_conn_req_get_private_data),
	ROW(rpma_conn_req_recv),
	ROW(rpma_conn_req_connect),
	ROW(rpma_conn_req_delete),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
