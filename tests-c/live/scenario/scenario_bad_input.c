/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input.c -- every one of the 84 entry points, fed bad input:
 * NULL for each pointer argument in turn, the out-of-range values the man
 * pages list (zero flags, zero or negative sizes, an unknown threshold or
 * level, a descriptor too short, ...) and values they do not list (unknown
 * flag bits such as 1 << 7, INT_MIN and ~0; unknown enum values; sizes no
 * device can make; lengths past 32 bits or past the end of a region).
 *
 * One row of the table at the end per entry point; bad_<name>() makes its
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
 * The live objects: a peer on rxe0, and a server in a forked child. The
 * server's regions are in memory shared with the parent (mapped before the
 * fork), so the parent checks the server's bytes itself after each step.
 * For every connection the server posts RECV_N receives, and once the
 * client has closed it reports the messages that arrived, so the parent
 * checks that exactly the sends it had accepted got through. A request
 * whose private data is "END" stops the server.
 *
 * Left out because the C library crashes on it: rpma_mr_advise() with a
 * NULL region (it dereferences the region without a check).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include "onesided.h"
#include "badinput.h"

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
static const int srv_usage[R_N] = {
	RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, /* no flush type */
};

/* the server's receives, per connection */
#define RECV_N 32
#define RECV_LEN 64
#define RECV_ID 0x5EC0ULL

/* the shared mapping: the regions, the receive buffer, the descriptors */
#define SHM_RECV (R_N * RSIZE)
#define SHM_DESC (SHM_RECV + RECV_N * RECV_LEN)
#define SHM_SIZE (SHM_DESC + 4096)
#define DESC 21

/* how long the server waits for the next request and for a client's close */
#define SRV_WAIT_MS 120000

#define ALWAYS RPMA_F_COMPLETION_ALWAYS
#define NEVER OS_CTX(OS_NEVER_ID)
#define NOSUPP RPMA_E_NOSUPP
#define PROVIDER RPMA_E_PROVIDER
/* flag values with no defined meaning */
#define F_BIT7 (1 << 7)
#define F_MIN INT_MIN /* 0x80000000 */
#define F_ALL (~0)

static unsigned char *shm;
static char srv_pdata[] = "srv";
static char end_pdata[] = "END";

/* ---- the server ---- */

/* server: reports the messages that arrived on conn (successful receives) */
static void
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
 * server: one connection, from the request to the client's close; 0 when
 * there is none (the "END" request, or a step failed)
 */
static int
srv_one(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, struct rpma_mr_local *rmr)
{
	struct pollfd p = {.fd = -1, .events = POLLIN};
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_conn_private_data mine = {srv_pdata, sizeof(srv_pdata)};
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

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
	for (int i = 0; i < RECV_N; i++)
		S_CHECK(rpma_conn_req_recv(req, rmr, (size_t)i * RECV_LEN, RECV_LEN,
				OS_CTX(RECV_ID + (unsigned)i)) == 0);
	if (!S_CHECK(rpma_conn_req_connect(&req, &mine, &conn) == 0))
		return 0;
	S_CHECK(c_event_is(conn, RPMA_CONN_ESTABLISHED));
	S_CHECK(c_next_event(conn, SRV_WAIT_MS, &ev) == 0 && ev == RPMA_CONN_CLOSED);
	S_CHECK(rpma_conn_disconnect(conn) == 0);
	srv_receives(conn);
	S_CHECK(rpma_conn_delete(&conn) == 0);
	return 1;
}

static int
serve(void *arg)
{
	struct rpma_peer *peer = t_peer();
	struct rpma_mr_local *mr[R_N] = {NULL}, *rmr = NULL;
	struct rpma_conn_cfg *cfg = NULL;
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
		while (srv_one(ep, cfg, rmr))
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

static struct {
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
static unsigned char model[R_N][RSIZE];
static unsigned char lmodel[LSIZE];

static int
shm_ok(void)
{
	for (int k = 0; k < R_N; k++)
		if (memcmp(shm + k * RSIZE, model[k], RSIZE) != 0)
			return 0;
	return 1;
}

static int
local_ok(void)
{
	return memcmp(x.lbuf, lmodel, LSIZE) == 0;
}

/* the connections the server accepted, as the client counts them */
static int nconns;

/* the messages the server should have received on the current connection */
static struct {
	int opcode;
	long long len, imm;
} want_msg[RECV_N];
static int n_want;

static void
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
static void
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
static int taken_ret;
#define TAKEN(call) \
	(taken_ret = (call), t_int(__FILE__, __LINE__, #call, taken_ret, 0), taken_ret == 0)

/* a 32-bit-truncating length: its low 32 bits are 8 */
#define LEN_2_32_PLUS_8 (((size_t)1 << 32) + 8)

/* ---- err, utils without a device, log ---- */

static void
bad_rpma_err_2str(void)
{
	EXPECT_STR(rpma_err_2str(1), "Unknown error");
	EXPECT_STR(rpma_err_2str(-1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_UNKNOWN + 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOT_SHARED_CHNL - 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MIN), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MAX), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
}

static void
bad_rpma_utils_conn_event_2str(void)
{
	const char *unsupported = "Unsupported connection event";

	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)-2), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)5), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)99), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MIN), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MAX), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_UNREACHABLE), "Connection unreachable");
}

/* the level of a threshold, or the (negative) return code */
static int
level_of(enum rpma_log_threshold threshold)
{
	enum rpma_log_level level = (enum rpma_log_level)BI_SENT_INT;
	int ret = rpma_log_get_threshold(threshold, &level);

	return ret != 0 ? ret : (int)level;
}

static void
bad_rpma_log_set_threshold(void)
{
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)7, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)-1, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)INT_MIN, RPMA_LOG_LEVEL_ERROR),
			INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)-2), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)6), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)99), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)INT_MIN), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)-2), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)99), INVAL);
	/* both keep the release defaults */
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_DISABLED);
}

static void
bad_rpma_log_get_threshold(void)
{
	enum rpma_log_level level = (enum rpma_log_level)BI_SENT_INT;

	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level), INVAL);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)7, &level), INVAL);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)-1, &level), INVAL);
	EXPECT_INT(level, BI_SENT_INT);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, NULL), INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, NULL), INVAL);
}

static void
bad_rpma_log_set_function(void)
{
	/* no value is refused: NULL is RPMA_LOG_USE_DEFAULT_FUNCTION */
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	c_nlogs = 0;
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(rpma_log_set_function(NULL), 0);
	/* the recorder is no longer called */
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
}

/* ---- peer_cfg ---- */

static int
pcfg_direct(void)
{
	bool b = false;

	if (rpma_peer_cfg_get_direct_write_to_pmem(x.pcfg, &b) != 0)
		return -1;
	return b;
}

static void
bad_rpma_peer_cfg_new(void)
{
	EXPECT_INT(rpma_peer_cfg_new(NULL), INVAL);
}

static void
bad_rpma_peer_cfg_set_direct_write_to_pmem(void)
{
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, false), INVAL);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), INVAL);
	EXPECT_INT(pcfg_direct(), 1);
}

static void
bad_rpma_peer_cfg_get_direct_write_to_pmem(void)
{
	BI_GETTER_NULLS_RAW(rpma_peer_cfg_get_direct_write_to_pmem, x.pcfg, bool);
	EXPECT_INT(pcfg_direct(), 1);
}

static void
bad_rpma_peer_cfg_get_descriptor(void)
{
	unsigned char d[8];

	memset(d, BI_SENT_BYTE, sizeof(d));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, d), INVAL);
	EXPECT_TRUE(bi_untouched(d, sizeof(d)));
	EXPECT_INT(rpma_peer_cfg_get_descriptor(x.pcfg, NULL), INVAL);
	EXPECT_INT(rpma_peer_cfg_get_descriptor(NULL, NULL), INVAL);
	/* one byte, and only one */
	EXPECT_INT(rpma_peer_cfg_get_descriptor(x.pcfg, d), 0);
	EXPECT_INT(d[0], 1);
	EXPECT_TRUE(bi_untouched(d + 1, sizeof(d) - 1));
}

static void
bad_rpma_peer_cfg_get_descriptor_size(void)
{
	size_t size = 0;

	BI_GETTER_NULLS(rpma_peer_cfg_get_descriptor_size, x.pcfg, size_t, BI_SENT_SIZE);
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(x.pcfg, &size), 0);
	EXPECT_INT(size, 1);
}

