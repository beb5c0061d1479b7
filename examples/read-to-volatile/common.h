/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the read-to-volatile example
 * agree on: the size and contents of the server's region, the WELCOME that
 * carries the region's descriptor in the accept, and how long each side
 * waits for the other.
 *
 * The exchange, in order:
 *  1. the server fills its region with region_byte(), registers it for
 *     remote reads only and accepts the client with a WELCOME holding the
 *     region's descriptor;
 *  2. the client reads the whole region into its own (volatile) memory
 *     with several rpma_read()s of different sizes, checks every byte and
 *     hangs up;
 *  3. the server, once the connection is closed, checks that its region
 *     still holds exactly what it held at the start.
 */
#ifndef EXAMPLE_READ_TO_VOLATILE_COMMON_H
#define EXAMPLE_READ_TO_VOLATILE_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x52545631u	/* "RTV1", server -> client, accept */
#define PROTO_VERSION	1

/* two pages, so that a read may cross a page boundary */
#define SERVER_BUF_SIZE	8192
/* the client may only read the region: no write, no flush */
#define SERVER_USAGE	RPMA_MR_USAGE_READ_SRC

/* how long the server waits for its one client, and for it to finish */
#define ACCEPT_TIMEOUT_MS	30000
#define SESSION_TIMEOUT_MS	40000

/*
 * What the server's region holds at i: the top byte of a multiplicative
 * hash, so it never repeats with a period (a read from a wrong offset, even
 * one off by a multiple of 256, shows as wrong bytes).
 */
static inline uint8_t
region_byte(size_t i)
{
	return (uint8_t)(((uint32_t)i * 2654435761u) >> 24);
}

/*
 * The WELCOME, the accept's private data: the server's MR descriptor
 * (21 bytes today). Multi-byte fields are little-endian on the wire.
 * The server sends no peer configuration: nothing in this example needs
 * one, so pcfg_desc_size is 0.
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

#endif /* EXAMPLE_READ_TO_VOLATILE_COMMON_H */
