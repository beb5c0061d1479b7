/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs-bench.c -- the raw-verbs contender for what perftest does not
 * measure on rxe: a write made durable (write + flush), the latency of a
 * read, and write and read on Debian 13's stack, where perftest's bandwidth
 * is well below the libraries'. libibverbs and librdmacm only, no librpma.
 *
 *   verbs-bench server ADDR PORT     serves one connection, then exits
 *   verbs-bench client ADDR PORT CASE SIZE QD SECONDS
 *
 * Cases (SIZE 8..1048576, QD 1..16), every op signalled once:
 *   read          one RDMA read of SIZE
 *   write         one RDMA write of SIZE
 *   flush         an unsignalled write of SIZE, then an 8-byte read of the
 *                 same remote address: what a library without native flush
 *                 posts for a flush (both librpma do); one ibv_post_send
 *                 for the two, or with VERBS_BENCH_SPLIT=1 one each, as a
 *                 library's rpma_write and rpma_flush do
 *   flush_native  (built with -DHAVE_NATIVE_FLUSH, rdma-core 45 or later) a
 *                 write of SIZE, then a native FLUSH of its range to global
 *                 visibility, through the extended QP (ibv_wr_*); one
 *                 ibv_wr_start/ibv_wr_complete for the two, or with
 *                 VERBS_BENCH_SPLIT=1 the write by ibv_post_send and then
 *                 the flush on its own, as the libraries post them
 * With VERBS_BENCH_QP_EX=1 (at both ends; built with -DHAVE_NATIVE_FLUSH)
 * every QP is an extended one asking for native FLUSH and ATOMIC WRITE, as
 * the libraries make theirs on a device that has them, and is still posted
 * to with ibv_post_send: it tells whether such a QP costs anything itself.
 * The server offers a 16 MiB region; its address and rkey travel in the
 * accept's private data. After a warm-up (100 ops, or 250 ms) the client
 * keeps QD ops in flight for SECONDS and prints
 *   RESULT case=.. size=.. qd=.. ops=.. secs=.. ops_s=.. p50_us=.. p99_us=.. cpu_us_op=.. sys_us_op=..
 * as rpma-bench does (latency: from posting an op to polling its
 * completion; CPU: getrusage over the measured ops, sys_us_op its system
 * part). Any error: a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "bench-time.h"

#define REGION (16u << 20)
#define SIZE_MAX_OP (1u << 20)
#define QD_MAX 16
#define WARMUP_OPS 100
#define WARMUP_NS 250000000ull
#define CM_TIMEOUT_MS 30000

enum vcase { V_READ, V_FLUSH, V_FLUSH_NATIVE, V_WRITE };

/* accept private data: the server's region */
struct region_pd {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "verbs-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));
	va_end(ap);
	exit(1);
}

/* the next CM event, which must be `want`; copies its private data to pd */
static void expect(struct rdma_event_channel *ec, enum rdma_cm_event_type want,
		   struct rdma_cm_id **id, void *pd, size_t pdlen)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(ec, &ev))
		die("rdma_get_cm_event");
	if (ev->event != want)
		die("CM event %s, expected %s", rdma_event_str(ev->event), rdma_event_str(want));
	if (id)
		*id = ev->id;
	if (pd) {
		if (ev->param.conn.private_data == NULL || ev->param.conn.private_data_len < pdlen)
			die("the accept brought no region");
		memcpy(pd, ev->param.conn.private_data, pdlen);
	}
	rdma_ack_cm_event(ev);
}

static struct rdma_addrinfo *addrinfo(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *ai;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_flags = passive ? RAI_PASSIVE : 0;
	if (rdma_getaddrinfo(addr, port, &hints, &ai))
		die("rdma_getaddrinfo %s:%s", addr, port);
	return ai;
}

static void *region(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, len))
		die("out of memory");
	memset(p, 0xa5, len);
	return p;
}

static void qp_caps(struct ibv_qp_init_attr *a, struct ibv_cq *cq)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = a->recv_cq = cq;
	a->cap.max_send_wr = 2 * QD_MAX + 2;
	a->cap.max_recv_wr = 1;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 0;
}

/*
 * Makes id's QP on cq: a plain one, or with ops an extended one asking for
 * those send_ops_flags.
 */