/* in a child: a descriptor size of SIZE_MAX (only one byte is there) */
static void
pcfg_huge_size(long long *out, int n)
{
	char one = 1;
	struct rpma_peer_cfg *p = NULL;
	bool b = false;

	(void) n;
	out[0] = rpma_peer_cfg_from_descriptor(&one, SIZE_MAX, &p);
	out[1] = p != NULL && rpma_peer_cfg_get_direct_write_to_pmem(p, &b) == 0 ? b : -1;
	(void) rpma_peer_cfg_delete(&p);
}

static void
bad_rpma_peer_cfg_from_descriptor(void)
{
	struct rpma_peer_cfg *p = BI_SENT(struct rpma_peer_cfg *);
	char one = 1;
	long long out[2] = {0, 0};

	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 1, &p), INVAL);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(&one, 0, &p), INVAL);
	EXPECT_TRUE(p == BI_SENT(struct rpma_peer_cfg *));
	EXPECT_INT(rpma_peer_cfg_from_descriptor(&one, 1, NULL), INVAL);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 0, NULL), INVAL);
	t_note("a size past the descriptor: its one byte is what counts");
	EXPECT_INT(t_in_child(pcfg_huge_size, out, 2), 0);
	EXPECT_INT(out[0], 0);
	EXPECT_INT(out[1], 1);
}

static void
bad_rpma_peer_cfg_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_peer_cfg_delete, struct rpma_peer_cfg *);
	EXPECT_INT(rpma_peer_cfg_delete(&x.pcfg), 0);
	EXPECT_TRUE(x.pcfg == NULL);
}

/* ---- conn_cfg ---- */

#define BI_GET_INT(getter, obj) __extension__({ \
	int v_ = BI_SENT_INT; \
	int r_ = getter((obj), &v_); \
	r_ == 0 ? (long long)v_ : (long long)r_; \
})

static int
bool_of(int (*getter)(const struct rpma_conn_cfg *, bool *), const struct rpma_conn_cfg *cfg)
{
	bool b = false;
	int ret = getter(cfg, &b);

	return ret != 0 ? ret : b;
}

static void
bad_rpma_conn_cfg_new(void)
{
	EXPECT_INT(rpma_conn_cfg_new(NULL), INVAL);
}

static void
bad_rpma_conn_cfg_set_timeout(void)
{
	struct rpma_conn_cfg *tmp = NULL;
	struct rpma_conn_req *req = NULL;

	EXPECT_INT(rpma_conn_cfg_set_timeout(NULL, 100), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(x.ccfg, -1), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_timeout(x.ccfg, INT_MIN), INVAL);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, x.ccfg), CC_TIMEOUT);
	t_note("the longest timeout is taken, and a request made with it");
	EXPECT_INT(rpma_conn_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_conn_cfg_set_timeout(tmp, INT_MAX), 0);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, tmp), INT_MAX);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), tmp, &req), 0);
	EXPECT_INT(rpma_conn_req_delete(&req), 0);
	EXPECT_INT(rpma_conn_cfg_delete(&tmp), 0);
}

static void
bad_rpma_conn_cfg_get_timeout(void)
{
	BI_GETTER_NULLS(rpma_conn_cfg_get_timeout, x.ccfg, int, BI_SENT_INT);
	EXPECT_INT(BI_GET_INT(rpma_conn_cfg_get_timeout, x.ccfg), CC_TIMEOUT);
}

/*
 * A size setter: a NULL configuration is refused and the main one keeps
 * its value; the largest size is taken (the device refuses it later, see
 * rpma_conn_req_new)
 */
#define BI_SIZE_SETTER(setter, getter, value) do { \
	struct rpma_conn_cfg *tmp_ = NULL; \
	EXPECT_INT(setter(NULL, 5), INVAL); \
	EXPECT_INT(setter(NULL, UINT32_MAX), INVAL); \
	EXPECT_INT(T_GET_U32(getter, x.ccfg), value); \
	EXPECT_INT(rpma_conn_cfg_new(&tmp_), 0); \
	EXPECT_INT(setter(tmp_, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(getter, tmp_), UINT32_MAX); \
	EXPECT_INT(rpma_conn_cfg_delete(&tmp_), 0); \
} while (0)

#define BI_SIZE_GETTER(getter, value) do { \
	BI_GETTER_NULLS(getter, x.ccfg, uint32_t, BI_SENT_U32); \
	EXPECT_INT(T_GET_U32(getter, x.ccfg), value); \
} while (0)

static void
bad_rpma_conn_cfg_set_cq_size(void)
{
	BI_SIZE_SETTER(rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, C_CQ);
}

static void
bad_rpma_conn_cfg_get_cq_size(void)
{
	BI_SIZE_GETTER(rpma_conn_cfg_get_cq_size, C_CQ);
}

static void
bad_rpma_conn_cfg_set_rq_size(void)
{
	BI_SIZE_SETTER(rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, C_RQ);
}

static void
bad_rpma_conn_cfg_get_rq_size(void)
{
	BI_SIZE_GETTER(rpma_conn_cfg_get_rq_size, C_RQ);
}

static void
bad_rpma_conn_cfg_set_sq_size(void)
{
	BI_SIZE_SETTER(rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, C_SQ);
}

static void
bad_rpma_conn_cfg_get_sq_size(void)
{
	BI_SIZE_GETTER(rpma_conn_cfg_get_sq_size, C_SQ);
}

static void
bad_rpma_conn_cfg_set_rcq_size(void)
{
	BI_SIZE_SETTER(rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, C_RCQ);
}

static void
bad_rpma_conn_cfg_get_rcq_size(void)
{
	BI_SIZE_GETTER(rpma_conn_cfg_get_rcq_size, C_RCQ);
}

static void
bad_rpma_conn_cfg_set_compl_channel(void)
{
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, false), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(NULL, true), INVAL);
	EXPECT_INT(bool_of(rpma_conn_cfg_get_compl_channel, x.ccfg), 1);
}

static void
bad_rpma_conn_cfg_get_compl_channel(void)
{
	BI_GETTER_NULLS_RAW(rpma_conn_cfg_get_compl_channel, x.ccfg, bool);
	EXPECT_INT(bool_of(rpma_conn_cfg_get_compl_channel, x.ccfg), 1);
}

static void
bad_rpma_conn_cfg_set_srq(void)
{
	struct rpma_conn_cfg *tmp = NULL;
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);

	EXPECT_INT(rpma_conn_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, x.srq), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_set_srq(NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_get_srq(tmp, &s), 0);
	EXPECT_TRUE(s == NULL);
	/* a set SRQ cannot be unset either */
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, x.srq), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(tmp, NULL), INVAL);
	EXPECT_INT(rpma_conn_cfg_get_srq(tmp, &s), 0);
	EXPECT_TRUE(s == x.srq);
	EXPECT_INT(rpma_conn_cfg_delete(&tmp), 0);
}

static void
bad_rpma_conn_cfg_get_srq(void)
{
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);

	BI_GETTER_NULLS(rpma_conn_cfg_get_srq, x.ccfg, struct rpma_srq *,
			BI_SENT(struct rpma_srq *));
	EXPECT_INT(rpma_conn_cfg_get_srq(x.ccfg, &s), 0);
	EXPECT_TRUE(s == NULL);
}

static void
bad_rpma_conn_cfg_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_conn_cfg_delete, struct rpma_conn_cfg *);
	EXPECT_INT(rpma_conn_cfg_delete(&x.ccfg), 0);
	EXPECT_TRUE(x.ccfg == NULL);
}

/* ---- srq_cfg ---- */

static void
bad_rpma_srq_cfg_new(void)
{
	EXPECT_INT(rpma_srq_cfg_new(NULL), INVAL);
}

static void
bad_rpma_srq_cfg_set_rq_size(void)
{
	EXPECT_INT(rpma_srq_cfg_set_rq_size(NULL, 5), INVAL);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(NULL, UINT32_MAX), INVAL);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rq_size, x.scfg), S_RQ);
}

static void
bad_rpma_srq_cfg_get_rq_size(void)
{
	BI_GETTER_NULLS(rpma_srq_cfg_get_rq_size, x.scfg, uint32_t, BI_SENT_U32);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rq_size, x.scfg), S_RQ);
}

static void
bad_rpma_srq_cfg_set_rcq_size(void)
{
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, 5), INVAL);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(NULL, UINT32_MAX), INVAL);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, x.scfg), S_RCQ);
}

