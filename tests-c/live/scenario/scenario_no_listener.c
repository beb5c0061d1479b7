/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_no_listener.c -- a client connects to a port of RPMA_TESTING_IP
 * that nobody listens on: rpma_conn_req_new(3) succeeds (resolution is
 * local), rpma_conn_req_connect(3) succeeds, and the connection then
 * reports RPMA_CONN_REJECTED (not UNREACHABLE), promptly, with no private
 * data and nothing after it; it can be disconnected and deleted. The same
 * with private data and with a request built from a cfg.
 */
#include <time.h>

#include "ep-req.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
attempt(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *cpd)
{
	struct rpma_conn_req *req = ER_SENTINEL_REQ;
	struct rpma_conn *conn = ER_SENTINEL_CONN;

	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), 0);
	EXPECT_TRUE(req != NULL && req != ER_SENTINEL_REQ);
	double t0 = now();
	EXPECT_INT(rpma_conn_req_connect(&req, cpd, &conn), 0);
	EXPECT_TRUE(req == NULL);
	EXPECT_TRUE(conn != NULL && conn != ER_SENTINEL_CONN);
	/* on iWARP the connect itself fails (librpma(7), TRANSPORTS): no connection to ask */
	if (conn == NULL || conn == ER_SENTINEL_CONN)
		return;
	EXPECT_STR(er_ev(er_next_event(conn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_TRUE(now() - t0 < 3.0 /* seconds */);
	er_expect_after_reject(&conn);
}

int
main(void)
{
	t_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_cfg *cfg = NULL;
	static char data[56] = "is anybody there?";
	struct rpma_conn_private_data cpd = {data, sizeof(data)};

	/* nothing listens on t_port(): this process never calls rpma_ep_listen */
	t_note("no private data, NULL cfg");
	attempt(peer, NULL, NULL);

	t_note("56 bytes of private data");
	attempt(peer, NULL, &cpd);

	t_note("a cfg with a short timeout and a receive CQ");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 100), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	attempt(peer, cfg, NULL);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	t_note("the same port again");
	attempt(peer, NULL, NULL);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
