/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_cq_get_wc.c -- mirrors rpma_cq_get_wc(3): RPMA_E_INVAL for a NULL
 * cq or wc, for num_entries < 1 (0, -1, INT_MIN) and for num_entries > 1
 * with a NULL num_entries_got, and none of them takes a completion that is
 * waiting; RPMA_E_NO_COMPLETION on an empty CQ; *wc and *num_entries_got
 * untouched by every failure. On success: the raw struct ibv_wc (status,
 * opcode, wr_id = the op_context, qp_num = rpma_conn_get_qp_num(3),
 * byte_len, IBV_WC_WITH_IMM and imm_data in network byte order for a
 * receive), one entry with a NULL num_entries_got, several at once,
 * fewer than asked (entries past *num_entries_got untouched), in the order
 * the operations were posted. RPMA_F_COMPLETION_ON_ERROR gives no
 * completion for a success; receives complete on the main CQ without a
 * receive CQ and only on the receive CQ with one. Failed operations come
 * back as entries with status != IBV_WC_SUCCESS and return value 0: a write
 * to a region the server did not open for writing (IBV_WC_REM_ACCESS_ERR,
 * the region unchanged) and what is posted after it
 * (IBV_WC_WR_FLUSH_ERR), both posted with RPMA_F_COMPLETION_ON_ERROR.
 *
 * Completions come from rpma_write(), rpma_read() and rpma_recv() here,
 * and from the server's sends. The command server of cq.h calls
 * rpma_send(), rpma_send_with_imm(), rpma_recv() and rpma_cq_get_wc()
 * (named here so CMake sees them).
 */
