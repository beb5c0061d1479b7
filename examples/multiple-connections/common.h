/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the multiple-connections
 * example agree on: the HELLO each connect request carries, the ASK
 * the client sends first on each connection, the GREETING the server
 * sends back and the ANSWER to it, plus two waiting helpers both sides use.
 *
 * The exchange, on each of the client's connections at the same time:
 *  1. the client connects with a HELLO in its private data: which of its
 *     connections this is (index, count) and a token of that connection;
 *  2. the server posts two receives on the request (for the ASK, then the
 *     ANSWER) and accepts;
 *  3. once ESTABLISHED the client sends an ASK: its HELLO again, with a
 *     magic number of its own;
 *  4. on the ASK the server sends a GREETING: the index and token it was
 *     told, a serial number of its own (the order it accepted in) and a
 *     cookie, both different for every connection, and a line of text;
 *  5. the client checks the GREETING is the one meant for that connection
 *     and answers with an ANSWER echoing index, token, serial and cookie;
 *  6. once every connection has its answer sent, the client hangs up all
 *     of them; the server handles each CLOSED and ends after the last.
 *
 * The client speaks first because iWARP wants it so: MPA (RFC 5044) lets
 * the side that accepted send only after the first message from the side
 * that connected, unless both agree otherwise (RFC 6581), and siw does not.
 * A greeting sent as soon as the server sees ESTABLISHED can reach the
 * client's siw before it has finished connecting, and the connection
 * fails.
 */
#ifndef EXAMPLE_MULTIPLE_CONNECTIONS_COMMON_H
#define EXAMPLE_MULTIPLE_CONNECTIONS_COMMON_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/example.h"

/* all four magics differ, so a message sent back unchanged is caught */
#define HELLO_MAGIC	0x4d434831u	/* "MCH1", client -> server, connect request */
#define ASK_MAGIC	0x4d434b34u	/* "MCK4", client -> server, rpma_send */
#define GREETING_MAGIC	0x4d434732u	/* "MCG2", server -> client, rpma_send */
#define ANSWER_MAGIC	0x4d434133u	/* "MCA3", client -> server, rpma_send */
#define PROTO_VERSION	1

/* how many connections the client opens unless told otherwise */
#define DEFAULT_CONNECTIONS	4
/* the most the server takes (and the client opens) */
#define MAX_CONNECTIONS		16

/* the server gives up when nothing happened for this long */
#define IDLE_TIMEOUT_MS		30000

/* the command-line switch of the shared-completion-channel variant */
#define SHARED_CHANNEL_ARG	"--shared-channel"

/* the length of the text inside a GREETING, zero padded */
#define GREETING_TEXT_LEN	48

/*
 * The HELLO, the connect request's private data. Little-endian on the
 * wire; 16 bytes, well within the 56 a connect request can carry.
 */
struct hello_msg {
	uint32_t magic;		/* HELLO_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint16_t index;		/* which of the client's connections, from 0 */
	uint16_t count;		/* how many connections the client opens */
	uint16_t reserved;	/* 0 */
	uint32_t token;		/* the client's own mark of this connection */
};

/* the ASK, the client's first rpma_send, is a HELLO with ASK_MAGIC */

_Static_assert(sizeof(struct hello_msg) == 16, "struct hello_msg must have no padding");
_Static_assert(sizeof(struct hello_msg) <= 56, "struct hello_msg must fit a connect request");

/* *wire: a HELLO (or, with ASK_MAGIC, an ASK) of this protocol, little-endian */
static inline void
hello_encode(struct hello_msg *wire, uint32_t magic, unsigned index, unsigned count,
		uint32_t token)
{
	memset(wire, 0, sizeof(*wire));
	wire->magic = htole32(magic);
	wire->version = htole16(PROTO_VERSION);
	wire->index = htole16((uint16_t)index);
	wire->count = htole16((uint16_t)count);
	wire->token = htole32(token);
}

/* *h: the HELLO or ASK at wire (not aligned), in host byte order */
static inline void
hello_decode(struct hello_msg *h, const void *wire)
{
	memcpy(h, wire, sizeof(*h));
	h->magic = le32toh(h->magic);
	h->version = le16toh(h->version);
	h->index = le16toh(h->index);
	h->count = le16toh(h->count);
	h->reserved = le16toh(h->reserved);
	h->token = le32toh(h->token);
}

/* The GREETING, the server's one rpma_send per connection. */
struct greeting_msg {
	uint32_t magic;		/* GREETING_MAGIC */
	uint16_t index;		/* the HELLO's index, echoed */
	uint16_t serial;	/* the order the server accepted in, from 0 */
	uint32_t token;		/* the HELLO's token, echoed */
	uint32_t cookie;	/* the server's own mark of this connection */
	char text[GREETING_TEXT_LEN];	/* greeting_text() */
};

