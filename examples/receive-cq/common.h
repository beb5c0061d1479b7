/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what server.c and client.c of the receive-cq example agree
 * on: the REQUEST and RESPONSE messages of their rounds, and the helpers
 * both sides use to wait on a connection's two completion queues.
 *
 * A connection made with rpma_conn_cfg_set_rcq_size(cfg, n), n > 0, has two
 * CQs: the main one (rpma_conn_get_cq()), where the connection's own
 * operations -- here sends -- complete, and the receive CQ
 * (rpma_conn_get_rcq()), where its receives complete. Each CQ has a
 * completion channel of its own, unless rpma_conn_cfg_set_compl_channel(cfg,
 * true) made them share one: then rpma_conn_wait() sleeps on both at once
 * and says which CQ woke it up.
 *
 * The exchange: both sides post all their receives before connecting;
 * then, ROUNDS times, the client sends a REQUEST and the server answers it
 * with a RESPONSE. Each side takes its completions only from the queue
 * the library names in its events, and checks that every send completed
 * on the main CQ and every receive on the receive CQ, and at the end that
 * neither queue holds anything more.
 *
 * Both programs take "--shared-channel" as a third argument to share one
 * completion channel between their two CQs; each side decides that for
 * itself, the other cannot tell.
 */
#ifndef EXAMPLE_RECEIVE_CQ_COMMON_H
#define EXAMPLE_RECEIVE_CQ_COMMON_H

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../common/example.h"

#define REQUEST_MAGIC	0x52435131u	/* "RCQ1", client -> server */
#define RESPONSE_MAGIC	0x52435232u	/* "RCR2", server -> client */

#define ROUNDS		4
/* each side's receive CQ holds all its receives' completions at once */
#define RCQ_SIZE	ROUNDS
/* a receive's buffer: larger than any message, so a long one shows */
#define SLOT_SIZE	32

/* the REQUEST of round r carries REQUEST_VALUE(r), the RESPONSE ANSWER() of it */
#define REQUEST_VALUE(r)	(0x0badcafeu + (uint32_t)(r) * 0x01010101u)
#define ANSWER(v)		((uint32_t)(v) * 3u + 1u)

/* how long the server waits for its one client */
#define ACCEPT_TIMEOUT_MS	30000

#define SHARED_CHANNEL_ARG	"--shared-channel"

/* both messages: integers little-endian */
struct round_msg {
	uint32_t magic;		/* REQUEST_MAGIC or RESPONSE_MAGIC */
	uint32_t round;		/* 0 .. ROUNDS-1 */
	uint32_t value;		/* REQUEST_VALUE(round) or its ANSWER() */
};

_Static_assert(sizeof(struct round_msg) == 12, "struct round_msg must have no padding");
_Static_assert(sizeof(struct round_msg) < SLOT_SIZE, "a slot must be larger than a message");

/*
 * Parses "<addr> <port> [--shared-channel]". Returns 0 and sets *shared,
 * else prints the usage and returns 1.
 */
static inline int
parse_args(int argc, char *argv[], bool *shared)
{
	*shared = false;
	if (argc == 4 && strcmp(argv[3], SHARED_CHANNEL_ARG) == 0)
		*shared = true;
	else if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port> [" SHARED_CHANNEL_ARG "]\n", argv[0]);
		return 1;
	}
	return 0;
}

/* a connection's two CQs, and how their completion events come */
struct queues {
	struct rpma_conn *conn;
	bool shared;		/* one completion channel for both */
	struct rpma_cq *cq;	/* main CQ: sends */
	struct rpma_cq *rcq;	/* receive CQ: receives */
	int cq_fd, rcq_fd;	/* the same fd when shared */
};

static inline const char *
queue_name(bool on_rcq)
{
	return on_rcq ? "the receive CQ" : "the main CQ";
}