static void
bad_rpma_srq_cfg_get_rcq_size(void)
{
	BI_GETTER_NULLS(rpma_srq_cfg_get_rcq_size, x.scfg, uint32_t, BI_SENT_U32);
	EXPECT_INT(T_GET_U32(rpma_srq_cfg_get_rcq_size, x.scfg), S_RCQ);
}

static void
bad_rpma_srq_cfg_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_srq_cfg_delete, struct rpma_srq_cfg *);
	EXPECT_INT(rpma_srq_cfg_delete(&x.scfg), 0);
	EXPECT_TRUE(x.scfg == NULL);
}

/* ---- utils, peer ---- */

static void
bad_rpma_utils_get_ibv_context(void)
{
	struct ibv_context *c = BI_SENT(struct ibv_context *);
	const char *ip = t_ip();

	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_REMOTE, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_REMOTE, NULL), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL), INVAL);
	t_note("unknown context types");
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)2, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)5, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)-1, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)99, &c), INVAL);
	EXPECT_INT(rpma_utils_get_ibv_context(ip, (enum rpma_util_ibv_context_type)INT_MIN, &c),
			INVAL);
	EXPECT_TRUE(c == BI_SENT(struct ibv_context *));
	t_note("the wildcard address binds, on no device");
	EXPECT_INT(rpma_utils_get_ibv_context("0.0.0.0", RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), 0);
	EXPECT_TRUE(c == NULL);
	t_note("still the device of the address");
	EXPECT_INT(rpma_utils_get_ibv_context(ip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &c), 0);
	EXPECT_TRUE(c == x.ctx);
}

static void
bad_rpma_utils_ibv_context_is_odp_capable(void)
{
	BI_GETTER_NULLS(rpma_utils_ibv_context_is_odp_capable, x.ctx, int, BI_SENT_INT);
}

static void
bad_rpma_peer_new(void)
{
	BI_GETTER_NULLS(rpma_peer_new, x.ctx, struct rpma_peer *, BI_SENT(struct rpma_peer *));
}

static void
bad_rpma_peer_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_peer_delete, struct rpma_peer *);
	EXPECT_INT(rpma_peer_delete(&x.peer), 0);
	EXPECT_TRUE(x.peer == NULL);
}

/* ---- mr ---- */

static size_t
size_of(int (*getter)(const struct rpma_mr_local *, size_t *), const struct rpma_mr_local *mr)
{
	size_t size = 0;

	return getter(mr, &size) == 0 ? size : 0;
}

/* the size of a remote region, or 0 */
static size_t
remote_size(const struct rpma_mr_remote *r)
{
	size_t size = 0;

	return rpma_mr_remote_get_size(r, &size) == 0 ? size : 0;
}


/*
 * rpma_mr_reg() of size bytes from a page that a hole follows: its return
 * value (INT_MIN when it failed but wrote its output); a region it made
 * is deregistered
 */
static int
reg_past(size_t size)
{
	struct rpma_mr_local *m = BI_SENT(struct rpma_mr_local *);
	unsigned char *page;
	int ret;

	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return INT_MAX;
	memset(page, 0, 4096);
	(void) munmap(page + 4096, 4096);
	ret = rpma_mr_reg(x.peer, page, size, RPMA_MR_USAGE_READ_SRC, &m);
	if (ret == 0)
		(void) rpma_mr_dereg(&m);
	else if (m != BI_SENT(struct rpma_mr_local *))
		ret = INT_MIN;
	(void) munmap(page, 4096);
	return ret;
}

static void
bad_rpma_mr_reg(void)
{
	struct rpma_mr_local *m = BI_SENT(struct rpma_mr_local *);
	struct rpma_peer *p = x.peer;
	void *buf = x.lbuf + L_DST;
	const int use = RPMA_MR_USAGE_READ_SRC;

	EXPECT_INT(rpma_mr_reg(NULL, buf, 4096, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, NULL, 4096, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 0, use, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use, NULL), INVAL);
	EXPECT_INT(rpma_mr_reg(NULL, NULL, 0, 0, NULL), INVAL);
	t_note("usage: none, and bits outside the defined ones");
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 0, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 1 << 8, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use | (1 << 8), &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use | (1 << 30), &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, INT_MIN, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, ~0, &m), INVAL);
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, 0x1FF, &m), INVAL);
	EXPECT_TRUE(m == BI_SENT(struct rpma_mr_local *));
	t_note("sizes past the memory: the device refuses them");
	EXPECT_INT(reg_past(8192), PROVIDER);
	EXPECT_INT(reg_past(SIZE_MAX), PROVIDER);
	EXPECT_INT(reg_past((size_t)1 << 40), PROVIDER);
	t_note("the peer still registers");
	m = NULL;
	EXPECT_INT(rpma_mr_reg(p, buf, 4096, use, &m), 0);
	EXPECT_INT(rpma_mr_dereg(&m), 0);
}

static void
bad_rpma_mr_dereg(void)
{
	BI_DESTRUCTOR_NULLS(rpma_mr_dereg, struct rpma_mr_local *);
	EXPECT_INT(rpma_mr_dereg(&x.mr), 0);
	EXPECT_TRUE(x.mr == NULL);
}

static void
bad_rpma_mr_get_ptr(void)
{
	void *p = NULL;

	BI_GETTER_NULLS(rpma_mr_get_ptr, x.mr, void *, BI_SENT(void *));
	EXPECT_INT(rpma_mr_get_ptr(x.mr, &p), 0);
	EXPECT_TRUE(p == x.lbuf);
}

static void
bad_rpma_mr_get_size(void)
{
	BI_GETTER_NULLS(rpma_mr_get_size, x.mr, size_t, BI_SENT_SIZE);
	EXPECT_INT(size_of(rpma_mr_get_size, x.mr), LSIZE);
}

static void
bad_rpma_mr_get_descriptor_size(void)
{
	BI_GETTER_NULLS(rpma_mr_get_descriptor_size, x.mr, size_t, BI_SENT_SIZE);
	EXPECT_INT(size_of(rpma_mr_get_descriptor_size, x.mr), DESC);
}

static void
bad_rpma_mr_get_descriptor(void)
{
	unsigned char d[32];

	memset(d, BI_SENT_BYTE, sizeof(d));
	EXPECT_INT(rpma_mr_get_descriptor(NULL, d), INVAL);
	EXPECT_TRUE(bi_untouched(d, sizeof(d)));
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, NULL), INVAL);
	EXPECT_INT(rpma_mr_get_descriptor(NULL, NULL), INVAL);
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, d), 0);
	EXPECT_TRUE(bi_untouched(d + DESC, sizeof(d) - DESC));
}

/* in a child: a descriptor size of SIZE_MAX (only 21 bytes are there) */
static unsigned char huge_desc[DESC];

static void
remote_huge_size(long long *out, int n)
{
	struct rpma_mr_remote *r = NULL;
	size_t size = 0;

	(void) n;
	out[0] = rpma_mr_remote_from_descriptor(huge_desc, SIZE_MAX, &r);
	out[1] = r != NULL && rpma_mr_remote_get_size(r, &size) == 0 ? (long long)size : -1;
	(void) rpma_mr_remote_delete(&r);
}

static void
bad_rpma_mr_remote_from_descriptor(void)
{
	struct rpma_mr_remote *r = BI_SENT(struct rpma_mr_remote *);
	unsigned char d[32], d0[DESC];
	long long out[2] = {0, 0};

	memset(d, 0, sizeof(d));
	EXPECT_INT(rpma_mr_get_descriptor(x.mr, d), 0);
	memcpy(d0, d, DESC);
	d0[DESC - 1] = 0; /* no usage */
	EXPECT_INT(rpma_mr_remote_from_descriptor(NULL, DESC, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, DESC, NULL), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(NULL, 0, NULL), INVAL);
	t_note("too short, no usage");
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, DESC - 1, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, 1, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, 0, &r), INVAL);
	EXPECT_INT(rpma_mr_remote_from_descriptor(d0, DESC, &r), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_mr_remote *));
	t_note("longer than a descriptor: the rest is not read");
	r = NULL;
	EXPECT_INT(rpma_mr_remote_from_descriptor(d, sizeof(d), &r), 0);
	EXPECT_INT(remote_size(r), LSIZE);
	EXPECT_INT(rpma_mr_remote_delete(&r), 0);
	memcpy(huge_desc, d, DESC);
	EXPECT_INT(t_in_child(remote_huge_size, out, 2), 0);
	EXPECT_INT(out[0], 0);
	EXPECT_INT(out[1], LSIZE);
}

