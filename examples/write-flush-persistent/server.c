/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the write-flush-persistent example:
 * exposes a 4 KiB region that the client may write and flush to
 * persistence, declares direct write to PMem in its peer configuration,
 * accepts exactly one client and hands it both descriptors in the accept.
 * The client's writes and flushes need nothing from this side's CPU; once
 * the client has hung up, the server checks its whole region against the
 * records the protocol (common.h) says the client writes.
 *
 * The region is ordinary DRAM on this machine: see common.h for what the
 * declaration would mean on a server with persistent memory.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when the client came, left cleanly and every byte of the region
 * is as the protocol says, 1 on any error or mismatch, or when no client
 * came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/*
 * Fills *msg with the descriptors of mr and pcfg. Returns 0, a librpma
 * error code, or RPMA_E_INVAL when they do not fit (*what names the step).
 */
static int
pack_welcome(struct welcome_msg *msg, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, const char **what)
{
	size_t mr_size = 0, pcfg_size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor_size";
	ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
	if (ret)
		return ret;
	/* both sizes come from the library: never trust them to fit blindly */
	*what = "fitting the descriptors into the WELCOME";
	if (mr_size == 0 || pcfg_size == 0 || mr_size + pcfg_size > sizeof(msg->descriptors))
		return RPMA_E_INVAL;
	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptors);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor";
	ret = rpma_peer_cfg_get_descriptor(pcfg, msg->descriptors + mr_size);
	if (ret)
		return ret;
	msg->magic = htole32(WELCOME_MAGIC);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)mr_size;
	msg->pcfg_desc_size = (uint8_t)pcfg_size;
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
	/* the client writes and flushes on its own and hangs up when done */
	return serve_one_sided(WHO, &req, &pdata, SESSION_TIMEOUT_MS);
}

/*
 * Checks the whole region: each record as build_record() makes it, the
 * rest still INITIAL_BYTE. Says which record or byte is wrong. Returns 0
 * when all match.
 */
static int
check_region(const uint8_t *buf)
{
	uint8_t want[RECORD_SIZE];
	struct record_header h;
	unsigned r;
	size_t i;

	for (r = 0; r < RECORDS; r++) {
		const uint8_t *rec = buf + (size_t)r * RECORD_SIZE;

		build_record(r, want);
		for (i = 0; i < RECORD_SIZE; i++) {
			if (rec[i] != want[i]) {
				fprintf(stderr, WHO ": record %u: byte %zu is 0x%02x, expected 0x%02x\n",
						r, i, rec[i], want[i]);
				return 1;
			}
		}
		/* equal to the expected bytes, so the header describes its payload */
		memcpy(&h, rec, sizeof(h));
		printf(WHO ": record %u intact: %u payload bytes, checksum 0x%08x\n",
				le32toh(h.index), le32toh(h.payload_len), le32toh(h.checksum));
	}
	for (i = (size_t)RECORDS * RECORD_SIZE; i < SERVER_BUF_SIZE; i++) {
		if (buf[i] != INITIAL_BYTE) {
			fprintf(stderr, WHO ": byte %zu past the records was changed to 0x%02x\n",
					i, buf[i]);
			return 1;
		}
	}
	printf(WHO ": the %d bytes past the records are untouched\n",
			SERVER_BUF_SIZE - RECORDS * RECORD_SIZE);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct welcome_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
	int failed = 1;
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

	/* stands in for a mapping of persistent memory (see common.h) */
	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_peer_delete;
	memset(buf, INITIAL_BYTE, SERVER_BUF_SIZE);
	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}

	/* the server's word that writes reach its (persistent) memory directly */
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
	ret = pack_welcome(&welcome, mr, pcfg, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_pcfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_pcfg_delete;
	}
	printf(WHO ": listening on %s:%s, %d byte region registered for writes and flushes to persistence\n",
			addr, port, SERVER_BUF_SIZE);

	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	if (serve(req, &welcome))
		goto err_ep_shutdown;

	/* the client's flushes completed before it hung up: all must be here */
	if (check_region(buf))
		goto err_ep_shutdown;
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
