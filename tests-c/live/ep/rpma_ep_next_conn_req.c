/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_ep_next_conn_req.c -- mirrors rpma_ep_next_conn_req(3): INVAL for a
 * NULL ep or req_ptr; PROVIDER (not NO_EVENT) on a non-blocking descriptor
 * with nothing waiting; requests come out one per call in arrival order,
 * each with the client's private data; a NULL cfg gives the defaults and a
 * cfg is applied (receive CQ); a cfg the device cannot satisfy gives
 * PROVIDER, the client is left waiting and the endpoint keeps working; a
 * blocking call returns when a client arrives (forked server); *req_ptr
 * untouched on every failure. The INVAL for a shared channel with an SRQ
 * that has its own receive CQ is in scenario_req_srq.c.
 */
#include <fcntl.h>

#include "ep-req.h"

/* a client in this process: connects to port with one byte of private data */
static struct rpma_conn *
client_connect(struct rpma_peer *peer, const char *port, char tag)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd = {&tag, 1};

	if (rpma_conn_req_new(peer, t_ip(), port, NULL, &req) != 0 ||
			rpma_conn_req_connect(&req, &pd, &conn) != 0) {
		fprintf(stderr, "cannot connect a client\n");
		exit(2);
	}
	return conn;
}

/* the first byte of a request's private data, -1 when there is none */
static int
first_byte(const struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pd = {NULL, 0};

	if (rpma_conn_req_get_private_data(req, &pd) != 0 || pd.ptr == NULL || pd.len == 0)
		return -1;
	return *(const unsigned char *)pd.ptr;
}

/*
 * A client connects with tag; taking its request with cfg, which the
 * device cannot satisfy, fails with PROVIDER, *req_ptr untouched and an
 * ERROR logged. Returns the client's connection.
 */
