/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * utils-peer.h -- helpers shared by the live tests of the "utils-peer" group:
 * rpma_utils_get_ibv_context.c, rpma_utils_ibv_context_is_odp_capable.c,
 * rpma_peer_new.c, rpma_peer_new_pd_limit.c and rpma_peer_delete.c.
 *
 * - a log recorder: up_log_begin() installs a user log function and raises
 *   the main threshold to RPMA_LOG_LEVEL_INFO, so the tests can check what
 *   the library logged (level, exact text or a prefix of it) without ever
 *   printing a message (messages carry errno text and addresses);
 *   up_log_end() puts the default function and the default threshold back;
 * - an independent look at the device's capabilities through the verbs
 *   context's own query_device_ex operation (the inline helpers of
 *   <infiniband/verbs.h> only: the tests do not link libibverbs directly).
 *
 * Everything is static and marked unused, so each test takes what it needs.
 */
#ifndef RPMA_LIVE_UTILS_PEER_H
#define RPMA_LIVE_UTILS_PEER_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <librpma.h>

#include "rpma_test.h"

/* sentinels: values no call can legitimately store */
static int up_sentinel_object T_UNUSED;
#define UP_SENTINEL_CTX ((struct ibv_context *)&up_sentinel_object)
#define UP_SENTINEL_PEER ((struct rpma_peer *)&up_sentinel_object)

/* the INFO message rpma_peer_new() logs when there is no native atomic write */
#define UP_MSG_NO_ATOMIC_WRITE \
	"Native atomic write is not supported - ordinary RDMA write will be used instead.\n"

/* IB_UVERBS_DEVICE_ATOMIC_WRITE (rdma-core >= 45 headers; absent from 44) */
#define UP_DEVICE_ATOMIC_WRITE (1ULL << 40)

/* ---- the log recorder ---------------------------------------------------- */

#define UP_LOG_MAX 16

static struct {
	int n;                      /* messages recorded (at most UP_LOG_MAX kept) */
	int level[UP_LOG_MAX];
	char text[UP_LOG_MAX][512]; /* the format applied to its arguments */
} up_log T_UNUSED;

static void T_UNUSED
up_log_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;
	int i = up_log.n++;

	(void) file_name;
	(void) line_no;
	(void) function_name;
	if (i >= UP_LOG_MAX)
		return;
	up_log.level[i] = level;
	up_log.text[i][0] = '\0';
	if (message_format != NULL) {
		va_start(ap, message_format);
		vsnprintf(up_log.text[i], sizeof(up_log.text[i]), message_format, ap);
		va_end(ap);
	}
}

/* start recording every message up to RPMA_LOG_LEVEL_INFO */
static void T_UNUSED
up_log_begin(void)
{
	up_log.n = 0;
	(void) rpma_log_set_function(up_log_fn);
	(void) rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
}

/* stop recording: the default function and the release default threshold */
static void T_UNUSED
up_log_end(void)
{
	(void) rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	(void) rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

/* how many messages of this level were recorded */
static int T_UNUSED
up_log_count(int level)
{
	int i, n = 0;

	for (i = 0; i < up_log.n && i < UP_LOG_MAX; i++)
		n += up_log.level[i] == level;
	return n;
}

/* was a message of this level and exactly this text recorded */
static int T_UNUSED
up_logged(int level, const char *text)
{
	int i;

	for (i = 0; i < up_log.n && i < UP_LOG_MAX; i++)
		if (up_log.level[i] == level && strcmp(up_log.text[i], text) == 0)
			return 1;
	return 0;
}

/* was a message of this level starting with this text recorded */
static int T_UNUSED
up_logged_prefix(int level, const char *prefix)
{
	int i;

	for (i = 0; i < up_log.n && i < UP_LOG_MAX; i++)
		if (up_log.level[i] == level &&
				strncmp(up_log.text[i], prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

/* ---- the device's own capabilities -------------------------------------- */

/*
 * Queries ctx's extended attributes through the provider's query_device_ex
 * operation. Returns 0 and fills *attr, or -1 when the provider offers no
 * such operation or it fails.
 */
static int T_UNUSED
up_query_device_ex(struct ibv_context *ctx, struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_device_ex);

	memset(attr, 0, sizeof(*attr));
	if (vctx == NULL)
		return -1;
	return vctx->query_device_ex(ctx, NULL, attr, sizeof(*attr)) == 0 ? 0 : -1;
}

/*
 * What rpma_utils_ibv_context_is_odp_capable() should say about ctx: 1 when
 * the device supports On-Demand Paging in general and for both RDMA WRITE and
 * RDMA READ on RC QPs, 0 when not, -1 when the device cannot be queried.
 */
static int T_UNUSED
up_device_odp_capable(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;
	uint32_t rc;

	if (up_query_device_ex(ctx, &attr))
		return -1;
	rc = attr.odp_caps.per_transport_caps.rc_odp_caps;
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
		(rc & IBV_ODP_SUPPORT_WRITE) && (rc & IBV_ODP_SUPPORT_READ);
}

/* 1 when ctx's device has native atomic write, 0 when not, -1 when unknown */
static int T_UNUSED
up_device_atomic_write_capable(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;

	if (up_query_device_ex(ctx, &attr))
		return -1;
	return (attr.device_cap_flags_ex & UP_DEVICE_ATOMIC_WRITE) != 0;
}

/*
 * value, which came from one of the two queries above; ends the test
 * (status 2) when it is -1: the device's capabilities (what) are unknown
 */
static int T_UNUSED
up_known(int value, const char *what)
{
	if (value < 0) {
		fprintf(stderr, "live test setup: cannot query the device's %s\n", what);
		exit(2);
	}
	return value;
}

#endif /* RPMA_LIVE_UTILS_PEER_H */
