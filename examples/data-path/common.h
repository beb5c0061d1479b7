/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the data-path example agree on:
 * the layout of the server's buffer, the bytes the client puts into it, the
 * messages and immediate values that travel, the WELCOME the server sends
 * with its accept and the REPLY it sends at the end, plus the completion
 * helpers both sides use.
 *
 * The exchange, in order:
 *  1. the server accepts with a WELCOME: its buffer's descriptor and its
 *     peer configuration (direct write to PMem declared);
 *  2. the client writes WRITE_LEN bytes at WRITE_OFFSET, flushes them to
 *     visibility, applies the server's peer configuration, flushes them to
 *     persistence and reads them back;
 *  3. the client writes 8 bytes atomically at ATOMIC_OFFSET and reads them
 *     back;
 *  4. the client sends MSG[0] (rpma_send) and MSG[1] with SEND_IMM
 *     (rpma_send_with_imm); the server takes both from its shared RQ;
 *  5. the client writes WIMM_LEN bytes at WIMM_OFFSET with WRITE_IMM
 *     (rpma_write_with_imm), which completes a third receive on the server;
 *  6. the server checks its whole buffer and answers with a REPLY: the
 *     checksum of that buffer, the immediates it decoded and the two
 *     messages as they arrived; the client checks it against its own idea;
 *  7. the client disconnects.
 */
#ifndef EXAMPLE_DATA_PATH_COMMON_H
#define EXAMPLE_DATA_PATH_COMMON_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x44505731u	/* "DPW1", server -> client, accept */
#define REPLY_MAGIC	0x44505232u	/* "DPR2", server -> client, last message */
#define PROTO_VERSION	1

/*
 * The server's buffer. The client may write into it, read from it and
 * flush it both ways.
 */
#define SERVER_BUF_SIZE	4096
#define SERVER_USAGE	(RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | \
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | \
			 RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/*
 * The buffer is ordinary DRAM. The example still declares direct write to
 * PMem, only so that the client may go through the persistent flush path;
 * a real server says true only when its memory is persistent and the
 * platform makes RDMA writes reach it.
 */
#define SERVER_DIRECT_WRITE_TO_PMEM	true

/* the three areas the client changes, in the server's buffer */
#define WRITE_OFFSET	512	/* rpma_write */
#define WRITE_LEN	1000
#define ATOMIC_OFFSET	2048	/* rpma_atomic_write, 8 bytes */
#define ATOMIC_LEN	8
#define WIMM_OFFSET	3072	/* rpma_write_with_imm */
#define WIMM_LEN	256

_Static_assert(WRITE_OFFSET + WRITE_LEN <= ATOMIC_OFFSET, "areas must not overlap");
_Static_assert(ATOMIC_OFFSET + ATOMIC_LEN <= WIMM_OFFSET, "areas must not overlap");
_Static_assert(WIMM_OFFSET + WIMM_LEN <= SERVER_BUF_SIZE, "areas must fit the buffer");
_Static_assert(ATOMIC_OFFSET % RPMA_ATOMIC_WRITE_ALIGNMENT == 0,
		"an atomic write needs an aligned offset");

/* what the server's buffer holds before the client comes */
#define PATTERN_BYTE(i)	((uint8_t)(0xa5 ^ ((i) * 31)))
/* what the client writes; i counts from the start of each area */
#define WRITE_BYTE(i)	((uint8_t)(0x3c + (i) * 7))
#define ATOMIC_BYTE(i)	((uint8_t)(0xf0 | (i)))
#define WIMM_BYTE(i)	((uint8_t)(0xc3 ^ ((i) * 13)))

/* the immediates; no byte repeats, so a swapped byte order shows */
#define SEND_IMM	0x5e0d1a2bu
#define WRITE_IMM	0x77a1e0f3u

/* the two messages, SEND_LEN bytes each, zero padded */
#define SEND_LEN	32
static const char MSG[2][SEND_LEN] = {
	"plain rpma_send from the client",
	"send_with_imm from the client",
};

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/*
 * The byte the server's buffer must hold at i once the client has done all
 * its writes. Both sides use it: the server to check its memory, the
 * client to know which checksum the server has to report.
 */
static inline uint8_t
expected_server_byte(size_t i)
{
	if (i >= WRITE_OFFSET && i < WRITE_OFFSET + WRITE_LEN)
		return WRITE_BYTE(i - WRITE_OFFSET);
	if (i >= ATOMIC_OFFSET && i < ATOMIC_OFFSET + ATOMIC_LEN)
		return ATOMIC_BYTE(i - ATOMIC_OFFSET);
	if (i >= WIMM_OFFSET && i < WIMM_OFFSET + WIMM_LEN)
		return WIMM_BYTE(i - WIMM_OFFSET);
	return PATTERN_BYTE(i);
}

/* 32-bit FNV-1a, fed one byte at a time */
#define CHECKSUM_INIT	0x811c9dc5u
static inline uint32_t
checksum_step(uint32_t sum, uint8_t byte)
{
	return (sum ^ byte) * 0x01000193u;
}

/*
 * The WELCOME, the accept's private data: the server's MR descriptor
 * followed directly by its peer cfg descriptor (21 + 1 bytes today).
 * Multi-byte fields are little-endian on the wire. 32 bytes: well within
 * the 56 bytes the smallest private data area (a connect request) holds.
 */
struct welcome_msg {
	uint32_t magic;		/* WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptors[0] */
	uint8_t pcfg_desc_size;	/* bytes at descriptors[mr_desc_size] */
	uint8_t descriptors[24];
};

_Static_assert(sizeof(struct welcome_msg) == 32, "struct welcome_msg must have no padding");
_Static_assert(sizeof(struct welcome_msg) <= 56, "struct welcome_msg must fit any private data");

/* The REPLY, the server's one rpma_send. Integers little-endian. */
struct reply_msg {
	uint32_t magic;		/* REPLY_MAGIC */
	uint32_t checksum;	/* checksum_step() over the server's whole buffer */
	uint32_t send_imm;	/* the immediate of MSG[1], as decoded by the server */
	uint32_t write_imm;	/* the immediate of the write, as decoded by the server */
	char msgs[2][SEND_LEN];	/* the two messages as they arrived */
};

_Static_assert(sizeof(struct reply_msg) == 16 + 2 * SEND_LEN,
		"struct reply_msg must have no padding");

#endif /* EXAMPLE_DATA_PATH_COMMON_H */
