/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_server.c -- the server side of the lost-peer cases (net_client.c):
 * registers a region the client may write to, sends its descriptor with
 * the accept, and waits for the connection to end.
 *
 * usage: net_server ADDR PORT [READY-FILE]
 *
 * READY-FILE is created once it listens (softroce/rxe-pair waits for it).
 * Prints how the connection ended; exit 0 when it closed or was lost.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <librpma.h>

#define REGION (1 << 20)

static int
fail(const char *what, int ret)
{
	fprintf(stderr, "server: %s failed: %s\n", what, rpma_err_2str(ret));
	return 1;
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
		fprintf(stderr, "usage: %s ADDR PORT [READY-FILE]\n", argv[0]);
		return 2;
	}
	void *buf = calloc(1, REGION);

	if (buf == NULL)
		return 1;
	if ((ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx)))
		return fail("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(ctx, &peer)))
		return fail("rpma_peer_new", ret);
	if ((ret = rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC,
			&mr)))
		return fail("rpma_mr_reg", ret);
	if ((ret = rpma_mr_get_descriptor_size(mr, &desc_size)) ||
			(ret = rpma_mr_get_descriptor(mr, desc)))
		return fail("rpma_mr_get_descriptor", ret);
	if ((ret = rpma_ep_listen(peer, argv[1], argv[2], &ep)))
		return fail("rpma_ep_listen", ret);
	printf("server: listening on %s:%s\n", argv[1], argv[2]);
	fflush(stdout);
	if (argc > 3)
		close(open(argv[3], O_CREAT | O_WRONLY, 0644));
	if ((ret = rpma_ep_next_conn_req(ep, NULL, &req)))
		return fail("rpma_ep_next_conn_req", ret);
	struct rpma_conn_private_data pdata = {desc, (uint8_t)desc_size};

	if ((ret = rpma_conn_req_connect(&req, &pdata, &conn)))
		return fail("rpma_conn_req_connect", ret);
	while ((ret = rpma_conn_next_event(conn, &event)) == 0 &&
			event == RPMA_CONN_ESTABLISHED) {
		printf("server: connection established\n");
		fflush(stdout);
	}
	if (ret)
		return fail("rpma_conn_next_event", ret);
	printf("server: the connection ended: %s\n", rpma_utils_conn_event_2str(event));
	(void)rpma_conn_disconnect(conn);
	(void)rpma_conn_delete(&conn);
	(void)rpma_mr_dereg(&mr);
	(void)rpma_ep_shutdown(&ep);
	(void)rpma_peer_delete(&peer);
	free(buf);
	return 0;
}
