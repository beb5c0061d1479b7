/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c -- the active side of the connection example: connects with a
 * HELLO (its own region's descriptor) in the connect request, learns the
 * server's region and peer configuration from the WELCOME that comes back
 * with the accept, checks them against the protocol (common.h), and hangs
 * up. No data moves over the connection itself.
 *
 * usage: client <addr> <port>
 *
 * Exits 0 when everything the server said matches the protocol, 1 on any
 * error or mismatch.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "client"

/* the client sets a deadline of its own for finding the server */
#define RESOLVE_TIMEOUT_MS	5000

/*
 * Reads the WELCOME the server sent with its accept and checks the
 * server's region and configuration. Returns 0 when they are what the
 * protocol promises.
 */
static int
check_welcome(const struct rpma_conn *conn)
{
	struct rpma_conn_private_data pdata = { NULL, 0 };
	struct rpma_mr_remote *server_mr = NULL;
	struct rpma_peer_cfg *server_cfg = NULL;
	struct conn_msg msg;
	const char *problem;
	size_t size = 0;
	int flush_type = 0;
	bool pmem = false;
	int failed = 1;
	int ret;

	/* valid only now: the library keeps what came with ESTABLISHED */
	ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret) {
		report(WHO, "rpma_conn_get_private_data", ret);
		return 1;
	}
	problem = msg_unpack(&msg, &pdata, WELCOME_MAGIC);
	if (problem) {
		fprintf(stderr, WHO ": bad WELCOME (%u bytes of private data): %s\n",
				pdata.len, problem);
		return 1;
	}
	if (msg.pcfg_desc_size == 0) {
		fprintf(stderr, WHO ": bad WELCOME: no peer configuration in it\n");
		return 1;
	}

	ret = rpma_mr_remote_from_descriptor(msg.descriptors, msg.mr_desc_size, &server_mr);
	if (ret) {
		report(WHO, "rpma_mr_remote_from_descriptor (server's region)", ret);
		return 1;
	}
	ret = rpma_mr_remote_get_size(server_mr, &size);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_size", ret);
		goto out_mr;
	}
	if (size != SERVER_BUF_SIZE) {
		fprintf(stderr, WHO ": the server's region has %zu bytes, the protocol says %d\n",
				size, SERVER_BUF_SIZE);
		goto out_mr;
	}
	/* without VISIBILITY in the usage a later rpma_flush() would be refused */
	ret = rpma_mr_remote_get_flush_type(server_mr, &flush_type);
	if (ret) {
		report(WHO, "rpma_mr_remote_get_flush_type", ret);
		goto out_mr;
	}
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)) {
		fprintf(stderr, WHO ": the server's region cannot be flushed to visibility (0x%x)\n",
				flush_type);
		goto out_mr;
	}

	ret = rpma_peer_cfg_from_descriptor(msg.descriptors + msg.mr_desc_size,
			msg.pcfg_desc_size, &server_cfg);
	if (ret) {
		report(WHO, "rpma_peer_cfg_from_descriptor", ret);
		goto out_mr;
	}
	ret = rpma_peer_cfg_get_direct_write_to_pmem(server_cfg, &pmem);
	if (ret) {
		report(WHO, "rpma_peer_cfg_get_direct_write_to_pmem", ret);
		goto out_cfg;
	}
	if (pmem != SERVER_DIRECT_WRITE_TO_PMEM) {
		fprintf(stderr, WHO ": the server says direct write to PMem is %s, the protocol says %s\n",
				pmem ? "on" : "off", SERVER_DIRECT_WRITE_TO_PMEM ? "on" : "off");
		goto out_cfg;
	}

	printf(WHO ": WELCOME v%u received: server region of %zu bytes, flush to %s%s, direct write to PMem %s\n",
			le16toh(msg.version), size,
			flush_type & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY ? "visibility" : "",
			flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT ? " and persistence" : "",
			pmem ? "on" : "off");
	failed = 0;

out_cfg:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&server_cfg), &failed);
out_mr:
	teardown_step(WHO, "rpma_mr_remote_delete", rpma_mr_remote_delete(&server_mr), &failed);
	return failed;
}

/*
 * Connects, checks the WELCOME and hangs up. Returns 0 when the exchange
 * went as the protocol says and the connection closed cleanly.
 */
static int
talk(struct rpma_peer *peer, const char *addr, const char *port, const struct conn_msg *hello)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata;
	int failed = 1;
	int ret;

	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		return 1;
	}
	/* a slow (emulated) network may need more than the default second */
	ret = rpma_conn_cfg_set_timeout(cfg, RESOLVE_TIMEOUT_MS);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_timeout", ret);
		goto out_cfg;
	}

	/* the library only reads the connect data, the cast drops const for the API */
	pdata.ptr = (void *)hello;
	pdata.len = sizeof(*hello);
	if (connect_to(WHO, peer, addr, port, cfg, &pdata, &conn))
		goto out_cfg;
	printf(WHO ": connecting to %s:%s with HELLO\n", addr, port);

	/* REJECTED instead means the server did not like our HELLO */
	if (expect_event_within(WHO, conn, RPMA_CONN_ESTABLISHED, "ESTABLISHED",
			CONN_EVENT_TIMEOUT_MS))
		goto out_conn_delete;
	printf(WHO ": connection established\n");

	/* even a bad WELCOME is answered by hanging up, so the server ends too */
	failed = check_welcome(conn);

	disconnect_and_wait(WHO, conn, CONN_EVENT_TIMEOUT_MS, &failed);

out_conn_delete:
	teardown_step(WHO, "rpma_conn_delete", rpma_conn_delete(&conn), &failed);
out_cfg:
	/* the request took a copy of the configuration, it may go any time */
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
	return failed;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct conn_msg hello;
	const char *addr, *port, *what;
	void *buf = NULL;
	int failed = 1;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* keep stdout and stderr in order when both go to one file */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is the server's: the device is the one that reaches it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;

	/* the region the HELLO describes; the server only checks its size */
	buf = page_alloc(WHO, CLIENT_BUF_SIZE);
	if (buf == NULL)
		goto out_peer_delete;
	memset(buf, 0, CLIENT_BUF_SIZE);
	ret = rpma_mr_reg(peer, buf, CLIENT_BUF_SIZE, CLIENT_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto out_free;
	}
	ret = msg_pack(&hello, HELLO_MAGIC, mr, NULL, &what);
	if (ret) {
		report(WHO, what, ret);
		goto out_mr_dereg;
	}

	failed = talk(peer, addr, port, &hello);

out_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg", rpma_mr_dereg(&mr), &failed);
out_free:
	free(buf);
out_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
