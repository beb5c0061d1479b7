/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * badinput.h -- what the scenario_bad_input_* programs share. Each feeds
 * bad input to the entry points of one object (scenario_bad_input_mr.c:
 * the memory regions, ...); the 84 entry points are split among them, and
 * the program that was once all of them, scenario_bad_input.c, told what
 * follows.
 *
 * Every entry point is fed NULL for each pointer argument in turn, the
 * out-of-range values the man pages list (zero flags, zero or negative
 * sizes, an unknown threshold or level, a descriptor too short, ...) and
 * values they do not list (unknown flag bits such as 1 << 7, INT_MIN and
 * ~0; unknown enum values; sizes no device can make; lengths past 32 bits
 * or past the end of a region).
 *
 * One row of a program's table per entry point; bad_<name>() makes its
 * calls. Each call's return code is an observation, so the two libraries
 * are compared call by call, and each rejected call must have had no side
 * effect: an output pre-filled with a sentinel still holds it, a getter
 * still returns the old value, a rejected post gives no completion and
 * moves no byte (a fence, a signalled 0-byte read, is the very next
 * completion), and the object still works afterwards.
 *
 * Where the library lets a value through to the device, what the device
 * does is observed too: on the main connection for what succeeds (an
 * unknown flag bit, an unknown flush type, a length whose low 32 bits are
 * what the work request carries), and on a fresh connection each for what
 * the device refuses (an offset or a length past a region: the completion's
 * status, the memory of both sides unchanged), since such an error breaks
 * the queue pair.
 *
 * Flushes and atomic writes complete with the opcode of the native
 * operation where the device has it (rxe on Linux 6.12: IBV_WC_FLUSH,
 * IBV_WC_ATOMIC_WRITE), else with that of the emulation (IBV_WC_RDMA_READ,
 * IBV_WC_RDMA_WRITE). An emulated flush reads 8 bytes at dst_offset, so its
 * length plays no part; a native flush covers [dst_offset, dst_offset +
 * len), which the device checks (SIZE_MAX bytes are refused, the last 4
 * bytes of a region are not), an unknown type is a flush of no placement,
 * and a persistent flush is refused, since the device grants that right
 * only on persistent memory and the server's regions are in RAM: the
 * flushes the device refuses natively run on fresh connections. (There the
 * C library 1.3.0 cannot register the server's region for persistent flush
 * at all, see librpma(7).)
 *
 * The live objects of every program (setup()): a peer on rxe0, the
 * configurations, an SRQ, a local region, the server's remote regions and
 * the main connection; and a server in a forked child. The server's
 * regions are in memory shared with the parent (mapped before the fork),
 * so the parent checks the server's bytes itself after each step. For
 * every connection the server posts RECV_N receives, and once the client
 * has closed it reports the messages that arrived, so the parent checks
 * that exactly the sends it had accepted got through. A request whose
 * private data is "END" stops the server (the_end(), the last step of each
 * program, releases first what the program's rows left alive).
 *
 * Left out because the C library crashes on it: rpma_mr_advise() with a
 * NULL region (it dereferences the region without a check).
 *
 * Everything is static and marked unused. A program defines _GNU_SOURCE
 * before it includes this header. scenario_access_usage.c takes only the
 * server of one connection after the other (bi_srv_one(), BI_STOP_SERVER()):
 * it defines BI_SERVER_ONLY first.
 */
#ifndef BADINPUT_H
#define BADINPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include "onesided.h"
#include "rpma_test.h"

/* ---- the server of one connection after the other, until "END" ---- */

/* how long the server waits for the next request and for a client's close */
#ifndef SRV_WAIT_MS
#define SRV_WAIT_MS 120000
#endif

/* the server's receives, per connection */
#define RECV_N 32
#define RECV_LEN 64
#define RECV_ID 0x5EC0ULL

static T_UNUSED char end_pdata[] = "END";

/* server: reports the messages that arrived on conn (successful receives) */
static T_UNUSED void
srv_receives(struct rpma_conn *conn)
{
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	struct timespec nap = {0, 1000000};
	long long rep[RECV_N][3];
	int n = 0, idle = 0, ret;

	S_CHECK(rpma_conn_get_cq(conn, &cq) == 0);
	while (cq != NULL && idle < 300) {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION) {
			nanosleep(&nap, NULL);
			idle++;
			continue;
		}
		if (!S_CHECK(ret == 0))
			break;
		if (wc.status == IBV_WC_SUCCESS && n < RECV_N) {
			rep[n][0] = wc.opcode;
			rep[n][1] = wc.byte_len;
			rep[n][2] = (wc.wc_flags & IBV_WC_WITH_IMM) ?
					(long long)ntohl(wc.imm_data) : -1;
			n++;
		}
	}
	c_put(n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 3; j++)
			c_put(rep[i][j]);
}