static struct rpma_conn *
expect_unbuildable(struct rpma_peer *peer, struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		int fd, char tag)
{
	struct rpma_conn *ca = client_connect(peer, t_port(), tag);
	struct rpma_conn_req *req;

	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	req = ER_SENTINEL_REQ;
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_TRUE(er_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	return ca;
}

/* server: one blocking call */
static int
server_blocking(void *arg)
{
	(void) arg;
	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = ER_SENTINEL_REQ;

	if (er_listen(peer, &ep))
		return 10;
	er_put("next_conn_req (blocking)", rpma_ep_next_conn_req(ep, NULL, &req));
	er_put("req written", req != ER_SENTINEL_REQ && req != NULL);
	er_put("private data byte", first_byte(req));
	er_put("conn_req_delete", rpma_conn_req_delete(&req));
	return er_server_end(&ep, &peer, 11);
}

int
main(void)
{
	t_begin();
	er_log_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = ER_SENTINEL_REQ;
	int fd = -1;

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_INT(rpma_ep_get_fd(ep, &fd), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL ep or req_ptr */
	t_note("NULL arguments");
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, &req), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, cfg, &req), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(er_nlogs, 0);

	/* nothing waiting on a non-blocking descriptor: PROVIDER, not NO_EVENT */
	t_note("O_NONBLOCK, no request waiting");
	EXPECT_INT(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 1);
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);

	/* DESCRIPTION: one request per call, in the order they arrived */
	t_note("two clients, one after the other");
	struct rpma_conn *ca = client_connect(peer, t_port(), 'A');
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	struct rpma_conn *cb = client_connect(peer, t_port(), 'B');
	struct rpma_conn_req *ra = ER_SENTINEL_REQ, *rb = ER_SENTINEL_REQ;
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, &ra), 0);
	EXPECT_TRUE(ra != NULL && ra != ER_SENTINEL_REQ);
	EXPECT_INT(first_byte(ra), 'A');
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	/* a cfg with a receive CQ of its own */
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 5), 0);
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &rb), 0);
	EXPECT_TRUE(rb != NULL && rb != ER_SENTINEL_REQ && rb != ra);
	EXPECT_INT(first_byte(rb), 'B');
	EXPECT_INT(er_readable(fd, 0), 0);

	/* both requests are real: accept them, check the CQ layout */
	t_note("accept both");
	struct rpma_conn *sa = NULL, *sb = NULL;
	struct rpma_cq *rcq = ER_SENTINEL_PTR;
	EXPECT_INT(rpma_conn_req_connect(&ra, NULL, &sa), 0);
	EXPECT_INT(rpma_conn_req_connect(&rb, NULL, &sb), 0);
	EXPECT_STR(er_ev(er_next_event(ca, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(er_next_event(cb, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(er_next_event(sa, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	EXPECT_STR(er_ev(er_next_event(sb, ER_WAIT_MS)), "RPMA_CONN_ESTABLISHED");
	/* NULL cfg: the defaults, i.e. no separate receive CQ */
	EXPECT_INT(rpma_conn_get_rcq(sa, &rcq), 0);
	EXPECT_TRUE(rcq == NULL);
	rcq = ER_SENTINEL_PTR;
	EXPECT_INT(rpma_conn_get_rcq(sb, &rcq), 0);
	EXPECT_TRUE(rcq != NULL && rcq != ER_SENTINEL_PTR);
	struct rpma_conn *all[] = {ca, cb, sa, sb};
	for (int i = 0; i < 4; i++)
		EXPECT_INT(rpma_conn_disconnect(all[i]), 0);
	for (int i = 0; i < 4; i++) {
		EXPECT_STR(er_ev(er_next_event(all[i], ER_WAIT_MS)), "RPMA_CONN_CLOSED");
		EXPECT_INT(rpma_conn_delete(&all[i]), 0);
	}
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);

	/* ERRORS: RPMA_E_PROVIDER when the request cannot be built */
	t_note("a CQ the device cannot create");
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 10000000), 0);
	ca = expect_unbuildable(peer, ep, cfg, fd, 'C');
	/*
	 * The event was consumed and the client is not accepted. The C library
	 * leaves it waiting (no event); ours rejects it at once (see NOTES of
	 * rpma_ep_next_conn_req(3)). Either way it never gets ESTABLISHED.
	 */
	EXPECT_INT(er_readable(fd, 0), 0);
	EXPECT_TRUE(er_not_accepted(er_next_event(ca, 300)));
	EXPECT_INT(rpma_conn_delete(&ca), 0);
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 10), 0);

	t_note("a QP the device cannot create");
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 10000000), 0);
	ca = expect_unbuildable(peer, ep, cfg, fd, 'D');
	EXPECT_TRUE(er_not_accepted(er_next_event(ca, 300)));
	EXPECT_INT(rpma_conn_delete(&ca), 0);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 10), 0);

	/*
	 * ERRORS: RPMA_E_INVAL for a shared channel with an SRQ that has its own
	 * receive CQ: in scenario_req_srq.c (needs rpma_srq_new)
	 */

	/* the endpoint still works */
	t_note("the next client after the failures");
	ca = client_connect(peer, t_port(), 'E');
	EXPECT_INT(er_readable(fd, ER_WAIT_MS), 1);
	req = NULL;
	EXPECT_INT(rpma_ep_next_conn_req(ep, cfg, &req), 0);
	EXPECT_INT(first_byte(req), 'E');
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_STR(er_ev(er_next_event(ca, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&ca), 0);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);

	/* a blocking call waits for the client (forked server) */
	t_note("blocking call, the client comes later");
	er_server_start(server_blocking, NULL);
	t_sleep_ms(300);
	ca = client_connect(peer, er_port(), 'F');
	EXPECT_INT(SRV("next_conn_req (blocking)"), 0);
	EXPECT_INT(SRV("req written"), 1);
	EXPECT_INT(SRV("private data byte"), 'F');
	EXPECT_INT(SRV("conn_req_delete"), 0);
	EXPECT_STR(er_ev(er_next_event(ca, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(SRV("ep_shutdown"), 0);
	EXPECT_INT(rpma_conn_delete(&ca), 0);
	EXPECT_INT(er_server_join(), 0);

	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
