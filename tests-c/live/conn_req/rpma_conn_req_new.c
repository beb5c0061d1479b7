/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_req_new.c -- mirrors rpma_conn_req_new(3): INVAL for each NULL
 * argument (nothing logged); 0 with a NULL cfg and with a cfg, the NOTICE
 * message naming addr:port, no listener needed, an active request has no
 * private data; PROVIDER for an unresolvable host, an unknown service,
 * an address with no RDMA device (127.0.0.1), a CQ / receive CQ / QP the
 * device cannot create, a timeout of 0; *req_ptr untouched on every
 * failure; the request really connects (forked server). The INVAL for a
 * shared completion channel with an SRQ that has its own receive CQ is in
 * scenario_req_srq.c.
 */
#include "ep-req.h"

static void
expect_fail(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, int want)
{
	struct rpma_conn_req *req = ER_SENTINEL_REQ;

	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_new(peer, addr, port, cfg, &req), want);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_TRUE(er_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
}

/* server: accept one connection and wait for it to close */
static int
server_accept(void *arg)
{
	struct rpma_peer *peer;
	struct rpma_ep *ep = NULL;
	struct rpma_conn *conn = NULL;
	int failed = er_server_accept(&peer, &ep, &conn);

	(void) arg;
	if (failed)
		return failed;
	er_put_conn_life(&conn);
	return er_server_end(&ep, &peer, 12);
}

int
main(void)
{
	t_begin();
	er_log_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = ER_SENTINEL_REQ;
	char want[128];

	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_INVAL for each NULL argument, nothing logged */
	t_note("NULL arguments");
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_new(NULL, t_ip(), t_port(), NULL, &req), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_new(peer, NULL, t_port(), NULL, &req), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), NULL, NULL, &req), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_req_new(NULL, NULL, NULL, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(req == ER_SENTINEL_REQ);
	EXPECT_INT(er_nlogs, 0);

	/* RETURN VALUE: 0; nobody has to listen; one NOTICE message */
	t_note("NULL cfg, nobody listening");
	er_nlogs = 0;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_TRUE(req != NULL && req != ER_SENTINEL_REQ);
	snprintf(want, sizeof(want), "Requesting a connection to %s:%s\n", t_ip(), t_port());
	EXPECT_INT(er_log_has(RPMA_LOG_LEVEL_NOTICE, want), 1);
	EXPECT_INT(er_log_count(RPMA_LOG_LEVEL_ERROR), 0);
	/* an outgoing request carries no private data */
	struct rpma_conn_private_data pd = {ER_SENTINEL_PTR, 99};
	EXPECT_INT(rpma_conn_req_get_private_data(req, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);

	t_note("a cfg with other sizes and a receive CQ");
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 32), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 16), 0);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 4), 0);
	EXPECT_INT(rpma_conn_cfg_set_rq_size(cfg, 4), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 500), 0);
	req = ER_SENTINEL_REQ;
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), 0);
	EXPECT_TRUE(req != NULL && req != ER_SENTINEL_REQ);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	t_note("shared completion channel");
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &req), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);

	/* ERRORS: RPMA_E_PROVIDER, address or route resolution failed */
	t_note("an unresolvable host name");
	expect_fail(peer, "no-such-host.invalid", t_port(), NULL, RPMA_E_PROVIDER);
	t_note("a service name that does not exist");
	expect_fail(peer, t_ip(), "no-such-service", NULL, RPMA_E_PROVIDER);
	t_note("127.0.0.1: no RDMA device behind it");
	expect_fail(peer, "127.0.0.1", t_port(), NULL, RPMA_E_PROVIDER);
	t_note("timeout 0");
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	expect_fail(peer, t_ip(), t_port(), cfg, RPMA_E_PROVIDER);
	EXPECT_INT(rpma_conn_cfg_set_timeout(cfg, 1000), 0);

	/* ERRORS: RPMA_E_PROVIDER, a CQ or the QP could not be created */
	t_note("cq_size too big for the device");
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 10000000), 0);
	expect_fail(peer, t_ip(), t_port(), cfg, RPMA_E_PROVIDER);
	t_note("cq_size 0");
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 0), 0);
	expect_fail(peer, t_ip(), t_port(), cfg, RPMA_E_PROVIDER);
	EXPECT_INT(rpma_conn_cfg_set_cq_size(cfg, 10), 0);
	t_note("rcq_size too big for the device");
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 10000000), 0);
	expect_fail(peer, t_ip(), t_port(), cfg, RPMA_E_PROVIDER);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	t_note("sq_size too big for the device");
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 10000000), 0);
	expect_fail(peer, t_ip(), t_port(), cfg, RPMA_E_PROVIDER);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(cfg, 10), 0);

	/*
	 * ERRORS: RPMA_E_INVAL for a shared channel with an SRQ that has its own
	 * receive CQ: in scenario_req_srq.c (needs rpma_srq_new)
	 */
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	/* the request is a working outgoing connection request */
	t_note("connect to a forked server");
	er_server_start(server_accept, NULL);
	struct rpma_conn *conn = er_connect(peer);
	er_expect_accepted(conn);
	er_expect_conn_down(conn);
	er_expect_server_end(&conn);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
