/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_ep_get_fd.c -- mirrors rpma_ep_get_fd(3): INVAL for a NULL ep or
 * fd (*fd untouched), 0 and a valid descriptor, the same one every time,
 * one per endpoint, blocking by default, readable exactly while a
 * connection request waits, and closed by rpma_ep_shutdown(3).
 */
#include <fcntl.h>

#include "ep-req.h"

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL, *ep2 = NULL;
	int fd = -7, fd_again = -7, fd2 = -7;

	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);

	/* ERRORS: RPMA_E_INVAL, *fd untouched */
	t_note("NULL arguments");
	EXPECT_INT(rpma_ep_get_fd(NULL, &fd), RPMA_E_INVAL);
	EXPECT_INT(fd, -7);
	EXPECT_INT(rpma_ep_get_fd(ep, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_get_fd(NULL, NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and an open descriptor */
	t_note("a listening endpoint");
	EXPECT_INT(rpma_ep_get_fd(ep, &fd), 0);
	EXPECT_TRUE(fd >= 0);
	EXPECT_TRUE(fcntl(fd, F_GETFD) != -1);
	EXPECT_INT(rpma_ep_get_fd(ep, &fd_again), 0);
	EXPECT_TRUE(fd_again == fd);
	/* it is a blocking descriptor until the caller changes that */
	EXPECT_INT(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);

	/* each endpoint has its own */
	t_note("a second endpoint");
	char port2[16];
	snprintf(port2, sizeof(port2), "%d", atoi(t_port()) + 1);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), port2, &ep2), 0);
	EXPECT_INT(rpma_ep_get_fd(ep2, &fd2), 0);
	EXPECT_TRUE(fd2 >= 0 && fd2 != fd);
	EXPECT_INT(rpma_ep_shutdown(&ep2), 0);

	/* DESCRIPTION: readable while a connection request waits */
	t_note("readable when a request arrives");
	struct rpma_conn_req *creq = NULL, *sreq = NULL;
	struct rpma_conn *cconn = NULL;
	EXPECT_INT(er_readable(fd, 0), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &creq), 0);
	EXPECT_INT(rpma_conn_req_connect(&creq, NULL, &cconn), 0);
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	/* still readable until the request is taken */
	EXPECT_INT(er_readable(fd, 0), 1);
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, &sreq), 0);
	EXPECT_INT(er_readable(fd, 0), 0);
	EXPECT_INT(rpma_conn_req_delete(&sreq), 0);
	EXPECT_STR(er_ev(er_next_event(cconn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&cconn), 0);
	/* the rejection leaves nothing behind in the endpoint */
	EXPECT_INT(er_readable(fd, 200), 0);

	/* the descriptor belongs to the endpoint: closed by the shutdown */
	t_note("after rpma_ep_shutdown");
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(fcntl(fd, F_GETFD) == -1 && errno == EBADF);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
