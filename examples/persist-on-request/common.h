/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the persist-on-request example
 * agree on, and the completion handling both sides share.
 *
 * The server keeps a buffer a PMem server would map from persistent
 * memory. It does not let RDMA writes reach persistence on their own (its
 * peer configuration says "no direct write to PMem"), so a remote
 * rpma_flush() to persistence is refused and a client has to ask the
 * server to make its data durable. The exchange:
 *  1. the server accepts with a WELCOME: its buffer's descriptor and its
 *     peer configuration; it has one receive posted already;
 *  2. per round k (NROUNDS of them, ROUNDS[k] says where and how much):
 *     the client posts a receive for the answer, writes the range with
 *     rpma_write (completion only on error) and sends a PERSIST request
 *     (offset, length, sequence number) with rpma_send. One RC connection
 *     keeps order, so the data is in place when the request arrives;
 *  3. the server takes the request, checks the range holds what the
 *     client must have written, "persists" it, posts the receive for the
 *     next request and answers with a DONE (sequence number, checksum of
 *     the range, status);
 *  4. the client checks the answer against the checksum of its own data;
 *  5. after the last round the client disconnects and the server checks
 *     its whole buffer once more.
 *
 * With --shared-channel both sides build their connection with one
 * completion channel for the main CQ and a separate receive CQ, and wait
 * with rpma_conn_wait(), which says which CQ has something; without it
 * every completion lands on the one main CQ.
 */
#ifndef EXAMPLE_PERSIST_ON_REQUEST_COMMON_H
#define EXAMPLE_PERSIST_ON_REQUEST_COMMON_H

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/example.h"

#define WELCOME_MAGIC	0x50525731u	/* "PRW1", server -> client, accept */
#define PERSIST_MAGIC	0x50525251u	/* "PRRQ", client -> server, request */
#define DONE_MAGIC	0x50524441u	/* "PRDA", server -> client, answer */
#define PROTO_VERSION	1

/* the server's buffer: the client may only write into it */
#define SERVER_BUF_SIZE	32768
#define SERVER_USAGE	RPMA_MR_USAGE_WRITE_DST

/*
 * The buffer is ordinary DRAM (the machine has no PMem), and even a PMem
 * server of this kind says false: it persists on request, RDMA writes
 * alone do not make data durable.
 */
#define SERVER_DIRECT_WRITE_TO_PMEM	false

/* the ranges the client writes and asks to persist, one per round */
static const struct {
	size_t offset;
	size_t length;
} ROUNDS[] = {
	{ 0, 64 },
	{ 100, 1 },		/* a single byte */
	{ 4096, 4096 },		/* exactly one page */
	{ 9000, 7777 },		/* unaligned, across page boundaries */
	{ 17000, 15000 },	/* most of what is left */
};
#define NROUNDS	((int)(sizeof(ROUNDS) / sizeof(ROUNDS[0])))

/* the sequence number of round k: not 0, so zeroed memory never matches */
#define SEQ(k)	(0x7e570000u + (uint32_t)(k))

/* what the server's buffer holds before the client comes */
#define PATTERN_BYTE(pos)	((uint8_t)(0xa5 ^ ((pos) * 31)))
/*
 * What the client writes at pos in the round with sequence number seq: the
 * pattern XOR a byte that is never 0, so every written byte differs from
 * the one it replaces and a write that did not happen always shows.
 */
#define DATA_BYTE(seq, pos) \
	((uint8_t)(PATTERN_BYTE(pos) ^ (uint8_t)(1 + ((seq) * 7u + (pos)) % 255)))

/*
 * The byte the server's buffer must hold at pos once rounds 0..done-1 are
 * over (the ranges do not overlap).
 */
static inline uint8_t
expected_byte(size_t pos, int done)
{
	int k;

	for (k = 0; k < done; k++) {
		if (pos >= ROUNDS[k].offset && pos - ROUNDS[k].offset < ROUNDS[k].length)
			return DATA_BYTE(SEQ(k), pos);
	}
	return PATTERN_BYTE(pos);
}

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

/* the receive CQ of the shared-channel variant; one receive at a time */
#define RCQ_SIZE	4