static void
bad_rpma_mr_remote_get_size(void)
{
	BI_GETTER_NULLS(rpma_mr_remote_get_size, x.r[R_FULL], size_t, BI_SENT_SIZE);
	EXPECT_INT(remote_size(x.r[R_FULL]), RSIZE);
}

static void
bad_rpma_mr_remote_get_flush_type(void)
{
	BI_GETTER_NULLS(rpma_mr_remote_get_flush_type, x.r[R_FULL], int, BI_SENT_INT);
	EXPECT_INT(BI_GET_INT(rpma_mr_remote_get_flush_type, x.r[R_FULL]),
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	EXPECT_INT(BI_GET_INT(rpma_mr_remote_get_flush_type, x.r[R_PLAIN]), 0);
}

static void
bad_rpma_mr_remote_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_mr_remote_delete, struct rpma_mr_remote *);
	EXPECT_TRUE(os_remotes_delete(R_N, x.r));
}

static void
bad_rpma_mr_advise(void)
{
	const int pw = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	const uint32_t fl = IBV_ADVISE_MR_FLAG_FLUSH;

	/* (a NULL region is not tried: the C library dereferences it) */
	t_note("rxe implements no advice: the provider refuses each call");
	EXPECT_INT(rpma_mr_advise(x.mr, 0, LSIZE, 99, fl), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, LSIZE, -1, fl), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, LSIZE, pw, 1u << 7), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, LSIZE, pw, 0x80000000u), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, LSIZE, pw, ~0u), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, LSIZE, 8, pw, fl), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, SIZE_MAX, 8, pw, fl), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, 0, pw, fl), NOSUPP);
	EXPECT_INT(rpma_mr_advise(x.mr, 0, SIZE_MAX, pw, fl), NOSUPP);
	EXPECT_INT(size_of(rpma_mr_get_size, x.mr), LSIZE);
}

/* ---- srq ---- */

static void
bad_rpma_srq_new(void)
{
	struct rpma_srq *s = BI_SENT(struct rpma_srq *);
	struct rpma_srq_cfg *tmp = NULL;

	EXPECT_INT(rpma_srq_new(NULL, x.scfg, &s), INVAL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, &s), INVAL);
	EXPECT_INT(rpma_srq_new(x.peer, x.scfg, NULL), INVAL);
	EXPECT_INT(rpma_srq_new(x.peer, NULL, NULL), INVAL);
	EXPECT_INT(rpma_srq_new(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(s == BI_SENT(struct rpma_srq *));
	t_note("queues larger than the device makes");
	EXPECT_INT(rpma_srq_cfg_new(&tmp), 0);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(tmp, UINT32_MAX), 0);
	EXPECT_INT(rpma_srq_new(x.peer, tmp, &s), PROVIDER);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(tmp, S_RQ), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(tmp, UINT32_MAX), 0);
	EXPECT_INT(rpma_srq_new(x.peer, tmp, &s), PROVIDER);
	EXPECT_TRUE(s == BI_SENT(struct rpma_srq *));
	EXPECT_INT(rpma_srq_cfg_delete(&tmp), 0);
}

static void
bad_rpma_srq_get_rcq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_srq_get_rcq, x.srq, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_srq_get_rcq(x.srq, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.srq_rcq);
}

static void
bad_rpma_srq_recv(void)
{
	struct ibv_wc wc;

	EXPECT_INT(rpma_srq_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x301)), INVAL);
	EXPECT_INT(rpma_srq_recv(x.srq, NULL, 8, 0, OS_CTX(0x302)), INVAL);
	EXPECT_INT(rpma_srq_recv(x.srq, NULL, 0, 8, OS_CTX(0x303)), INVAL);
	EXPECT_INT(rpma_srq_recv(NULL, NULL, 0, 0, OS_CTX(0x304)), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.srq_rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
}

static void
bad_rpma_srq_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_srq_delete, struct rpma_srq *);
	EXPECT_INT(rpma_srq_delete(&x.srq), 0);
	EXPECT_TRUE(x.srq == NULL);
}

/* ---- ep ---- */

static void
bad_rpma_ep_listen(void)
{
	struct rpma_ep *e = BI_SENT(struct rpma_ep *);
	const char *ip = t_ip();

	EXPECT_INT(rpma_ep_listen(NULL, ip, x.port2, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, NULL, x.port2, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, ip, NULL, &e), INVAL);
	EXPECT_INT(rpma_ep_listen(x.peer, ip, x.port2, NULL), INVAL);
	EXPECT_INT(rpma_ep_listen(NULL, NULL, NULL, NULL), INVAL);
	t_note("a port that is neither a number nor a service");
	EXPECT_INT(rpma_ep_listen(x.peer, ip, "no-such-port", &e), PROVIDER);
	EXPECT_TRUE(e == BI_SENT(struct rpma_ep *));
	t_note("the port is still free");
	e = NULL;
	EXPECT_INT(rpma_ep_listen(x.peer, ip, x.port2, &e), 0);
	x.ep = e;
}

static void
bad_rpma_ep_get_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_ep_get_fd, x.ep, int, BI_SENT_INT);
	EXPECT_INT(rpma_ep_get_fd(x.ep, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
}

static void
bad_rpma_ep_next_conn_req(void)
{
	struct rpma_conn_req *r = BI_SENT(struct rpma_conn_req *);
	struct pollfd p = {.fd = -1, .events = POLLIN};

	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, &r), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, x.ccfg, &r), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(x.ep, NULL, NULL), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(x.ep, x.ccfg, NULL), INVAL);
	EXPECT_INT(rpma_ep_next_conn_req(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	/* nothing came, nothing was made to come */
	EXPECT_INT(rpma_ep_get_fd(x.ep, &p.fd), 0);
	EXPECT_INT(poll(&p, 1, 0), 0);
}

static void
bad_rpma_ep_shutdown(void)
{
	BI_DESTRUCTOR_NULLS(rpma_ep_shutdown, struct rpma_ep *);
	EXPECT_INT(rpma_ep_shutdown(&x.ep), 0);
	EXPECT_TRUE(x.ep == NULL);
}

/* ---- conn_req ---- */

/* a configuration of the main one's sizes with one size changed */
static struct rpma_conn_cfg *
cfg_with(int (*setter)(struct rpma_conn_cfg *, uint32_t), uint32_t value)
{
	struct rpma_conn_cfg *cfg = NULL;

	if (rpma_conn_cfg_new(&cfg) != 0)
		return NULL;
	if (setter(cfg, value) != 0)
		(void) rpma_conn_cfg_delete(&cfg);
	return cfg;
}

/* rpma_conn_req_new() with cfg; the request, when one came, is deleted */
static int
req_new_with(struct rpma_conn_cfg *cfg, struct rpma_conn_req **r)
{
	int ret = rpma_conn_req_new(x.peer, t_ip(), t_port(), cfg, r);

	if (ret == 0)
		(void) rpma_conn_req_delete(r);
	(void) rpma_conn_cfg_delete(&cfg);
	return ret;
}

static void
bad_rpma_conn_req_new(void)
{
	struct rpma_conn_req *r = BI_SENT(struct rpma_conn_req *);
	struct rpma_conn_cfg *cfg = NULL;
	const char *ip = t_ip(), *port = t_port();

	EXPECT_INT(rpma_conn_req_new(NULL, ip, port, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, NULL, port, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, NULL, NULL, &r), INVAL);
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, port, NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_req_new(NULL, NULL, NULL, NULL, NULL), INVAL);
	t_note("a port that is neither a number nor a service");
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, "no-such-port", NULL, &r), PROVIDER);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("queue sizes the device cannot make");
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_cq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_cq_size, 0), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_sq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_rq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_INT(req_new_with(cfg_with(rpma_conn_cfg_set_rcq_size, UINT32_MAX), &r), PROVIDER);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("a shared completion channel with an SRQ that has its own receive CQ");
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	EXPECT_INT(rpma_conn_cfg_set_srq(cfg, x.srq), 0);
	EXPECT_INT(req_new_with(cfg, &r), INVAL);
	EXPECT_TRUE(r == BI_SENT(struct rpma_conn_req *));
	t_note("a real request still comes");
	EXPECT_INT(rpma_conn_req_new(x.peer, ip, port, NULL, &x.req), 0);
}

