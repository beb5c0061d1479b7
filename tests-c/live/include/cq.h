/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.h -- helpers shared by the live tests of the "cq" group
 * (rpma_cq_get_wc.c, rpma_cq_wait.c, rpma_cq_get_fd.c, rpma_conn_wait.c,
 * scenario_shared_channel.c), on top of conn.h.
 *
 * These tests need completions on demand, at known moments. The server
 * started by cq_start() is a peer the parent drives: the parent sends it
 * one command at a time over a pipe of its own (cq_cmd()), and the server
 * answers through conn.h's report pipe (SERVER(...) in the parent). Every
 * connection it accepts carries, in its private data, the descriptors of
 * two 4 KiB regions filled with a known pattern: CQ_RW, which the client
 * may read and write, and CQ_RO, which it may only read. So the client
 * makes completions on its main CQ by itself (rpma_write(3) and
 * rpma_read(3) into these regions; one into CQ_RW can never fail, one
 * that writes CQ_RO always does), and asks the server to send it a message
 * (CQ_SEND, CQ_SEND_IMM: a receive completion for the client) or to post
 * a receive for a message of its own (CQ_RECV, then CQ_RECV_DONE).
 *
 * The helpers call rpma_write(), rpma_read(), rpma_send(),
 * rpma_send_with_imm(), rpma_recv(), rpma_cq_get_wc() and
 * rpma_mr_remote_from_descriptor(); each test names the ones it relies on
 * in its own text, so CMake sees them.
 */
#ifndef CQ_H
#define CQ_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "conn.h"

/* every buffer of these tests */
#define CQ_BUF_SIZE 4096
/* the size of a memory-region descriptor */
#define CQ_DESC_SIZE 21
/* the length of every message, in both directions */
#define CQ_MSG_LEN 16
/* the immediate data of CQ_SEND_IMM (as the receiver reads it after ntohl()) */
#define CQ_IMM 0x12345678u

/* the client's buffer (cq_local()): where things are */
#define CQ_L_WRITE 0	/* the source of writes, 512 bytes of pattern 'C' */
#define CQ_L_READ 1024	/* the destination of reads */
#define CQ_L_RECV 2048	/* the destination of receives */
#define CQ_L_SEND 3072	/* the source of sends, 64 bytes of pattern 'M' */
#define CQ_L_USAGE (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC | \
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* the server's regions, in the order of their descriptors in the private data */
enum { CQ_RW, CQ_RO, CQ_NREGIONS };
/* the seed of each region's pattern */
#define CQ_SEED_RW 'R'
#define CQ_SEED_RO 'O'
/* the seed of the server's messages */
#define CQ_SEED_SRV 'S'
/* where the server receives the client's messages in its message buffer */
#define CQ_S_RECV 2048
/* the op_context of every operation the command server posts */
#define CQ_SRV_CTX ((const void *)(uintptr_t)0x5E)

/* sentinels: "the output was not written" */
static char cq_sentinel_obj T_UNUSED;
#define CQ_SENTINEL ((struct rpma_cq *)&cq_sentinel_obj)
#define CQ_INT_SENTINEL (-77)
#define CQ_POISON 0xA5

/* an op_context made of a number (it comes back as ibv_wc.wr_id) */
#define CQ_CTX(n) ((const void *)(uintptr_t)(n))

/* ---- patterns, time ---- */

/* byte i of the pattern seed */
static inline unsigned char
cq_byte(int seed, size_t i)
{
	return (unsigned char)(seed + 7 * i);
}

/* bytes start..start+len-1 of the pattern seed, at p */
static inline void
cq_fill(void *p, size_t start, size_t len, int seed)
{
	unsigned char *b = p;

	for (size_t k = 0; k < len; k++)
		b[k] = cq_byte(seed, start + k);
}

/* 1 when p holds bytes start..start+len-1 of the pattern seed */
static inline int
cq_holds(const void *p, size_t start, size_t len, int seed)
{
	const unsigned char *b = p;

	for (size_t k = 0; k < len; k++)
		if (b[k] != cq_byte(seed, start + k))
			return 0;
	return 1;
}