/*
 * Fills *q for conn and checks the queues are wired as configured: two
 * distinct CQs; when shared, both on the connection's one completion fd
 * and rpma_cq_wait() refused on each; else each with its own fd and no
 * shared channel to be had. Returns 0 when so.
 */
static inline int
queues_open(const char *who, struct rpma_conn *conn, bool shared, struct queues *q)
{
	struct rpma_cq *woken = NULL;
	int compl_fd = -1;
	int ret;

	memset(q, 0, sizeof(*q));
	q->conn = conn;
	q->shared = shared;
	q->cq_fd = q->rcq_fd = -1;

	if ((ret = rpma_conn_get_cq(conn, &q->cq))) {
		report(who, "rpma_conn_get_cq", ret);
		return 1;
	}
	if ((ret = rpma_conn_get_rcq(conn, &q->rcq))) {
		report(who, "rpma_conn_get_rcq", ret);
		return 1;
	}
	if (q->cq == NULL || q->rcq == NULL || q->cq == q->rcq) {
		fprintf(stderr, "%s: the connection should have two distinct CQs, it has %s and %s\n",
				who, q->cq ? "a main CQ" : "no main CQ",
				q->rcq == NULL ? "no receive CQ" :
				q->rcq == q->cq ? "the same as receive CQ" : "a receive CQ");
		return 1;
	}
	if ((ret = rpma_cq_get_fd(q->cq, &q->cq_fd)) ||
			(ret = rpma_cq_get_fd(q->rcq, &q->rcq_fd))) {
		report(who, "rpma_cq_get_fd", ret);
		return 1;
	}

	ret = rpma_conn_get_compl_fd(conn, &compl_fd);
	if (!shared) {
		if (ret != RPMA_E_NOT_SHARED_CHNL) {
			fprintf(stderr, "%s: rpma_conn_get_compl_fd without a shared channel: %s, expected RPMA_E_NOT_SHARED_CHNL\n",
					who, ret ? rpma_err_2str(ret) : "success");
			return 1;
		}
		/* answered at once, without waiting for anything */
		ret = rpma_conn_wait(conn, 0, &woken, NULL);
		if (ret != RPMA_E_NOT_SHARED_CHNL) {
			fprintf(stderr, "%s: rpma_conn_wait without a shared channel: %s, expected RPMA_E_NOT_SHARED_CHNL\n",
					who, ret ? rpma_err_2str(ret) : "success");
			return 1;
		}
		if (q->cq_fd == q->rcq_fd) {
			fprintf(stderr, "%s: both CQs report fd %d, though each should have a channel of its own\n",
					who, q->cq_fd);
			return 1;
		}
		printf("%s: main CQ and receive CQ, each with a completion channel of its own\n", who);
		return 0;
	}

	if (ret) {
		report(who, "rpma_conn_get_compl_fd", ret);
		return 1;
	}
	if (q->cq_fd != compl_fd || q->rcq_fd != compl_fd) {
		fprintf(stderr, "%s: the CQs report fds %d and %d, the shared channel is fd %d\n",
				who, q->cq_fd, q->rcq_fd, compl_fd);
		return 1;
	}
	/* on a shared channel only rpma_conn_wait() may take the events */
	if ((ret = rpma_cq_wait(q->cq)) != RPMA_E_SHARED_CHANNEL ||
			(ret = rpma_cq_wait(q->rcq)) != RPMA_E_SHARED_CHANNEL) {
		fprintf(stderr, "%s: rpma_cq_wait on a shared channel: %s, expected RPMA_E_SHARED_CHANNEL\n",
				who, ret ? rpma_err_2str(ret) : "success");
		return 1;
	}
	printf("%s: main CQ and receive CQ sharing one completion channel\n", who);
	return 0;
}

/*
 * Sleeps until a completion event comes for one of the queues, takes it
 * (which re-arms that queue) and says in *on_rcq which one it was:
 * rpma_conn_wait() tells that when the channel is shared, the fd that
 * became readable otherwise. hangup_fd as for next_wc(). Returns 0, 1 on
 * an error (reported), 2 when the deadline passed (not reported).
 */
