/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_utils_get_ibv_context.c -- mirrors rpma_utils_get_ibv_context(3):
 * RPMA_E_INVAL for a NULL addr, a NULL ibv_ctx_ptr and an unknown type (with
 * nothing logged); the device context of RPMA_TESTING_IP looked up as a
 * local and as a remote address (one and the same context, the one of rxe0,
 * on every call, usable for rpma_peer_new); RPMA_E_PROVIDER, logged at
 * ERROR level with the messages of the manual page, for an address no
 * device owns, an unreachable remote address, a remote address that does
 * not answer within the fixed 1 s timeout and an address that cannot be
 * translated; the wildcard and loopback edge cases of NOTES; *ibv_ctx_ptr
 * untouched on every failure.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

/* constants, not macros, so that EXPECT_PROVIDER() prints their names */
static const enum rpma_util_ibv_context_type LOCAL = RPMA_UTIL_IBV_CONTEXT_LOCAL;
static const enum rpma_util_ibv_context_type REMOTE = RPMA_UTIL_IBV_CONTEXT_REMOTE;

/* how the ERROR messages of ERRORS begin (a reason follows each) */
#define MSG_BIND "rdma_bind_addr(addr=(null)) failed: "
#define MSG_RESOLVE "rdma_resolve_addr(src_addr=(null), dst_addr=(null), timeout_ms=1000) failed: "
#define MSG_GAI(node, flags) "rdma_getaddrinfo(node=" node ", service=(null), ai_flags=" flags \
	", ai_qp_type=IBV_QPT_RC, ai_port_space=RDMA_PS_TCP): "

/*
 * EXPECT_PROVIDER(addr, type): the lookup into main()'s ctx fails with
 * RPMA_E_PROVIDER, ctx untouched, an ERROR logged (which one, the caller
 * checks: a message macro passed in here would print expanded)
 */
#define EXPECT_PROVIDER(addr, type) do { \
	up_log_begin(); \
	EXPECT_INT(rpma_utils_get_ibv_context(addr, type, &ctx), RPMA_E_PROVIDER); \
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX); \
	EXPECT_TRUE(up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1); \
} while (0)

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * An address on rxe0's own /24 that nobody answers for (the SoftRoCE guest
 * sits behind QEMU's user network, which answers only for its own few
 * addresses): t_ip() with the last byte replaced by 99, or 98 when that is
 * t_ip() itself.
 */
static const char *
silent_neighbour(void)
{
	static char addr[32];
	unsigned a, b, c, d;

	if (sscanf(t_ip(), "%u.%u.%u.%u", &a, &b, &c, &d) != 4) {
		fprintf(stderr, "live test setup: RPMA_TESTING_IP is not IPv4\n");
		exit(2);
	}
	snprintf(addr, sizeof(addr), "%u.%u.%u.%u", a, b, c, d == 99 ? 98u : 99u);
	return addr;
}