/*
 * CQ_BOUNDED(call): the value of a call that may block (rpma_cq_wait(3),
 * rpma_conn_wait(3) on a blocking descriptor); one that has not returned
 * after 3 * C_WAIT_MS ends the process by SIGALRM, so a wait that never
 * returns fails the test instead of hanging it.
 */
#define CQ_BOUNDED(call) __extension__({ \
	alarm(3 * C_WAIT_MS / 1000); \
	int cq_r_ = (call); \
	alarm(0); \
	cq_r_; \
})

/* ---- completions and descriptors ---- */

/* fill n entries with CQ_POISON bytes */
static inline void
cq_poison(struct ibv_wc *wc, int n)
{
	memset(wc, CQ_POISON, (size_t)n * sizeof(*wc));
}

/* 1 when the n entries still hold nothing but CQ_POISON bytes */
static inline int
cq_poisoned(const struct ibv_wc *wc, int n)
{
	const unsigned char *b = (const unsigned char *)wc;

	for (size_t k = 0; k < (size_t)n * sizeof(*wc); k++)
		if (b[k] != CQ_POISON)
			return 0;
	return 1;
}

/* t_cq_wait_ms() for at most C_WAIT_MS (a name the tests print) */
static inline int
cq_get_wc_within(struct rpma_cq *cq, int n, struct ibv_wc *wc, int *got)
{
	return t_cq_wait_ms(cq, n, wc, got, C_WAIT_MS);
}

/* 1 when fd is readable within timeout_ms (0: right now); a name the tests print */
static inline int
cq_readable(int fd, int timeout_ms)
{
	return t_readable(fd, timeout_ms) == 1;
}

/* switches fd to non-blocking mode; 0 on success */
static inline int
cq_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags == -1 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* 1 when fd is in blocking mode */
static inline int
cq_blocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags != -1 && !(flags & O_NONBLOCK);
}

/*
 * 1 once p holds bytes start..start+len-1 of the pattern seed, which is
 * awaited for at most C_WAIT_MS, plus 100 ms of grace: the data of an RDMA
 * read is in place just before its completion is queued, and every
 * operation posted before it has completed by then
 */
static inline int
cq_data_arrived(const void *p, size_t start, size_t len, int seed)
{
	long long end = t_now_ms() + C_WAIT_MS;
	int ok;

	while (!(ok = cq_holds(p, start, len, seed)) && t_now_ms() < end)
		t_sleep_ms(1);
	t_sleep_ms(100);
	return ok;
}

/*
 * CQ_EXPECT_WC(wc, ctx, op): wc is the successful completion, of opcode
 * op, of the operation posted with op_context CQ_CTX(ctx)
 */
#define CQ_EXPECT_WC(wc, ctx, op) do { \
	EXPECT_INT((wc).status, IBV_WC_SUCCESS); \
	EXPECT_INT((wc).opcode, op); \
	EXPECT_INT((wc).wr_id, ctx); \
} while (0)

/* CQ_EXPECT_GOT(cq, wc, ctx, op): rpma_cq_get_wc() takes that completion into wc */
#define CQ_EXPECT_GOT(cq, wc, ctx, op) do { \
	EXPECT_INT(rpma_cq_get_wc(cq, 1, &wc, NULL), 0); \
	CQ_EXPECT_WC(wc, ctx, op); \
} while (0)

/*
 * CQ_EXPECT_WRITE(conn, rw, mr, ctx): an 8-byte rpma_write() from
 * CQ_L_WRITE of mr to the start of rw, with a completion of op_context
 * CQ_CTX(ctx), is posted
 */
#define CQ_EXPECT_WRITE(conn, rw, mr, ctx) EXPECT_INT(rpma_write(conn, rw, 0, mr, CQ_L_WRITE, 8, \
		RPMA_F_COMPLETION_ALWAYS, CQ_CTX(ctx)), 0)

/* ---- the server (a child, see conn.h) ---- */

/* the command pipe: parent -> server */
static int cq_cmd_fd[2] = {-1, -1};