static void create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq, uint64_t ops)
{
	struct ibv_qp_init_attr qa;
	qp_caps(&qa, cq);
#ifdef HAVE_NATIVE_FLUSH
	if (ops) {
		struct ibv_qp_init_attr_ex qx;
		memset(&qx, 0, sizeof(qx));
		qx.send_cq = qx.recv_cq = cq;
		qx.cap = qa.cap;
		qx.qp_type = IBV_QPT_RC;
		qx.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qx.pd = pd;
		qx.send_ops_flags = ops;
		if (rdma_create_qp_ex(id, &qx))
			die("rdma_create_qp_ex with send_ops_flags 0x%" PRIx64, ops);
		return;
	}
#else
	(void)ops; /* never set: qp_ex_ops() and main refuse the cases that would */
#endif
	if (rdma_create_qp(id, pd, &qa))
		die("rdma_create_qp");
}

/* the send_ops_flags VERBS_BENCH_QP_EX=1 asks for, else 0 */
static uint64_t qp_ex_ops(void)
{
	const char *v = getenv("VERBS_BENCH_QP_EX");
	if (v == NULL || strcmp(v, "1") != 0)
		return 0;
#ifdef HAVE_NATIVE_FLUSH
	return IBV_QP_EX_WITH_FLUSH | IBV_QP_EX_WITH_ATOMIC_WRITE;
#else
	die("VERBS_BENCH_QP_EX=1: built without native flush (rdma-core 45 or later)");
#endif
}

static int run_server(const char *addr, const char *port)
{
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *lid, *id;
	if (ec == NULL || rdma_create_id(ec, &lid, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	struct rdma_addrinfo *ai = addrinfo(addr, port, 1);
	if (rdma_bind_addr(lid, ai->ai_src_addr) || rdma_listen(lid, 1))
		die("listening on %s:%s", addr, port);
	rdma_freeaddrinfo(ai);
	printf("listening\n");
	fflush(stdout);
	expect(ec, RDMA_CM_EVENT_CONNECT_REQUEST, &id, NULL, 0);

	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	void *buf = region(REGION);
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *mr = NULL;
#ifdef HAVE_NATIVE_FLUSH
	/* a device without native flush refuses the flag: then without it */
	if (pd)
		mr = ibv_reg_mr(pd, buf, REGION, access | IBV_ACCESS_FLUSH_GLOBAL);
#endif
	if (pd && mr == NULL)
		mr = ibv_reg_mr(pd, buf, REGION, access);
	struct ibv_cq *cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	if (mr == NULL || cq == NULL)
		die("the server's region or CQ");
	create_qp(id, pd, cq, qp_ex_ops());
	struct region_pd rp = {(uintptr_t)buf, mr->rkey, REGION};
	struct rdma_conn_param cp;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &rp;
	cp.private_data_len = sizeof(rp);
	cp.responder_resources = cp.initiator_depth = QD_MAX;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp))
		die("rdma_accept");
	expect(ec, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL, 0);
	expect(ec, RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	rdma_destroy_qp(id);
	if (ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd))
		die("the server's teardown");
	rdma_destroy_id(id);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ec);
	free(buf);
	return 0;
}

struct client {
	enum vcase c;
	int split;	/* flush, flush_native: the write and the flush in two posts */
	uint32_t size;
	struct ibv_qp *qp;
#ifdef HAVE_NATIVE_FLUSH
	struct ibv_qp_ex *qpx;
#endif
	struct ibv_mr *mr;
	char *buf;
	struct region_pd rp;
};

/* an RDMA read or write of one entry at raddr; every other field zero */
static struct ibv_send_wr one_sided(enum ibv_wr_opcode op, struct ibv_sge *sge, uint64_t raddr,
				   uint32_t rkey, int slot, unsigned int flags)
{
	struct ibv_send_wr w;
	memset(&w, 0, sizeof(w));
	w.wr_id = (uint64_t)slot;
	w.opcode = op;
	w.send_flags = flags;
	w.sg_list = sge;
	w.num_sge = 1;
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return w;
}