/*
 * The WELCOME, the accept's private data: the server's MR descriptor
 * followed directly by its peer cfg descriptor. Multi-byte fields are
 * little-endian on the wire. 32 bytes, well within the 196 an accept may
 * carry.
 */
struct welcome_msg {
	uint32_t magic;		/* WELCOME_MAGIC */
	uint16_t version;	/* PROTO_VERSION */
	uint8_t mr_desc_size;	/* bytes at descriptors[0] */
	uint8_t pcfg_desc_size;	/* bytes at descriptors[mr_desc_size] */
	uint8_t descriptors[24];
};

_Static_assert(sizeof(struct welcome_msg) == 32, "struct welcome_msg must have no padding");

/* The PERSIST request, rpma_send by the client. Integers little-endian. */
struct persist_req {
	uint32_t magic;		/* PERSIST_MAGIC */
	uint32_t seq;		/* SEQ(k) */
	uint64_t offset;	/* the range in the server's buffer */
	uint64_t length;
};

_Static_assert(sizeof(struct persist_req) == 24, "struct persist_req must have no padding");

/* what the server says about a request */
enum persist_status {
	PERSIST_OK = 0,
	PERSIST_BAD_REQUEST,	/* wrong magic, sequence number, or range */
	PERSIST_BAD_DATA,	/* the range does not hold what was written */
};

static inline const char *
status_name(uint32_t status)
{
	switch (status) {
	case PERSIST_OK: return "OK";
	case PERSIST_BAD_REQUEST: return "BAD_REQUEST";
	case PERSIST_BAD_DATA: return "BAD_DATA";
	default: return "an unknown status";
	}
}

/* The DONE answer, rpma_send by the server. Integers little-endian. */
struct done_msg {
	uint32_t magic;		/* DONE_MAGIC */
	uint32_t seq;		/* the request's */
	uint32_t status;	/* enum persist_status */
	uint32_t checksum;	/* checksum() over the range, as the server holds it */
};

_Static_assert(sizeof(struct done_msg) == 16, "struct done_msg must have no padding");

/* receive slots are larger than any message, so a long one shows as such */
#define SLOT_SIZE	64

/*
 * The tags that travel as op_context and must come back as wr_id, one per
 * operation and round, so a completion names exactly what it belongs to.
 */
#define OP_WRITE(k)	((const void *)(uintptr_t)(0x57000000u + (unsigned)(k)))
#define OP_SEND(k)	((const void *)(uintptr_t)(0x53000000u + (unsigned)(k)))
#define OP_RECV(k)	((const void *)(uintptr_t)(0x52000000u + (unsigned)(k)))

/*
 * How a side takes its completions. shared == false: one main CQ gets all
 * of them, waited for with rpma_cq_wait() (through next_wc()). shared ==
 * true: a main CQ and a receive CQ share one completion channel, waited
 * for with rpma_conn_wait().
 */
struct waiter {
	struct rpma_conn *conn;
	bool shared;
	struct rpma_cq *cq;	/* the main CQ */
	struct rpma_cq *rcq;	/* the receive CQ, NULL unless shared */
	int compl_fd;		/* the shared channel's fd, -1 unless shared */
	unsigned events[2];	/* rpma_conn_wait() events: [0] main CQ, [1] receive CQ */
};

/*
 * Fills *w for conn and checks the connection's completion set-up is the
 * one asked for: a receive CQ and a shared channel both present or both
 * absent, and with a shared channel both CQs on the channel's fd and
 * per-CQ waits refused. Returns 0 when so, else non-zero after reporting.
 */