_Static_assert(sizeof(struct greeting_msg) == 16 + GREETING_TEXT_LEN,
		"struct greeting_msg must have no padding");

/* The ANSWER, the client's one rpma_send per connection. */
struct answer_msg {
	uint32_t magic;		/* ANSWER_MAGIC */
	uint16_t index;		/* the connection's index */
	uint16_t serial;	/* the GREETING's serial, echoed */
	uint32_t token;		/* the connection's token */
	uint32_t cookie;	/* the GREETING's cookie, echoed */
};

_Static_assert(sizeof(struct answer_msg) == 16, "struct answer_msg must have no padding");

/* the cookie the server gives the connection it accepted serial-th */
static inline uint32_t
greeting_cookie(unsigned serial)
{
	return 0xc0c00000u ^ (serial * 0x9e3779b9u);
}

/* the greeting's text: zero padded, so both sides build the same bytes */
static inline void
greeting_text(char text[GREETING_TEXT_LEN], unsigned index, unsigned count, unsigned serial)
{
	memset(text, 0, GREETING_TEXT_LEN);
	snprintf(text, GREETING_TEXT_LEN, "hello, connection %u of %u (accepted #%u)",
			index, count, serial);
}

/*
 * next_wc() for a connection whose CQs share one completion channel
 * (rpma_conn_cfg_set_compl_channel(cfg, true)): rpma_cq_wait() refuses
 * such CQs, so the wait is rpma_conn_wait() on the connection's channel,
 * which says which CQ the event was for. Takes the next completion of any
 * of the connection's CQs into *wc and sets *is_rcq to whether it came
 * from the receive CQ. hangup_fd and the deadline as for next_wc().
 */
static inline int
next_wc_shared(const char *who, struct rpma_conn *conn, int hangup_fd, struct ibv_wc *wc,
		bool *is_rcq)
{
	struct timespec deadline = deadline_in(COMPLETION_TIMEOUT_MS);
	struct pollfd pfd[2] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = hangup_fd, .events = POLLIN },	/* poll() skips fd -1 */
	};
	struct rpma_cq *cqs[2] = { NULL, NULL };
	struct rpma_cq *woken = NULL;
	bool woken_rcq = false;
	int ret, i;

	ret = rpma_conn_get_compl_fd(conn, &pfd[0].fd);
	if (ret) {
		report(who, "rpma_conn_get_compl_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_cq(conn, &cqs[0]);
	if (ret) {
		report(who, "rpma_conn_get_cq", ret);
		return 1;
	}
	/* NULL when the connection has no receive CQ of its own */
	ret = rpma_conn_get_rcq(conn, &cqs[1]);
	if (ret) {
		report(who, "rpma_conn_get_rcq", ret);
		return 1;
	}
	for (;;) {
		/* both CQs: one event on the channel may stand for either */
		for (i = 0; i < 2; i++) {
			if (cqs[i] == NULL)
				continue;
			ret = rpma_cq_get_wc(cqs[i], 1, wc, NULL);
			if (ret == 0) {
				*is_rcq = i == 1;
				return 0;
			}
			if (ret != RPMA_E_NO_COMPLETION) {
				report(who, "rpma_cq_get_wc", ret);
				return 1;
			}
		}
		if (pfd[1].revents) {
			fprintf(stderr, "%s: the connection ended while a completion was awaited\n",
					who);
			return 1;
		}
		do
			ret = poll(pfd, 2, ms_left(&deadline));
		while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			fprintf(stderr, "%s: poll: %s\n", who, strerror(errno));
			return 1;
		}
		if (ret == 0) {
			fprintf(stderr, "%s: no completion within %d s\n", who,
					COMPLETION_TIMEOUT_MS / 1000);
			return 1;
		}
		if (!pfd[0].revents)
			continue;
		/* readable, so this does not block; it re-arms the CQ it names */
		ret = rpma_conn_wait(conn, 0, &woken, &woken_rcq);
		if (ret) {
			report(who, "rpma_conn_wait", ret);
			return 1;
		}
		if (woken != cqs[woken_rcq ? 1 : 0]) {
			fprintf(stderr, "%s: rpma_conn_wait named a CQ that is not the connection's %s\n",
					who, woken_rcq ? "receive CQ" : "main CQ");
			return 1;
		}
	}
}

#endif /* EXAMPLE_MULTIPLE_CONNECTIONS_COMMON_H */