/* posts op `slot`: its signalled work request carries wr_id = slot */
static int post(struct client *k, int slot)
{
	uint64_t off = (uint64_t)slot * k->size;
	uint64_t raddr = k->rp.addr + off;
	struct ibv_sge data = {(uintptr_t)k->buf + off, k->size, k->mr->lkey};
#ifdef HAVE_NATIVE_FLUSH
	if (k->c == V_FLUSH_NATIVE) {
		if (k->split) {
			/* the write on its own, by ibv_post_send as the libraries post it */
			struct ibv_send_wr w = one_sided(IBV_WR_RDMA_WRITE, &data, raddr, k->rp.rkey, 0, 0), *bad;
			int rc = ibv_post_send(k->qp, &w, &bad);
			if (rc)
				return rc;
			ibv_wr_start(k->qpx);
		} else {
			ibv_wr_start(k->qpx);
			k->qpx->wr_flags = 0;
			ibv_wr_rdma_write(k->qpx, k->rp.rkey, raddr);
			ibv_wr_set_sge_list(k->qpx, 1, &data);
		}
		k->qpx->wr_id = (uint64_t)slot;
		k->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_flush(k->qpx, k->rp.rkey, raddr, k->size, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
		return ibv_wr_complete(k->qpx);
	}
#endif
	struct ibv_send_wr rd, wr, *bad;
	if (k->c == V_READ) {
		rd = one_sided(IBV_WR_RDMA_READ, &data, raddr, k->rp.rkey, slot, IBV_SEND_SIGNALED);
		return ibv_post_send(k->qp, &rd, &bad);
	}
	if (k->c == V_WRITE) {
		wr = one_sided(IBV_WR_RDMA_WRITE, &data, raddr, k->rp.rkey, slot, IBV_SEND_SIGNALED);
		return ibv_post_send(k->qp, &wr, &bad);
	}
	/* the flush's 8-byte read lands beyond the ops' sources */
	struct ibv_sge eight = {(uintptr_t)k->buf + REGION + 8 * (uint64_t)slot, 8, k->mr->lkey};
	wr = one_sided(IBV_WR_RDMA_WRITE, &data, raddr, k->rp.rkey, 0, 0);
	rd = one_sided(IBV_WR_RDMA_READ, &eight, raddr, k->rp.rkey, slot, IBV_SEND_SIGNALED);
	if (k->split) {
		int rc = ibv_post_send(k->qp, &wr, &bad);
		return rc ? rc : ibv_post_send(k->qp, &rd, &bad);
	}
	wr.next = &rd;
	return ibv_post_send(k->qp, &wr, &bad);
}

/*
 * keeps qd ops in flight until `until` (ns) or, in the warm-up (lat NULL),
 * also until WARMUP_OPS are done; returns the ops done
 */
static uint64_t loop(struct client *k, struct ibv_cq *cq, int qd, uint64_t until,
		     uint64_t *lat, uint64_t cap)
{
	uint64_t tpost[QD_MAX], posted = 0, done = 0, t = now_ns(), last = t;
	unsigned spin = 0;
	struct ibv_wc wc[QD_MAX];
	for (int s = 0; s < qd; s++) {
		tpost[s] = now_ns();
		if (post(k, s))
			die("posting");
		posted++;
	}
	while (done < posted) {
		int n = ibv_poll_cq(cq, QD_MAX, wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0) {
			/* the clock only now and then, as rpma-bench's loop reads it */
			if (++spin % 65536 == 0 && now_ns() - last > (uint64_t)CM_TIMEOUT_MS * 1000000ull)
				die("no completion within the deadline");
			continue;
		}
		t = now_ns();
		last = t;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die("completion status %s", ibv_wc_status_str(wc[i].status));
			int s = (int)wc[i].wr_id;
			if (lat && done < cap)
				lat[done] = t - tpost[s];
			done++;
			int more = lat ? t < until && posted < cap : done < WARMUP_OPS && t < until;
			if (more) {
				tpost[s] = t;
				if (post(k, s))
					die("posting");
				posted++;
			}
		}
	}
	return done;
}

static int run_client(char **argv)
{
	static const char *const names[] = {"read", "flush", "flush_native", "write"};
	struct client k;
	memset(&k, 0, sizeof(k));
	int c = -1;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(argv[4], names[i]) == 0)
			c = i;
	k.c = (enum vcase)c;
	long size = strtol(argv[5], NULL, 10), qd = strtol(argv[6], NULL, 10);
	long secs = strtol(argv[7], NULL, 10);
	if (c < 0 || size < 8 || size > SIZE_MAX_OP || qd < 1 || qd > QD_MAX || secs < 1)
		die("bad arguments: CASE read|write|flush|flush_native, SIZE 8..%u, QD 1..%d, SECONDS",
		    SIZE_MAX_OP, QD_MAX);