int
main(void)
{
	struct ibv_context *ctx = UP_SENTINEL_CTX;
	struct ibv_context *local = NULL, *remote = UP_SENTINEL_CTX;
	struct rpma_peer *peer = NULL;
	double t0, waited;

	t_begin();
	up_log_begin();

	/* ERRORS: RPMA_E_INVAL when addr is NULL, for either type */
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, LOCAL, &ctx), RPMA_E_INVAL);
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, REMOTE, &ctx), RPMA_E_INVAL);
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);

	/* ERRORS: RPMA_E_INVAL when ibv_ctx_ptr is NULL, for either type */
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), LOCAL, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), REMOTE, NULL), RPMA_E_INVAL);

	/* ERRORS: RPMA_E_INVAL for a type that is neither LOCAL nor REMOTE */
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), (enum rpma_util_ibv_context_type)2, &ctx),
			RPMA_E_INVAL);
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), (enum rpma_util_ibv_context_type)-1, &ctx),
			RPMA_E_INVAL);
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), (enum rpma_util_ibv_context_type)0x7fffffff,
			&ctx), RPMA_E_INVAL);
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);
	/* NULL pointers and a bad type together: still RPMA_E_INVAL */
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, (enum rpma_util_ibv_context_type)2, NULL),
			RPMA_E_INVAL);

	/* ERRORS: the argument checks log nothing */
	EXPECT_INT(up_log.n, 0);

	/* RETURN VALUE / DESCRIPTION: LOCAL finds the device owning the address */
	up_log_begin();
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), LOCAL, &ctx), 0);
	EXPECT_TRUE(ctx != NULL);
	EXPECT_TRUE(ctx != UP_SENTINEL_CTX);
	local = ctx;
	/* the guest's device: rxe0, or siw0 (softroce/rxe-run RXE_DEVICE) */
	const char *dev = getenv("RPMA_TESTING_DEVICE");
	if (local != NULL && local != UP_SENTINEL_CTX)
		EXPECT_STR(local->device->name, dev != NULL ? dev : "rxe0");

	/* DESCRIPTION: REMOTE finds the device that reaches the address: the same one */
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), REMOTE, &remote), 0);
	EXPECT_TRUE(remote == local);

	/* DESCRIPTION: every lookup hands out the same, shared context */
	ctx = UP_SENTINEL_CTX;
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), LOCAL, &ctx), 0);
	EXPECT_TRUE(ctx == local);
	ctx = UP_SENTINEL_CTX;
	EXPECT_INT(rpma_utils_get_ibv_context(t_ip(), REMOTE, &ctx), 0);
	EXPECT_TRUE(ctx == local);

	/* a successful lookup logs nothing */
	EXPECT_INT(up_log.n, 0);

	/* DESCRIPTION: the context serves rpma_peer_new(3) */
	EXPECT_INT(rpma_peer_new(local, &peer), 0);
	EXPECT_TRUE(peer != NULL);
	EXPECT_INT(rpma_peer_delete(&peer), 0);

	/* ERRORS: RPMA_E_PROVIDER, LOCAL: no device owns the address (bind fails) */
	ctx = UP_SENTINEL_CTX;
	EXPECT_PROVIDER("192.0.2.1", LOCAL);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, MSG_BIND));

	/* ERRORS: RPMA_E_PROVIDER, REMOTE: no route to the address (the guest has none) */
	EXPECT_PROVIDER("192.0.2.1", REMOTE);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, MSG_RESOLVE));

	/*
	 * ERRORS: RPMA_E_PROVIDER, REMOTE: an address on the link that nobody
	 * answers; resolution gives up after the fixed RPMA_DEFAULT_TIMEOUT_MS
	 * (C: one attempt, about 1 s; ours, NOTES: three, about 3 s)
	 */
	up_log_begin();
	t0 = seconds();
	EXPECT_INT(rpma_utils_get_ibv_context(silent_neighbour(), REMOTE, &ctx), RPMA_E_PROVIDER);
	waited = seconds() - t0;
	EXPECT_TRUE(ctx == UP_SENTINEL_CTX);
	EXPECT_TRUE(up_log_count(RPMA_LOG_LEVEL_ERROR) >= 1);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, MSG_RESOLVE));
	EXPECT_TRUE(waited >= 0.5 /* about RPMA_DEFAULT_TIMEOUT_MS */);
	EXPECT_TRUE(waited < 10.0);
	fprintf(stderr, "silent neighbour %s: gave up after %.3f s\n", silent_neighbour(), waited);

	/* ERRORS: RPMA_E_PROVIDER when the address cannot be translated at all */
	EXPECT_PROVIDER("", LOCAL);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, MSG_GAI("", "passive")));
	EXPECT_PROVIDER("", REMOTE);
	EXPECT_TRUE(up_logged_prefix(RPMA_LOG_LEVEL_ERROR, MSG_GAI("", "active")));

	/*
	 * NOTES: a LOCAL lookup of an address that binds without an RDMA device
	 * (the wildcard address, the loopback address) succeeds and stores NULL
	 */
	ctx = UP_SENTINEL_CTX;
	EXPECT_INT(rpma_utils_get_ibv_context("0.0.0.0", LOCAL, &ctx), 0);
	EXPECT_TRUE(ctx == NULL);
	ctx = UP_SENTINEL_CTX;
	EXPECT_INT(rpma_utils_get_ibv_context("127.0.0.1", LOCAL, &ctx), 0);
	EXPECT_TRUE(ctx == NULL);

	/* NOTES: a REMOTE lookup of the loopback address gets a local device (rxe0) */
	ctx = UP_SENTINEL_CTX;
	EXPECT_INT(rpma_utils_get_ibv_context("127.0.0.1", REMOTE, &ctx), 0);
	EXPECT_TRUE(ctx == local);

	up_log_end();
	return t_end();
}
