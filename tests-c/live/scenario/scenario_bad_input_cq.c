/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_cq.c -- bad input for the completion queue: one row of
 * the table at the end per entry point; bad_<name>() makes its calls. The
 * live objects, the server and the rules every rejected call is held to are
 * those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- cq ---- */

static void
bad_rpma_cq_get_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_cq_get_fd, x.cq, int, BI_SENT_INT);
	EXPECT_INT(rpma_cq_get_fd(x.cq, &fd), 0);
	EXPECT_TRUE(fd == compl_fd());
}

static void
bad_rpma_cq_wait(void)
{
	EXPECT_INT(rpma_cq_wait(NULL), INVAL);
	/* the CQs of a connection with a shared channel */
	EXPECT_INT(rpma_cq_wait(x.cq), RPMA_E_SHARED_CHANNEL);
	EXPECT_INT(rpma_cq_wait(x.rcq), RPMA_E_SHARED_CHANNEL);
}

static void
bad_rpma_cq_get_wc(void)
{
	struct ibv_wc wc[2];
	int got = BI_SENT_INT;

	drain_channel();
	t_note("a completion is waiting in the CQ");
	EXPECT_INT(rpma_read(x.conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x601)), 0);
	EXPECT_TRUE(channel_ready(OS_WC_WAIT_MS));
	memset(wc, BI_SENT_BYTE, sizeof(wc));
	EXPECT_INT(rpma_cq_get_wc(NULL, 1, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 1, NULL, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 0, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, -1, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, INT_MIN, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 2, wc, NULL), INVAL);
	EXPECT_INT(rpma_cq_get_wc(NULL, 0, NULL, NULL), INVAL);
	EXPECT_TRUE(bi_untouched(wc, sizeof(wc)));
	EXPECT_INT(got, BI_SENT_INT);
	t_note("the completion is still there");
	EXPECT_INT(rpma_cq_get_wc(x.cq, 2, wc, &got), 0);
	EXPECT_INT(got, 1);
	EXPECT_INT(wc[0].wr_id, 0x601);
	EXPECT_INT(wc[0].status, IBV_WC_SUCCESS);
	EXPECT_TRUE(bi_untouched(&wc[1], sizeof(wc[1])));
	drain_channel();
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_cq_get_fd),
	ROW(rpma_cq_wait),
	ROW(rpma_cq_get_wc),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