enum cq_command {
	CQ_ACCEPT = 1,	/* accept the next connection (default configuration) */
	CQ_CLOSED,	/* the client closes: c_closed() the connection */
	CQ_SEND,	/* send CQ_MSG_LEN bytes; reports rpma_send(), its completion */
	CQ_SEND_IMM,	/* the same with immediate data CQ_IMM */
	CQ_RECV,	/* post a receive; reports rpma_recv() */
	CQ_RECV_DONE,	/* reports its completion, byte_len, whether the data arrived */
	CQ_CHECK_RO,	/* reports whether CQ_RO still holds its pattern */
	CQ_QUIT,	/* the end */
};

/* what the server owns: its regions, their descriptors, its message buffer */
static struct {
	void *buf[CQ_NREGIONS];
	struct rpma_mr_local *mr[CQ_NREGIONS];
	unsigned char pdata[CQ_NREGIONS * CQ_DESC_SIZE];
	void *msg;
	struct rpma_mr_local *msg_mr;
} cq_srv;

/*
 * server: registers CQ_RW and CQ_RO (filled with their patterns) and the
 * message buffer (CQ_MSG_LEN bytes of pattern CQ_SEED_SRV to send from),
 * and puts the descriptors into cq_srv.pdata
 */
static inline void
cq_srv_setup(struct rpma_peer *peer)
{
	static const int usage[CQ_NREGIONS] = {
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST,
		RPMA_MR_USAGE_READ_SRC,
	};
	static const int seed[CQ_NREGIONS] = {CQ_SEED_RW, CQ_SEED_RO};

	for (int r = 0; r < CQ_NREGIONS; r++) {
		cq_srv.mr[r] = c_reg_buf(peer, CQ_BUF_SIZE, usage[r], &cq_srv.buf[r]);
		cq_fill(cq_srv.buf[r], 0, CQ_BUF_SIZE, seed[r]);
		S_CHECK(rpma_mr_get_descriptor(cq_srv.mr[r], &cq_srv.pdata[r * CQ_DESC_SIZE]) == 0);
	}
	cq_srv.msg_mr = c_reg_buf(peer, CQ_BUF_SIZE,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &cq_srv.msg);
	cq_fill(cq_srv.msg, 0, CQ_MSG_LEN, CQ_SEED_SRV);
}

/* server: the end of cq_srv_setup() */
static inline void
cq_srv_teardown(void)
{
	for (int r = 0; r < CQ_NREGIONS; r++)
		c_dereg_buf(&cq_srv.mr[r], cq_srv.buf[r]);
	c_dereg_buf(&cq_srv.msg_mr, cq_srv.msg);
}

/* server: the private data with the regions' descriptors */
static inline struct rpma_conn_private_data
cq_srv_pdata(void)
{
	struct rpma_conn_private_data pd = {cq_srv.pdata, sizeof(cq_srv.pdata)};

	return pd;
}

/*
 * server: waits for the completion of its own operation (CQ_SRV_CTX) of
 * opcode op; its status, a negative rpma_cq_get_wc() error, or -1 when
 * the completion was another one
 */
static inline int
cq_srv_completion(struct rpma_cq *cq, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	int ret = cq_get_wc_within(cq, 1, wc, NULL);

	if (ret != 0)
		return ret;
	if (wc->wr_id != (uint64_t)(uintptr_t)CQ_SRV_CTX ||
			(wc->status == IBV_WC_SUCCESS && wc->opcode != op))
		return -1;
	return (int)wc->status;
}

/* server: the next command; -1 when the parent has gone */
static inline int
cq_cmd_next(void)
{
	unsigned char c;

	if (t_chan_get(cq_cmd_fd[0], &c, 1, 12 * C_WAIT_MS) != 0)
		return -1;
	return c;
}