static inline int
next_event(const char *who, const struct queues *q, int hangup_fd,
		const struct timespec *deadline, bool *on_rcq)
{
	struct pollfd pfd[3] = {
		{ .fd = q->cq_fd, .events = POLLIN },
		{ .fd = q->shared ? -1 : q->rcq_fd, .events = POLLIN },	/* poll() skips -1 */
		{ .fd = hangup_fd, .events = POLLIN },
	};
	struct rpma_cq *woken = NULL;
	bool is_rcq = false;
	int ret;

	/* a signal neither cuts the wait short nor stretches it */
	do
		ret = poll(pfd, 3, ms_left(deadline));
	while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		fprintf(stderr, "%s: poll: %s\n", who, strerror(errno));
		return 1;
	}
	if (ret == 0)
		return 2;

	if (q->shared && pfd[0].revents) {
		/* readable, so this does not block */
		ret = rpma_conn_wait(q->conn, 0, &woken, &is_rcq);
		if (ret) {
			report(who, "rpma_conn_wait", ret);
			return 1;
		}
		/* the CQ and the flag must name the same queue */
		if (woken != (is_rcq ? q->rcq : q->cq)) {
			fprintf(stderr, "%s: rpma_conn_wait says is_rcq %s but returns %s\n",
					who, is_rcq ? "true" : "false",
					woken == q->cq ? "the main CQ" :
					woken == q->rcq ? "the receive CQ" : "an unknown CQ");
			return 1;
		}
		*on_rcq = is_rcq;
		return 0;
	}
	if (pfd[0].revents || pfd[1].revents) {
		*on_rcq = pfd[0].revents == 0;
		ret = rpma_cq_wait(*on_rcq ? q->rcq : q->cq);
		if (ret) {
			report(who, "rpma_cq_wait", ret);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "%s: the connection ended while a completion was awaited\n", who);
	return 1;
}

/* one completion a step waits for, and the queue it must arrive on */
struct cq_want {
	const void *op_context;
	enum ibv_wc_opcode opcode;
	bool on_rcq;
	const char *what;
};

/*
 * Takes n completions (n <= 8), in whatever order they come, from the
 * queues the events name: after each event the queue named is drained, so
 * no completion is left behind without an event to announce it, and a
 * queue no event named is never looked at -- a completion the library
 * announces on the wrong queue is not found and the wait fails. Each
 * completion must succeed, be a receive exactly when it came from the
 * receive CQ, and belong (by wr_id) to a different want[i], on want[i]'s
 * queue and with its opcode; got[i] is then the one for want[i].
 * hangup_fd as for next_wc(). Returns 0 when every want was met once.
 */
