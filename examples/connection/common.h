/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- the small protocol that server.c and client.c of the
 * connection example speak through connection private data.
 *
 * The client puts a HELLO message into its connect request; the server
 * answers with a WELCOME message in its accept. Both have the layout of
 * struct conn_msg. Nothing else travels: the example stops once each side
 * knows the other's memory region.
 */
#ifndef EXAMPLE_CONNECTION_COMMON_H
#define EXAMPLE_CONNECTION_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

/* the two magics differ so that a message sent back unchanged is caught */
#define HELLO_MAGIC	0x48454c4fu	/* "HELO", client -> server */
#define WELCOME_MAGIC	0x57454c43u	/* "WELC", server -> client */
#define PROTO_VERSION	1

/* what each side registers; the peer checks the size it is told */
#define SERVER_BUF_SIZE	4096
#define SERVER_USAGE	(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | \
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)
#define CLIENT_BUF_SIZE	1024
#define CLIENT_USAGE	(RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC)

/* the server's buffer is ordinary DRAM, so it must not claim PMem */
#define SERVER_DIRECT_WRITE_TO_PMEM	false

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/* the content the server's buffer holds from start to end */
#define PATTERN_BYTE(i)	((uint8_t)(0xa5 ^ ((i) * 31)))

/*
 * The message. Fixed-width fields only, multi-byte ones little-endian on
 * the wire, so both ends agree whatever their hosts are. descriptors[]
 * holds the MR descriptor followed directly by the peer cfg descriptor
 * (the client sends none). 48 bytes: it has to fit the 56 bytes an IB or
 * RoCE connect request can carry.
 */
struct conn_msg {
	uint32_t magic;		/* HELLO_MAGIC or WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptors[0] */
	uint8_t pcfg_desc_size;	/* bytes at descriptors[mr_desc_size] */
	uint8_t descriptors[40];
};

_Static_assert(sizeof(struct conn_msg) == 48, "struct conn_msg must have no padding");
_Static_assert(sizeof(struct conn_msg) <= 56, "struct conn_msg must fit a connect request");

/* "what: library's text" on stderr, for any failed librpma call */
static inline void
report(const char *who, const char *what, int ret)
{
	fprintf(stderr, "%s: %s failed: %s\n", who, what, rpma_err_2str(ret));
}

/*
 * For the teardown steps, which run whatever happened before them: reports
 * a step that failed and marks the whole run failed.
 */
static inline void
teardown_step(const char *who, const char *what, int ret, int *failed)
{
	if (ret) {
		report(who, what, ret);
		*failed = 1;
	}
}

/*
 * A peer for addr: the verbs context of the device behind it (type says
 * whether addr is this host's address or the other side's), then the peer
 * on that device. Returns 0, or the failed call's error code (reported).
 */
static inline int
open_peer(const char *who, const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer)
{
	struct ibv_context *ibv_ctx = NULL;
	int ret;

	ret = rpma_utils_get_ibv_context(addr, type, &ibv_ctx);
	if (ret) {
		report(who, "rpma_utils_get_ibv_context", ret);
		return ret;
	}
	ret = rpma_peer_new(ibv_ctx, peer);
	if (ret)
		report(who, "rpma_peer_new", ret);
	return ret;
}

/*
 * size bytes aligned to a page, as memory meant for remote access usually
 * is; NULL (reported) when there is no such memory. free() releases it.
 */
static inline void *
page_alloc(const char *who, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *buf = NULL;

	if (page <= 0 || posix_memalign(&buf, (size_t)page, size)) {
		fprintf(stderr, "%s: cannot allocate the buffer\n", who);
		return NULL;
	}
	return buf;
}

/*
 * Takes the next event of conn; returns 0 when it is want (called name in
 * the message about any other event), else non-zero after saying what came
 * instead. rpma_conn_next_event() blocks until an event is there.
 */
static inline int
expect_event(const char *who, struct rpma_conn *conn, enum rpma_conn_event want,
		const char *name)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int ret;

	ret = rpma_conn_next_event(conn, &event);
	if (ret) {
		report(who, "rpma_conn_next_event", ret);
		return 1;
	}
	if (event != want) {
		fprintf(stderr, "%s: expected %s, got %s\n", who, name,
				rpma_utils_conn_event_2str(event));
		return 1;
	}
	return 0;
}

/*
 * Fills *msg with the descriptors of mr and (when pcfg is not NULL) of
 * pcfg. Returns 0, a librpma error code, or RPMA_E_INVAL when they do not
 * fit (*what says which step failed).
 */
static inline int
msg_pack(struct conn_msg *msg, uint32_t magic, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, const char **what)
{
	size_t mr_size = 0, pcfg_size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret)
		return ret;
	if (pcfg) {
		*what = "rpma_peer_cfg_get_descriptor_size";
		ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
		if (ret)
			return ret;
	}
	/* both sizes come from the library: never trust them to fit blindly */
	*what = "fitting the descriptors into the message";
	if (mr_size + pcfg_size > sizeof(msg->descriptors))
		return RPMA_E_INVAL;

	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptors);
	if (ret)
		return ret;
	if (pcfg) {
		*what = "rpma_peer_cfg_get_descriptor";
		ret = rpma_peer_cfg_get_descriptor(pcfg, msg->descriptors + mr_size);
		if (ret)
			return ret;
	}
	msg->magic = htole32(magic);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)mr_size;
	msg->pcfg_desc_size = (uint8_t)pcfg_size;
	return 0;
}

/*
 * Copies the message out of received private data and checks its header.
 * The length is checked with >=: IB and RoCE hand over the whole private
 * data area (56 bytes with a request, 196 with an accept) zero padded,
 * not just what the peer sent. Returns NULL when the message is sound,
 * else what is wrong with it.
 */
static inline const char *
msg_unpack(struct conn_msg *msg, const struct rpma_conn_private_data *pdata,
		uint32_t magic)
{
	if (pdata->ptr == NULL || pdata->len < sizeof(*msg))
		return "no message or a short one";
	memcpy(msg, pdata->ptr, sizeof(*msg));
	if (le32toh(msg->magic) != magic)
		return "wrong magic number";
	if (le16toh(msg->version) != PROTO_VERSION)
		return "unknown protocol version";
	if (msg->mr_desc_size == 0 ||
			msg->mr_desc_size + msg->pcfg_desc_size > sizeof(msg->descriptors))
		return "descriptor sizes out of range";
	return NULL;
}

#endif /* EXAMPLE_CONNECTION_COMMON_H */
