/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the srq-ping-pong example
 * agree on: the HELLO each connect request carries, the PING a client
 * sends and the PONG the server answers with, and how a pong's payload is
 * made from the ping's.
 *
 * The exchange:
 *  1. the client opens all its connections at once, each with a HELLO in
 *     its private data: which connection it is (index, count), how many
 *     rounds will be played and a token of that connection;
 *  2. the server accepts them all; its connections have no receive queue
 *     of their own but share one SRQ, whose receive CQ is the SRQ's;
 *  3. each round the client sends a PING on every connection before it
 *     waits for any PONG, so the pings of all connections reach the SRQ
 *     mixed; the server takes each from the SRQ's CQ, finds the connection
 *     it came on by the completion's QP number, checks it, re-posts the
 *     buffer and answers on that connection with a PONG: the ping's index,
 *     round and token, its own running count, and the ping's payload
 *     turned around (pong_payload());
 *  4. after the last round the client hangs up every connection.
 */
#ifndef EXAMPLE_SRQ_PING_PONG_COMMON_H
#define EXAMPLE_SRQ_PING_PONG_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/example.h"

/* all magics differ, so a message sent back unchanged is caught */
#define HELLO_MAGIC	0x53504831u	/* "SPH1", client -> server, connect request */
#define PING_MAGIC	0x53504932u	/* "SPI2", client -> server, rpma_send */
#define PONG_MAGIC	0x53504f33u	/* "SPO3", server -> client, rpma_send */
#define PROTO_VERSION	1

/* what the client plays unless told otherwise, and the most it may */
#define DEFAULT_CLIENTS	3
#define DEFAULT_ROUNDS	5
#define MAX_CLIENTS	8
#define MAX_ROUNDS	100

/* how long the server waits for each client to come */
#define ACCEPT_TIMEOUT_MS	30000
/* how long a connection may take to be established or closed */
#define EVENT_TIMEOUT_MS	20000

/* the payload every ping and pong carries */
#define PAYLOAD_LEN	32

/*
 * The HELLO, the connect request's private data. Little-endian on the
 * wire; 16 bytes, well within the 56 a connect request can carry.
 */
struct hello_msg {
	uint32_t magic;		/* HELLO_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint16_t index;		/* which of the client's connections, from 0 */
	uint16_t count;		/* how many connections the client opens */
	uint16_t rounds;	/* how many pings each connection sends */
	uint32_t token;		/* the client's own mark of this connection */
};

_Static_assert(sizeof(struct hello_msg) == 16, "struct hello_msg must have no padding");
_Static_assert(sizeof(struct hello_msg) <= 56, "struct hello_msg must fit a connect request");

/* The PING, one per connection and round. */
struct ping_msg {
	uint32_t magic;		/* PING_MAGIC */
	uint16_t index;		/* the connection's index */
	uint16_t round;		/* from 0 */
	uint32_t token;		/* the connection's token */
	uint32_t reserved;	/* 0 */
	uint8_t payload[PAYLOAD_LEN];	/* ping_byte() */
};

_Static_assert(sizeof(struct ping_msg) == 16 + PAYLOAD_LEN, "struct ping_msg must have no padding");

/* The PONG, the server's answer to one PING, on the PING's connection. */
struct pong_msg {
	uint32_t magic;		/* PONG_MAGIC */
	uint16_t index;		/* the ping's, echoed */
	uint16_t round;		/* the ping's, echoed */
	uint32_t token;		/* the ping's, echoed */
	uint32_t seq;		/* how many pings the server took before this one */
	uint8_t payload[PAYLOAD_LEN];	/* pong_payload() of the ping's */
};

_Static_assert(sizeof(struct pong_msg) == 16 + PAYLOAD_LEN, "struct pong_msg must have no padding");

/* byte k of the payload of the ping with token and round */
static inline uint8_t
ping_byte(uint32_t token, unsigned round, unsigned k)
{
	return (uint8_t)((token >> (8 * (k % 4))) ^ (round * 37u) ^ (k * 11u));
}

/*
 * The pong's payload: the ping's, back to front and with every byte
 * flipped. The server makes it from the bytes it received; the client
 * from what it sent.
 */
static inline void
pong_payload(uint8_t out[PAYLOAD_LEN], const uint8_t in[PAYLOAD_LEN])
{
	unsigned k;

	for (k = 0; k < PAYLOAD_LEN; k++)
		out[k] = (uint8_t)~in[PAYLOAD_LEN - 1 - k];
}

#endif /* EXAMPLE_SRQ_PING_PONG_COMMON_H */