static inline int
expect_on_queues(const char *who, const struct queues *q, int hangup_fd, int n,
		const struct cq_want *want, struct ibv_wc *got)
{
	struct timespec deadline = deadline_in(COMPLETION_TIMEOUT_MS);
	uint32_t seen = 0;
	struct ibv_wc wc;
	bool on_rcq = false, is_recv;
	int count = 0, i, ret;

	while (count < n) {
		ret = next_event(who, q, hangup_fd, &deadline, &on_rcq);
		if (ret == 2) {
			fprintf(stderr, "%s: no completion event within %d s\n", who,
					COMPLETION_TIMEOUT_MS / 1000);
			/* say whether something sits where no event pointed */
			for (i = 0; i < 2; i++)
				if (rpma_cq_get_wc(i ? q->rcq : q->cq, 1, &wc, NULL) == 0)
					fprintf(stderr, "%s: yet %s holds a completion (wr_id 0x%llx, opcode %s) no event announced\n",
							who, queue_name(i), (unsigned long long)wc.wr_id,
							wc_opcode_name(wc.opcode));
			return 1;
		}
		if (ret)
			return 1;

		for (;;) {
			ret = rpma_cq_get_wc(on_rcq ? q->rcq : q->cq, 1, &wc, NULL);
			if (ret == RPMA_E_NO_COMPLETION)
				break;	/* drained (or an event left from an earlier one) */
			if (ret) {
				report(who, "rpma_cq_get_wc", ret);
				return 1;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "%s: a completion on %s (wr_id 0x%llx) has status %s (%d)\n",
						who, queue_name(on_rcq), (unsigned long long)wc.wr_id,
						wc_status_name(wc.status), (int)wc.status);
				return 1;
			}
			/* IBV_WC_RECV and IBV_WC_RECV_RDMA_WITH_IMM have that bit */
			is_recv = (wc.opcode & IBV_WC_RECV) != 0;
			if (is_recv != on_rcq) {
				fprintf(stderr, "%s: a %s completion (%s, wr_id 0x%llx) arrived on %s\n",
						who, is_recv ? "receive" : "send", wc_opcode_name(wc.opcode),
						(unsigned long long)wc.wr_id, queue_name(on_rcq));
				return 1;
			}
			for (i = 0; i < n; i++)
				if (!(seen & (1u << i)) &&
						wc.wr_id == (uint64_t)(uintptr_t)want[i].op_context)
					break;
			if (i == n) {
				fprintf(stderr, "%s: a completion on %s (opcode %s) carries wr_id 0x%llx, which names no awaited operation\n",
						who, queue_name(on_rcq), wc_opcode_name(wc.opcode),
						(unsigned long long)wc.wr_id);
				return 1;
			}
			if (want[i].on_rcq != on_rcq || wc.opcode != want[i].opcode) {
				fprintf(stderr, "%s: %s completed on %s with opcode %s, expected on %s with %s\n",
						who, want[i].what, queue_name(on_rcq),
						wc_opcode_name(wc.opcode), queue_name(want[i].on_rcq),
						wc_opcode_name(want[i].opcode));
				return 1;
			}
			seen |= 1u << i;
			got[i] = wc;
			count++;
		}
	}
	return 0;
}

/* checks that neither queue holds a completion; 0 when both are empty */
static inline int
queues_empty(const char *who, const struct queues *q)
{
	struct ibv_wc wc;
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = rpma_cq_get_wc(i ? q->rcq : q->cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION)
			continue;
		if (ret)
			report(who, "rpma_cq_get_wc", ret);
		else
			fprintf(stderr, "%s: %s holds a completion more (wr_id 0x%llx, opcode %s)\n",
					who, queue_name(i), (unsigned long long)wc.wr_id,
					wc_opcode_name(wc.opcode));
		return 1;
	}
	return 0;
}

/*
 * Checks a received message: RECV without immediate data, the size of a
 * round_msg, the magic, round r and value; name is "request" or
 * "response". Returns 0 when all match.
 */
static inline int
check_round_msg(const char *who, const char *name, const struct ibv_wc *wc,
		const struct round_msg *m, uint32_t magic, int r, uint32_t value)
{
	if (wc->byte_len != sizeof(*m) || (wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, "%s: %s %d has %u bytes%s, expected %zu and no immediate\n",
				who, name, r, wc->byte_len,
				(wc->wc_flags & IBV_WC_WITH_IMM) ? " and immediate data" : "",
				sizeof(*m));
		return 1;
	}
	if (le32toh(m->magic) != magic || le32toh(m->round) != (uint32_t)r ||
			le32toh(m->value) != value) {
		fprintf(stderr, "%s: %s %d: magic 0x%08x, round %u, value 0x%08x; expected 0x%08x, %d, 0x%08x\n",
				who, name, r, le32toh(m->magic), le32toh(m->round),
				le32toh(m->value), magic, r, value);
		return 1;
	}
	return 0;
}

#endif /* EXAMPLE_RECEIVE_CQ_COMMON_H */