static void
bad_rpma_conn_req_get_private_data(void)
{
	struct rpma_conn_private_data pd;

	BI_GETTER_NULLS_RAW(rpma_conn_req_get_private_data, x.req, struct rpma_conn_private_data);
	memset(&pd, BI_SENT_BYTE, sizeof(pd));
	EXPECT_INT(rpma_conn_req_get_private_data(x.req, &pd), 0);
	EXPECT_TRUE(pd.ptr == NULL);
	EXPECT_INT(pd.len, 0);
}

static void
bad_rpma_conn_req_recv(void)
{
	EXPECT_INT(rpma_conn_req_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x401)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 0, 8, OS_CTX(0x402)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 8, 0, OS_CTX(0x403)), INVAL);
	/* no 0-byte form here */
	EXPECT_INT(rpma_conn_req_recv(x.req, NULL, 0, 0, OS_CTX(0x404)), INVAL);
	EXPECT_INT(rpma_conn_req_recv(NULL, NULL, 0, 0, NULL), INVAL);
}

static void
bad_rpma_conn_req_connect(void)
{
	struct rpma_conn_req *r = NULL;
	struct rpma_conn *c = BI_SENT(struct rpma_conn *);
	char data[4] = "abc";
	struct rpma_conn_private_data empty = {data, 0}, no_ptr = {NULL, 4};

	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, &c), INVAL);
	EXPECT_INT(rpma_conn_req_connect(&r, NULL, &c), INVAL);
	EXPECT_INT(rpma_conn_req_connect(NULL, NULL, NULL), INVAL);
	EXPECT_TRUE(c == BI_SENT(struct rpma_conn *));
	t_note("a request with a NULL conn_ptr or bad private data is deleted");
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, NULL, NULL), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, &empty, &c), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &r), 0);
	EXPECT_INT(rpma_conn_req_connect(&r, &no_ptr, &c), INVAL);
	EXPECT_TRUE(r == NULL);
	EXPECT_TRUE(c == BI_SENT(struct rpma_conn *));
	/* (the server saw none of them: see the count of its connections) */
}

static void
bad_rpma_conn_req_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_conn_req_delete, struct rpma_conn_req *);
	EXPECT_INT(rpma_conn_req_delete(&x.req), 0);
	EXPECT_TRUE(x.req == NULL);
}

/* ---- conn: getters, events, completion channel ---- */

static void
bad_rpma_conn_get_event_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_conn_get_event_fd, x.conn, int, BI_SENT_INT);
	EXPECT_INT(rpma_conn_get_event_fd(x.conn, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
}

static void
bad_rpma_conn_next_event(void)
{
	enum rpma_conn_event ev = EV_SENTINEL;

	EXPECT_INT(rpma_conn_next_event(NULL, &ev), INVAL);
	EXPECT_INT(rpma_conn_next_event(x.conn, NULL), INVAL);
	EXPECT_INT(rpma_conn_next_event(NULL, NULL), INVAL);
	EXPECT_INT(ev, EV_SENTINEL);
	/* no event was made or taken */
	EXPECT_TRUE(!c_event_pending(x.conn, 0));
}

static void
bad_rpma_conn_get_private_data(void)
{
	struct rpma_conn_private_data pd = {NULL, 0};

	BI_GETTER_NULLS_RAW(rpma_conn_get_private_data, x.conn, struct rpma_conn_private_data);
	EXPECT_INT(rpma_conn_get_private_data(x.conn, &pd), 0);
	EXPECT_TRUE(pd.ptr != NULL && pd.len >= sizeof(srv_pdata) &&
			memcmp(pd.ptr, srv_pdata, sizeof(srv_pdata)) == 0);
}

static void
bad_rpma_conn_get_qp_num(void)
{
	uint32_t qp = BI_SENT_U32;

	BI_GETTER_NULLS(rpma_conn_get_qp_num, x.conn, uint32_t, BI_SENT_U32);
	EXPECT_INT(rpma_conn_get_qp_num(x.conn, &qp), 0);
	EXPECT_TRUE(qp != BI_SENT_U32);
}

static void
bad_rpma_conn_get_cq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_conn_get_cq, x.conn, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_conn_get_cq(x.conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.cq);
}

static void
bad_rpma_conn_get_rcq(void)
{
	struct rpma_cq *cq = NULL;

	BI_GETTER_NULLS(rpma_conn_get_rcq, x.conn, struct rpma_cq *, BI_SENT(struct rpma_cq *));
	EXPECT_INT(rpma_conn_get_rcq(x.conn, &cq), 0);
	EXPECT_TRUE(cq != NULL && cq == x.rcq);
}

static int
compl_fd(void)
{
	int fd = -1;

	return rpma_conn_get_compl_fd(x.conn, &fd) == 0 ? fd : -1;
}

static void
bad_rpma_conn_get_compl_fd(void)
{
	BI_GETTER_NULLS(rpma_conn_get_compl_fd, x.conn, int, BI_SENT_INT);
	EXPECT_TRUE(c_fd_open(compl_fd()));
}

/* 1 when the shared completion channel has an event within ms */
static int
channel_ready(int ms)
{
	struct pollfd p = {.fd = compl_fd(), .events = POLLIN};

	return p.fd >= 0 && poll(&p, 1, ms) == 1;
}

/* takes the events waiting on the shared channel (re-arming their CQs) */
static void
drain_channel(void)
{
	struct rpma_cq *cq = NULL;

	for (int i = 0; i < 4 && channel_ready(0); i++)
		(void) rpma_conn_wait(x.conn, 0, &cq, NULL);
}

static void
bad_rpma_conn_wait(void)
{
	struct rpma_cq *cq = BI_SENT(struct rpma_cq *);
	bool is_rcq;

	drain_channel();
	EXPECT_TRUE(os_cq_empty(x.conn));
	t_note("a completion is waiting on the shared channel");
	EXPECT_INT(rpma_read(x.conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x501)), 0);
	EXPECT_TRUE(channel_ready(OS_WC_WAIT_MS));
	memset(&is_rcq, BI_SENT_BYTE, sizeof(is_rcq));
	EXPECT_INT(rpma_conn_wait(NULL, 0, &cq, &is_rcq), INVAL);
	EXPECT_INT(rpma_conn_wait(x.conn, 0, NULL, &is_rcq), INVAL);
	EXPECT_INT(rpma_conn_wait(x.conn, 0, NULL, NULL), INVAL);
	EXPECT_INT(rpma_conn_wait(NULL, 0, NULL, NULL), INVAL);
	EXPECT_TRUE(cq == BI_SENT(struct rpma_cq *));
	EXPECT_TRUE(bi_untouched(&is_rcq, sizeof(is_rcq)));
	/* the event is still there */
	EXPECT_TRUE(channel_ready(0));
	t_note("unknown flag bits are ignored");
	EXPECT_INT(rpma_conn_wait(x.conn, F_ALL, &cq, &is_rcq), 0);
	EXPECT_TRUE(cq == x.cq);
	EXPECT_INT(is_rcq, 0);
	OS_EXPECT_WC(x.conn, 0x501, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(x.conn));
}

/* ---- cq ---- */

static void
bad_rpma_cq_get_fd(void)
{
	int fd = -1;

	BI_GETTER_NULLS(rpma_cq_get_fd, x.cq, int, BI_SENT_INT);
	EXPECT_INT(rpma_cq_get_fd(x.cq, &fd), 0);
	EXPECT_TRUE(fd == compl_fd());
}

static void
bad_rpma_cq_wait(void)
{
	EXPECT_INT(rpma_cq_wait(NULL), INVAL);
	/* the CQs of a connection with a shared channel */
	EXPECT_INT(rpma_cq_wait(x.cq), RPMA_E_SHARED_CHANNEL);
	EXPECT_INT(rpma_cq_wait(x.rcq), RPMA_E_SHARED_CHANNEL);
}

static void
bad_rpma_cq_get_wc(void)
{
	struct ibv_wc wc[2];
	int got = BI_SENT_INT;

	drain_channel();
	t_note("a completion is waiting in the CQ");
	EXPECT_INT(rpma_read(x.conn, NULL, 0, NULL, 0, 0, ALWAYS, OS_CTX(0x601)), 0);
	EXPECT_TRUE(channel_ready(OS_WC_WAIT_MS));
	memset(wc, BI_SENT_BYTE, sizeof(wc));
	EXPECT_INT(rpma_cq_get_wc(NULL, 1, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 1, NULL, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 0, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, -1, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, INT_MIN, wc, &got), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.cq, 2, wc, NULL), INVAL);
	EXPECT_INT(rpma_cq_get_wc(NULL, 0, NULL, NULL), INVAL);
	EXPECT_TRUE(bi_untouched(wc, sizeof(wc)));
	EXPECT_INT(got, BI_SENT_INT);
	t_note("the completion is still there");
	EXPECT_INT(rpma_cq_get_wc(x.cq, 2, wc, &got), 0);
	EXPECT_INT(got, 1);
	EXPECT_INT(wc[0].wr_id, 0x601);
	EXPECT_INT(wc[0].status, IBV_WC_SUCCESS);
	EXPECT_TRUE(bi_untouched(&wc[1], sizeof(wc[1])));
	drain_channel();
}