/* the server of cq_start(): runs the parent's commands until CQ_QUIT */
static inline void
cq_serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_private_data pd;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	int cmd, ret, quit = 0;

	close(cq_cmd_fd[1]);
	cq_srv_setup(peer);
	pd = cq_srv_pdata();
	while (!quit) {
		switch ((cmd = cq_cmd_next())) {
		case CQ_ACCEPT:
			conn = c_accept(ep, NULL, &pd);
			cq = NULL;
			S_CHECK(rpma_conn_get_cq(conn, &cq) == 0);
			break;
		case CQ_CLOSED:
			S_CHECK(c_closed(&conn));
			break;
		case CQ_SEND:
		case CQ_SEND_IMM:
			if (cmd == CQ_SEND)
				ret = rpma_send(conn, cq_srv.msg_mr, 0, CQ_MSG_LEN,
						RPMA_F_COMPLETION_ALWAYS, CQ_SRV_CTX);
			else
				ret = rpma_send_with_imm(conn, cq_srv.msg_mr, 0, CQ_MSG_LEN,
						RPMA_F_COMPLETION_ALWAYS, CQ_IMM, CQ_SRV_CTX);
			c_put(ret);
			c_put(ret == 0 ? cq_srv_completion(cq, IBV_WC_SEND, &wc) : ret);
			break;
		case CQ_RECV:
			memset((char *)cq_srv.msg + CQ_S_RECV, 0, CQ_MSG_LEN);
			c_put(rpma_recv(conn, cq_srv.msg_mr, CQ_S_RECV, 64, CQ_SRV_CTX));
			break;
		case CQ_RECV_DONE:
			wc.byte_len = 0;
			c_put(cq_srv_completion(cq, IBV_WC_RECV, &wc));
			c_put(wc.byte_len);
			c_put(cq_holds((char *)cq_srv.msg + CQ_S_RECV, 0, CQ_MSG_LEN, 'M'));
			break;
		case CQ_CHECK_RO:
			c_put(cq_holds(cq_srv.buf[CQ_RO], 0, CQ_BUF_SIZE, CQ_SEED_RO));
			break;
		case CQ_QUIT:
			quit = 1;
			break;
		default:
			S_CHECK(!"a command from the parent");
			quit = 1;
			break;
		}
	}
	if (conn != NULL)
		(void) rpma_conn_delete(&conn);
	cq_srv_teardown();
}

/* ---- the parent ---- */

/* parent: sends the server a command */
static inline void
cq_cmd(enum cq_command cmd)
{
	unsigned char c = (unsigned char)cmd;

	if (t_chan_put(cq_cmd_fd[1], &c, 1) != 0)
		fprintf(stderr, "cq.h: cannot send command %d to the server\n", cmd);
}

/*
 * parent: starts the command server (cq_serve()) in a child; returns a
 * peer of the parent's own
 */
static inline struct rpma_peer *
cq_start(void)
{
	struct rpma_peer *peer;

	t_chan_open(cq_cmd_fd);
	peer = c_start_serving(cq_serve);
	close(cq_cmd_fd[0]);
	return peer;
}

/* parent: a connection the command server accepts; NULL on failure */
static inline struct rpma_conn *
cq_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg)
{
	cq_cmd(CQ_ACCEPT);
	return c_connect(peer, cfg, NULL);
}

/* parent: closes a connection of the command server (checked) */
static inline void
cq_close(struct rpma_conn **conn)
{
	cq_cmd(CQ_CLOSED);
	EXPECT_TRUE(c_close(conn));
}

/*
 * the remote region number which (CQ_RW, CQ_RO) of a connection whose
 * server sent cq_srv_pdata(); NULL when that failed
 */
static inline struct rpma_mr_remote *
cq_remote(const struct rpma_conn *conn, int which)
{
	struct rpma_conn_private_data pd = {NULL, 0};
	struct rpma_mr_remote *mr = NULL;

	if (rpma_conn_get_private_data(conn, &pd) != 0 || pd.ptr == NULL ||
			pd.len < CQ_NREGIONS * CQ_DESC_SIZE)
		return NULL;
	if (rpma_mr_remote_from_descriptor((const char *)pd.ptr + which * CQ_DESC_SIZE,
			CQ_DESC_SIZE, &mr) != 0)
		return NULL;
	return mr;
}

