/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs-shim.c -- LD_PRELOAD probe: the average wall time of each
 * librdmacm/libibverbs call a librpma makes during connection set-up and
 * teardown, printed per process at exit as
 *   PROBE pid=<pid> <function> calls=<n> avg_ms=<ms>
 * Either librpma reaches these functions through the PLT, so the same shim
 * times both libraries. Not thread-safe (the bench's conn case is not
 * threaded). Used by bench/probe/conn-calls.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { N = 15 };
static double total_ms[N];
static long calls[N];
static const char *names[N];

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* defines NAME with PARAMS, forwarding ARGS to the next definition */
#define TIMED(i, ret, name, params, args) \
	ret name params \
	{ \
		static ret (*next) params; \
		if (next == NULL) \
			*(void **)&next = dlsym(RTLD_NEXT, #name); \
		names[i] = #name; \
		double t0 = now_ms(); \
		ret r = next args; \
		total_ms[i] += now_ms() - t0; \
		calls[i]++; \
		return r; \
	}

struct ibv_pd;
struct ibv_mr;
struct ibv_cq;
struct ibv_context;
struct ibv_comp_channel;
struct ibv_qp_init_attr_ex;
struct rdma_cm_id;
struct rdma_cm_event;
struct rdma_event_channel;
struct rdma_conn_param;
struct sockaddr;

TIMED(0, struct ibv_mr *, ibv_reg_mr, (struct ibv_pd *p, void *a, size_t l, int f), (p, a, l, f))
TIMED(1, int, ibv_dereg_mr, (struct ibv_mr *m), (m))
TIMED(2, struct ibv_cq *, ibv_create_cq,
	(struct ibv_context *c, int e, void *x, struct ibv_comp_channel *ch, int v),
	(c, e, x, ch, v))
TIMED(3, int, ibv_destroy_cq, (struct ibv_cq *c), (c))
TIMED(4, struct rdma_event_channel *, rdma_create_event_channel, (void), ())
TIMED(5, int, rdma_migrate_id, (struct rdma_cm_id *i, struct rdma_event_channel *c), (i, c))
TIMED(6, int, rdma_accept, (struct rdma_cm_id *i, struct rdma_conn_param *p), (i, p))
TIMED(7, int, rdma_connect, (struct rdma_cm_id *i, struct rdma_conn_param *p), (i, p))
TIMED(8, int, rdma_create_qp_ex, (struct rdma_cm_id *i, struct ibv_qp_init_attr_ex *a), (i, a))
TIMED(9, int, rdma_disconnect, (struct rdma_cm_id *i), (i))
TIMED(10, int, rdma_destroy_id, (struct rdma_cm_id *i), (i))
TIMED(11, int, rdma_resolve_addr,
	(struct rdma_cm_id *i, struct sockaddr *s, struct sockaddr *d, int t), (i, s, d, t))
TIMED(12, int, rdma_resolve_route, (struct rdma_cm_id *i, int t), (i, t))
TIMED(13, int, rdma_get_cm_event, (struct rdma_event_channel *c, struct rdma_cm_event **e),
	(c, e))
TIMED(14, int, rdma_ack_cm_event, (struct rdma_cm_event *e), (e))

__attribute__((destructor)) static void
report(void)
{
	for (int i = 0; i < N; i++)
		if (calls[i] > 0)
			fprintf(stderr, "PROBE pid=%d %s calls=%ld avg_ms=%.3f\n", (int)getpid(),
				names[i], calls[i], total_ms[i] / (double)calls[i]);
}
