/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_cq_get_fd.c -- mirrors rpma_cq_get_fd(3): RPMA_E_INVAL for a NULL
 * cq or fd, *fd untouched. On success an open descriptor (>= 0), the same
 * on every call, in blocking mode, not the connection's event descriptor,
 * and closed by rpma_conn_delete(3). It is not readable while nothing has
 * completed, becomes readable when a completion arrives on the armed CQ
 * (armed at creation, re-armed by rpma_cq_wait(3)), and stays readable
 * until the event is taken; in non-blocking mode (fcntl(2)) it works the
 * same way. Without a shared channel the main CQ and the receive CQ have
 * descriptors of their own: a send-side completion makes only the main
 * CQ's readable, a receive only the receive CQ's. With a shared channel
 * both CQs report the same descriptor, rpma_conn_get_compl_fd(3)'s, which
 * becomes readable for either kind of completion.
 *
 * Completions come from rpma_write() and rpma_recv() here, and from the
 * server's sends. The command server of cq.h calls rpma_send(),
 * rpma_send_with_imm(), rpma_recv() and rpma_cq_get_wc() (named here so
 * CMake sees them).
 */
#include "cq.h"

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *rw;
	struct rpma_cq *cq = NULL, *rcq = NULL, *woke = NULL;
	struct ibv_wc wc;
	int fd = CQ_INT_SENTINEL, again = CQ_INT_SENTINEL, rfd = CQ_INT_SENTINEL;
	int event_fd = -1, compl_fd = -1;
	bool is_rcq = false;
	void *buf;

	t_begin();

	t_note("ERRORS: RPMA_E_INVAL for a NULL cq, *fd untouched");
	EXPECT_INT(rpma_cq_get_fd(NULL, &fd), RPMA_E_INVAL);
	EXPECT_INT(fd, CQ_INT_SENTINEL);
	EXPECT_INT(rpma_cq_get_fd(NULL, NULL), RPMA_E_INVAL);

	peer = cq_start();
	mr = cq_local(peer, &buf);

	t_note("1: the default configuration");
	CQ_CONNECT_RW_CQ(conn, rw, peer, NULL, cq);
	t_note("ERRORS: RPMA_E_INVAL for a NULL fd");
	EXPECT_INT(rpma_cq_get_fd(cq, NULL), RPMA_E_INVAL);
	t_note("RETURN VALUE: 0 and an open descriptor");
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_TRUE(fd >= 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_INT(rpma_cq_get_fd(cq, &again), 0);
	EXPECT_TRUE(again == fd);
	EXPECT_TRUE(cq_blocking(fd));
	EXPECT_INT(rpma_conn_get_event_fd(conn, &event_fd), 0);
	EXPECT_TRUE(event_fd != fd);

	t_note("readable once a completion arrives, until the event is taken");
	EXPECT_TRUE(!cq_readable(fd, 0));
	CQ_EXPECT_WRITE(conn, rw, mr, 0x11);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_TRUE(cq_readable(fd, 0));
	CQ_EXPECT_GOT(cq, wc, 0x11, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(cq_readable(fd, 0) /* taking the completion leaves the event */);
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	EXPECT_TRUE(!cq_readable(fd, 0));

	t_note("re-armed by rpma_cq_wait(3): readable at the next completion");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x12);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	CQ_EXPECT_GOT(cq, wc, 0x12, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(!cq_readable(fd, 0));

	t_note("in non-blocking mode too");
	EXPECT_INT(cq_set_nonblock(fd), 0);
	EXPECT_INT(rpma_cq_get_fd(cq, &again), 0);
	EXPECT_TRUE(again == fd && !cq_blocking(again));
	CQ_EXPECT_WRITE(conn, rw, mr, 0x13);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_INT(rpma_cq_wait(cq), 0);
	CQ_EXPECT_GOT(cq, wc, 0x13, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(!cq_readable(fd, 0));
	CQ_CLOSE_RW(conn, rw);
	EXPECT_TRUE(!c_fd_open(fd) /* closed by rpma_conn_delete(3) */);

	t_note("2: a receive CQ without a shared channel: a descriptor each");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_INT(rpma_cq_get_fd(rcq, &rfd), 0);
	EXPECT_TRUE(c_fd_open(fd) && c_fd_open(rfd));
	EXPECT_TRUE(rfd != fd);
	EXPECT_TRUE(cq_blocking(rfd));
	t_note("a receive makes only the receive CQ's readable");
	CQ_EXPECT_RECV_SENT(conn, mr, 0x21);
	EXPECT_TRUE(cq_readable(rfd, C_WAIT_MS));
	EXPECT_TRUE(!cq_readable(fd, 0));
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(rcq)), 0);
	CQ_EXPECT_GOT(rcq, wc, 0x21, IBV_WC_RECV);
	EXPECT_TRUE(!cq_readable(rfd, 0));
	t_note("a write makes only the main CQ's readable");
	CQ_EXPECT_WRITE(conn, rw, mr, 0x22);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_TRUE(!cq_readable(rfd, 0));
	EXPECT_INT(CQ_BOUNDED(rpma_cq_wait(cq)), 0);
	CQ_EXPECT_GOT(cq, wc, 0x22, IBV_WC_RDMA_WRITE);
	CQ_CLOSE_RW(conn, rw);
	EXPECT_TRUE(!c_fd_open(fd) && !c_fd_open(rfd));

	t_note("3: a shared channel and a receive CQ: one descriptor, the connection's");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq);
	EXPECT_INT(rpma_conn_get_rcq(conn, &rcq), 0);
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_INT(rpma_cq_get_fd(rcq, &rfd), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &compl_fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_TRUE(rfd == fd);
	EXPECT_TRUE(compl_fd == fd);
	t_note("readable for a write and for a receive");
	EXPECT_TRUE(!cq_readable(fd, 0));
	CQ_EXPECT_WRITE(conn, rw, mr, 0x31);
	EXPECT_TRUE(cq_readable(fd, C_WAIT_MS));
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, 0, &woke, &is_rcq)), 0);
	EXPECT_TRUE(woke == cq && !is_rcq);
	CQ_EXPECT_GOT(cq, wc, 0x31, IBV_WC_RDMA_WRITE);
	EXPECT_TRUE(!cq_readable(fd, 0));
	CQ_EXPECT_RECV_SENT(conn, mr, 0x32);
	EXPECT_TRUE(cq_readable(rfd, C_WAIT_MS));
	EXPECT_INT(CQ_BOUNDED(rpma_conn_wait(conn, 0, &woke, &is_rcq)), 0);
	EXPECT_TRUE(woke == rcq && is_rcq);
	CQ_EXPECT_GOT(rcq, wc, 0x32, IBV_WC_RECV);
	EXPECT_TRUE(!cq_readable(fd, 0));
	CQ_CLOSE_RW(conn, rw);
	EXPECT_TRUE(!c_fd_open(fd));

	t_note("4: a shared channel without a receive CQ: the connection's descriptor");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	CQ_CONNECT_CQ(conn, peer, cfg, cq);
	EXPECT_INT(rpma_cq_get_fd(cq, &fd), 0);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &compl_fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_TRUE(compl_fd == fd);
	cq_close(&conn);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	return cq_end(peer, mr, buf);
}
