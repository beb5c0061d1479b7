/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the write-with-imm example
 * agree on: the server's buffer of slots, the writes the client makes into
 * it, how an immediate value names a write, the WELCOME the server sends
 * with its accept, the CREDIT messages it sends back, and a helper that
 * takes several completions in whatever order they come.
 *
 * rpma_write_with_imm() puts data straight into the peer's memory, like
 * rpma_write(), and also completes one of the peer's receives, carrying
 * the immediate value: the peer learns that something was written, and
 * from the value where and what. The receive needs no buffer (nothing is
 * received into it), so the server posts 0-byte receives.
 *
 * The exchange, in order:
 *  1. the server accepts with a WELCOME: its buffer's descriptor;
 *  2. the server posts a receive and sends CREDIT 0: "you may write";
 *  3. for each entry n of WRITES[] the client writes WRITES[n].len bytes
 *     into slot WRITES[n].slot with immediate IMM_WRITE(n, slot); the
 *     server decodes the immediate, checks the length (wc.byte_len) and
 *     the bytes at the slot it names, and that nothing else in its buffer
 *     changed; then it posts the next receive and answers with CREDIT n+1,
 *     which echoes what it decoded and the checksum of its whole buffer;
 *     the client checks it against its own picture of that buffer before
 *     it writes again (a slot is written twice: the credit is what makes
 *     that safe);
 *  4. the client ends with a 0-byte write with immediate IMM_DONE(count),
 *     which carries nothing but the value; the server answers with a last
 *     CREDIT, and the client hangs up.
 */
#ifndef EXAMPLE_WRITE_WITH_IMM_COMMON_H
#define EXAMPLE_WRITE_WITH_IMM_COMMON_H

#include <arpa/inet.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x57494d57u	/* "WIMW", server -> client, accept */
#define CREDIT_MAGIC	0x57494d43u	/* "WIMC", server -> client, messages */
#define PROTO_VERSION	1

/* the server's buffer: SLOTS slots of SLOT_SIZE bytes */
#define SLOTS		8
#define SLOT_SIZE	128
#define SERVER_BUF_SIZE	(SLOTS * SLOT_SIZE)
#define SERVER_USAGE	RPMA_MR_USAGE_WRITE_DST

/* the writes, in order; slot 3 is written twice, the second time shorter */
struct write_spec {
	uint32_t slot;
	uint32_t len;	/* 1..SLOT_SIZE */
};
#define N_WRITES	5
static const struct write_spec WRITES[N_WRITES] = {
	{ 3, SLOT_SIZE },
	{ 0, 1 },
	{ 7, 100 },
	{ 3, 64 },
	{ 5, 33 },
};

/*
 * The immediates. The top byte says what kind, a write's carries its
 * sequence number and slot; a value read in the wrong byte order has the
 * kind in its low byte and is caught as unknown.
 */
#define IMM_KIND(imm)		((imm) >> 24)
#define IMM_KIND_WRITE		0xa5u
#define IMM_KIND_DONE		0x5au
#define IMM_WRITE(n, slot)	((IMM_KIND_WRITE << 24) | ((uint32_t)(n) << 8) | (uint32_t)(slot))
#define IMM_WRITE_SEQ(imm)	(((imm) >> 8) & 0xffffu)
#define IMM_WRITE_SLOT(imm)	((imm) & 0xffu)
#define IMM_DONE(count)		((IMM_KIND_DONE << 24) | (uint32_t)(count))
#define IMM_DONE_COUNT(imm)	((imm) & 0xffffffu)

/* what the server's buffer holds before the client comes */
#define PATTERN_BYTE(i)		((uint8_t)(0x5c ^ ((i) * 29)))
/* byte i of write n */
#define DATA_BYTE(n, i)		((uint8_t)(0x80 + (n) * 0x31 + (i) * 3))

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/* the server's buffer as it must be before any write */
static inline void
model_init(uint8_t model[SERVER_BUF_SIZE])
{
	size_t i;

	for (i = 0; i < SERVER_BUF_SIZE; i++)
		model[i] = PATTERN_BYTE(i);
}

/* the server's buffer as write n leaves it */
static inline void
model_apply(uint8_t model[SERVER_BUF_SIZE], int n)
{
	uint32_t i;

	for (i = 0; i < WRITES[n].len; i++)
		model[WRITES[n].slot * SLOT_SIZE + i] = DATA_BYTE(n, i);
}

/*
 * The WELCOME, the accept's private data: the buffer's MR descriptor.
 * Multi-byte fields little-endian; 32 bytes, within any private data area.
 */
struct welcome_msg {
	uint32_t magic;		/* WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptor[0] */
	uint8_t reserved;	/* 0 */
	uint8_t descriptor[24];
};

_Static_assert(sizeof(struct welcome_msg) == 32, "struct welcome_msg must have no padding");

/*
 * A CREDIT: the server has seen seq notifications so far (the last one's
 * immediate and length echoed, 0 in the first credit) and its buffer now
 * has the checksum given. Integers little-endian.
 */
struct credit_msg {
	uint32_t magic;		/* CREDIT_MAGIC */
	uint32_t seq;		/* notifications seen */
	uint32_t imm;		/* ntohl(wc.imm_data) of the last one */
	uint32_t byte_len;	/* wc.byte_len of the last one */
	uint32_t checksum;	/* checksum() of the whole buffer */
};

_Static_assert(sizeof(struct credit_msg) == 20, "struct credit_msg must have no padding");

/* credits: one before the first write, one per write, one after IMM_DONE */
#define N_CREDITS	(N_WRITES + 2)

#endif /* EXAMPLE_WRITE_WITH_IMM_COMMON_H */