/*
 * server: one connection (cfg and mine may be NULL), from the request to
 * the client's close; 0 when there is none (the "END" request, or a step
 * failed). With a region rmr, RECV_N receives are posted into it before
 * the connection is made, and the messages that arrived are reported
 * (srv_receives()) after the close.
 */
static T_UNUSED int
bi_srv_one(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, struct rpma_mr_local *rmr,
		const struct rpma_conn_private_data *mine)
{
	struct pollfd p = {.fd = -1, .events = POLLIN};
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int r;

	if (!S_CHECK(rpma_ep_get_fd(ep, &p.fd) == 0) || !S_CHECK(poll(&p, 1, SRV_WAIT_MS) == 1))
		return 0;
	if (!S_CHECK(rpma_ep_next_conn_req(ep, cfg, &req) == 0))
		return 0;
	S_CHECK(rpma_conn_req_get_private_data(req, &pd) == 0);
	if (pd.ptr != NULL && pd.len >= sizeof(end_pdata) &&
			memcmp(pd.ptr, end_pdata, sizeof(end_pdata)) == 0) {
		S_CHECK(rpma_conn_req_delete(&req) == 0);
		return 0;
	}
	for (int i = 0; rmr != NULL && i < RECV_N; i++)
		S_CHECK(rpma_conn_req_recv(req, rmr, (size_t)i * RECV_LEN, RECV_LEN,
				OS_CTX(RECV_ID + (unsigned)i)) == 0);
	if (!S_CHECK(rpma_conn_req_connect(&req, mine, &conn) == 0))
		return 0;
	/*
	 * The server's CM reports ESTABLISHED when it takes the client's RTU. A
	 * client that disconnects right after its first operation can have its
	 * DREQ taken first (lost RTU, or the two messages handled out of order):
	 * the connection then reports CLOSED alone, with either library.
	 */
	r = c_next_event(conn, C_WAIT_MS, &ev);
	S_CHECK(r == 0 && (ev == RPMA_CONN_ESTABLISHED || ev == RPMA_CONN_CLOSED));
	if (r == 0 && ev == RPMA_CONN_CLOSED)
		t_note("server: CLOSED came without ESTABLISHED (the client's DREQ before its RTU)");
	else
		S_CHECK(c_next_event(conn, SRV_WAIT_MS, &ev) == 0 && ev == RPMA_CONN_CLOSED);
	S_CHECK(rpma_conn_disconnect(conn) == 0);
	if (rmr != NULL)
		srv_receives(conn);
	S_CHECK(rpma_conn_delete(&conn) == 0);
	return 1;
}

/*
 * client: a request from peer carrying "END" stops the server, which
 * rejects it and reports the connections it served: nconns. A macro, so
 * the observation lines name the caller's peer.
 */
#define BI_STOP_SERVER(peer) do { \
	struct rpma_conn_req *req = NULL; \
	struct rpma_conn *c = NULL; \
	struct rpma_conn_private_data pd = {end_pdata, sizeof(end_pdata)}; \
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0); \
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &c), 0); \
	if (c != NULL) { \
		c_expect_event(c, RPMA_CONN_REJECTED); \
		EXPECT_INT(rpma_conn_delete(&c), 0); \
	} \
	EXPECT_INT(SERVER(connections), nconns); \
} while (0)

/*
 * client, before the fork: maps the memory shm shared with the server
 * (SHM_SIZE bytes; the caller returns 2 when it cannot) and fills each of
 * the R_N server regions at its start (RSIZE bytes each) with its pattern,
 * which model[k] copies
 */
