/* SPDX-License-Identifier: BSD-3-Clause */
/* rpma_mock.c -- the mocks of libibverbs/librdmacm (see rpma_mock.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpma_mock.h"

/* how an armed function fails */
enum mode {
	M_NONE,
	M_FAIL,		/* fail without calling the real function */
	M_FAIL_AFTER,	/* call the real function, then report a failure */
	M_CQ_FROM,	/* ibv_get_cq_event: report another CQ */
	M_CM_AS,	/* rdma_get_cm_event: rewrite the event's type */
};

/* what a function returns on failure */
enum kind {
	K_PTR,		/* NULL, errno set */
	K_MINUS1,	/* -1, errno set */
	K_ERRNO,	/* the errno value itself (and errno set) */
	K_VOID,		/* cannot fail */
};

enum fn_id {
	F_GET_CQ_EVENT,
	F_ACK_CQ_EVENTS,
	F_CREATE_SRQ,
	F_DESTROY_SRQ,
	F_CREATE_CQ,
	F_DESTROY_CQ,
	F_CREATE_COMP_CHANNEL,
	F_DESTROY_COMP_CHANNEL,
	F_DEREG_MR,
	F_DEALLOC_PD,
	F_GET_CM_EVENT,
	F_ACK_CM_EVENT,
	F_DESTROY_ID,
	F_DISCONNECT,
	F_COUNT
};

static struct fn {
	const char *name;
	const char *version; /* the one librpma links against */
	enum kind kind;
	void *real;
	int calls, succeeded;
	enum mode mode;
	int skip, err;
	struct ibv_cq *cq; /* M_CQ_FROM */
	enum rdma_cm_event_type type; /* M_CM_AS */
} fns[F_COUNT] = {
	[F_GET_CQ_EVENT] = {"ibv_get_cq_event", "IBVERBS_1.1", K_MINUS1},
	[F_ACK_CQ_EVENTS] = {"ibv_ack_cq_events", "IBVERBS_1.1", K_VOID},
	[F_CREATE_SRQ] = {"ibv_create_srq", "IBVERBS_1.1", K_PTR},
	[F_DESTROY_SRQ] = {"ibv_destroy_srq", "IBVERBS_1.1", K_ERRNO},
	[F_CREATE_CQ] = {"ibv_create_cq", "IBVERBS_1.1", K_PTR},
	[F_DESTROY_CQ] = {"ibv_destroy_cq", "IBVERBS_1.1", K_ERRNO},
	[F_CREATE_COMP_CHANNEL] = {"ibv_create_comp_channel", "IBVERBS_1.0", K_PTR},
	[F_DESTROY_COMP_CHANNEL] = {"ibv_destroy_comp_channel", "IBVERBS_1.0", K_ERRNO},
	[F_DEREG_MR] = {"ibv_dereg_mr", "IBVERBS_1.1", K_ERRNO},
	[F_DEALLOC_PD] = {"ibv_dealloc_pd", "IBVERBS_1.1", K_ERRNO},
	[F_GET_CM_EVENT] = {"rdma_get_cm_event", "RDMACM_1.0", K_MINUS1},
	[F_ACK_CM_EVENT] = {"rdma_ack_cm_event", "RDMACM_1.0", K_MINUS1},
	[F_DESTROY_ID] = {"rdma_destroy_id", "RDMACM_1.0", K_MINUS1},
	[F_DISCONNECT] = {"rdma_disconnect", "RDMACM_1.0", K_MINUS1},
};

static void
die(const char *what, const char *name)
{
	fprintf(stderr, "rpma_mock: %s: %s\n", what, name);
	abort();
}

static struct fn *
by_name(const char *name)
{
	for (int i = 0; i < F_COUNT; i++)
		if (strcmp(fns[i].name, name) == 0)
			return &fns[i];
	die("no mock of this function", name);
	return NULL;
}

/* the real function (the version librpma uses, or the default one) */
static void *
real(struct fn *f)
{
	if (f->real == NULL) {
		f->real = dlvsym(RTLD_NEXT, f->name, f->version);
		if (f->real == NULL)
			f->real = dlsym(RTLD_NEXT, f->name);
		if (f->real == NULL)
			die("the real function cannot be found", f->name);
	}
	return f->real;
}

/* counts a call; returns how this one is to behave */
static enum mode
enter(struct fn *f)
{
	enum mode m = f->mode;

	f->calls++;
	if (m == M_NONE)
		return M_NONE;
	if (f->skip > 0) {
		f->skip--;
		return M_NONE;
	}
	f->mode = M_NONE;
	return m;
}

static void
arm(const char *fn, enum mode mode, int skip, int err)
{
	struct fn *f = by_name(fn);

	if (f->kind == K_VOID)
		die("this function cannot fail", fn);
	if (mode == M_FAIL_AFTER && f->kind == K_PTR)
		die("a constructor cannot fail after doing its work", fn);
	f->mode = mode;
	f->skip = skip;
	f->err = err;
}

void
t_mock_fail(const char *fn, int skip, int err)
{
	arm(fn, M_FAIL, skip, err);
}

