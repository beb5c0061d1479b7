/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_server.c -- the server side of the lost-peer cases (net_client.c):
 * registers a region the client may write to, sends its descriptor with
 * the accept, and waits for the connection to end.
 *
 * usage: net_server ADDR PORT [probe SECONDS]
 *
 * Prints how the connection ended; exit 0 when it closed or was lost.
 * With "probe", the server also posts a zero-length write (no region, no
 * data) every SECONDS: a side with nothing else outstanding learns of a
 * lost peer only through a request of its own. It then reports what it
 * learnt as net_client does:
 *   RESULT mode=probe how=H detect_s=D
 * where D is the time since the last probe completed.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>

#include "net.h"

const char *net_side = "server";

#define REGION (1 << 20)

/*
 * a zero-length write every period seconds until one fails or an event
 * comes; prints what ended it
 */
static int
probe(struct rpma_conn *conn, double period)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	enum rpma_conn_event event;
	char how[64];
	double last_ok = net_now();
	int evfd, ret;

	if ((ret = rpma_conn_get_cq(conn, &cq)) || (ret = rpma_conn_get_event_fd(conn, &evfd)))
		return net_fail("the completion queue", ret);
	for (;;) {
		struct pollfd p = {evfd, POLLIN, 0};

		if (poll(&p, 1, (int)(period * 1000)) == 1) {
			ret = rpma_conn_next_event(conn, &event);
			snprintf(how, sizeof(how), "event:%s",
					ret ? "failed" : rpma_utils_conn_event_2str(event));
			break;
		}
		if ((ret = rpma_write(conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL)))
			return net_fail("rpma_write", ret);
		while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == RPMA_E_NO_COMPLETION)
			;
		if (ret) {
			snprintf(how, sizeof(how), "rpma_cq_get_wc:%d", ret);
			break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(how, sizeof(how), "wc:%s", ibv_wc_status_str(wc.status));
			break;
		}
		last_ok = net_now();
	}
	printf("server: learnt %s\nRESULT mode=probe how=%s detect_s=%.3f\n", how, how,
			net_now() - last_ok);
	fflush(stdout);
	return 0;
}


int
main(int argc, char *argv[])
{
	struct ibv_context *ctx;
	struct rpma_peer *peer = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	char desc[64];
	size_t desc_size;
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [probe SECONDS]\n", argv[0]);
		return 2;
	}
	void *buf = calloc(1, REGION);

	if (buf == NULL)
		return 1;
	if ((ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx)))
		return net_fail("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(ctx, &peer)))
		return net_fail("rpma_peer_new", ret);
	if ((ret = rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC,
			&mr)))
		return net_fail("rpma_mr_reg", ret);
	if ((ret = rpma_mr_get_descriptor_size(mr, &desc_size)) ||
			(ret = rpma_mr_get_descriptor(mr, desc)))
		return net_fail("rpma_mr_get_descriptor", ret);
	if ((ret = rpma_ep_listen(peer, argv[1], argv[2], &ep)))
		return net_fail("rpma_ep_listen", ret);
	printf("server: listening on %s:%s\n", argv[1], argv[2]);
	fflush(stdout);
	if ((ret = rpma_ep_next_conn_req(ep, NULL, &req)))
		return net_fail("rpma_ep_next_conn_req", ret);
	struct rpma_conn_private_data pdata = {desc, (uint8_t)desc_size};

	if ((ret = rpma_conn_req_connect(&req, &pdata, &conn)))
		return net_fail("rpma_conn_req_connect", ret);
	if ((ret = rpma_conn_next_event(conn, &event)) || event != RPMA_CONN_ESTABLISHED)
		return net_fail("waiting for the connection", ret ? ret : RPMA_E_UNKNOWN);
	printf("server: connection established\n");
	fflush(stdout);
	if (argc > 4 && strcmp(argv[3], "probe") == 0) {
		if (probe(conn, atof(argv[4])))
			return 1;
	} else {
		if ((ret = rpma_conn_next_event(conn, &event)))
			return net_fail("rpma_conn_next_event", ret);
		printf("server: the connection ended: %s\n", rpma_utils_conn_event_2str(event));
	}
	(void)rpma_conn_disconnect(conn);
	(void)rpma_conn_delete(&conn);
	(void)rpma_mr_dereg(&mr);
	(void)rpma_ep_shutdown(&ep);
	(void)rpma_peer_delete(&peer);
	free(buf);
	return 0;
}