/*
 * parent: conn = cq_connect(peer, cfg), checked; CQ_CONNECT_RW also takes
 * the remote region CQ_RW into rw, checked. Macros, so that each check
 * names the caller's variables.
 */
#define CQ_CONNECT(conn, peer, cfg) do { \
	conn = cq_connect(peer, cfg); \
	EXPECT_TRUE(conn != NULL); \
} while (0)
#define CQ_CONNECT_RW(conn, rw, peer, cfg) do { \
	CQ_CONNECT(conn, peer, cfg); \
	rw = cq_remote(conn, CQ_RW); \
	EXPECT_TRUE(rw != NULL); \
} while (0)

/*
 * CQ_CONNECT_CQ(conn, peer, cfg, cq), CQ_CONNECT_RW_CQ(conn, rw, peer, cfg,
 * cq): CQ_CONNECT(), CQ_CONNECT_RW() and the main CQ into cq
 */
#define CQ_CONNECT_CQ(conn, peer, cfg, cq) do { \
	CQ_CONNECT(conn, peer, cfg); \
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0); \
} while (0)
#define CQ_CONNECT_RW_CQ(conn, rw, peer, cfg, cq) do { \
	CQ_CONNECT_RW(conn, rw, peer, cfg); \
	EXPECT_INT(rpma_conn_get_cq(conn, &cq), 0); \
} while (0)

/* CQ_CLOSE_RW(conn, rw): the end of CQ_CONNECT_RW(), rw deleted, conn closed */
#define CQ_CLOSE_RW(conn, rw) do { \
	EXPECT_INT(rpma_mr_remote_delete(&rw), 0); \
	cq_close(&conn); \
} while (0)

/* CQ_EXPECT_RECV_SENT(conn, mr, ctx): a receive at CQ_L_RECV; the server sends */
#define CQ_EXPECT_RECV_SENT(conn, mr, ctx) do { \
	EXPECT_INT(rpma_recv(conn, mr, CQ_L_RECV, 64, CQ_CTX(ctx)), 0); \
	cq_cmd(CQ_SEND); \
	cq_expect_server_sent(); \
} while (0)

/*
 * parent: the client's buffer (*buf, page-aligned, zeroed but for the
 * write and send sources) registered with CQ_L_USAGE (checked)
 */
static inline struct rpma_mr_local *
cq_local(struct rpma_peer *peer, void **buf)
{
	struct rpma_mr_local *mr = NULL;

	if (posix_memalign(buf, 4096, CQ_BUF_SIZE) != 0) {
		fprintf(stderr, "cq.h: no memory for the buffer\n");
		exit(2);
	}
	memset(*buf, 0, CQ_BUF_SIZE);
	cq_fill((char *)*buf + CQ_L_WRITE, 0, 512, 'C');
	cq_fill((char *)*buf + CQ_L_SEND, 0, 64, 'M');
	EXPECT_INT(rpma_mr_reg(peer, *buf, CQ_BUF_SIZE, CQ_L_USAGE, &mr), 0);
	return mr;
}

/* parent: what the server reported for CQ_SEND / CQ_SEND_IMM */
static inline void
cq_expect_server_sent(void)
{
	EXPECT_INT(SERVER(rpma_send), 0);
	EXPECT_INT(SERVER(the completion of the send), IBV_WC_SUCCESS);
}

/* parent: what the server reported for CQ_RECV_DONE (after CQ_RECV) */
static inline void
cq_expect_server_received(void)
{
	EXPECT_INT(SERVER(the completion of the receive), IBV_WC_SUCCESS);
	EXPECT_INT(SERVER(its byte_len), CQ_MSG_LEN);
	EXPECT_INT(SERVER(the message arrived), 1);
}

/* parent: the end of a test of the command server */
static inline int
cq_end(struct rpma_peer *peer, struct rpma_mr_local *mr, void *buf)
{
	EXPECT_INT(rpma_mr_dereg(&mr), 0);
	free(buf);
	cq_cmd(CQ_QUIT);
	return c_end(peer);
}

#endif /* CQ_H */
