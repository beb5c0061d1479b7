/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the ping-pong example agree
 * on: the message, how its counter advances and its payload follows from
 * the counter, and the checks both sides make on every message they take.
 *
 * The exchange: a number of rounds (DEFAULT_ROUNDS unless both sides are
 * given another), in each of which the client sends a PING and the server
 * answers with a PONG, both with rpma_send. The counter goes up by one
 * with every message whichever way it travels: the client's first PING
 * carries COUNTER_START, the PONG to it COUNTER_START + 1, the next PING
 * COUNTER_START + 2, and so on. The payload's length and every byte of it
 * are functions of the counter, so each side knows exactly what it must
 * receive. Each side posts the receive for the next message before it
 * sends, so a message never arrives with no receive waiting for it.
 * Receives complete on a receive CQ of their own, sends on the main CQ.
 */
#ifndef EXAMPLE_PING_PONG_COMMON_H
#define EXAMPLE_PING_PONG_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/example.h"

#define PING_MAGIC	0x50494e47u	/* "PING", client -> server */
#define PONG_MAGIC	0x504f4e47u	/* "PONG", server -> client */

#define DEFAULT_ROUNDS	100
#define MAX_ROUNDS	100
#define COUNTER_START	1000u

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/* the receive CQ: one receive is outstanding at a time */
#define RCQ_SIZE	4

/* the payload: 1 to MAX_PAYLOAD bytes, length and bytes set by the counter */
#define MAX_PAYLOAD	240
#define PAYLOAD_LEN(counter)	(1u + ((counter) * 37u) % MAX_PAYLOAD)
#define PAYLOAD_BYTE(counter, j)	((uint8_t)((counter) * 29u + (j) * 11u + 0x5au))

/*
 * The message; only the header and len bytes of payload are sent.
 * Integers little-endian on the wire.
 */
struct pp_msg {
	uint32_t magic;		/* PING_MAGIC or PONG_MAGIC */
	uint32_t counter;
	uint32_t len;		/* bytes of payload that follow */
	uint8_t payload[MAX_PAYLOAD];
};

#define MSG_HEADER	offsetof(struct pp_msg, payload)

_Static_assert(sizeof(struct pp_msg) == 12 + MAX_PAYLOAD, "struct pp_msg must have no padding");

/* larger than any message, so a too long one shows as a wrong length */
#define SLOT_SIZE	256
_Static_assert(SLOT_SIZE > sizeof(struct pp_msg), "a slot must be larger than any message");

/* each side's message memory: the receive slot and the outgoing message */
struct pp_mem {
	uint8_t slot[SLOT_SIZE];
	struct pp_msg out;
};

#define MEM_USAGE	(RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
#define SLOT_OFF	offsetof(struct pp_mem, slot)
#define OUT_OFF		offsetof(struct pp_mem, out)

/* op_contexts, one per operation and round, which come back as wr_id */
#define OP_SEND(k)	((const void *)(uintptr_t)(0x53000000u + (unsigned)(k)))
#define OP_RECV(k)	((const void *)(uintptr_t)(0x52000000u + (unsigned)(k)))

/* Fills msg for counter; returns how many bytes of it are to be sent. */
/*
 * The optional rounds argument of both sides (they must be given the same):
 * 1 to MAX_ROUNDS, or DEFAULT_ROUNDS when absent. Returns 0 on a bad one.
 */
static inline int
parse_rounds(const char *who, int argc, char *argv[])
{
	char *end;
	long n;

	if (argc < 4)
		return DEFAULT_ROUNDS;
	n = strtol(argv[3], &end, 10);
	if (*argv[3] == '\0' || *end != '\0' || n < 1 || n > MAX_ROUNDS) {
		fprintf(stderr, "%s: rounds must be 1 to %d, not \"%s\"\n", who, MAX_ROUNDS,
				argv[3]);
		return 0;
	}
	return (int)n;
}

static inline size_t
msg_fill(struct pp_msg *msg, uint32_t magic, uint32_t counter)
{
	uint32_t len = PAYLOAD_LEN(counter);
	uint32_t j;

	msg->magic = htole32(magic);
	msg->counter = htole32(counter);
	msg->len = htole32(len);
	for (j = 0; j < len; j++)
		msg->payload[j] = PAYLOAD_BYTE(counter, j);
	return MSG_HEADER + len;
}