#define BI_SHM_MAP() do { \
	shm = mmap(NULL, SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0); \
	if (shm == MAP_FAILED) { \
		perror("mmap"); \
		return 2; \
	} \
	for (int k = 0; k < R_N; k++) { \
		os_fill(shm + k * RSIZE, RSIZE, RSEED(k)); \
		memcpy(model[k], shm + k * RSIZE, RSIZE); \
	} \
} while (0)

#ifndef BI_SERVER_ONLY

#define INVAL RPMA_E_INVAL

/* an object no call hands out: the sentinel of every pointer output */
static char bi_sentinel_obj T_UNUSED;
#define BI_SENT(type) ((type)(void *)&bi_sentinel_obj)
/* sentinels of the scalar outputs */
#define BI_SENT_INT ((int)0x5EADBEEF)
#define BI_SENT_U32 0xDEADBEEFu
#define BI_SENT_SIZE ((size_t)0xDEADBEEFCAFEULL)
/* the byte a bool output or an output buffer is pre-filled with */
#define BI_SENT_BYTE 0xA5

/* 1 when the n bytes at p are all BI_SENT_BYTE */
static T_UNUSED int
bi_untouched(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != BI_SENT_BYTE)
			return 0;
	return 1;
}

/*
 * A getter getter(obj, &out): a NULL object, a NULL output and both are
 * RPMA_E_INVAL, and out keeps the sentinel. A macro, so each observation
 * line names the getter.
 */
#define BI_GETTER_NULLS(getter, obj, type, sent) do { \
	type v_ = (sent); \
	int output_untouched; \
	EXPECT_INT(getter(NULL, &v_), INVAL); \
	output_untouched = v_ == (sent); \
	EXPECT_TRUE(output_untouched); \
	EXPECT_INT(getter((obj), NULL), INVAL); \
	EXPECT_INT(getter(NULL, NULL), INVAL); \
} while (0)

/* the same for an output of a type without a spare value (bool, a struct) */
#define BI_GETTER_NULLS_RAW(getter, obj, type) do { \
	type v_; \
	int output_untouched; \
	memset(&v_, BI_SENT_BYTE, sizeof(v_)); \
	EXPECT_INT(getter(NULL, &v_), INVAL); \
	output_untouched = bi_untouched(&v_, sizeof(v_)); \
	EXPECT_TRUE(output_untouched); \
	EXPECT_INT(getter((obj), NULL), INVAL); \
	EXPECT_INT(getter(NULL, NULL), INVAL); \
} while (0)

/*
 * A destructor fn(&obj): a NULL pointer to the object is RPMA_E_INVAL, a
 * pointer to NULL is 0 and stays NULL.
 */
#define BI_DESTRUCTOR_NULLS(fn, type) do { \
	type v_ = NULL; \
	EXPECT_INT(fn(NULL), INVAL); \
	EXPECT_INT(fn(&v_), 0); \
	EXPECT_TRUE(v_ == NULL); \
} while (0)

/*
 * BI_DESTRUCTOR_ROW(fn, type, obj): defines bad_<fn>(), the row of the
 * destructor fn: BI_DESTRUCTOR_NULLS(), then fn(&obj) destroys the live
 * object obj (0) and sets it to NULL
 */
#define BI_DESTRUCTOR_ROW(fn, type, obj) \
static void \
bad_##fn(void) \
{ \
	BI_DESTRUCTOR_NULLS(fn, type); \
	EXPECT_INT(fn(&obj), 0); \
	EXPECT_TRUE(obj == NULL); \
}

/* ---- the table of entry points ---- */

struct bi_row {
	const char *name; /* the entry point, or NULL for a step between rows */
	const char *step; /* what a step does */
	void (*fn)(void);
};

/* ROW(rpma_x): the row of rpma_x, whose bad input bad_rpma_x() feeds */
#define ROW(f) {#f, NULL, bad_##f}
#define STEP(what, fn) {NULL, what, fn}


/* ---- the live objects shared by the scenario_bad_input_* programs ---- */

#define RSIZE 4096 /* each server region */
#define LSIZE 8192 /* the client's region */
#define L_SRC 0 /* the client's bytes of every write and send */
#define L_DST 4096 /* where the client's reads land */
#define LSEED 7
#define RSEED(k) ((unsigned)(1 + (k)))
#define L_USAGE (RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND | \
		RPMA_MR_USAGE_RECV)

