/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_mock.h -- link-time and ops-table mocks of libibverbs/librdmacm, for
 * the provider failures a healthy device never produces.
 *
 * A live test registered with add_live_test(NAME <name> MOCK) is linked by
 * CMake with common/rpma_mock.c and ENABLE_EXPORTS: the functions
 * defined there carry the real names of libibverbs/librdmacm functions and,
 * exported from the executable, they take the place of the real ones for
 * the library under test (and for librdmacm's own calls) too. Unarmed, each
 * forwards to the real function (dlvsym(RTLD_NEXT, ...), looked up once)
 * and counts the call.
 *
 * The mock state lives in the process that arms it: arm it in the process
 * that should see the failure (the client parent or the forked server),
 * after t_server_start(). Single-threaded use only.
 *
 * Mockable functions (by name): ibv_get_cq_event, ibv_ack_cq_events (count
 * only), ibv_create_srq, ibv_destroy_srq, ibv_create_cq, ibv_destroy_cq,
 * ibv_create_comp_channel, ibv_destroy_comp_channel, ibv_dereg_mr,
 * ibv_dealloc_pd, rdma_get_cm_event, rdma_ack_cm_event, rdma_destroy_id,
 * rdma_disconnect. Any other name aborts the test (a typo must not pass).
 *
 * The inline verbs (ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
 * ibv_poll_cq, ibv_req_notify_cq) are static inline functions of
 * <infiniband/verbs.h> that call through ctx->ops, so no link-time symbol
 * catches them: t_mock_op_*() replace the function pointers in the ops table
 * of one device context (t_ibv_ctx(): the one the peer and every object
 * made from it use) with counting pass-through wrappers that can be armed.
 */
#ifndef RPMA_MOCK_H
#define RPMA_MOCK_H

#include <limits.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/*
 * t_mock_fail(fn, skip, err): after skip more calls of fn that pass through,
 * the next call fails without calling the real function: it returns fn's
 * failure value (NULL for the constructors, -1 for ibv_get_cq_event and the
 * rdma_* functions, err itself for the ibv_destroy_* / ibv_dereg_mr /
 * ibv_dealloc_pd functions, which return an errno value) with errno = err.
 * One-shot: later calls pass through again. Arming again replaces the
 * previous arming of fn.
 */
void t_mock_fail(const char *fn, int skip, int err);

/*
 * t_mock_fail_after(fn, skip, err): like t_mock_fail(), but the real
 * function is called first and its work is kept; only the result reported
 * to the caller is the failure. For int-returning functions whose skipped
 * work would otherwise leave the test stuck or leaking (an unacked CM event
 * blocks rdma_destroy_id(); an SRQ or MR left on a PD fails
 * ibv_dealloc_pd()). Aborts for a constructor.
 */
void t_mock_fail_after(const char *fn, int skip, int err);

/*
 * ibv_get_cq_event: after skip calls that pass through, the next call does
 * not touch the channel (no event is consumed) and reports an event of cq
 * (*cq_context = NULL), returning 0. One-shot.
 */
void t_mock_cq_event_from(int skip, struct ibv_cq *cq);

/*
 * rdma_get_cm_event: after skip calls that pass through, the next call
 * gets a real event from the real function and, when it succeeded, rewrites
 * the event's type to type before returning it. One-shot.
 */
void t_mock_cm_event_as(int skip, enum rdma_cm_event_type type);

/* calls of fn that reached the mock, since the start of the process */
int t_mock_calls(const char *fn);
/*
 * calls of fn in which the real function ran and succeeded (whatever was
 * reported to the caller): successful creations minus successful
 * destructions of a kind is how many objects of it are alive
 */
int t_mock_succeeded(const char *fn);
/* 1 while an arming of fn has not fired yet, 0 once it has (or none) */
int t_mock_pending(const char *fn);
/* disarms every function and every op */
void t_mock_disarm(void);

/* ---- inline verbs, through the ops table of a device context ---- */

enum t_mock_op {
	T_OP_POST_SEND,
	T_OP_POST_RECV,
	T_OP_POST_SRQ_RECV,
	T_OP_POLL_CQ,
	T_OP_REQ_NOTIFY_CQ,
	T_OP_COUNT
};

/*
 * installs the counting pass-through wrappers into ctx's ops table (once;
 * a second context aborts the test); t_mock_op_fail() does it by itself
 */
void t_mock_ops_install(struct ibv_context *ctx);
/* puts the original pointers back (the counters stay) */
void t_mock_ops_uninstall(void);

/*
 * t_mock_op_fail(ctx, op, skip, ret): after skip calls of op that pass
 * through, the next call returns ret without calling the provider (the post
 * ops also set *bad_wr to the first work request). One-shot.
 * T_MOCK_POLL_MORE as ret of T_OP_POLL_CQ: return num_entries + 1, writing
 * nothing into wc.
 */
#define T_MOCK_POLL_MORE INT_MIN
void t_mock_op_fail(struct ibv_context *ctx, enum t_mock_op op, int skip, int ret);
/* calls of op that reached the wrapper since it was installed */
int t_mock_op_calls(enum t_mock_op op);
/* 1 while an arming of op has not fired yet */
int t_mock_op_pending(enum t_mock_op op);

#endif /* RPMA_MOCK_H */