void
t_mock_fail_after(const char *fn, int skip, int err)
{
	arm(fn, M_FAIL_AFTER, skip, err);
}

void
t_mock_cq_event_from(int skip, struct ibv_cq *cq)
{
	arm("ibv_get_cq_event", M_CQ_FROM, skip, 0);
	fns[F_GET_CQ_EVENT].cq = cq;
}

void
t_mock_cm_event_as(int skip, enum rdma_cm_event_type type)
{
	arm("rdma_get_cm_event", M_CM_AS, skip, 0);
	fns[F_GET_CM_EVENT].type = type;
}

int
t_mock_calls(const char *fn)
{
	return by_name(fn)->calls;
}

int
t_mock_succeeded(const char *fn)
{
	return by_name(fn)->succeeded;
}

int
t_mock_pending(const char *fn)
{
	return by_name(fn)->mode != M_NONE;
}

/* the failure value of an int-returning function, errno set */
static int
fail_int(struct fn *f)
{
	errno = f->err;
	return f->kind == K_ERRNO ? f->err : -1;
}

/*
 * The body of the int-returning mocks: call is the real call (evaluated
 * only when the mode says so), ok what a successful result looks like.
 */
#define MOCK_INT(id, call) do { \
	struct fn *f_ = &fns[id]; \
	enum mode m_ = enter(f_); \
	int r_; \
	if (m_ == M_FAIL) \
		return fail_int(f_); \
	r_ = (call); \
	if (r_ == 0) \
		f_->succeeded++; \
	if (m_ == M_FAIL_AFTER) \
		return fail_int(f_); \
	return r_; \
} while (0)

/* the body of the constructor mocks */
#define MOCK_PTR(id, type, call) do { \
	struct fn *f_ = &fns[id]; \
	type *p_; \
	if (enter(f_) == M_FAIL) { \
		errno = f_->err; \
		return NULL; \
	} \
	p_ = (call); \
	if (p_ != NULL) \
		f_->succeeded++; \
	return p_; \
} while (0)

#define REAL(id, type) ((type)real(&fns[id]))

/* ---- libibverbs ---- */

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	typedef int (*fn_t)(struct ibv_comp_channel *, struct ibv_cq **, void **);
	struct fn *f = &fns[F_GET_CQ_EVENT];
	enum mode m = enter(f);
	int r;

	if (m == M_CQ_FROM) {
		*cq = f->cq;
		*cq_context = NULL;
		return 0;
	}
	if (m == M_FAIL)
		return fail_int(f);
	r = REAL(F_GET_CQ_EVENT, fn_t)(channel, cq, cq_context);
	if (r == 0)
		f->succeeded++;
	if (m == M_FAIL_AFTER)
		return fail_int(f);
	return r;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	typedef void (*fn_t)(struct ibv_cq *, unsigned int);

	(void) enter(&fns[F_ACK_CQ_EVENTS]);
	fns[F_ACK_CQ_EVENTS].succeeded++;
	REAL(F_ACK_CQ_EVENTS, fn_t)(cq, nevents);
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	typedef struct ibv_srq *(*fn_t)(struct ibv_pd *, struct ibv_srq_init_attr *);

	MOCK_PTR(F_CREATE_SRQ, struct ibv_srq,
			REAL(F_CREATE_SRQ, fn_t)(pd, srq_init_attr));
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	typedef int (*fn_t)(struct ibv_srq *);

	MOCK_INT(F_DESTROY_SRQ, REAL(F_DESTROY_SRQ, fn_t)(srq));
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector)
{
	typedef struct ibv_cq *(*fn_t)(struct ibv_context *, int, void *,
			struct ibv_comp_channel *, int);

	MOCK_PTR(F_CREATE_CQ, struct ibv_cq,
			REAL(F_CREATE_CQ, fn_t)(context, cqe, cq_context, channel, comp_vector));
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	typedef int (*fn_t)(struct ibv_cq *);

	MOCK_INT(F_DESTROY_CQ, REAL(F_DESTROY_CQ, fn_t)(cq));
}

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	typedef struct ibv_comp_channel *(*fn_t)(struct ibv_context *);

	MOCK_PTR(F_CREATE_COMP_CHANNEL, struct ibv_comp_channel,
			REAL(F_CREATE_COMP_CHANNEL, fn_t)(context));
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	typedef int (*fn_t)(struct ibv_comp_channel *);

	MOCK_INT(F_DESTROY_COMP_CHANNEL, REAL(F_DESTROY_COMP_CHANNEL, fn_t)(channel));
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	typedef int (*fn_t)(struct ibv_mr *);

	MOCK_INT(F_DEREG_MR, REAL(F_DEREG_MR, fn_t)(mr));
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	typedef int (*fn_t)(struct ibv_pd *);

	MOCK_INT(F_DEALLOC_PD, REAL(F_DEALLOC_PD, fn_t)(pd));
}

