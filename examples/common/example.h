/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.h -- the helpers every example program uses: error reports,
 * teardown bookkeeping, opening a peer, page-aligned buffers and waiting
 * for a connection event. Each function says what went wrong on stderr,
 * prefixed by "who" (the program's role), so a failed run explains itself.
 */
#ifndef EXAMPLES_COMMON_EXAMPLE_H
#define EXAMPLES_COMMON_EXAMPLE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <librpma.h>

/* "who: what failed: library's text" on stderr, for any failed librpma call */
static inline void
report(const char *who, const char *what, int ret)
{
	fprintf(stderr, "%s: %s failed: %s\n", who, what, rpma_err_2str(ret));
}

/*
 * For the teardown steps, which run whatever happened before them: reports
 * a step that failed and marks the whole run failed.
 */
static inline void
teardown_step(const char *who, const char *what, int ret, int *failed)
{
	if (ret) {
		report(who, what, ret);
		*failed = 1;
	}
}

/*
 * A peer for addr: the verbs context of the device behind it (type says
 * whether addr is this host's address or the other side's), then the peer
 * on that device. Returns 0, or the failed call's error code (reported).
 */
static inline int
open_peer(const char *who, const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer)
{
	struct ibv_context *ibv_ctx = NULL;
	int ret;

	ret = rpma_utils_get_ibv_context(addr, type, &ibv_ctx);
	if (ret) {
		report(who, "rpma_utils_get_ibv_context", ret);
		return ret;
	}
	ret = rpma_peer_new(ibv_ctx, peer);
	if (ret)
		report(who, "rpma_peer_new", ret);
	return ret;
}

/* size bytes aligned to a page, NULL (reported) when there is no memory */
static inline void *
page_alloc(const char *who, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *buf = NULL;

	if (page <= 0 || posix_memalign(&buf, (size_t)page, size)) {
		fprintf(stderr, "%s: cannot allocate a buffer\n", who);
		return NULL;
	}
	return buf;
}

/*
 * Takes the next event of conn; returns 0 when it is want (called name in
 * the message about any other event), else non-zero after saying what came
 * instead. rpma_conn_next_event() blocks until an event is there.
 */
static inline int
expect_event(const char *who, struct rpma_conn *conn, enum rpma_conn_event want,
		const char *name)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int ret;

	ret = rpma_conn_next_event(conn, &event);
	if (ret) {
		report(who, "rpma_conn_next_event", ret);
		return 1;
	}
	if (event != want) {
		fprintf(stderr, "%s: expected %s, got %s\n", who, name,
				rpma_utils_conn_event_2str(event));
		return 1;
	}
	return 0;
}

#endif /* EXAMPLES_COMMON_EXAMPLE_H */