/* the server's regions */
enum { R_FULL, R_PLAIN, R_N };
static T_UNUSED const int srv_usage[R_N] = {
	RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, /* no flush type */
};

/* the shared mapping: the regions, the receive buffer, the descriptors */
#define SHM_RECV (R_N * RSIZE)
#define SHM_DESC (SHM_RECV + RECV_N * RECV_LEN)
#define SHM_SIZE (SHM_DESC + 4096)
#define DESC 21

#define NOSUPP RPMA_E_NOSUPP
#define PROVIDER RPMA_E_PROVIDER
/* flag values with no defined meaning */
#define F_BIT7 (1 << 7)
#define F_MIN INT_MIN /* 0x80000000 */
#define F_ALL (~0)

static T_UNUSED unsigned char *shm;
static T_UNUSED char srv_pdata[] = "srv";

/* ---- the server ---- */

static T_UNUSED int
serve(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_mr_local *mr[R_N] = {NULL}, *rmr = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_private_data mine = {srv_pdata, sizeof(srv_pdata)};
	struct rpma_ep *ep;
	int conns = 0;

	(void) arg;
	S_CHECK(rpma_conn_cfg_new(&cfg) == 0);
	S_CHECK(rpma_conn_cfg_set_rq_size(cfg, RECV_N) == 0);
	S_CHECK(rpma_conn_cfg_set_cq_size(cfg, 2 * RECV_N) == 0);
	for (int k = 0; k < R_N; k++) {
		S_CHECK(rpma_mr_reg(peer, shm + k * RSIZE, RSIZE, srv_usage[k], &mr[k]) == 0);
		S_CHECK(rpma_mr_get_descriptor(mr[k], shm + SHM_DESC + DESC * k) == 0);
	}
	S_CHECK(rpma_mr_reg(peer, shm + SHM_RECV, RECV_N * RECV_LEN, RPMA_MR_USAGE_RECV,
			&rmr) == 0);
	ep = c_listen(peer);
	if (ep != NULL)
		while (bi_srv_one(ep, cfg, rmr, &mine))
			conns++;
	c_put(conns);
	for (int k = 0; k < R_N; k++)
		S_CHECK(rpma_mr_dereg(&mr[k]) == 0);
	S_CHECK(rpma_mr_dereg(&rmr) == 0);
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
	if (ep != NULL)
		S_CHECK(c_server_end(&ep, &peer));
	else
		S_CHECK(rpma_peer_delete(&peer) == 0);
	return c_server_status();
}

/* ---- the client's objects and models ---- */

static T_UNUSED struct {
	struct ibv_context *ctx;
	struct rpma_peer *peer;
	struct rpma_peer_cfg *pcfg; /* direct write to PMem: true */
	struct rpma_conn_cfg *ccfg; /* the main connection's */
	struct rpma_srq_cfg *scfg;
	struct rpma_srq *srq;
	struct rpma_cq *srq_rcq;
	struct rpma_mr_local *mr;
	unsigned char *lbuf;
	struct rpma_mr_remote *r[R_N];
	struct rpma_conn *conn; /* the main connection */
	struct rpma_cq *cq, *rcq;
	struct rpma_ep *ep; /* a listener of the client's own */
	struct rpma_conn_req *req; /* an outgoing request, never connected */
	char port2[16]; /* the port of ep */
} x;

/* the main connection's configuration */
#define C_CQ 64
#define C_SQ 64
#define C_RCQ 8
#define CC_TIMEOUT RPMA_DEFAULT_TIMEOUT_MS
#define C_RQ 10 /* the default */
/* the SRQ's */
#define S_RQ 8
#define S_RCQ 8

/* what the server's regions and the client's region should hold */
static T_UNUSED unsigned char model[R_N][RSIZE];
static T_UNUSED unsigned char lmodel[LSIZE];

static T_UNUSED int
shm_ok(void)
{
	for (int k = 0; k < R_N; k++)
		if (memcmp(shm + k * RSIZE, model[k], RSIZE) != 0)
			return 0;
	return 1;
}

static T_UNUSED int
local_ok(void)
{
	return memcmp(x.lbuf, lmodel, LSIZE) == 0;
}

/* the connections the server accepted, as the client counts them */
static T_UNUSED int nconns;