/* ---- the data path on the main connection ---- */

static void
read_into_model(int k, size_t roff, size_t loff, size_t len)
{
	memcpy(lmodel + loff, model[k] + roff, len);
}

static void
write_into_model(int k, size_t roff, size_t loff, size_t len)
{
	memcpy(model[k] + roff, lmodel + loff, len);
}

static void
bad_rpma_read(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_read(NULL, l, L_DST, r, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, L_DST, r, 0, 8, 0, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, L_DST, r, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, r, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, L_DST, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 8, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_read(NULL, NULL, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(local_ok());

	t_note("unknown flag bits: taken, signalled only with RPMA_F_COMPLETION_ALWAYS's bit");
	if (TAKEN(rpma_read(c, l, L_DST, r, 16, 16, F_BIT7, NEVER)))
		read_into_model(R_FULL, 16, L_DST, 16);
	if (TAKEN(rpma_read(c, l, L_DST + 16, r, 32, 16, F_MIN, NEVER)))
		read_into_model(R_FULL, 32, L_DST + 16, 16);
	if (TAKEN(rpma_read(c, l, L_DST + 32, r, 48, 16, F_ALL, OS_CTX(0x701))))
		read_into_model(R_FULL, 48, L_DST + 32, 16);
	OS_EXPECT_WC(c, 0x701, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(local_ok());

	t_note("a length past 32 bits: the work request carries its low 32 bits");
	if (TAKEN(rpma_read(c, l, L_DST + 64, r, 64, LEN_2_32_PLUS_8, ALWAYS, OS_CTX(0x702))))
		read_into_model(R_FULL, 64, L_DST + 64, 8);
	OS_EXPECT_WC(c, 0x702, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(c));
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_write(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_write(NULL, r, 512, l, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 512, l, L_SRC, 8, 0, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 512, l, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, l, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 512, NULL, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 8, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_write(NULL, NULL, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken, signalled only with RPMA_F_COMPLETION_ALWAYS's bit");
	if (TAKEN(rpma_write(c, r, 512, l, L_SRC, 16, F_BIT7, NEVER)))
		write_into_model(R_FULL, 512, L_SRC, 16);
	if (TAKEN(rpma_write(c, r, 528, l, L_SRC + 16, 16, F_MIN, NEVER)))
		write_into_model(R_FULL, 528, L_SRC + 16, 16);
	if (TAKEN(rpma_write(c, r, 544, l, L_SRC + 32, 16, F_ALL, OS_CTX(0x711))))
		write_into_model(R_FULL, 544, L_SRC + 32, 16);
	OS_EXPECT_WC(c, 0x711, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("a length past 32 bits: the work request carries its low 32 bits");
	if (TAKEN(rpma_write(c, r, 576, l, L_SRC + 64, LEN_2_32_PLUS_8, ALWAYS, OS_CTX(0x712))))
		write_into_model(R_FULL, 576, L_SRC + 64, 8);
	OS_EXPECT_WC(c, 0x712, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(c));
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_write_with_imm(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_write_with_imm(NULL, r, 640, l, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 640, l, L_SRC, 8, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 640, l, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, l, 0, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 640, NULL, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 0, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 0, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 8, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 8, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 0, 0, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(NULL, NULL, 0, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_write_with_imm(c, r, 640, l, L_SRC, 16, F_BIT7, 0x11, NEVER))) {
		write_into_model(R_FULL, 640, L_SRC, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x11);
	}
	if (TAKEN(rpma_write_with_imm(c, r, 656, l, L_SRC + 16, 16, F_MIN, 0x12, NEVER))) {
		write_into_model(R_FULL, 656, L_SRC + 16, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x12);
	}
	if (TAKEN(rpma_write_with_imm(c, r, 672, l, L_SRC + 32, 16, F_ALL, 0x13,
			OS_CTX(0x721)))) {
		write_into_model(R_FULL, 672, L_SRC + 32, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x13);
	}
	OS_EXPECT_WC(c, 0x721, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_atomic_write(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_remote *r = x.r[R_FULL];
	const char a[8] = "ABCDEFG", b[8] = "HIJKLMN";

	EXPECT_INT(rpma_atomic_write(NULL, r, 768, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, NULL, 768, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 768, NULL, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 768, a, 0, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(NULL, NULL, 0, NULL, 0, NEVER), INVAL);
	t_note("offsets that are not a multiple of 8");
	EXPECT_INT(rpma_atomic_write(c, r, 769, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 772, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 775, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, RSIZE + 1, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, SIZE_MAX, a, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken");
	if (TAKEN(rpma_atomic_write(c, r, 768, a, F_BIT7, NEVER)))
		memcpy(model[R_FULL] + 768, a, 8);
	if (TAKEN(rpma_atomic_write(c, r, 776, b, F_MIN, NEVER)))
		memcpy(model[R_FULL] + 776, b, 8);
	if (TAKEN(rpma_atomic_write(c, r, 784, a, F_ALL, OS_CTX(0x731))))
		memcpy(model[R_FULL] + 784, a, 8);
	OS_EXPECT_WC(c, 0x731, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_flush(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_remote *r = x.r[R_FULL], *plain = x.r[R_PLAIN];
	const enum rpma_flush_type vis = RPMA_FLUSH_TYPE_VISIBILITY;
	const enum rpma_flush_type pers = RPMA_FLUSH_TYPE_PERSISTENT;

	EXPECT_INT(rpma_flush(NULL, r, 0, 8, vis, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_flush(c, NULL, 0, 8, vis, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_flush(c, r, 0, 8, vis, 0, NEVER), INVAL);
	EXPECT_INT(rpma_flush(NULL, NULL, 0, 0, vis, 0, NEVER), INVAL);
	t_note("a flush type the connection or the region does not support");
	EXPECT_INT(rpma_flush(c, r, 0, 8, pers, ALWAYS, NEVER), NOSUPP);
	EXPECT_INT(rpma_flush(c, plain, 0, 8, vis, ALWAYS, NEVER), NOSUPP);
	EXPECT_INT(rpma_flush(c, plain, 0, 8, pers, ALWAYS, NEVER), NOSUPP);
	OS_EXPECT_FENCE(c);

	t_note("unknown flush types pass the library");
	if (t_native_flush())
		t_note("... natively: a flush of no placement, which needs no right of the region");
	else
		t_note("... emulated: a read of the region");
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)99, ALWAYS, OS_CTX(0x741)), 0);
	OS_EXPECT_WC(c, 0x741, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)-1, ALWAYS, OS_CTX(0x742)), 0);
	OS_EXPECT_WC(c, 0x742, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)INT_MAX, ALWAYS, OS_CTX(0x743)),
			0);
	OS_EXPECT_WC(c, 0x743, t_flush_opcode(), IBV_WC_SUCCESS);
	t_note("... also on a region without any flush usage");
	EXPECT_INT(rpma_flush(c, plain, 0, 8, (enum rpma_flush_type)99, ALWAYS, OS_CTX(0x744)), 0);
	OS_EXPECT_WC(c, 0x744, t_flush_opcode(), IBV_WC_SUCCESS);
	t_note("lengths are not checked");
	EXPECT_INT(rpma_flush(c, r, 0, 0, vis, ALWAYS, OS_CTX(0x745)), 0);
	OS_EXPECT_WC(c, 0x745, t_flush_opcode(), IBV_WC_SUCCESS);
	if (t_native_flush()) {
		/* the device checks the range: see out_of_range() (0x823) */
		t_note("... natively the device checks [dst_offset, dst_offset + len): "
				"SIZE_MAX bytes are refused, on a fresh connection below");
	} else {
		t_note("... emulated, len plays no part: 8 bytes at dst_offset are read");
		EXPECT_INT(rpma_flush(c, r, 0, SIZE_MAX, vis, ALWAYS, OS_CTX(0x746)), 0);
		OS_EXPECT_WC(c, 0x746, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	}
	t_note("unknown flag bits: taken");
	EXPECT_INT(rpma_flush(c, r, 8, 8, vis, F_BIT7, NEVER), 0);
	EXPECT_INT(rpma_flush(c, r, 16, 8, vis, F_MIN, NEVER), 0);
	EXPECT_INT(rpma_flush(c, r, 24, 8, vis, F_ALL, OS_CTX(0x747)), 0);
	OS_EXPECT_WC(c, 0x747, t_flush_opcode(), IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_conn_apply_remote_peer_cfg(void)
{
	struct rpma_conn *c = x.conn;

	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, x.pcfg), INVAL);
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, NULL), INVAL);
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, NULL), INVAL);
	t_note("nothing was applied: a persistent flush is still refused");
	EXPECT_INT(rpma_flush(c, x.r[R_FULL], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS, NEVER),
			NOSUPP);
	OS_EXPECT_FENCE(c);
	t_note("the real one");
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, x.pcfg), 0);
	if (t_native_flush()) {
		/* the error would break the main connection: see out_of_range() */
		t_note("... natively a persistent flush needs a right the device grants only "
				"on persistent memory: refused, on a fresh connection below");
	} else {
		t_note("... emulated: a read of the region");
		EXPECT_INT(rpma_flush(c, x.r[R_FULL], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS,
				OS_CTX(0x751)), 0);
		OS_EXPECT_WC(c, 0x751, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	}
	EXPECT_INT(rpma_flush(c, x.r[R_PLAIN], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS, NEVER),
			NOSUPP);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_send(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;

	EXPECT_INT(rpma_send(NULL, l, L_SRC, 16, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, l, L_SRC, 16, 0, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_send(NULL, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_send(c, l, L_SRC, 16, F_BIT7, NEVER)))
		want_message(IBV_WC_RECV, 16, -1);
	if (TAKEN(rpma_send(c, l, L_SRC, 24, F_MIN, NEVER)))
		want_message(IBV_WC_RECV, 24, -1);
	if (TAKEN(rpma_send(c, l, L_SRC, 32, F_ALL, OS_CTX(0x761))))
		want_message(IBV_WC_RECV, 32, -1);
	OS_EXPECT_WC(c, 0x761, IBV_WC_SEND, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_send_with_imm(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;

	EXPECT_INT(rpma_send_with_imm(NULL, l, L_SRC, 16, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, l, L_SRC, 16, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 8, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 0, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 0, 0, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(NULL, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	OS_EXPECT_FENCE(c);

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_send_with_imm(c, l, L_SRC, 8, F_BIT7, 0x21, NEVER)))
		want_message(IBV_WC_RECV, 8, 0x21);
	if (TAKEN(rpma_send_with_imm(c, l, L_SRC, 0, F_MIN, 0x22, NEVER)))
		want_message(IBV_WC_RECV, 0, 0x22);
	if (TAKEN(rpma_send_with_imm(c, NULL, 0, 0, F_ALL, 0xFFFFFFFFu, OS_CTX(0x771))))
		want_message(IBV_WC_RECV, 0, 0xFFFFFFFFLL);
	OS_EXPECT_WC(c, 0x771, IBV_WC_SEND, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_recv(void)
{
	struct ibv_wc wc;

	EXPECT_INT(rpma_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x781)), INVAL);
	EXPECT_INT(rpma_recv(x.conn, NULL, 8, 0, OS_CTX(0x782)), INVAL);
	EXPECT_INT(rpma_recv(x.conn, NULL, 0, 8, OS_CTX(0x783)), INVAL);
	EXPECT_INT(rpma_recv(NULL, NULL, 0, 0, OS_CTX(0x784)), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(os_cq_empty(x.conn));
}

static void
bad_rpma_conn_disconnect(void)
{
	EXPECT_INT(rpma_conn_disconnect(NULL), INVAL);
	t_note("the connection still carries a write");
	EXPECT_TRUE(!c_event_pending(x.conn, 0));
	if (TAKEN(rpma_write(x.conn, x.r[R_FULL], 1024, x.mr, L_SRC, 64, ALWAYS, OS_CTX(0x791))))
		write_into_model(R_FULL, 1024, L_SRC, 64);
	OS_EXPECT_WC(x.conn, 0x791, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_conn_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_conn_delete, struct rpma_conn *);
	EXPECT_TRUE(os_cq_empty(x.conn));
	EXPECT_TRUE(c_close(&x.conn));
	t_note("the server got exactly the messages taken");
	expect_receives();
}

/* ---- what the device refuses: one fresh connection each ---- */

static struct rpma_conn *
fresh(void)
{
	struct rpma_conn *c = c_connect(x.peer, NULL, NULL);

	EXPECT_TRUE(c != NULL);
	if (c != NULL)
		nconns++;
	return c;
}

static void
close_fresh(struct rpma_conn **c)
{
	EXPECT_TRUE(os_cq_empty(*c));
	EXPECT_TRUE(c_close(c));
	expect_receives();
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

/*
 * call (on connection c) is taken and its completion, wr_id id, has status
 * st; no byte of either side moved
 */
#define REFUSED(call, id, st) do { \
	struct rpma_conn *c = fresh(); \
	if (c != NULL) { \
		t_int(__FILE__, __LINE__, #call, (call), 0); \
		OS_EXPECT_WC(c, id, 0, st); \
		close_fresh(&c); \
	} \
} while (0)

/*
 * what rxe reports where Linux 6.1 and 6.12 differ (measured alike with both
 * C libraries and ours): a length beyond any region, and a local source
 * past the end of its region
 */
#define RXE_HUGE_LEN (t_kernel() >= 6012 ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_ACCESS_ERR)
#define RXE_LOCAL_SRC_OUT (t_kernel() >= 6012 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_PROT_ERR)

static void
out_of_range(void)
{
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];
	const enum rpma_flush_type vis = RPMA_FLUSH_TYPE_VISIBILITY;
	struct rpma_conn *c;
	struct rpma_cq *cq = BI_SENT(struct rpma_cq *);
	int fd = BI_SENT_INT;

	t_note("a connection without a shared completion channel");
	c = fresh();
	if (c != NULL) {
		EXPECT_INT(rpma_conn_get_compl_fd(c, &fd), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_INT(fd, BI_SENT_INT);
		EXPECT_INT(rpma_conn_wait(c, 0, &cq, NULL), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_INT(rpma_conn_wait(c, F_ALL, &cq, NULL), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_TRUE(cq == BI_SENT(struct rpma_cq *));
		close_fresh(&c);
	}
	t_note("reads: into the local region past its end, from the remote one past its end");
	REFUSED(rpma_read(c, l, LSIZE, r, 0, 8, ALWAYS, OS_CTX(0x801)), 0x801,
			IBV_WC_LOC_PROT_ERR);
	REFUSED(rpma_read(c, l, L_DST, r, RSIZE, 8, ALWAYS, OS_CTX(0x802)), 0x802,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_read(c, l, 0, r, 0, RSIZE + 8, ALWAYS, OS_CTX(0x803)), 0x803,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_read(c, l, 0, r, 0, SIZE_MAX, ALWAYS, OS_CTX(0x804)), 0x804,
			RXE_HUGE_LEN);
	t_note("writes: across the remote end, from past the local end, longer than the region");
	REFUSED(rpma_write(c, r, RSIZE - 4, l, L_SRC, 8, ALWAYS, OS_CTX(0x811)), 0x811,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_write(c, r, 0, l, LSIZE, 8, ALWAYS, OS_CTX(0x812)), 0x812,
			RXE_LOCAL_SRC_OUT);
	REFUSED(rpma_write(c, r, 0, l, 0, RSIZE + 8, ALWAYS, OS_CTX(0x813)), 0x813,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_write_with_imm(c, r, RSIZE, l, L_SRC, 8, ALWAYS, 0x31, OS_CTX(0x814)),
			0x814, IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_atomic_write(c, r, RSIZE, "ABCDEFG", ALWAYS, OS_CTX(0x815)), 0x815,
			IBV_WC_REM_ACCESS_ERR);
	t_note("flushes: past the end, and 4 bytes before it");
	REFUSED(rpma_flush(c, r, RSIZE, 8, vis, ALWAYS, OS_CTX(0x821)), 0x821,
			IBV_WC_REM_ACCESS_ERR);
	if (t_native_flush()) {
		t_note("... natively the range is [dst_offset, dst_offset + len): "
				"the last 4 bytes are in the region");
		c = fresh();
		if (c != NULL) {
			EXPECT_INT(rpma_flush(c, r, RSIZE - 4, 4, vis, ALWAYS, OS_CTX(0x822)), 0);
			OS_EXPECT_WC(c, 0x822, t_flush_opcode(), IBV_WC_SUCCESS);
			close_fresh(&c);
		}
		t_note("... and SIZE_MAX bytes from the start are not");
		REFUSED(rpma_flush(c, r, 0, SIZE_MAX, vis, ALWAYS, OS_CTX(0x823)), 0x823,
				RXE_HUGE_LEN);
		t_note("... a persistent flush: only a region in persistent memory has that right");
		c = fresh();
		if (c != NULL) {
			EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, x.pcfg), 0);
			EXPECT_INT(rpma_flush(c, r, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS,
					OS_CTX(0x751)), 0);
			if (t_persistent_memory()) {
				OS_EXPECT_WC(c, 0x751, t_flush_opcode(), IBV_WC_SUCCESS);
			} else {
				OS_EXPECT_WC(c, 0x751, 0, IBV_WC_REM_ACCESS_ERR);
			}
			close_fresh(&c);
		}
	} else {
		t_note("... emulated, 8 bytes at dst_offset are read: past the end");
		REFUSED(rpma_flush(c, r, RSIZE - 4, 4, vis, ALWAYS, OS_CTX(0x822)), 0x822,
				IBV_WC_REM_ACCESS_ERR);
	}
	t_note("a send longer than the receive");
	REFUSED(rpma_send(c, l, L_SRC, 2 * RECV_LEN, ALWAYS, OS_CTX(0x831)), 0x831,
			IBV_WC_REM_OP_ERR);
}

/* ---- the end: the server stops at a request carrying "END" ---- */

static void
the_end(void)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *c = NULL;
	struct rpma_conn_private_data pd = {end_pdata, sizeof(end_pdata)};

	EXPECT_INT(rpma_conn_req_new(x.peer, t_ip(), t_port(), NULL, &req), 0);
	EXPECT_INT(rpma_conn_req_connect(&req, &pd, &c), 0);
	if (c != NULL) {
		c_expect_event(c, RPMA_CONN_REJECTED);
		EXPECT_INT(rpma_conn_delete(&c), 0);
	}
	EXPECT_INT(SERVER(connections), nconns);
	EXPECT_INT(t_server_join(), 0);
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_err_2str),
	ROW(rpma_utils_conn_event_2str),
	ROW(rpma_log_set_threshold),
	ROW(rpma_log_get_threshold),
	ROW(rpma_log_set_function),
	ROW(rpma_peer_cfg_new),
	ROW(rpma_peer_cfg_set_direct_write_to_pmem),
	ROW(rpma_peer_cfg_get_direct_write_to_pmem),
	ROW(rpma_peer_cfg_get_descriptor),
	ROW(rpma_peer_cfg_get_descriptor_size),
	ROW(rpma_peer_cfg_from_descriptor),
	ROW(rpma_conn_cfg_new),
	ROW(rpma_conn_cfg_set_timeout),
	ROW(rpma_conn_cfg_get_timeout),
	ROW(rpma_conn_cfg_set_cq_size),
	ROW(rpma_conn_cfg_get_cq_size),
	ROW(rpma_conn_cfg_set_rq_size),
	ROW(rpma_conn_cfg_get_rq_size),
	ROW(rpma_conn_cfg_set_sq_size),
	ROW(rpma_conn_cfg_get_sq_size),
	ROW(rpma_conn_cfg_set_rcq_size),
	ROW(rpma_conn_cfg_get_rcq_size),
	ROW(rpma_conn_cfg_set_compl_channel),
	ROW(rpma_conn_cfg_get_compl_channel),
	ROW(rpma_srq_cfg_new),
	ROW(rpma_srq_cfg_set_rq_size),
	ROW(rpma_srq_cfg_get_rq_size),
	ROW(rpma_srq_cfg_set_rcq_size),
	ROW(rpma_srq_cfg_get_rcq_size),
	ROW(rpma_utils_get_ibv_context),
	ROW(rpma_utils_ibv_context_is_odp_capable),
	ROW(rpma_peer_new),
	ROW(rpma_mr_reg),
	ROW(rpma_mr_get_ptr),
	ROW(rpma_mr_get_size),
	ROW(rpma_mr_get_descriptor_size),
	ROW(rpma_mr_get_descriptor),
	ROW(rpma_mr_remote_from_descriptor),
	ROW(rpma_mr_remote_get_size),
	ROW(rpma_mr_remote_get_flush_type),
	ROW(rpma_mr_advise),
	ROW(rpma_srq_new),
	ROW(rpma_srq_get_rcq),
	ROW(rpma_srq_recv),
	ROW(rpma_conn_cfg_set_srq),
	ROW(rpma_conn_cfg_get_srq),
	ROW(rpma_ep_listen),
	ROW(rpma_ep_get_fd),
	ROW(rpma_ep_next_conn_req),
	ROW(rpma_ep_shutdown),
	ROW(rpma_conn_req_new),
	ROW(rpma_conn_req_get_private_data),
	ROW(rpma_conn_req_recv),
	ROW(rpma_conn_req_connect),
	ROW(rpma_conn_req_delete),
	ROW(rpma_conn_get_event_fd),
	ROW(rpma_conn_next_event),
	ROW(rpma_conn_get_private_data),
	ROW(rpma_conn_get_qp_num),
	ROW(rpma_conn_get_cq),
	ROW(rpma_conn_get_rcq),
	ROW(rpma_conn_get_compl_fd),
	ROW(rpma_conn_wait),
	ROW(rpma_cq_get_fd),
	ROW(rpma_cq_wait),
	ROW(rpma_cq_get_wc),
	ROW(rpma_read),
	ROW(rpma_write),
	ROW(rpma_write_with_imm),
	ROW(rpma_atomic_write),
	ROW(rpma_flush),
	ROW(rpma_conn_apply_remote_peer_cfg),
	ROW(rpma_send),
	ROW(rpma_send_with_imm),
	ROW(rpma_recv),
	ROW(rpma_conn_disconnect),
	ROW(rpma_conn_delete),
	STEP("what the device refuses, on fresh connections", out_of_range),
	ROW(rpma_mr_remote_delete),
	ROW(rpma_mr_dereg),
	ROW(rpma_srq_delete),
	ROW(rpma_srq_cfg_delete),
	ROW(rpma_conn_cfg_delete),
	ROW(rpma_peer_cfg_delete),
	STEP("the server stops", the_end),
	ROW(rpma_peer_delete),
};

#define NROWS ((int)(sizeof(rows) / sizeof(rows[0])))

/*
 * the number of rows that name a distinct function of the library under
 * test (the file that provides rpma_err_2str)
 */
static int
distinct_entry_points(void)
{
	Dl_info lib, info;
	int n = 0;

	if (dladdr((void *)rpma_err_2str, &lib) == 0)
		return -1;
	for (int i = 0; i < NROWS; i++) {
		void *sym;
		int dup = 0;

		if (rows[i].name == NULL)
			continue;
		for (int j = 0; j < i; j++)
			dup |= rows[j].name != NULL && strcmp(rows[j].name, rows[i].name) == 0;
		sym = dlsym(RTLD_DEFAULT, rows[i].name);
		if (dup || sym == NULL || dladdr(sym, &info) == 0 ||
				strcmp(info.dli_fname, lib.dli_fname) != 0) {
			fprintf(stderr, "row %s: duplicate or not in the library\n", rows[i].name);
			continue;
		}
		n++;
	}
	return n;
}

/* the client's objects; 0 when one could not be made */
static int
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

int
main(void)
{
	t_begin();
	shm = mmap(NULL, SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (int k = 0; k < R_N; k++) {
		os_fill(shm + k * RSIZE, RSIZE, RSEED(k));
		memcpy(model[k], shm + k * RSIZE, RSIZE);
	}
	(void) t_port();
	c_report_open();
	t_server_start(serve, NULL);

	t_note("the table: one row per entry point of the library");
	EXPECT_INT(distinct_entry_points(), 84);
	if (!setup()) {
		fprintf(stderr, "the client's objects could not be made\n");
		(void) t_end();
		return 1;
	}
	for (int i = 0; i < NROWS; i++) {
		if (rows[i].name != NULL)
			t_note("%s", rows[i].name);
		else
			t_note("-- %s", rows[i].step);
		rows[i].fn();
	}
	free(x.lbuf);
	munmap(shm, SHM_SIZE);
	return t_end();
}