#ifndef HAVE_NATIVE_FLUSH
	if (k.c == V_FLUSH_NATIVE)
		die("built without native flush (rdma-core 45 or later)");
#endif
	k.size = (uint32_t)size;
	k.split = getenv("VERBS_BENCH_SPLIT") != NULL && strcmp(getenv("VERBS_BENCH_SPLIT"), "1") == 0;

	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *id;
	if (ec == NULL || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	struct rdma_addrinfo *ai = addrinfo(argv[2], argv[3], 0);
	if (rdma_resolve_addr(id, NULL, ai->ai_dst_addr, CM_TIMEOUT_MS))
		die("rdma_resolve_addr");
	rdma_freeaddrinfo(ai);
	expect(ec, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0);
	if (rdma_resolve_route(id, CM_TIMEOUT_MS))
		die("rdma_resolve_route");
	expect(ec, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0);

	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	/* the ops' sources and destinations, then the flushes' 8-byte reads */
	k.buf = region(REGION + 8 * QD_MAX);
	k.mr = pd ? ibv_reg_mr(pd, k.buf, REGION + 8 * QD_MAX, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_cq *cq = ibv_create_cq(id->verbs, 2 * QD_MAX + 2, NULL, NULL, 0);
	if (k.mr == NULL || cq == NULL)
		die("the client's region or CQ");
#ifdef HAVE_NATIVE_FLUSH
	if (k.c == V_FLUSH_NATIVE) {
		create_qp(id, pd, cq, IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_FLUSH);
		k.qpx = ibv_qp_to_qp_ex(id->qp);
	} else
#endif
		create_qp(id, pd, cq, qp_ex_ops());
	k.qp = id->qp;
	struct rdma_conn_param cp;
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = cp.initiator_depth = QD_MAX;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp))
		die("rdma_connect");
	expect(ec, RDMA_CM_EVENT_ESTABLISHED, NULL, &k.rp, sizeof(k.rp));
	if ((uint64_t)k.size * (uint64_t)qd > k.rp.len || k.rp.len > REGION)
		die("the server's region is too small");

	loop(&k, cq, (int)qd, now_ns() + WARMUP_NS, NULL, 0);
	/* room for 2 million latencies: rxe does far fewer ops per second */
	uint64_t cap = 2000000;
	uint64_t *lat = calloc(cap, sizeof(*lat));
	if (lat == NULL)
		die("out of memory");
	memset(lat, 0, cap * sizeof(*lat));
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	uint64_t t0 = now_ns();
	uint64_t done = loop(&k, cq, (int)qd, t0 + (uint64_t)secs * 1000000000ull, lat, cap);
	uint64_t t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	double sys = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	double cpu = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime) + sys;
	if (done > cap)
		done = cap;

	if (rdma_disconnect(id))
		die("rdma_disconnect");
	expect(ec, RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	rdma_destroy_qp(id);
	if (ibv_destroy_cq(cq) || ibv_dereg_mr(k.mr) || ibv_dealloc_pd(pd))
		die("the client's teardown");
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);

	double s = (double)(t1 - t0) / 1e9;
	qsort(lat, done, sizeof(*lat), cmp_u64);
	printf("RESULT case=%s size=%u qd=%ld ops=%" PRIu64 " secs=%.6f ops_s=%.1f"
	       " p50_us=%.2f p99_us=%.2f cpu_us_op=%.3f sys_us_op=%.3f\n",
	       names[k.c], k.size, qd, done, s, s > 0 ? (double)done / s : 0.0,
	       pct_us(lat, done, 0.50), pct_us(lat, done, 0.99), done ? cpu / (double)done : 0.0,
	       done ? sys / (double)done : 0.0);
	free(lat);
	free(k.buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2], argv[3]);
	if (argc == 8 && strcmp(argv[1], "client") == 0)
		return run_client(argv);
	fprintf(stderr, "usage: verbs-bench server ADDR PORT\n"
			"       verbs-bench client ADDR PORT read|write|flush|flush_native SIZE QD SECONDS\n");
	return 1;
}