/* ---- librdmacm ---- */

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	typedef int (*fn_t)(struct rdma_event_channel *, struct rdma_cm_event **);
	struct fn *f = &fns[F_GET_CM_EVENT];
	enum mode m = enter(f);
	int r;

	if (m == M_FAIL)
		return fail_int(f);
	r = REAL(F_GET_CM_EVENT, fn_t)(channel, event);
	if (r == 0) {
		f->succeeded++;
		if (m == M_CM_AS)
			(*event)->event = f->type;
	}
	if (m == M_FAIL_AFTER)
		return fail_int(f);
	return r;
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	typedef int (*fn_t)(struct rdma_cm_event *);

	MOCK_INT(F_ACK_CM_EVENT, REAL(F_ACK_CM_EVENT, fn_t)(event));
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	typedef int (*fn_t)(struct rdma_cm_id *);

	MOCK_INT(F_DESTROY_ID, REAL(F_DESTROY_ID, fn_t)(id));
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	typedef int (*fn_t)(struct rdma_cm_id *);

	MOCK_INT(F_DISCONNECT, REAL(F_DISCONNECT, fn_t)(id));
}

/* ---- the inline verbs: wrappers in the ops table ---- */

static struct ibv_context *ops_ctx;
static struct ibv_context_ops ops_orig;
static int ops_installed;

static struct op {
	int calls;
	int armed, skip, ret;
} ops[T_OP_COUNT];

/* counts a call; 1 when this one is to fail */
static int
op_enter(enum t_mock_op id)
{
	struct op *o = &ops[id];

	o->calls++;
	if (!o->armed)
		return 0;
	if (o->skip > 0) {
		o->skip--;
		return 0;
	}
	o->armed = 0;
	return 1;
}

static int
m_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	if (op_enter(T_OP_POST_SEND)) {
		if (bad_wr)
			*bad_wr = wr;
		return ops[T_OP_POST_SEND].ret;
	}
	return ops_orig.post_send(qp, wr, bad_wr);
}

static int
m_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	if (op_enter(T_OP_POST_RECV)) {
		if (bad_wr)
			*bad_wr = wr;
		return ops[T_OP_POST_RECV].ret;
	}
	return ops_orig.post_recv(qp, wr, bad_wr);
}

static int
m_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	if (op_enter(T_OP_POST_SRQ_RECV)) {
		if (bad_wr)
			*bad_wr = wr;
		return ops[T_OP_POST_SRQ_RECV].ret;
	}
	return ops_orig.post_srq_recv(srq, wr, bad_wr);
}

static int
m_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	if (op_enter(T_OP_POLL_CQ)) {
		int ret = ops[T_OP_POLL_CQ].ret;

		return ret == T_MOCK_POLL_MORE ? num_entries + 1 : ret;
	}
	return ops_orig.poll_cq(cq, num_entries, wc);
}

static int
m_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	if (op_enter(T_OP_REQ_NOTIFY_CQ))
		return ops[T_OP_REQ_NOTIFY_CQ].ret;
	return ops_orig.req_notify_cq(cq, solicited_only);
}

void
t_mock_ops_install(struct ibv_context *ctx)
{
	if (ops_installed) {
		if (ctx != ops_ctx)
			die("ops wrappers are installed in another context", "");
		return;
	}
	ops_ctx = ctx;
	ops_orig = ctx->ops;
	ctx->ops.post_send = m_post_send;
	ctx->ops.post_recv = m_post_recv;
	ctx->ops.post_srq_recv = m_post_srq_recv;
	ctx->ops.poll_cq = m_poll_cq;
	ctx->ops.req_notify_cq = m_req_notify_cq;
	ops_installed = 1;
}

void
t_mock_ops_uninstall(void)
{
	if (!ops_installed)
		return;
	ops_ctx->ops.post_send = ops_orig.post_send;
	ops_ctx->ops.post_recv = ops_orig.post_recv;
	ops_ctx->ops.post_srq_recv = ops_orig.post_srq_recv;
	ops_ctx->ops.poll_cq = ops_orig.poll_cq;
	ops_ctx->ops.req_notify_cq = ops_orig.req_notify_cq;
	ops_installed = 0;
}

void
t_mock_op_fail(struct ibv_context *ctx, enum t_mock_op op, int skip, int ret)
{
	if (op < 0 || op >= T_OP_COUNT)
		die("no such op", "");
	if (op != T_OP_POLL_CQ && ret == T_MOCK_POLL_MORE)
		die("T_MOCK_POLL_MORE is for T_OP_POLL_CQ only", "");
	t_mock_ops_install(ctx);
	ops[op].armed = 1;
	ops[op].skip = skip;
	ops[op].ret = ret;
}

int
t_mock_op_calls(enum t_mock_op op)
{
	return ops[op].calls;
}

int
t_mock_op_pending(enum t_mock_op op)
{
	return ops[op].armed;
}

void
t_mock_disarm(void)
{
	for (int i = 0; i < F_COUNT; i++)
		fns[i].mode = M_NONE;
	for (int i = 0; i < T_OP_COUNT; i++)
		ops[i].armed = 0;
}
