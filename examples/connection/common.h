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

#include "../common/example.h"

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