static inline int
waiter_init(const char *who, struct rpma_conn *conn, bool shared, struct waiter *w)
{
	int cq_fd = -1, rcq_fd = -1;
	int ret;

	w->conn = conn;
	w->shared = shared;
	w->cq = NULL;
	w->rcq = NULL;
	w->compl_fd = -1;
	w->events[0] = w->events[1] = 0;

	ret = rpma_conn_get_cq(conn, &w->cq);
	if (ret) {
		report(who, "rpma_conn_get_cq", ret);
		return 1;
	}
	ret = rpma_conn_get_rcq(conn, &w->rcq);
	if (ret) {
		report(who, "rpma_conn_get_rcq", ret);
		return 1;
	}
	ret = rpma_conn_get_compl_fd(conn, &w->compl_fd);
	if (!shared) {
		if (ret != RPMA_E_NOT_SHARED_CHNL) {
			fprintf(stderr, "%s: rpma_conn_get_compl_fd without a shared channel: %s, expected RPMA_E_NOT_SHARED_CHNL\n",
					who, ret ? rpma_err_2str(ret) : "succeeded");
			return 1;
		}
		w->compl_fd = -1;
		if (w->rcq != NULL) {
			fprintf(stderr, "%s: the connection has a receive CQ it was not built with\n",
					who);
			return 1;
		}
		return 0;
	}

	if (ret) {
		report(who, "rpma_conn_get_compl_fd", ret);
		return 1;
	}
	if (w->rcq == NULL) {
		fprintf(stderr, "%s: the connection has no receive CQ\n", who);
		return 1;
	}
	ret = rpma_cq_get_fd(w->cq, &cq_fd);
	if (!ret)
		ret = rpma_cq_get_fd(w->rcq, &rcq_fd);
	if (ret) {
		report(who, "rpma_cq_get_fd", ret);
		return 1;
	}
	if (cq_fd != w->compl_fd || rcq_fd != w->compl_fd) {
		fprintf(stderr, "%s: the CQs report fds %d and %d, the shared channel is %d\n",
				who, cq_fd, rcq_fd, w->compl_fd);
		return 1;
	}
	/* with a shared channel the connection, not a CQ, is waited on */
	ret = rpma_cq_wait(w->cq);
	if (ret != RPMA_E_SHARED_CHANNEL) {
		fprintf(stderr, "%s: rpma_cq_wait on a shared channel: %s, expected RPMA_E_SHARED_CHANNEL\n",
				who, ret ? rpma_err_2str(ret) : "succeeded");
		return 1;
	}
	return 0;
}

/*
 * Takes one completion from cq into *wc if there is one. Returns 0 when
 * one was taken, 1 when the CQ is empty, -1 on an error (reported).
 */
static inline int
try_wc(const char *who, struct rpma_cq *cq, struct ibv_wc *wc)
{
	int ret = rpma_cq_get_wc(cq, 1, wc, NULL);

	if (ret == 0)
		return 0;
	if (ret == RPMA_E_NO_COMPLETION)
		return 1;
	report(who, "rpma_cq_get_wc", ret);
	return -1;
}

/*
 * The shared-channel counterpart of next_wc(): the next completion of
 * either CQ of w into *wc, *from_rcq saying which CQ it came from. Both
 * CQs are looked at first, since a completion may be queued without a new
 * event (its event was taken earlier). Otherwise the channel's fd is
 * polled with a deadline, so rpma_conn_wait() never blocks for ever; it
 * takes one event, says which CQ it was for and re-arms that CQ, which is
 * then looked at. hangup_fd as for next_wc(). Returns 0, or non-zero
 * after reporting.
 */
