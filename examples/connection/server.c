/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the connection example: exposes a 4 KiB
 * buffer, accepts exactly one client, checks the HELLO that arrives with
 * its connect request and hands back the buffer's descriptor together with
 * the server's peer configuration in the accept. No data moves over the
 * connection itself; the client ends it.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when the whole exchange went as the protocol (common.h) says,
 * 1 on any error, mismatch, or when no client came within 30 s.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"

#define WHO "server"

/*
 * Checks the HELLO in the request's private data: header sound, and the
 * client's descriptor decodes into a region of the size the protocol
 * promises. Returns 0 when all is well.
 */
static int
check_hello(struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	struct rpma_mr_remote *client_mr = NULL;
	struct conn_msg msg;
	const char *problem;
	size_t size = 0;
	int ret, ret2;

	ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret) {
		report(WHO, "rpma_conn_req_get_private_data", ret);
		return 1;
	}
	problem = msg_unpack(&msg, &pdata, HELLO_MAGIC);
	if (problem) {
		fprintf(stderr, WHO ": bad HELLO (%u bytes of private data): %s\n",
				pdata.len, problem);
		return 1;
	}
	if (msg.pcfg_desc_size != 0) {
		fprintf(stderr, WHO ": bad HELLO: a client sends no peer configuration\n");
		return 1;
	}

	ret = rpma_mr_remote_from_descriptor(msg.descriptors, msg.mr_desc_size, &client_mr);
	if (ret) {
		report(WHO, "rpma_mr_remote_from_descriptor (client's region)", ret);
		return 1;
	}
	ret = rpma_mr_remote_get_size(client_mr, &size);
	if (ret)
		report(WHO, "rpma_mr_remote_get_size", ret);
	else if (size != CLIENT_BUF_SIZE) {
		fprintf(stderr, WHO ": the client's region has %zu bytes, the protocol says %d\n",
				size, CLIENT_BUF_SIZE);
		ret = 1;
	} else {
		printf(WHO ": HELLO v%u received: client region of %zu bytes\n",
				le16toh(msg.version), size);
	}

	ret2 = rpma_mr_remote_delete(&client_mr);
	if (ret2)
		report(WHO, "rpma_mr_remote_delete", ret2);
	return ret || ret2 ? 1 : 0;
}

/*
 * Runs one connection from request to close. req is consumed in every
 * case. Returns 0 when the client came, got its WELCOME and left cleanly.
 */
static int
serve(struct rpma_conn_req *req, const struct conn_msg *welcome)
{
	struct rpma_conn_private_data pdata;
	struct rpma_conn *conn = NULL;
	int closed = 0;
	int failed = 1;
	int ret;

	if (check_hello(req)) {
		/* deleting a request that was not accepted rejects it */
		ret = rpma_conn_req_delete(&req);
		if (ret)
			report(WHO, "rpma_conn_req_delete", ret);
		else
			printf(WHO ": client rejected\n");
		return 1;
	}

	/* the library only reads the accept data, the cast drops const for the API */
	pdata.ptr = (void *)welcome;
	pdata.len = sizeof(*welcome);
	/* the WELCOME is all the client needs, so it may hang up at once */
	if (accept_maybe_closed(WHO, &req, &pdata, CONN_EVENT_TIMEOUT_MS, &conn, &closed))
		return 1;
	if (closed) {
		printf(WHO ": WELCOME sent, the client closed the connection at once\n");
		failed = 0;
		goto err_disconnect;
	}
	printf(WHO ": connection established, WELCOME sent\n");

	/* the client has all it needs now; it is the one who hangs up */
	if (expect_event_within(WHO, conn, RPMA_CONN_CLOSED, "CLOSED", CONN_EVENT_TIMEOUT_MS))
		goto err_disconnect;
	printf(WHO ": the client closed the connection\n");
	failed = 0;

err_disconnect:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(WHO, &conn, &failed);
	return failed;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct conn_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
	int failed = 1;
	int ret;
	size_t i;

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
		buf[i] = PATTERN_BYTE(i);

	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	ret = rpma_peer_cfg_new(&pcfg);
	if (ret) {
		report(WHO, "rpma_peer_cfg_new", ret);
		goto err_mr_dereg;
	}
	ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, SERVER_DIRECT_WRITE_TO_PMEM);
	if (ret) {
		report(WHO, "rpma_peer_cfg_set_direct_write_to_pmem", ret);
		goto err_pcfg_delete;
	}
	/* the WELCOME is ready before anyone asks, so a client never waits for it */
	ret = msg_pack(&welcome, WELCOME_MAGIC, mr, pcfg, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_pcfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_pcfg_delete;
	}
	printf(WHO ": listening on %s:%s, %d byte region registered\n",
			addr, port, SERVER_BUF_SIZE);

	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	if (serve(req, &welcome))
		goto err_ep_shutdown;

	/* the client was given write access but only looked: nothing changed */
	for (i = 0; i < SERVER_BUF_SIZE; i++) {
		if (buf[i] != PATTERN_BYTE(i)) {
			fprintf(stderr, WHO ": buffer byte %zu was modified\n", i);
			goto err_ep_shutdown;
		}
	}
	failed = 0;

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_pcfg_delete:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&pcfg), &failed);
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
