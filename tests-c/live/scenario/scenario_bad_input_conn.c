/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_conn.c -- bad input for the connection: its getters,
 * events and completion channel: one row of the table at the end per entry
 * point; bad_<name>() makes its calls. The live objects, the server and the
 * rules every rejected call is held to are those of badinput.h. (Once one
 * program, scenario_bad_input.c, split by object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- conn: getters, events, completion channel ---- */

static void
bad_rpma_conn_get_event_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_conn_get_event_fd, x.conn, int, BI_SENT_INT);
	EXPECT_INT(rpma_conn_get_event_fd(x.conn, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
}

static void
bad_rpma_conn_next_event(void)
{
	enum rpma_conn_event ev = EV_SENTINEL;

	EXPECT_INT(rpma_conn_next_event(NULL, &ev), INVAL);
	EXPECT_INT(rpma_conn_next_event(x.conn, NULL), INVAL);
	EXPECT_INT(rpma_conn_next_event(NULL, NULL), INVAL);
	EXPECT_INT(ev, EV_SENTINEL);
	/* no event was made or taken */
	EXPECT_TRUE(!c_event_pending(x.conn, 0));
}

static void
bad_rpma_conn_get_private_data(void)
{
	struct rpma_conn_private_data pd = {NULL, 0};

	BI_GETTER_NULLS_RAW(rpma_conn_get_private_data, x.conn, struct rpma_conn_private_data);
	EXPECT_INT(rpma_conn_get_private_data(x.conn, &pd), 0);
	EXPECT_TRUE(pd.ptr != NULL && pd.len >= sizeof(srv_pdata) &&
			memcmp(pd.ptr, srv_pdata, sizeof(srv_pdata)) == 0);
}

static void
bad_rpma_conn_get_qp_num(void)
{
	uint32_t qp = BI_SENT_U32;

	BI_GETTER_NULLS(rpma_conn_get_qp_num, x.conn, uint32_t, BI_SENT_U32);
	EXPECT_INT(rpma_conn_get_qp_num(x.conn, &qp), 0);
	EXPECT_TRUE(qp != BI_SENT_U32);
}

static void
bad_rpma_conn_get_cq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_conn_get_cq, x.conn, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_conn_get_cq(x.conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.cq);
}

static void
bad_rpma_conn_get_rcq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_conn_get_rcq, x.conn, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_conn_get_rcq(x.conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.rcq);
}

static void
bad_rpma_conn_get_compl_fd(void)
{
	BI_GETTER_NULLS(rpma_conn_get_compl_fd, x.conn, int, BI_SENT_INT);
	EXPECT_TRUE(c_fd_open(compl_fd()));
}

static void
bad_rpma_conn_wait(void)
{
	struct rpma_cq *cq = BI_SENT(struct rpma_cq *);
	bool is_rcq;

	drain_channel();
	EXPECT_TRUE(os_cq_empty(x.conn));
	t_note("a completion is waiting on the shared channel");
	EXPECT_INT(rpma_read(x.conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x501)), 0);
	EXPECT_TRUE(channel_ready(OS_WC_WAIT_MS));
	memset(&is_rcq, BI_SENT_BYTE, sizeof(is_rcq));
	EXPECT_INT(rpma_conn_wait(NULL, 0, &cq, &is_rcq), INVAL);
	EXPECT_INT(rpma_conn_wait(x.conn, 0, NULL, &is_rcq), INVAL);
	EXPECT_INT(rpma_conn_wait(x.conn, 0, NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_wait(NULL, 0, NULL, NULL), INVAL);
	EXPECT_TRUE(cq == BI_SENT(struct rpma_cq *));
	EXPECT_TRUE(bi_untouched(&is_rcq, sizeof(is_rcq)));
	/* the event is still there */
	EXPECT_TRUE(channel_ready(0));
	t_note("unknown flag bits are ignored");
	EXPECT_INT(rpma_conn_wait(x.conn, F_ALL, &cq, &is_rcq), 0);
	EXPECT_TRUE(cq == x.cq);
	EXPECT_INT(is_rcq, 0);
	OS_EXPECT_WC(x.conn, 0x501, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(x.conn));
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_conn_get_event_fd),
	ROW(rpma_conn_next_event),
	ROW(rpma_conn_get_private_data),
	ROW(rpma_conn_get_qp_num),
	ROW(rpma_conn_get_cq),
	ROW(rpma_conn_get_rcq),
	ROW(rpma_conn_get_compl_fd),
	ROW(rpma_conn_wait),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