static inline int
next_conn_wc(const char *who, struct waiter *w, int hangup_fd, struct ibv_wc *wc,
		bool *from_rcq)
{
	struct timespec deadline = deadline_in(COMPLETION_TIMEOUT_MS);
	struct pollfd pfd[2] = {
		{ .fd = w->compl_fd, .events = POLLIN },
		{ .fd = hangup_fd, .events = POLLIN },	/* poll() skips fd -1 */
	};
	struct rpma_cq *cq = NULL;
	bool is_rcq = false;
	int ret;

	for (;;) {
		ret = try_wc(who, w->cq, wc);
		if (ret <= 0) {
			*from_rcq = false;
			return ret ? 1 : 0;
		}
		ret = try_wc(who, w->rcq, wc);
		if (ret <= 0) {
			*from_rcq = true;
			return ret ? 1 : 0;
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
		/* a connection event: look at the CQs once more, then give up */
		if (!pfd[0].revents)
			continue;
		/* readable, so this does not block */
		ret = rpma_conn_wait(w->conn, 0, &cq, &is_rcq);
		if (ret) {
			report(who, "rpma_conn_wait", ret);
			return 1;
		}
		if (cq != (is_rcq ? w->rcq : w->cq)) {
			fprintf(stderr, "%s: rpma_conn_wait named a CQ that is not the connection's %s CQ\n",
					who, is_rcq ? "receive" : "main");
			return 1;
		}
		w->events[is_rcq]++;
		/* the event's own CQ first; an event may come without a completion */
		ret = try_wc(who, cq, wc);
		if (ret <= 0) {
			*from_rcq = is_rcq;
			return ret ? 1 : 0;
		}
	}
}

/* one operation whose completion is awaited */
struct awaited {
	const void *op_context;		/* must come back as wr_id */
	enum ibv_wc_opcode opcode;	/* IBV_WC_SEND or IBV_WC_RECV */
	const char *what;		/* for messages */
	struct ibv_wc wc;		/* the completion, once it came */
	bool done;
};

/*
 * Waits until every operation of ops[0..n-1] has completed, in whatever
 * order the completions come, and checks each: success, a wr_id that
 * names an operation still awaited, its opcode, and with a shared channel
 * the CQ it came from (receives on the receive CQ, the rest on the main
 * one). Any other completion -- a failed write posted with
 * RPMA_F_COMPLETION_ON_ERROR, say -- is an error. Returns 0 when all came
 * as they should.
 */
static inline int
await_all(const char *who, struct waiter *w, int hangup_fd, struct awaited *ops, int n)
{
	struct ibv_wc wc;
	bool from_rcq = false;
	int left = n;
	int i;

	while (left > 0) {
		if (w->shared) {
			if (next_conn_wc(who, w, hangup_fd, &wc, &from_rcq))
				return 1;
		} else if (next_wc(who, w->cq, hangup_fd, &wc)) {
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (!ops[i].done && wc.wr_id == (uint64_t)(uintptr_t)ops[i].op_context)
				break;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "%s: %s (wr_id 0x%llx) completed with status %s (%d)\n",
					who, i < n ? ops[i].what : "an operation",
					(unsigned long long)wc.wr_id, wc_status_name(wc.status),
					(int)wc.status);
			return 1;
		}
		if (i == n) {
			fprintf(stderr, "%s: a completion with wr_id 0x%llx (%s) came, which names nothing awaited\n",
					who, (unsigned long long)wc.wr_id, wc_opcode_name(wc.opcode));
			return 1;
		}
		if (wc.opcode != ops[i].opcode) {
			fprintf(stderr, "%s: %s: the completion has opcode %s (%d), not %s\n",
					who, ops[i].what, wc_opcode_name(wc.opcode), (int)wc.opcode,
					wc_opcode_name(ops[i].opcode));
			return 1;
		}
		if (w->shared && from_rcq != (ops[i].opcode == IBV_WC_RECV)) {
			fprintf(stderr, "%s: %s completed on the %s CQ\n", who, ops[i].what,
					from_rcq ? "receive" : "main");
			return 1;
		}
		ops[i].wc = wc;
		ops[i].done = true;
		left--;
	}
	return 0;
}

/*
 * Reads the --shared-channel switch: argc must be 3 or 4. Returns 0 and
 * sets *shared, or 1 when the arguments are wrong.
 */
static inline int
parse_args(int argc, char *argv[], bool *shared)
{
	*shared = false;
	if (argc == 4 && strcmp(argv[3], "--shared-channel") == 0)
		*shared = true;
	else if (argc != 3)
		return 1;
	return 0;
}

/*
 * A connection configuration for the mode asked for: default sizes, or a
 * shared completion channel with a receive CQ. timeout_ms (0: library's
 * default) bounds the client's address and route resolution. Returns 0,
 * or non-zero after reporting (nothing left to free then).
 */
static inline int
make_conn_cfg(const char *who, bool shared, int timeout_ms, struct rpma_conn_cfg **cfg)
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
	if (shared) {
		ret = rpma_conn_cfg_set_compl_channel(*cfg, true);
		if (ret) {
			report(who, "rpma_conn_cfg_set_compl_channel", ret);
			goto err;
		}
		ret = rpma_conn_cfg_set_rcq_size(*cfg, RCQ_SIZE);
		if (ret) {
			report(who, "rpma_conn_cfg_set_rcq_size", ret);
			goto err;
		}
	}
	return 0;

err:
	(void) rpma_conn_cfg_delete(cfg);
	return 1;
}

#endif /* EXAMPLE_PERSIST_ON_REQUEST_COMMON_H */
