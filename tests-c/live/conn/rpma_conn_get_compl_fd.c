/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_get_compl_fd.c -- mirrors rpma_conn_get_compl_fd(3): INVAL for
 * a NULL conn or fd; NOT_SHARED_CHNL without a shared completion channel
 * (also with a receive CQ); with one, an open descriptor, the same on every
 * call, not the event descriptor, one per connection, on both sides, closed
 * by rpma_conn_delete(3); *fd untouched on every failure.
 */
#include "conn.h"

#define FD_SENTINEL (-77)

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn, *other;
	int fd;

	(void) peer;
	S_CHECK(rpma_conn_cfg_new(&cfg) == 0);
	S_CHECK(rpma_conn_cfg_set_compl_channel(cfg, true) == 0);

	/* 1: default configuration */
	conn = c_accept(ep, NULL, NULL);
	fd = FD_SENTINEL;
	c_put(rpma_conn_get_compl_fd(conn, &fd));
	c_put(fd == FD_SENTINEL);
	S_CHECK(c_closed(&conn));

	/* 2: shared completion channel on this side */
	conn = c_accept(ep, cfg, NULL);
	fd = FD_SENTINEL;
	c_put(rpma_conn_get_compl_fd(conn, &fd));
	c_put(c_fd_open(fd));
	S_CHECK(c_closed(&conn));

	/* 3: (a client-side configuration) */
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));

	/* 4, 5: two connections open at once (client-side configurations) */
	conn = c_accept(ep, NULL, NULL);
	other = c_accept(ep, NULL, NULL);
	S_CHECK(c_closed(&conn));
	S_CHECK(c_closed(&other));

	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn, *other;
	struct rpma_conn_cfg *cfg = NULL;
	int fd = FD_SENTINEL, again = FD_SENTINEL, event_fd = -1, other_fd = FD_SENTINEL;

	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL conn, *fd untouched */
	EXPECT_INT(rpma_conn_get_compl_fd(NULL, &fd), RPMA_E_INVAL);
	EXPECT_INT(fd, FD_SENTINEL);
	EXPECT_INT(rpma_conn_get_compl_fd(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);

	t_note("1: the default configuration");
	C_CONNECT(conn, peer, NULL, NULL);
	/* ERRORS: RPMA_E_INVAL for a NULL fd, even without a shared channel */
	EXPECT_INT(rpma_conn_get_compl_fd(conn, NULL), RPMA_E_INVAL);
	/* ERRORS: RPMA_E_NOT_SHARED_CHNL, *fd untouched */
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	EXPECT_INT(fd, FD_SENTINEL);
	EXPECT_INT(SERVER(rpma_conn_get_compl_fd), RPMA_E_NOT_SHARED_CHNL);
	EXPECT_INT(SERVER(fd untouched), 1);
	EXPECT_TRUE(c_close(&conn));

	t_note("2: the server has a shared channel");
	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	EXPECT_INT(SERVER(rpma_conn_get_compl_fd), 0);
	EXPECT_INT(SERVER(an open fd), 1);
	EXPECT_TRUE(c_close(&conn));

	t_note("3: a receive CQ, no shared channel");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	C_CONNECT(conn, peer, cfg, NULL);
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	EXPECT_INT(fd, FD_SENTINEL);
	EXPECT_TRUE(c_close(&conn));

	t_note("4: a shared channel and a receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	C_REQUEST(conn, peer, cfg, NULL);
	/* RETURN VALUE: 0 and an open descriptor, before ESTABLISHED already */
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_TRUE(!(fcntl(fd, F_GETFL) & O_NONBLOCK) /* blocking by default */);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	EXPECT_INT(rpma_conn_get_compl_fd(conn, &again), 0);
	EXPECT_TRUE(again == fd);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &event_fd), 0);
	EXPECT_TRUE(event_fd != fd /* not the event descriptor */);
	/* nothing has completed: not readable */
	struct pollfd p = {.fd = fd, .events = POLLIN};
	EXPECT_INT(poll(&p, 1, 0), 0);

	t_note("5: another connection with the same configuration");
	C_CONNECT(other, peer, cfg, NULL);
	EXPECT_INT(rpma_conn_get_compl_fd(other, &other_fd), 0);
	EXPECT_TRUE(c_fd_open(other_fd));
	EXPECT_TRUE(other_fd != fd);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	/* rpma_conn_delete(3) closes it */
	EXPECT_TRUE(c_close(&conn));
	EXPECT_TRUE(!c_fd_open(fd));
	EXPECT_TRUE(c_fd_open(other_fd));
	EXPECT_TRUE(c_close(&other));
	EXPECT_TRUE(!c_fd_open(other_fd));

	return c_end(peer);
}