#include "cq.h"

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rw, *ro;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	struct ibv_wc wc, wcs[8];
	uint32_t qp_num = 0;
	int got, fd = -1;
	void *buf;
	char *b;

	t_begin();

	t_note("ERRORS: a NULL cq, *wc and *num_entries_got untouched");
	cq_poison(&wc, 1);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(rpma_cq_get_wc(NULL, 1, &wc, &got), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(NULL, 1, &wc, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(NULL, 0, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(cq_poisoned(&wc, 1));
	EXPECT_INT(got, CQ_INT_SENTINEL);

	peer = cq_start();
	mr = cq_local(peer, &buf);
	b = buf;

	t_note("1: the default configuration (no receive CQ)");
	CQ_CONNECT_RW_CQ(conn, rw, peer, NULL, cq);
	EXPECT_INT(rpma_conn_get_qp_num(conn, &qp_num), 0);

	t_note("ERRORS: RPMA_E_NO_COMPLETION before anything was posted");
	cq_poison(wcs, 8);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(rpma_cq_get_wc(cq, 1, wcs, &got), RPMA_E_NO_COMPLETION);
	EXPECT_INT(rpma_cq_get_wc(cq, 1, wcs, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_INT(rpma_cq_get_wc(cq, 8, wcs, &got), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(cq_poisoned(wcs, 8));
	EXPECT_INT(got, CQ_INT_SENTINEL);

	t_note("a completion waits in the CQ (the CQ's descriptor says it arrived)");
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	CQ_EXPECT_WRITE(conn, rw, mr, 0x11);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	t_note("ERRORS: RPMA_E_INVAL leaves it there, and *wc, *num_entries_got untouched");
	EXPECT_INT(rpma_cq_get_wc(cq, 0, wcs, &got), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, -1, wcs, &got), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, INT_MIN, wcs, &got), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, 1, NULL, &got), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, 2, wcs, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, 8, wcs, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_cq_get_wc(cq, 0, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(cq_poisoned(wcs, 8));
	EXPECT_INT(got, CQ_INT_SENTINEL);
	t_note("RETURN VALUE: 0 and one entry; num_entries_got may be NULL for one");
	EXPECT_INT(rpma_cq_get_wc(cq, 1, wcs, NULL), 0);
	CQ_EXPECT_WC(wcs[0], 0x11, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(wcs[0].qp_num == qp_num);
	EXPECT_TRUE(cq_poisoned(&wcs[1], 7));
	EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, &got), RPMA_E_NO_COMPLETION);
	EXPECT_INT(got, CQ_INT_SENTINEL);
	/* take the completion's event off the channel (re-arms the CQ) */
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);

	t_note("several completions at once, in order, then fewer than asked");
	EXPECT_INT(rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 64, RPMA_F_COMPLETION_ALWAYS,
			CQ_CTX(0x21)), 0);
	EXPECT_INT(rpma_write(conn, rw, 64, mr, CQ_L_WRITE, 64, RPMA_F_COMPLETION_ALWAYS,
			CQ_CTX(0x22)), 0);
	EXPECT_INT(rpma_read(conn, mr, CQ_L_READ, rw, 1024, 64, RPMA_F_COMPLETION_ALWAYS,
			CQ_CTX(0x23)), 0);
	/* the read's data is in place: all three have completed */
	EXPECT_TRUE(cq_data_arrived(b + CQ_L_READ, 1024, 64, CQ_SEED_RW));
	cq_poison(wcs, 8);
	EXPECT_INT(rpma_cq_get_wc(cq, 2, wcs, &got), 0);
	EXPECT_INT(got, 2);
	CQ_EXPECT_WC(wcs[0], 0x21, IBV_WC_RDMA_WRITE);
	CQ_EXPECT_WC(wcs[1], 0x22, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(wcs[1].qp_num == qp_num);
	EXPECT_TRUE(cq_poisoned(&wcs[2], 6));
	cq_poison(wcs, 8);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(rpma_cq_get_wc(cq, 8, wcs, &got), 0);
	EXPECT_INT(got, 1);
	CQ_EXPECT_WC(wcs[0], 0x23, IBV_WC_RDMA_READ);
	EXPECT_TRUE(cq_poisoned(&wcs[1], 7));
	got = CQ_INT_SENTINEL;
	EXPECT_INT(rpma_cq_get_wc(cq, 8, wcs, &got), RPMA_E_NO_COMPLETION);
	EXPECT_INT(got, CQ_INT_SENTINEL);

	t_note("RPMA_F_COMPLETION_ON_ERROR: no completion when the operation succeeds");
	EXPECT_INT(rpma_write(conn, rw, 128, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ON_ERROR,
			CQ_CTX(0x31)), 0);
	EXPECT_INT(rpma_write(conn, rw, 136, mr, CQ_L_WRITE, 8, RPMA_F_COMPLETION_ALWAYS,
			CQ_CTX(0x32)), 0);
	EXPECT_INT(cq_get_wc_within(cq, 8, wcs, &got), 0);
	EXPECT_INT(got, 1);
	CQ_EXPECT_WC(wcs[0], 0x32, IBV_WC_RDMA_WRITE);

	t_note("a receive with immediate data completes on the main CQ");
	EXPECT_INT(rpma_recv(conn, mr, CQ_L_RECV, 64, CQ_CTX(0x41)), 0);
	cq_cmd(CQ_SEND_IMM);
	cq_expect_server_sent();
	cq_poison(&wc, 1);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(cq_get_wc_within(cq, 1, &wc, &got), 0);
	EXPECT_INT(got, 1);
	CQ_EXPECT_WC(wc, 0x41, IBV_WC_RECV);
	EXPECT_INT(wc.byte_len, CQ_MSG_LEN);
	EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
	EXPECT_INT(ntohl(wc.imm_data), CQ_IMM);
	EXPECT_TRUE(wc.qp_num == qp_num);
	EXPECT_TRUE(cq_holds(b + CQ_L_RECV, 0, CQ_MSG_LEN, CQ_SEED_SRV));
	EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	CQ_CLOSE_RW(conn, rw);

	t_note("2: a receive CQ: receives complete there, nothing else does");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_conn_get_qp_num(conn, &qp_num), 0);
	EXPECT_INT(rpma_cq_get_wc(rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	memset(b + CQ_L_RECV, 0, 64);
	CQ_EXPECT_RECV_SENT(conn, mr, 0x51);
	cq_poison(wcs, 4);
	EXPECT_INT(cq_get_wc_within(rcq, 4, wcs, &got), 0);
	EXPECT_INT(got, 1);
	CQ_EXPECT_WC(wcs[0], 0x51, IBV_WC_RECV);
	EXPECT_INT(wcs[0].byte_len, CQ_MSG_LEN);
	EXPECT_TRUE(!(wcs[0].wc_flags & IBV_WC_WITH_IMM));
	EXPECT_TRUE(wcs[0].qp_num == qp_num);
	EXPECT_TRUE(cq_poisoned(&wcs[1], 3));
	EXPECT_TRUE(cq_holds(b + CQ_L_RECV, 0, CQ_MSG_LEN, CQ_SEED_SRV));
	EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION /* none on the main CQ */);
	CQ_EXPECT_WRITE(conn, rw, mr, 0x52);
	EXPECT_INT(cq_get_wc_within(cq, 1, &wc, NULL), 0);
	CQ_EXPECT_WC(wc, 0x52, IBV_WC_RDMA_WRITE);
	EXPECT_INT(rpma_cq_get_wc(rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	CQ_CLOSE_RW(conn, rw);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	t_note("3: failed operations: entries with an error status, return value 0");
	CQ_CONNECT(conn, peer, NULL);
	ro = cq_remote(conn, CQ_RO);
	EXPECT_TRUE(ro != NULL);
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0);
	EXPECT_INT(rpma_conn_get_qp_num(conn, &qp_num), 0);
	/* the region is not open for writing */
	EXPECT_INT(rpma_write(conn, ro, 0, mr, CQ_L_WRITE, 64, RPMA_F_COMPLETION_ON_ERROR,
			CQ_CTX(0x61)), 0);
	cq_poison(wcs, 8);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(cq_get_wc_within(cq, 8, wcs, &got), 0);
	EXPECT_INT(got, 1);
	EXPECT_INT(wcs[0].status, IBV_WC_REM_ACCESS_ERR);
	EXPECT_INT(wcs[0].wr_id, 0x61);
	EXPECT_TRUE(wcs[0].qp_num == qp_num);
	/* the connection's QP is in the error state now: this one is flushed */
	EXPECT_INT(rpma_read(conn, mr, CQ_L_READ, ro, 0, 64, RPMA_F_COMPLETION_ON_ERROR,
			CQ_CTX(0x62)), 0);
	cq_poison(wcs, 8);
	got = CQ_INT_SENTINEL;
	EXPECT_INT(cq_get_wc_within(cq, 8, wcs, &got), 0);
	EXPECT_INT(got, 1);
	EXPECT_INT(wcs[0].status, IBV_WC_WR_FLUSH_ERR);
	EXPECT_INT(wcs[0].wr_id, 0x62);
	EXPECT_TRUE(wcs[0].qp_num == qp_num);
	EXPECT_INT(rpma_cq_get_wc(cq, 8, wcs, &got), RPMA_E_NO_COMPLETION);
	cq_cmd(CQ_CHECK_RO);
	EXPECT_INT(SERVER(the read-only region is unchanged), 1);
	EXPECT_INT(rpma_mr_remote_delete(&ro), 0);
	cq_close(&conn);

	return cq_end(peer, mr, buf);
}