/* the messages the server should have received on the current connection */
static T_UNUSED struct {
	int opcode;
	long long len, imm;
} want_msg[RECV_N];
static T_UNUSED int n_want;

static T_UNUSED void
want_message(int opcode, long long len, long long imm)
{
	if (n_want < RECV_N) {
		want_msg[n_want].opcode = opcode;
		want_msg[n_want].len = len;
		want_msg[n_want].imm = imm;
	}
	n_want++;
}

/* parent: after a close: the server got exactly the wanted messages */
static T_UNUSED void
expect_receives(void)
{
	long long received = SERVER(receives);

	EXPECT_INT(received, n_want);
	for (long long i = 0; i < received && i < RECV_N; i++) {
		long long opcode = c_get(), byte_len = c_get(), imm = c_get();

		if (i >= n_want)
			continue;
		EXPECT_INT(opcode, want_msg[i].opcode);
		EXPECT_INT(byte_len, want_msg[i].len);
		/* (-1: none) */
		EXPECT_INT(imm, want_msg[i].imm);
	}
	n_want = 0;
}

/* a call that should be taken (return 0); 1 when it was */
static T_UNUSED int taken_ret;
#define TAKEN(call) \
	(taken_ret = (call), t_int(__FILE__, __LINE__, #call, taken_ret, 0), taken_ret == 0)

/* a 32-bit-truncating length: its low 32 bits are 8 */
#define LEN_2_32_PLUS_8 (((size_t)1 << 32) + 8)


/* getter(obj, &v) as a number: v when it returns 0, else the return code */
#define BI_GET_INT(getter, obj) __extension__({ \
	int v_ = BI_SENT_INT; \
	int r_ = getter((obj), &v_); \
	r_ == 0 ? (long long)v_ : (long long)r_; \
})

/* the fd of the main connection's completion channel, or -1 */
static T_UNUSED int
compl_fd(void)
{
	int fd = -1;

	return rpma_conn_get_compl_fd(x.conn, &fd) == 0 ? fd : -1;
}

/* 1 when the shared completion channel has an event within ms */
static T_UNUSED int
channel_ready(int ms)
{
	struct pollfd p = {.fd = compl_fd(), .events = POLLIN};

	return p.fd >= 0 && poll(&p, 1, ms) == 1;
}

/* takes the events waiting on the shared channel (re-arming their CQs) */
static T_UNUSED void
drain_channel(void)
{
	struct rpma_cq *cq = NULL;

	for (int i = 0; i < 4 && channel_ready(0); i++)
		(void) rpma_conn_wait(x.conn, 0, &cq, NULL);
}

/*
 * what a program's rows left alive, released before the server stops (in
 * the order of the rows that release them where all ran in one program):
 * the main connection (then the server's report of its messages), the
 * remote regions, the local region, the SRQ, the configurations, a
 * listener and a request of the client's own
 */
static T_UNUSED void
bi_release(void)
{
	if (x.conn != NULL) {
		t_note("released: the main connection");
		EXPECT_TRUE(c_close(&x.conn));
		expect_receives();
	}
	if (x.r[0] != NULL)
		EXPECT_TRUE(os_remotes_delete(R_N, x.r));
	if (x.mr != NULL)
		EXPECT_INT(rpma_mr_dereg(&x.mr), 0);
	if (x.srq != NULL)
		EXPECT_INT(rpma_srq_delete(&x.srq), 0);
	if (x.scfg != NULL)
		EXPECT_INT(rpma_srq_cfg_delete(&x.scfg), 0);
	if (x.ccfg != NULL)
		EXPECT_INT(rpma_conn_cfg_delete(&x.ccfg), 0);
	if (x.pcfg != NULL)
		EXPECT_INT(rpma_peer_cfg_delete(&x.pcfg), 0);
	if (x.ep != NULL)
		EXPECT_INT(rpma_ep_shutdown(&x.ep), 0);
	if (x.req != NULL)
		EXPECT_INT(rpma_conn_req_delete(&x.req), 0);
}

/* ---- the end: the server stops at a request carrying "END" ---- */

static T_UNUSED void
the_end(void)
{
	bi_release();
	BI_STOP_SERVER(x.peer);
	EXPECT_INT(t_server_join(), 0);
}

/*
 * every entry point of the library, 84 in all: each is the row of one
 * scenario_bad_input_* program
 */
