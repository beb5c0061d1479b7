/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_ep_listen.c -- mirrors rpma_ep_listen(3): INVAL for each NULL
 * argument (nothing logged), success on RPMA_TESTING_IP and the NOTICE
 * message naming addr:port, the endpoint really accepts a request, PROVIDER
 * for a port already in use (also through 0.0.0.0), an unresolvable host,
 * an address that is not local and a service name that does not exist
 * (each with an ERROR message), the loopback address on the same port,
 * port "0", the loopback address and 0.0.0.0 on a free port, two endpoints
 * at once, listening again once an endpoint is shut down, and
 * *ep_ptr untouched on every failure.
 */
#include "ep-req.h"

/* rpma_ep_shutdown(), unless the endpoint was never created */
static int
shutdown_real(struct rpma_ep **ep)
{
	return *ep == ER_SENTINEL_EP ? -1 : rpma_ep_shutdown(ep);
}

static void
expect_provider(struct rpma_peer *peer, const char *addr, const char *port)
{
	struct rpma_ep *ep = ER_SENTINEL_EP;

	er_nlogs = 0;
	EXPECT_INT(rpma_ep_listen(peer, addr, port, &ep), RPMA_E_PROVIDER);
	EXPECT_TRUE(ep == ER_SENTINEL_EP);
	EXPECT_TRUE(er_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	if (ep != ER_SENTINEL_EP && ep != NULL)
		(void) rpma_ep_shutdown(&ep);
}

int
main(void)
{
	t_begin();
	er_log_begin();

	struct rpma_peer *peer = t_peer();
	struct rpma_ep *ep = ER_SENTINEL_EP, *ep2 = ER_SENTINEL_EP;
	char want[128];

	/* ERRORS: RPMA_E_INVAL for each NULL argument, nothing logged */
	t_note("NULL arguments");
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_listen(NULL, t_ip(), t_port(), &ep), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_listen(peer, NULL, t_port(), &ep), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), NULL, &ep), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_ep_listen(NULL, NULL, NULL, NULL), RPMA_E_INVAL);
	EXPECT_TRUE(ep == ER_SENTINEL_EP);
	EXPECT_INT(er_nlogs, 0);

	/* RETURN VALUE: 0 and a new endpoint; one NOTICE message */
	t_note("listen on RPMA_TESTING_IP");
	er_nlogs = 0;
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_TRUE(ep != NULL && ep != ER_SENTINEL_EP);
	snprintf(want, sizeof(want), "Waiting for incoming connection on %s:%s\n", t_ip(), t_port());
	EXPECT_INT(er_nlogs, 1);
	EXPECT_INT(er_log_has(RPMA_LOG_LEVEL_NOTICE, want), 1);

	/* DESCRIPTION: the endpoint takes requests (client in this process) */
	t_note("a request reaches the endpoint");
	struct rpma_conn_req *creq = NULL, *sreq = ER_SENTINEL_REQ;
	struct rpma_conn *cconn = NULL;
	EXPECT_INT(er_ep_readable(ep, 0), 0);
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &creq), 0);
	EXPECT_INT(rpma_conn_req_connect(&creq, NULL, &cconn), 0);
	EXPECT_INT(er_ep_readable(ep, ER_WAIT_MS), 1);
	EXPECT_INT(rpma_ep_next_conn_req(ep, NULL, &sreq), 0);
	EXPECT_TRUE(sreq != NULL && sreq != ER_SENTINEL_REQ);
	EXPECT_INT(rpma_conn_req_delete(&sreq), 0);
	EXPECT_STR(er_ev(er_next_event(cconn, ER_WAIT_MS)), "RPMA_CONN_REJECTED");
	EXPECT_INT(rpma_conn_delete(&cconn), 0);

	/* ERRORS: RPMA_E_PROVIDER, the address and port are taken */
	t_note("the same address and port again");
	expect_provider(peer, t_ip(), t_port());
	t_note("0.0.0.0 and the same port");
	expect_provider(peer, "0.0.0.0", t_port());

	/* ERRORS: RPMA_E_PROVIDER, the address cannot be resolved or bound */
	t_note("an unresolvable host name");
	expect_provider(peer, "no-such-host.invalid", t_port());
	t_note("an address that is not local (192.0.2.1)");
	expect_provider(peer, "192.0.2.1", t_port());
	t_note("a service name that does not exist");
	expect_provider(peer, t_ip(), "no-such-service");

	/* other addresses and ports that work */
	t_note("port \"0\"");
	ep2 = ER_SENTINEL_EP;
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), "0", &ep2), 0);
	EXPECT_TRUE(ep2 != NULL && ep2 != ER_SENTINEL_EP);
	EXPECT_INT(shutdown_real(&ep2), 0);

	t_note("the loopback address, the same port");
	expect_provider(peer, "127.0.0.1", t_port());

	char port2[16];
	snprintf(port2, sizeof(port2), "%d", atoi(t_port()) + 1);
	t_note("the loopback address, another port");
	ep2 = ER_SENTINEL_EP;
	EXPECT_INT(rpma_ep_listen(peer, "127.0.0.1", port2, &ep2), 0);
	EXPECT_TRUE(ep2 != NULL && ep2 != ER_SENTINEL_EP);
	EXPECT_INT(shutdown_real(&ep2), 0);

	t_note("0.0.0.0, another port");
	ep2 = ER_SENTINEL_EP;
	EXPECT_INT(rpma_ep_listen(peer, "0.0.0.0", port2, &ep2), 0);
	EXPECT_TRUE(ep2 != NULL && ep2 != ER_SENTINEL_EP);
	EXPECT_INT(shutdown_real(&ep2), 0);

	t_note("a second endpoint on another port");
	ep2 = ER_SENTINEL_EP;
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), port2, &ep2), 0);
	EXPECT_TRUE(ep2 != NULL && ep2 != ER_SENTINEL_EP && ep2 != ep);
	int fd1 = -1, fd2 = -1;
	EXPECT_INT(rpma_ep_get_fd(ep, &fd1), 0);
	EXPECT_INT(rpma_ep_get_fd(ep2, &fd2), 0);
	EXPECT_TRUE(fd1 >= 0 && fd2 >= 0 && fd1 != fd2);
	EXPECT_INT(shutdown_real(&ep2), 0);

	/* the port is free again once the endpoint is shut down */
	t_note("listen again after rpma_ep_shutdown");
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);
	EXPECT_TRUE(ep == NULL);
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);
	EXPECT_TRUE(ep != NULL);
	EXPECT_INT(rpma_ep_shutdown(&ep), 0);

	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	return t_end();
}
