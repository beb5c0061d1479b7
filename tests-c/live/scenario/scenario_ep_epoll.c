/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_ep_epoll.c -- the endpoint's descriptor made O_NONBLOCK and
 * watched with epoll, next to a connection's event descriptor, as an
 * event-driven server does it (forked server): with nobody there epoll
 * reports nothing and rpma_ep_next_conn_req(3) fails with PROVIDER; a
 * client makes the endpoint readable and rpma_ep_next_conn_req(3) then
 * gives its request, after which the descriptor is quiet again; the
 * accepted connection's events arrive on its own descriptor; a second
 * client wakes the endpoint again and is rejected.
 */
#include <fcntl.h>
#include <sys/epoll.h>

#include "ep-req.h"

#define TAG_EP 42
#define TAG_CONN 43

/* one epoll_wait: the tag of the single ready descriptor, 0 for none, -1 otherwise */
static int
wait_one(int epfd, int ms)
{
	struct epoll_event ev[4];
	int n;

	do
		n = epoll_wait(epfd, ev, 4, ms);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	if (n != 1 || !(ev[0].events & EPOLLIN))
		return -1;
	return (int)ev[0].data.u32;
}

static int
first_byte(const struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pd = {NULL, 0};

	if (rpma_conn_req_get_private_data(req, &pd) || pd.ptr == NULL || pd.len == 0)
		return -1;
	return *(const unsigned char *)pd.ptr;
}

static int
server(void *arg)
{
	(void) arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = ER_SENTINEL_REQ;
	struct rpma_conn *conn = NULL;
	struct epoll_event e = {.events = EPOLLIN};
	int fd = -1, cfd = -1, epfd;

	if (rpma_ep_listen(peer, t_ip(), er_port(), &ep) || rpma_ep_get_fd(ep, &fd))
		return 10;
	epfd = epoll_create1(0);
	if (epfd < 0)
		return 11;
	er_put("O_NONBLOCK set", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	e.data.u32 = TAG_EP;
	er_put("epoll_ctl add ep", epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e));

	/* nobody there yet */
	er_put("ready, nobody there", wait_one(epfd, 0));
	er_put("next_conn_req, nothing waiting", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("req untouched", req == ER_SENTINEL_REQ);
	t_server_ready();

	/* the first client */
	er_put("ready", wait_one(epfd, ER_WAIT_MS));
	req = NULL;
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("client", first_byte(req));
	er_put("ready after taking it", wait_one(epfd, 0));
	struct rpma_conn_req *none = ER_SENTINEL_REQ;
	er_put("next_conn_req again", rpma_ep_next_conn_req(ep, NULL, &none));
	er_put("connect", rpma_conn_req_connect(&req, NULL, &conn));
	if (conn == NULL)
		return 12;
	er_put("get_event_fd", rpma_conn_get_event_fd(conn, &cfd));
	er_put("different descriptors", cfd >= 0 && cfd != fd);
	e.data.u32 = TAG_CONN;
	er_put("epoll_ctl add conn", epoll_ctl(epfd, EPOLL_CTL_ADD, cfd, &e));
	er_put("ready", wait_one(epfd, ER_WAIT_MS));
	er_put("event", er_next_event(conn, 0));

	/* the second client */
	t_sync_send();
	er_put("ready", wait_one(epfd, ER_WAIT_MS));
	req = NULL;
	er_put("next_conn_req", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("client", first_byte(req));
	er_put("conn_req_delete", rpma_conn_req_delete(&req));

	/* the first client disconnects */
	er_put("ready", wait_one(epfd, ER_WAIT_MS));
	er_put("event", er_next_event(conn, 0));
	er_put("ready, all quiet", wait_one(epfd, 200));
	er_put("epoll_ctl del conn", epoll_ctl(epfd, EPOLL_CTL_DEL, cfd, &e));
	er_put("disconnect", rpma_conn_disconnect(conn));
	er_put("conn_delete", rpma_conn_delete(&conn));
	er_put("epoll_ctl del ep", epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &e));
	close(epfd);
	return er_server_end(&ep, &peer, 13);
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *c1 = NULL, *c2 = NULL;
	char tag1 = '1', tag2 = '2';
	struct rpma_conn_private_data pd1 = {&tag1, 1}, pd2 = {&tag2, 1};

	er_server_start(server, NULL);

	t_note("before any client");
	EXPECT_INT(SRV("O_NONBLOCK set"), 0);
	EXPECT_INT(SRV("epoll_ctl add ep"), 0);
	EXPECT_INT(SRV("ready, nobody there"), 0);
	EXPECT_INT(SRV("next_conn_req, nothing waiting"), RPMA_E_PROVIDER);
	EXPECT_INT(SRV("req untouched"), 1);

	t_note("the first client");
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, &pd1, &c1), 0);
	EXPECT_INT(SRV("ready"), TAG_EP);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("client"), '1');
	EXPECT_INT(SRV("ready after taking it"), 0);
	EXPECT_INT(SRV("next_conn_req again"), RPMA_E_PROVIDER);
	EXPECT_INT(SRV("connect"), 0);
	EXPECT_INT(SRV("get_event_fd"), 0);
	EXPECT_INT(SRV("different descriptors"), 1);
	EXPECT_INT(SRV("epoll_ctl add conn"), 0);
	EXPECT_STR(er_ev(er_next_event(c1, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_INT(SRV("ready"), TAG_CONN);
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_ESTABLISHED");

	t_note("the second client");
	EXPECT_INT(t_sync_wait(), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), er_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, &pd2, &c2), 0);
	EXPECT_INT(SRV("ready"), TAG_EP);
	EXPECT_INT(SRV("next_conn_req"), 0);
	EXPECT_INT(SRV("client"), '2');
	EXPECT_INT(SRV("conn_req_delete"), 0);
	EXPECT_STR(er_ev(er_next_event(c2, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&c2), 0);

	t_note("the first client disconnects");
	EXPECT_INT(rpma_conn_disconnect(c1), 0);
	EXPECT_INT(SRV("ready"), TAG_CONN);
	EXPECT_STR(er_ev(SRV("event")), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("ready, all quiet"), 0);
	EXPECT_STR(er_ev(er_next_event(c1, ER_WAIT_MS)), "RPMA_CONN_CLOSED");
	EXPECT_INT(SRV("epoll_ctl del conn"), 0);
	EXPECT_INT(SRV("disconnect"), 0);
	EXPECT_INT(SRV("conn_delete"), 0);
	EXPECT_INT(SRV("epoll_ctl del ep"), 0);
	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(rpma_conn_delete(&c1), 0);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