static const char *const bi_all[] T_UNUSED = {
	"rpma_err_2str",
	"rpma_utils_conn_event_2str",
	"rpma_log_set_threshold",
	"rpma_log_get_threshold",
	"rpma_log_set_function",
	"rpma_peer_cfg_new",
	"rpma_peer_cfg_set_direct_write_to_pmem",
	"rpma_peer_cfg_get_direct_write_to_pmem",
	"rpma_peer_cfg_get_descriptor",
	"rpma_peer_cfg_get_descriptor_size",
	"rpma_peer_cfg_from_descriptor",
	"rpma_conn_cfg_new",
	"rpma_conn_cfg_set_timeout",
	"rpma_conn_cfg_get_timeout",
	"rpma_conn_cfg_set_cq_size",
	"rpma_conn_cfg_get_cq_size",
	"rpma_conn_cfg_set_rq_size",
	"rpma_conn_cfg_get_rq_size",
	"rpma_conn_cfg_set_sq_size",
	"rpma_conn_cfg_get_sq_size",
	"rpma_conn_cfg_set_rcq_size",
	"rpma_conn_cfg_get_rcq_size",
	"rpma_conn_cfg_set_compl_channel",
	"rpma_conn_cfg_get_compl_channel",
	"rpma_srq_cfg_new",
	"rpma_srq_cfg_set_rq_size",
	"rpma_srq_cfg_get_rq_size",
	"rpma_srq_cfg_set_rcq_size",
	"rpma_srq_cfg_get_rcq_size",
	"rpma_utils_get_ibv_context",
	"rpma_utils_ibv_context_is_odp_capable",
	"rpma_peer_new",
	"rpma_mr_reg",
	"rpma_mr_get_ptr",
	"rpma_mr_get_size",
	"rpma_mr_get_descriptor_size",
	"rpma_mr_get_descriptor",
	"rpma_mr_remote_from_descriptor",
	"rpma_mr_remote_get_size",
	"rpma_mr_remote_get_flush_type",
	"rpma_mr_advise",
	"rpma_srq_new",
	"rpma_srq_get_rcq",
	"rpma_srq_recv",
	"rpma_conn_cfg_set_srq",
	"rpma_conn_cfg_get_srq",
	"rpma_ep_listen",
	"rpma_ep_get_fd",
	"rpma_ep_next_conn_req",
	"rpma_ep_shutdown",
	"rpma_conn_req_new",
	"rpma_conn_req_get_private_data",
	"rpma_conn_req_recv",
	"rpma_conn_req_connect",
	"rpma_conn_req_delete",
	"rpma_conn_get_event_fd",
	"rpma_conn_next_event",
	"rpma_conn_get_private_data",
	"rpma_conn_get_qp_num",
	"rpma_conn_get_cq",
	"rpma_conn_get_rcq",
	"rpma_conn_get_compl_fd",
	"rpma_conn_wait",
	"rpma_cq_get_fd",
	"rpma_cq_wait",
	"rpma_cq_get_wc",
	"rpma_read",
	"rpma_write",
	"rpma_write_with_imm",
	"rpma_atomic_write",
	"rpma_flush",
	"rpma_conn_apply_remote_peer_cfg",
	"rpma_send",
	"rpma_send_with_imm",
	"rpma_recv",
	"rpma_conn_disconnect",
	"rpma_conn_delete",
	"rpma_mr_remote_delete",
	"rpma_mr_dereg",
	"rpma_srq_delete",
	"rpma_srq_cfg_delete",
	"rpma_conn_cfg_delete",
	"rpma_peer_cfg_delete",
	"rpma_peer_delete",
};

#define BI_ALL ((int)(sizeof(bi_all) / sizeof(bi_all[0])))

/*
 * the number of names of bi_all that name a distinct function of the
 * library under test (the file that provides rpma_err_2str)
 */
static T_UNUSED int
distinct_entry_points(void)
{
	Dl_info lib, info;
	int n = 0;

	if (dladdr((void *)rpma_err_2str, &lib) == 0)
		return -1;
	for (int i = 0; i < BI_ALL; i++) {
		void *sym;
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup |= strcmp(bi_all[j], bi_all[i]) == 0;
		sym = dlsym(RTLD_DEFAULT, bi_all[i]);
		if (dup || sym == NULL || dladdr(sym, &info) == 0 ||
				strcmp(info.dli_fname, lib.dli_fname) != 0) {
			fprintf(stderr, "row %s: duplicate or not in the library\n", bi_all[i]);
			continue;
		}
		n++;
	}
	return n;
}

