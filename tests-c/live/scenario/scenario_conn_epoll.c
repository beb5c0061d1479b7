/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_conn_epoll.c -- a connection's event descriptor switched to
 * O_NONBLOCK and watched with epoll, as upstream's multi-connection
 * examples do: epoll reports it readable exactly while an event is pending
 * (level-triggered: again and again until the event is taken), and
 * rpma_conn_next_event(3) on the empty descriptor returns RPMA_E_PROVIDER
 * (not RPMA_E_NO_EVENT), leaving *event untouched and the connection
 * usable. Events seen this way: ESTABLISHED; CLOSED when the server
 * disconnects; CLOSED again when the connection leaves the time-wait state.
 */
#include <sys/epoll.h>

#include "conn.h"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn *conn;

	(void) peer;
	conn = c_accept(ep, NULL, NULL);
	S_CHECK(t_sync_wait() == 0);
	S_CHECK(c_close(&conn)); /* waits for the client's answer */
}

/* epoll_wait() on epfd: the number of ready descriptors (0 or 1), -1 on error */
static int
ready(int epfd, int fd, int timeout_ms)
{
	struct epoll_event e;
	int n = epoll_wait(epfd, &e, 1, timeout_ms);

	if (n == 1 && (e.data.fd != fd || !(e.events & EPOLLIN)))
		return -1;
	return n;
}

/*
 * rpma_conn_next_event(conn, &ev) returns ret and gives want (*event is
 * preset to EV_SENTINEL)
 */
#define EXPECT_NEXT_EVENT(ret, want) do { \
	ev = EV_SENTINEL; \
	EXPECT_INT(rpma_conn_next_event(conn, &ev), ret); \
	EXPECT_INT(ev, want); \
} while (0)

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct epoll_event e;
	enum rpma_conn_event ev;
	int fd = -1, epfd, flags;

	t_begin();
	peer = c_start_serving(serve);

	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(rpma_conn_get_event_fd(conn, &fd), 0);
	flags = fcntl(fd, F_GETFL);
	EXPECT_TRUE(flags != -1);
	EXPECT_INT(fcntl(fd, F_SETFL, flags | O_NONBLOCK), 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	EXPECT_TRUE(epfd >= 0);
	memset(&e, 0, sizeof(e));
	e.events = EPOLLIN;
	e.data.fd = fd;
	EXPECT_INT(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e), 0);

	t_note("ESTABLISHED");
	EXPECT_INT(ready(epfd, fd, C_WAIT_MS), 1);
	EXPECT_INT(ready(epfd, fd, 0) /* still, until taken */, 1);
	EXPECT_NEXT_EVENT(0, RPMA_CONN_ESTABLISHED);
	EXPECT_TRUE(c_server_established());
	EXPECT_INT(ready(epfd, fd, 0), 0);

	t_note("nothing pending");
	EXPECT_NEXT_EVENT(RPMA_E_PROVIDER, EV_SENTINEL);
	EXPECT_INT(rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	EXPECT_INT(ev, EV_SENTINEL);
	EXPECT_INT(ready(epfd, fd, 200), 0);

	t_note("the server disconnects");
	t_sync_send();
	EXPECT_INT(ready(epfd, fd, C_WAIT_MS), 1);
	EXPECT_INT(ready(epfd, fd, 0), 1);
	EXPECT_NEXT_EVENT(0, RPMA_CONN_CLOSED);
	EXPECT_INT(ready(epfd, fd, 0), 0);
	EXPECT_NEXT_EVENT(RPMA_E_PROVIDER, EV_SENTINEL);
	/* the answer, which lets the server see CLOSED */
	EXPECT_INT(rpma_conn_disconnect(conn), 0);

	t_note("leaving the time-wait state");
	EXPECT_INT(ready(epfd, fd, C_WAIT_MS), 1);
	EXPECT_NEXT_EVENT(0, RPMA_CONN_CLOSED);
	EXPECT_INT(ready(epfd, fd, 500), 0);
	EXPECT_NEXT_EVENT(RPMA_E_PROVIDER, EV_SENTINEL);

	EXPECT_INT(rpma_conn_delete(&conn), 0);
	EXPECT_INT(close(epfd), 0);
	return c_end(peer);
}
