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

/* how long either side waits for one completion */
#define COMPLETION_TIMEOUT_MS	10000
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

/* a point in time ms milliseconds from now */
static inline struct timespec
deadline_in(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/* milliseconds left until deadline, never negative */
static inline int
ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL +
		(deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/*
 * Waits until fd is readable or the deadline passed; a signal neither cuts
 * the wait short nor stretches it. Returns 0 when readable, 1 on timeout,
 * -1 on a poll error (reported).
 */
static inline int
wait_readable(const char *who, int fd, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	do
		ret = poll(&pfd, 1, ms_left(deadline));
	while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		fprintf(stderr, "%s: poll: %s\n", who, strerror(errno));
		return -1;
	}
	return ret == 0 ? 1 : 0;
}

/* names for the completion values the example may meet */
static inline const char *
wc_opcode_name(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_ATOMIC_WRITE: return "ATOMIC_WRITE";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "another opcode";
	}
}

static inline const char *
wc_status_name(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	default: return "another error";
	}
}

/*
 * Takes the next completion from cq into *wc. While the CQ is empty it
 * sleeps in rpma_cq_wait(), but only once the CQ's fd says an event is
 * there, so a completion that never comes ends in an error message after
 * COMPLETION_TIMEOUT_MS instead of a hang. A wait may wake up without a
 * new completion (an event left from one already taken): the loop simply
 * looks again. hangup_fd, when not -1, is a connection's event fd: an
 * event there while nothing completed means the peer gave up (receives on
 * a shared RQ are not flushed when a connection breaks), and ends the wait
 * at once. Returns 0, or non-zero after reporting; the completion's status
 * is not looked at here.
 */
static inline int
next_wc(const char *who, struct rpma_cq *cq, int hangup_fd, struct ibv_wc *wc)
{
	struct timespec deadline = deadline_in(COMPLETION_TIMEOUT_MS);
	struct pollfd pfd[2] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = hangup_fd, .events = POLLIN },	/* poll() skips fd -1 */
	};
	int ret;

	ret = rpma_cq_get_fd(cq, &pfd[0].fd);
	if (ret) {
		report(who, "rpma_cq_get_fd", ret);
		return 1;
	}
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret == 0)
			return 0;
		if (ret != RPMA_E_NO_COMPLETION) {
			report(who, "rpma_cq_get_wc", ret);
			return 1;
		}
		if (pfd[1].revents) {
			fprintf(stderr, "%s: the connection ended while a completion was awaited\n",
					who);
			return 1;
		}
		/* a signal neither cuts the wait short nor stretches it */
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
		/* a connection event: look at the CQ once more, then give up */
		if (!pfd[0].revents)
			continue;
		/* readable, so this does not block; it also re-arms the CQ */
		ret = rpma_cq_wait(cq);
		if (ret) {
			report(who, "rpma_cq_wait", ret);
			return 1;
		}
	}
}

/*
 * Takes the next completion from cq (hangup_fd as for next_wc()) and checks
 * it belongs to the operation posted with op_context, succeeded and has
 * the opcode want (or alt, for operations a library may carry out natively
 * or emulate). Returns 0 when it does, else non-zero after saying what is
 * wrong.
 */
static inline int
expect_wc(const char *who, struct rpma_cq *cq, int hangup_fd, const void *op_context,
		enum ibv_wc_opcode want, enum ibv_wc_opcode alt, const char *what,
		struct ibv_wc *wc)
{
	if (next_wc(who, cq, hangup_fd, wc))
		return 1;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: %s completed with status %s (%d)\n", who, what,
				wc_status_name(wc->status), (int)wc->status);
		return 1;
	}
	if (wc->wr_id != (uint64_t)(uintptr_t)op_context) {
		fprintf(stderr, "%s: %s: the completion carries wr_id 0x%llx, not 0x%llx\n",
				who, what, (unsigned long long)wc->wr_id,
				(unsigned long long)(uintptr_t)op_context);
		return 1;
	}
	if (wc->opcode != want && wc->opcode != alt) {
		fprintf(stderr, "%s: %s: the completion has opcode %s (%d), not %s\n",
				who, what, wc_opcode_name(wc->opcode), (int)wc->opcode,
				wc_opcode_name(want));
		return 1;
	}
	return 0;
}

#endif /* EXAMPLE_DATA_PATH_COMMON_H */
