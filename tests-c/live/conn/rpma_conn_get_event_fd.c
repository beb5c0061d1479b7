/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_event_fd.c -- mirrors rpma_conn_get_event_fd(3): INVAL for
 * a NULL conn or fd (fd untouched), the descriptor is open, stable, becomes
 * readable exactly when an event is pending, belongs to one connection only
 * (two connections, and a connection and its endpoint, have different
 * descriptors), and is closed by rpma_conn_delete(3).
 */
#include "conn.h"

#define FD_SENTINEL (-77)

/* server: two connections; reports whether their fds differ */
static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *c1, *c2;
	int ep_fd = -1, fd1 = -1, fd2 = -1;

	(void) peer;
	c1 = c_accept(ep, NULL, NULL);
	c2 = c_accept(ep, NULL, NULL);
	S_CHECK(rpma_ep_get_fd(ep, &ep_fd) == 0);
	S_CHECK(rpma_conn_get_event_fd(c1, &fd1) == 0);
	S_CHECK(rpma_conn_get_event_fd(c2, &fd2) == 0);
	c_put(c_fd_open(fd1) && c_fd_open(fd2));
	c_put(fd1 != ep_fd && fd2 != ep_fd);
	c_put(fd1 != fd2);
	S_CHECK(c_closed(&c1));
	S_CHECK(c_closed(&c2));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn, *other;
	int fd = FD_SENTINEL, fd_again = FD_SENTINEL, other_fd = FD_SENTINEL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *fd untouched */
	EXPECT_INT(rpma_conn_get_event_fd(NULL, &fd), RPMA_E_INVAL);
	EXPECT_INT(fd, FD_SENTINEL);
	EXPECT_INT(rpma_conn_get_event_fd(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	t_note("a connection just requested");
	C_REQUEST(conn, peer, NULL, NULL);

	/* ERRORS: RPMA_E_INVAL for a NULL fd */
	EXPECT_INT(rpma_conn_get_event_fd(conn, NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and an open descriptor, the same on every call */
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_TRUE(!(fcntl(fd, F_GETFL) & O_NONBLOCK) /* blocking by default */);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd_again), 0);
	EXPECT_TRUE(fd_again == fd);

	/* DESCRIPTION: readable while an event is pending, not after it is taken */
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS) /* ESTABLISHED pending */);
	EXPECT_INT(rpma_conn_next_event(conn, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_ESTABLISHED);
	EXPECT_TRUE(c_server_established());
	EXPECT_TRUE(!c_event_pending(conn, 0) /* nothing pending */);
	fd_again = FD_SENTINEL;
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd_again), 0);
	EXPECT_TRUE(fd_again == fd);

	t_note("a second connection has a descriptor of its own");
	C_CONNECT(other, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_event_fd(other, &other_fd), 0);
	EXPECT_TRUE(c_fd_open(other_fd));
	EXPECT_TRUE(other_fd != fd);

	t_note("the server's connections");
	EXPECT_INT(SERVER(both conn fds open), 1);
	EXPECT_INT(SERVER(conn fds differ from the endpoint fd), 1);
	EXPECT_INT(SERVER(the two conn fds differ), 1);

	t_note("readable when the connection closes");
	EXPECT_INT(rpma_conn_disconnect(conn), 0);
	EXPECT_TRUE(c_event_pending(conn, C_WAIT_MS) /* CLOSED pending */);
	EXPECT_INT(rpma_conn_next_event(conn, &ev), 0);
	EXPECT_INT(ev, RPMA_CONN_CLOSED);

	/* the descriptor is the connection's: rpma_conn_delete(3) closes it */
	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_TRUE(!c_fd_open(fd) /* closed by rpma_conn_delete */);
	EXPECT_TRUE(c_fd_open(other_fd) /* the other connection's is still open */);
	EXPECT_TRUE(c_close(&other));
	EXPECT_TRUE(!c_fd_open(other_fd));

	return c_end(peer);
}
