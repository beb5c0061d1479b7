/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the atomic-write example agree
 * on: the layout of the server's region (a log), the entries the client
 * appends to it (both sides build them with build_entry()), the WELCOME
 * the server sends with its accept, and how long each side waits.
 *
 * The region is a log: an 8-byte "used" counter at offset 0 (little-endian,
 * the number of log bytes in use) and the log area from LOG_OFFSET on.
 * An entry is valid only once the counter covers it; the counter is the
 * one thing that must never be seen half-written, hence rpma_atomic_write.
 *
 * The exchange, in order:
 *  1. the server zeroes the counter, fills the log area with INITIAL_BYTE
 *     and accepts the client with a WELCOME holding the region's
 *     descriptor;
 *  2. for each of ENTRIES entries, the client writes the entry right after
 *     the used part of the log, flushes it to visibility, moves the
 *     counter past it with rpma_atomic_write, flushes the counter and
 *     reads it back;
 *  3. the client hangs up; the server, once the connection is closed,
 *     walks its log: the counter must equal the bytes its entries take,
 *     every entry must be the one build_entry() makes, and nothing past
 *     the used part may have changed.
 */
#ifndef EXAMPLE_ATOMIC_WRITE_COMMON_H
#define EXAMPLE_ATOMIC_WRITE_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x41575731u	/* "AWW1", server -> client, accept */
#define PROTO_VERSION	1

/* the region: the client writes, reads back and flushes to visibility */
#define SERVER_BUF_SIZE	4096
#define SERVER_USAGE	(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | \
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)

/* the layout: counter, a reserved gap that stays zero, the log area */
#define COUNTER_OFFSET	0
#define COUNTER_LEN	8
#define LOG_OFFSET	64
#define LOG_SIZE	(SERVER_BUF_SIZE - LOG_OFFSET)
_Static_assert(COUNTER_OFFSET % RPMA_ATOMIC_WRITE_ALIGNMENT == 0,
		"an atomic write needs an aligned offset");
_Static_assert(COUNTER_LEN == 8, "rpma_atomic_write writes 8 bytes");

/* what the log area holds before anything is appended */
#define INITIAL_BYTE	0xee

/*
 * An entry: a header (little-endian) and payload_len payload bytes. Entries
 * follow each other without padding, so most start at unaligned offsets.
 */
#define ENTRY_MAGIC	0x454e5452u	/* "ENTR" */
struct entry_header {
	uint32_t magic;		/* ENTRY_MAGIC */
	uint16_t seq;		/* 0, 1, ... in the order appended */
	uint16_t payload_len;
};
_Static_assert(sizeof(struct entry_header) == 8, "struct entry_header must have no padding");

#define ENTRIES		5
/* entry k's payload length: all different, none a multiple of 8 */
#define PAYLOAD_LEN(k)	((size_t)(21 + 53 * (k)))
#define ENTRY_LEN(k)	(sizeof(struct entry_header) + PAYLOAD_LEN(k))
#define MAX_ENTRY_LEN	ENTRY_LEN(ENTRIES - 1)
/* payload byte i of entry k */
#define PAYLOAD_BYTE(k, i)	((uint8_t)((((uint32_t)(i) + 7) * 2654435761u >> 24) ^ ((k) * 0x4b + 3)))

/* the bytes the log uses after its first n entries */
static inline size_t
log_used(unsigned n)
{
	size_t used = 0;
	unsigned k;

	for (k = 0; k < n; k++)
		used += ENTRY_LEN(k);
	return used;
}

/* fills out[ENTRY_LEN(k)] with entry k, exactly as it must land */
static inline void
build_entry(unsigned k, uint8_t *out)
{
	struct entry_header h;
	size_t i;

	h.magic = htole32(ENTRY_MAGIC);
	h.seq = htole16((uint16_t)k);
	h.payload_len = htole16((uint16_t)PAYLOAD_LEN(k));
	memcpy(out, &h, sizeof(h));
	for (i = 0; i < PAYLOAD_LEN(k); i++)
		out[sizeof(h) + i] = PAYLOAD_BYTE(k, i);
}

/*
 * The WELCOME, the accept's private data: the server's MR descriptor
 * (21 bytes today). Multi-byte fields are little-endian on the wire. The
 * server sends no peer configuration: the client flushes to visibility
 * only, which needs none, so pcfg_desc_size is 0.
 */
struct welcome_msg {
	uint32_t magic;		/* WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptors[0] */
	uint8_t pcfg_desc_size;	/* always 0 here */
	uint8_t descriptors[24];
};

_Static_assert(sizeof(struct welcome_msg) == 32, "struct welcome_msg must have no padding");
_Static_assert(sizeof(struct welcome_msg) <= 196, "struct welcome_msg must fit an accept");

/* how long the server waits for its one client, and for it to finish */
#define ACCEPT_TIMEOUT_MS	30000
#define SESSION_TIMEOUT_MS	40000

#endif /* EXAMPLE_ATOMIC_WRITE_COMMON_H */
