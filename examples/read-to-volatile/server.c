/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the read-to-volatile example: exposes an
 * 8 KiB region of known contents for remote reads only, accepts exactly
 * one client and hands it the region's descriptor in the accept. The
 * client reads; the server does nothing on the data path (one-sided
 * reads never involve its CPU). Once the client has hung up, the server
 * checks that its region was not changed. The protocol is in common.h.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when the client came, left cleanly and the region is intact,
 * 1 on any error, on a changed byte, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/*
 * Fills *msg with the descriptor of mr. Returns 0, a librpma error code,
 * or RPMA_E_INVAL when it does not fit (*what names the step).
 */
static int
pack_welcome(struct welcome_msg *msg, const struct rpma_mr_local *mr, const char **what)
{
	size_t size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &size);
	if (ret)
		return ret;
	/* the size comes from the library: never trust it to fit blindly */
	*what = "fitting the descriptor into the WELCOME";
	if (size == 0 || size > sizeof(msg->descriptors))
		return RPMA_E_INVAL;
	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptors);
	if (ret)
		return ret;
	msg->magic = htole32(WELCOME_MAGIC);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)size;
	msg->pcfg_desc_size = 0;
	return 0;
}

/*
 * Runs one connection from request to close. req is consumed in every
 * case. Returns 0 when the client came and left cleanly.
 */
static int
serve(struct rpma_conn_req *req, const struct welcome_msg *welcome)
{
	struct rpma_conn_private_data pdata;

	/* the library only reads the accept data, the cast drops const for the API */
	pdata.ptr = (void *)welcome;
	pdata.len = sizeof(*welcome);
	/* the reads need nothing from this side; the client hangs up when done */
	return serve_one_sided(WHO, &req, &pdata, SESSION_TIMEOUT_MS);
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct welcome_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
	int failed = 1;
	size_t i;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* line by line even into a file: a script waits for "listening" */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is this host's own: the device is the one that has it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer))
		return 1;

	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_peer_delete;
	for (i = 0; i < SERVER_BUF_SIZE; i++)
		buf[i] = region_byte(i);

	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}
	/* the WELCOME is ready before anyone asks, so a client never waits for it */
	ret = pack_welcome(&welcome, mr, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_mr_dereg;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_mr_dereg;
	}
	printf(WHO ": listening on %s:%s, %d byte region registered for remote reads\n",
			addr, port, SERVER_BUF_SIZE);

	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	if (serve(req, &welcome))
		goto err_ep_shutdown;

	/* reads leave the source as it was: every byte must still be there */
	for (i = 0; i < SERVER_BUF_SIZE; i++) {
		if (buf[i] != region_byte(i)) {
			fprintf(stderr, WHO ": region byte %zu is 0x%02x, expected 0x%02x\n",
					i, buf[i], region_byte(i));
			goto err_ep_shutdown;
		}
	}
	printf(WHO ": the region still holds its %d original bytes\n", SERVER_BUF_SIZE);
	failed = 0;

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
err_free:
	free(buf);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
