/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the atomic-write example: exposes a
 * 4 KiB region laid out as a log (a "used" counter, then the log area),
 * accepts exactly one client and hands it the region's descriptor in the
 * accept. The client appends entries and moves the counter on its own;
 * once it has hung up, the server reads its log the way a log reader
 * would: from the start, entry by entry, as far as the counter says, and
 * checks each entry and everything around them. The protocol is in
 * common.h.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when the client came, left cleanly and the log holds exactly the
 * entries the protocol says, 1 on any error or mismatch, or when no client
 * came within 30 s.
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
	/* the client appends on its own and hangs up when done */
	return serve_one_sided(WHO, &req, &pdata, SESSION_TIMEOUT_MS);
}

/*
 * Reads the log: the counter, then entry after entry up to it, each
 * compared with what build_entry() makes, then the bytes around. Returns 0
 * when the log is exactly what the protocol says.
 */
static int
check_log(const uint8_t *buf)
{
	uint8_t want[MAX_ENTRY_LEN];
	const uint8_t *log = buf + LOG_OFFSET;
	struct entry_header h;
	uint64_t counter;
	size_t off = 0, len, i;
	unsigned k = 0;

	memcpy(&counter, buf + COUNTER_OFFSET, sizeof(counter));
	counter = le64toh(counter);
	printf(WHO ": the counter says %llu log bytes are used\n", (unsigned long long)counter);
	if (counter != log_used(ENTRIES)) {
		fprintf(stderr, WHO ": the counter is %llu, %d entries take %zu bytes\n",
				(unsigned long long)counter, ENTRIES, log_used(ENTRIES));
		return 1;
	}

	/* as a reader would: trust nothing past what the counter covers */
	while (off < counter) {
		if (counter - off < sizeof(h)) {
			fprintf(stderr, WHO ": the counter ends inside an entry's header at %zu\n",
					off);
			return 1;
		}
		memcpy(&h, log + off, sizeof(h));
		len = sizeof(h) + le16toh(h.payload_len);
		if (le32toh(h.magic) != ENTRY_MAGIC || le16toh(h.seq) != k || k >= ENTRIES ||
				len != ENTRY_LEN(k) || len > counter - off) {
			fprintf(stderr, WHO ": bad entry header at log offset %zu: magic 0x%08x, seq %u, payload %u bytes (expected entry %u)\n",
					off, le32toh(h.magic), le16toh(h.seq), le16toh(h.payload_len), k);
			return 1;
		}
		build_entry(k, want);
		for (i = 0; i < len; i++) {
			if (log[off + i] != want[i]) {
				fprintf(stderr, WHO ": entry %u: byte %zu is 0x%02x, expected 0x%02x\n",
						k, i, log[off + i], want[i]);
				return 1;
			}
		}
		printf(WHO ": entry %u intact: %zu bytes at log offset %zu\n", k, len, off);
		off += len;
		k++;
	}
	if (k != ENTRIES) {
		fprintf(stderr, WHO ": the log holds %u entries, expected %d\n", k, ENTRIES);
		return 1;
	}

	/* nothing else may have changed: the gap after the counter, the free log */
	for (i = COUNTER_OFFSET + COUNTER_LEN; i < LOG_OFFSET; i++) {
		if (buf[i] != 0) {
			fprintf(stderr, WHO ": reserved byte %zu was changed to 0x%02x\n", i, buf[i]);
			return 1;
		}
	}
	for (i = off; i < LOG_SIZE; i++) {
		if (log[i] != INITIAL_BYTE) {
			fprintf(stderr, WHO ": free log byte %zu was changed to 0x%02x\n", i, log[i]);
			return 1;
		}
	}
	printf(WHO ": %u entries take exactly the %llu bytes counted; the rest is untouched\n",
			k, (unsigned long long)counter);
	return 0;
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

	/* an empty log: counter 0, reserved gap 0, log area INITIAL_BYTE */
	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_peer_delete;
	memset(buf, 0, LOG_OFFSET);
	memset(buf + LOG_OFFSET, INITIAL_BYTE, LOG_SIZE);
	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg", ret);
		goto err_free;
	}
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
	printf(WHO ": listening on %s:%s, %d byte log region registered (counter at %d, log at %d)\n",
			addr, port, SERVER_BUF_SIZE, COUNTER_OFFSET, LOG_OFFSET);

	if (next_request(WHO, ep, NULL, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	if (serve(req, &welcome))
		goto err_ep_shutdown;

	if (check_log(buf))
		goto err_ep_shutdown;
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
