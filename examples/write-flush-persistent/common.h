/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the write-flush-persistent
 * example agree on: the server's region, the records the client writes
 * into it (both sides build them with build_record()), the WELCOME the
 * server sends with its accept, and how long each side waits.
 *
 * The exchange, in order:
 *  1. the server registers its region for remote writes and for both kinds
 *     of flush, declares in its peer configuration that RDMA writes reach
 *     its persistent memory directly, and accepts the client with a WELCOME
 *     holding both descriptors;
 *  2. the client applies the server's peer configuration to the connection
 *     (without it a flush to persistence is refused), then, record after
 *     record, writes the record in three pieces and flushes it to
 *     persistence: only the flush asks for a completion, so each record
 *     costs one completion;
 *  3. the client hangs up; the server, once the connection is closed,
 *     checks every byte of its region: RECORDS records as build_record()
 *     makes them, then the untouched rest.
 *
 * About "persistent": this machine has no persistent memory, the region is
 * ordinary DRAM and the server's declaration is made up. The protocol is
 * still the one a PMem server and its client follow: on real hardware the
 * server says direct_write_to_pmem only when the region is on PMem and the
 * platform puts incoming RDMA writes there (no cache in between that a
 * power failure empties), and a completed RPMA_FLUSH_TYPE_PERSISTENT
 * flush means the flushed bytes survive a power failure.
 */
#ifndef EXAMPLE_WRITE_FLUSH_PERSISTENT_COMMON_H
#define EXAMPLE_WRITE_FLUSH_PERSISTENT_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x57465031u	/* "WFP1", server -> client, accept */
#define PROTO_VERSION	1

/* the region: the client may write it and flush it either way */
#define SERVER_BUF_SIZE	4096
#define SERVER_USAGE	(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)
/* see the comment at the top: true here only so the protocol can be shown */
#define SERVER_DIRECT_WRITE_TO_PMEM	true

/* what the region holds before the client comes */
#define INITIAL_BYTE	0xee

/*
 * The records: RECORDS of RECORD_SIZE bytes each, record r at offset
 * r * RECORD_SIZE; the region's last bytes stay as they were.
 */
#define RECORDS		6
#define RECORD_SIZE	512
#define RECORD_MAGIC	0x52454331u	/* "REC1" */
_Static_assert(RECORDS * RECORD_SIZE < SERVER_BUF_SIZE, "some of the region must stay untouched");

/*
 * A record: a header (little-endian) and the payload it describes. The
 * header carries the payload's checksum, so a record is self-checking.
 */
struct record_header {
	uint32_t magic;		/* RECORD_MAGIC */
	uint32_t index;		/* r */
	uint32_t payload_len;	/* RECORD_SIZE - sizeof(struct record_header) */
	uint32_t checksum;	/* FNV-1a over the payload */
};
#define PAYLOAD_LEN	(RECORD_SIZE - sizeof(struct record_header))
_Static_assert(sizeof(struct record_header) == 16, "struct record_header must have no padding");

/* payload byte i of record r */
#define PAYLOAD_BYTE(r, i)	((uint8_t)((((uint32_t)(i) + 1) * 2654435761u >> 24) ^ ((r) * 0x35 + 1)))

/*
 * The client writes a record in three pieces: the payload in two parts of
 * a size that differs from record to record, then the header last, as a
 * commit mark. Returns where piece p (0..2) of record r starts within the
 * record, and its length in *len.
 */
#define PIECES	3
static inline size_t
piece(unsigned r, unsigned p, size_t *len)
{
	size_t split = sizeof(struct record_header) + 40 + 67 * r;	/* inside the payload */

	switch (p) {
	case 0:
		*len = split - sizeof(struct record_header);
		return sizeof(struct record_header);
	case 1:
		*len = RECORD_SIZE - split;
		return split;
	default:
		*len = sizeof(struct record_header);
		return 0;
	}
}
_Static_assert(sizeof(struct record_header) + 40 + 67 * (RECORDS - 1) < RECORD_SIZE,
		"each payload part must have at least one byte");

/* 32-bit FNV-1a */
static inline uint32_t
fnv1a(const uint8_t *p, size_t len)
{
	uint32_t sum = 0x811c9dc5u;
	size_t i;

	for (i = 0; i < len; i++)
		sum = (sum ^ p[i]) * 0x01000193u;
	return sum;
}

/* fills out[RECORD_SIZE] with record r, exactly as it must land */
static inline void
build_record(unsigned r, uint8_t *out)
{
	struct record_header h;
	uint8_t *payload = out + sizeof(h);
	size_t i;

	for (i = 0; i < PAYLOAD_LEN; i++)
		payload[i] = PAYLOAD_BYTE(r, i);
	h.magic = htole32(RECORD_MAGIC);
	h.index = htole32(r);
	h.payload_len = htole32((uint32_t)PAYLOAD_LEN);
	h.checksum = htole32(fnv1a(payload, PAYLOAD_LEN));
	memcpy(out, &h, sizeof(h));
}

/*
 * The WELCOME, the accept's private data: the server's MR descriptor
 * followed directly by its peer cfg descriptor (21 + 1 bytes today).
 * Multi-byte fields are little-endian on the wire.
 */
struct welcome_msg {
	uint32_t magic;		/* WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptors[0] */
	uint8_t pcfg_desc_size;	/* bytes at descriptors[mr_desc_size] */
	uint8_t descriptors[24];
};

_Static_assert(sizeof(struct welcome_msg) == 32, "struct welcome_msg must have no padding");
_Static_assert(sizeof(struct welcome_msg) <= 196, "struct welcome_msg must fit an accept");

/* how long the server waits for its one client, and for it to finish */
#define ACCEPT_TIMEOUT_MS	30000
#define SESSION_TIMEOUT_MS	40000

#endif /* EXAMPLE_WRITE_FLUSH_PERSISTENT_COMMON_H */
