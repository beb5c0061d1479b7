/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the send-with-imm example agree
 * on: the list of messages the client sends, the slots the server receives
 * them in, the SUMMARY the server answers with, and a helper that takes
 * several completions in whatever order they come.
 *
 * The exchange, in order:
 *  1. the server posts one receive per message before it accepts, so every
 *     message finds a buffer waiting; the client posts one receive for the
 *     SUMMARY before it connects;
 *  2. the client sends the messages of MSGS[] one after the other, each
 *     with rpma_send_with_imm() and its own 32-bit immediate value, except
 *     one plain rpma_send() (which must arrive without immediate data) and
 *     one 0-byte send with immediate data and no buffer at all;
 *  3. the server checks each message as it completes: that it carries
 *     immediate data exactly when it should, the value (after ntohl), the
 *     length and every byte of the payload;
 *  4. the server answers with a SUMMARY: what it decoded from each message;
 *     the client compares it with what it sent and hangs up.
 */
#ifndef EXAMPLE_SEND_WITH_IMM_COMMON_H
#define EXAMPLE_SEND_WITH_IMM_COMMON_H

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

#define SUMMARY_MAGIC	0x53494d31u	/* "SIM1", server -> client */

/* one message of the exchange */
struct msg_spec {
	bool with_imm;	/* rpma_send_with_imm, else rpma_send */
	uint32_t imm;	/* its immediate value (host order) */
	uint32_t len;	/* payload bytes; 0: sent with src NULL */
};

/*
 * The messages, in the order they travel. The immediates are picked so
 * that a wrong byte order shows: 0x01020304 read the other way round is
 * 0x04030201, 0xfffffffe is 0xfeffffff. 0 is a legal immediate too: the
 * flag in wc_flags, not the value, says whether there is one.
 */
#define N_MSGS	6
static const struct msg_spec MSGS[N_MSGS] = {
	{ true,  0x01020304u, 16 },
	{ true,  0xfffffffeu, 1 },
	{ true,  0x00000000u, 64 },
	{ false, 0,           24 },	/* plain rpma_send: no immediate data */
	{ true,  0x80000001u, 0 },	/* nothing but the immediate */
	{ true,  0xa5c3e10fu, 37 },
};

/* the largest payload; the server's slots are bigger, so excess shows */
#define MAX_LEN		64
#define SLOT_SIZE	96
/* what a slot holds before a message lands in it */
#define CANARY		0xee

/* byte i of message k's payload */
#define PAYLOAD_BYTE(k, i)	((uint8_t)(0x11 * ((k) + 1) + (i) * 7))

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/* the checksum message k's payload must have */
static inline uint32_t
expected_checksum(int k)
{
	uint8_t payload[MAX_LEN];
	uint32_t i;

	for (i = 0; i < MSGS[k].len; i++)
		payload[i] = PAYLOAD_BYTE(k, i);
	return checksum(payload, MSGS[k].len);
}

/*
 * The SUMMARY, the server's one message: for every message what its
 * receive completion said. Integers little-endian.
 */
struct summary_entry {
	uint32_t flags;		/* SUMMARY_WITH_IMM when IBV_WC_WITH_IMM was set */
	uint32_t imm;		/* ntohl(wc.imm_data), 0 when there was none */
	uint32_t byte_len;	/* wc.byte_len */
	uint32_t checksum;	/* checksum() over the bytes received */
};
#define SUMMARY_WITH_IMM	1u

struct summary_msg {
	uint32_t magic;		/* SUMMARY_MAGIC */
	uint32_t count;		/* N_MSGS */
	struct summary_entry entry[N_MSGS];
};

_Static_assert(sizeof(struct summary_msg) == 8 + 16 * N_MSGS,
		"struct summary_msg must have no padding");

#endif /* EXAMPLE_SEND_WITH_IMM_COMMON_H */