/*
 * Checks a received message (its completion wc, its bytes in slot): no
 * immediate data, the magic, the counter, then the length the completion
 * reports, the payload's length and every payload byte. Returns 0 when
 * all are what counter says, else non-zero after reporting.
 */
static inline int
msg_check(const char *who, const struct ibv_wc *wc, const uint8_t *slot, uint32_t magic,
		uint32_t counter)
{
	uint32_t len = PAYLOAD_LEN(counter);
	struct pp_msg msg;
	uint32_t j;

	if (wc->byte_len < MSG_HEADER || wc->byte_len > sizeof(msg) ||
			(wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, "%s: message %u has %u bytes%s, expected %zu and no immediate\n",
				who, counter, wc->byte_len,
				(wc->wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				MSG_HEADER + len);
		return 1;
	}
	memcpy(&msg, slot, wc->byte_len);
	if (le32toh(msg.magic) != magic) {
		fprintf(stderr, "%s: message %u has magic 0x%08x, expected 0x%08x\n",
				who, counter, le32toh(msg.magic), magic);
		return 1;
	}
	if (le32toh(msg.counter) != counter) {
		fprintf(stderr, "%s: message carries counter %u, expected %u\n",
				who, le32toh(msg.counter), counter);
		return 1;
	}
	if (wc->byte_len != MSG_HEADER + len || le32toh(msg.len) != len) {
		fprintf(stderr, "%s: message %u has %u bytes and says %u of payload, expected %zu and %u\n",
				who, counter, wc->byte_len, le32toh(msg.len), MSG_HEADER + len, len);
		return 1;
	}
	for (j = 0; j < len; j++) {
		if (msg.payload[j] != PAYLOAD_BYTE(counter, j)) {
			fprintf(stderr, "%s: message %u: payload byte %u is 0x%02x, expected 0x%02x\n",
					who, counter, j, msg.payload[j], PAYLOAD_BYTE(counter, j));
			return 1;
		}
	}
	return 0;
}

/*
 * The main CQ and the receive CQ of conn, the latter checked to be there.
 * Returns 0, or non-zero after reporting.
 */
static inline int
get_cqs(const char *who, struct rpma_conn *conn, struct rpma_cq **cq, struct rpma_cq **rcq)
{
	int ret;

	ret = rpma_conn_get_cq(conn, cq);
	if (ret) {
		report(who, "rpma_conn_get_cq", ret);
		return 1;
	}
	ret = rpma_conn_get_rcq(conn, rcq);
	if (ret) {
		report(who, "rpma_conn_get_rcq", ret);
		return 1;
	}
	if (*rcq == NULL || *rcq == *cq) {
		fprintf(stderr, "%s: the connection has no receive CQ of its own\n", who);
		return 1;
	}
	return 0;
}

/*
 * A connection configuration with a receive CQ; timeout_ms (0: the
 * library's default) bounds the client's address and route resolution.
 * Returns 0, or non-zero after reporting (nothing left to free then).
 */
static inline int
make_conn_cfg(const char *who, int timeout_ms, struct rpma_conn_cfg **cfg)
{
	int ret;

	ret = rpma_conn_cfg_new(cfg);
	if (ret) {
		report(who, "rpma_conn_cfg_new", ret);
		return 1;
	}
	if (timeout_ms > 0) {
		ret = rpma_conn_cfg_set_timeout(*cfg, timeout_ms);
		if (ret) {
			report(who, "rpma_conn_cfg_set_timeout", ret);
			goto err;
		}
	}
	ret = rpma_conn_cfg_set_rcq_size(*cfg, RCQ_SIZE);
	if (ret) {
		report(who, "rpma_conn_cfg_set_rcq_size", ret);
		goto err;
	}
	return 0;

err:
	(void) rpma_conn_cfg_delete(cfg);
	return 1;
}

#endif /* EXAMPLE_PING_PONG_COMMON_H */
