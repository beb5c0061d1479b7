/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_ep.c -- bad input for the endpoint: one row of the
 * table at the end per entry point; bad_<name>() makes its calls. The live
 * objects, the server and the rules every rejected call is held to are those
 * of badinput.h. (Once one program, scenario_bad_input.c, split by object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- ep ---- */

static void
bad_rpma_ep_listen(void)
{
	struct rpma_ep *e = BI_SENT(struct rpma_ep *);
	const char *ip = t_ip();

	EXPECT_INT(rpma_ep_listen(NULL, ip, x.port2, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, NULL, x.port2, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, ip, NULL, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, ip, x.port2, NULL), INVAL);
	EXPECT_INT(rpma_ep_listen(NULL, NULL, NULL, NULL), INVAL);
	t_note("a port that is neither a number nor a service");
	EXPECT_INT(rpma_ep_listen(x.peer, ip, "no-such-port", &e), PROVIDER);
	EXPECT_TRUE(e == BI_SENT(struct rpma_ep *));
	t_note("the port is still free");
	e = NULL;
	EXPECT_INT(rpma_ep_listen(x.peer, ip, x.port2, &e), 0);
	x.ep = e;
}

static void
bad_rpma_ep_get_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_ep_get_fd, x.ep, int, BI_SENT_INT);
	EXPECT_INT(rpma_ep_get_fd(x.ep, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
}

static void
bad_rpma_ep_next_conn_req(void)
{
	struct rpma_conn_req *r = BI_SENT(struct rpma_conn_req *);
	struct pollfd p = {.fd = -1, .events = POLLIN};

	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, &r), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, x.ccfg, &r), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(x.ep, NULL, NULL), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(x.ep, x.ccfg, NULL), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	/* nothing came, nothing was made to come */
	EXPECT_INT(rpma_ep_get_fd(x.ep, &p.fd), 0);
	EXPECT_INT(poll(&p, 1, 0), 0);
}

BI_DESTRUCTOR_ROW(rpma_ep_shutdown, struct rpma_ep *, x.ep)

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_ep_listen),
	ROW(rpma_ep_get_fd),
	ROW(rpma_ep_next_conn_req),
	ROW(rpma_ep_shutdown),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