/* 1 when each row of rows that names an entry point names one of bi_all */
static T_UNUSED int
rows_listed(const struct bi_row *rows, int nrows)
{
	for (int i = 0; i < nrows; i++) {
		int found = 0;

		if (rows[i].name == NULL)
			continue;
		for (int j = 0; j < BI_ALL; j++)
			found |= strcmp(rows[i].name, bi_all[j]) == 0;
		if (!found) {
			fprintf(stderr, "row %s: not an entry point\n", rows[i].name);
			return 0;
		}
	}
	return 1;
}

/* the client's objects; 0 when one could not be made */
static T_UNUSED int
setup(void)
{
	x.ctx = t_ibv_ctx();
	x.peer = t_peer();
	snprintf(x.port2, sizeof(x.port2), "%d", atoi(t_port()) + 20000);
	EXPECT_INT(rpma_peer_cfg_new(&x.pcfg), 0);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(x.pcfg, true), 0);
	EXPECT_INT(rpma_conn_cfg_new(&x.ccfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_cq_size(x.ccfg, C_CQ), 0);
	EXPECT_INT(rpma_conn_cfg_set_sq_size(x.ccfg, C_SQ), 0);
	EXPECT_INT(rpma_conn_cfg_set_rcq_size(x.ccfg, C_RCQ), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(x.ccfg, true), 0);
	EXPECT_INT(rpma_srq_cfg_new(&x.scfg), 0);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(x.scfg, S_RQ), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(x.scfg, S_RCQ), 0);
	EXPECT_INT(rpma_srq_new(x.peer, x.scfg, &x.srq), 0);
	EXPECT_INT(rpma_srq_get_rcq(x.srq, &x.srq_rcq), 0);
	x.mr = os_local(x.peer, LSIZE, L_USAGE, LSEED, (void **)&x.lbuf);
	EXPECT_TRUE(x.mr != NULL);
	if (x.lbuf != NULL)
		memcpy(lmodel, x.lbuf, LSIZE);
	for (int k = 0; k < R_N; k++)
		EXPECT_INT(rpma_mr_remote_from_descriptor(shm + SHM_DESC + DESC * k, DESC,
				&x.r[k]), 0);
	x.conn = c_connect(x.peer, x.ccfg, NULL);
	EXPECT_TRUE(x.conn != NULL);
	if (x.conn == NULL || x.mr == NULL || x.srq == NULL || x.r[R_N - 1] == NULL)
		return 0;
	nconns++;
	EXPECT_INT(rpma_conn_get_cq(x.conn, &x.cq), 0);
	EXPECT_INT(rpma_conn_get_rcq(x.conn, &x.rcq), 0);
	return 1;
}

/* the main of every scenario_bad_input_* program: its rows, in order */
static T_UNUSED int
bi_main(const struct bi_row *rows, int nrows)
{
	t_begin();
	BI_SHM_MAP();
	(void) t_port();
	c_report_open();
	t_server_start(serve, NULL);

	t_note("the table: one row per entry point of the library");
	EXPECT_INT(distinct_entry_points(), 84);
	EXPECT_TRUE(rows_listed(rows, nrows));
	if (!setup()) {
		fprintf(stderr, "the client's objects could not be made\n");
		(void) t_end();
		return 1;
	}
	for (int i = 0; i < nrows; i++) {
		if (rows[i].name != NULL)
			t_note("%s", rows[i].name);
		else
			t_note("-- %s", rows[i].step);
		rows[i].fn();
	}
	if (x.peer != NULL)
		EXPECT_INT(rpma_peer_delete(&x.peer), 0);
	free(x.lbuf);
	munmap(shm, SHM_SIZE);
	return t_end();
}

/* BI_MAIN(rows): the main of a scenario_bad_input_* program whose table is rows */
#define BI_MAIN(table) \
int \
main(void) \
{ \
	return bi_main(table, (int)(sizeof(table) / sizeof(table[0]))); \
}

#endif /* BI_SERVER_ONLY */
#endif /* BADINPUT_H */
