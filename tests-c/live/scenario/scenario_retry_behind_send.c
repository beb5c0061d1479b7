/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_retry_behind_send.c -- one-sided operations queued behind a send
 * that the device has to send again. The server posts no receive at first,
 * so the client's rpma_send(3) meets a receiver-not-ready NAK; the client
 * has already posted more operations behind it, and the device sends all
 * of them again once its RNR timer fires (the sender side of RoCE goes
 * back to the oldest request not yet acknowledged). The server posts its
 * receive 200 ms later. Checked, for each kind of operation behind the
 * send (one connection each, since a failure ends its queue pair):
 *   1. a write and a read of what it wrote: both succeed, the read reads it;
 *   2. a flush to visibility: it succeeds (IBV_WC_FLUSH where the device
 *      has native flush, IBV_WC_RDMA_READ where it is emulated);
 *   3. an atomic write: it succeeds (IBV_WC_ATOMIC_WRITE natively) and its
 *      8 bytes land.
 * In each, the send succeeds and the server receives the message intact.
 *
 * Debian 13's kernel (rxe on Linux 6.12.117) fails 2 and 3 with both
 * libraries: when it sends a request again, it recomputes the remote
 * address of reads and writes only, and sends a native FLUSH or ATOMIC
 * WRITE again with address 0, which the responder refuses
 * (IBV_WC_REM_ACCESS_ERR). The list of known outcomes says so; librpma(7)
 * tells programs how to avoid it.
 */
#include <string.h>

#include "onesided.h"

#define RSIZE 4096
#define MSG 64
#define LSEED 11
#define RSEED 12
#define WLEN 512
#define ATTEMPTS 3

/* what the server's receive looks like when it came intact */
enum { RECV_OK = 1, RECV_BAD = 2, RECV_NONE = 3 };

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct os_server s = {0};
	struct rpma_conn_cfg *cfg = os_cfg(8, 8);

	S_CHECK(cfg != NULL && rpma_conn_cfg_set_rq_size(cfg, 1) == 0);
	os_srv_reg(peer, &s, RSIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_RECV, RSEED);
	for (int a = 0; a < ATTEMPTS; a++) {
		struct rpma_cq *cq = NULL;
		struct ibv_wc wc;
		int got = RECV_NONE;

		/* no receive is posted until the client has posted its requests */
		os_srv_accept(ep, &s, cfg, 0);
		if (S_CHECK(t_sync_wait() == 0) && s.conn != NULL) {
			t_sleep_ms(200);
			memset(s.buf[0], 0, MSG);
			if (S_CHECK(rpma_recv(s.conn, s.mr[0], 0, MSG, OS_CTX(0x5100)) == 0) &&
					S_CHECK(rpma_conn_get_cq(s.conn, &cq) == 0) &&
					t_cq_wait_ms(cq, 1, &wc, NULL, OS_WC_WAIT_MS) == 0)
				got = wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG &&
					os_is_pattern(s.buf[0], MSG, LSEED, 0) ? RECV_OK : RECV_BAD;
		}
		c_put(got);
		os_srv_report(&s, 0);
		os_srv_closed(&s);
	}
	os_srv_dereg(&s);
	S_CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

/* connects and posts the send its receiver is not ready for */
static struct rpma_conn *
open_with_send(struct rpma_peer *peer, struct rpma_mr_remote **r, struct rpma_mr_local *local)
{
	struct rpma_conn *conn = c_connect(peer, NULL, NULL);

	EXPECT_INT(os_remotes(conn, 1, r), 1);
	EXPECT_INT(rpma_send(conn, local, 0, MSG, RPMA_F_COMPLETION_ALWAYS, OS_CTX(0x5000)), 0);
	return conn;
}

/*
 * once the requests behind the send are posted: lets the server post its
 * receive; the next completion is the send's, successful
 */
static void
release_send(struct rpma_conn *conn)
{
	t_sync_send();
	OS_EXPECT_WC(conn, 0x5000, IBV_WC_SEND, IBV_WC_SUCCESS);
}

/* the server got the message and its region is model; the connection ends */
static void
finish(struct rpma_conn **conn, struct rpma_mr_remote **r, const unsigned char *model)
{
	EXPECT_INT(SERVER(the receive), RECV_OK);
	EXPECT_INT(os_checkpoint(), os_hash(model, RSIZE));
	EXPECT_TRUE(c_close(conn));
	EXPECT_TRUE(os_remotes_delete(1, r));
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *r[1] = {NULL};
	struct rpma_mr_local *local;
	unsigned char model[RSIZE];
	char *lbuf;
	char word[] = "ABCDEFGH"; /* 8 bytes and the NUL */

	t_begin();
	peer = c_start_serving(serve);
	local = os_local(peer, RSIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_SEND, LSEED, (void **)&lbuf);
	os_fill(model, RSIZE, RSEED);
	/* where the write reads from: after the message, a pattern of its own */
	os_fill(lbuf + 1024, WLEN, LSEED + 1);

	t_note("1: a write and a read behind a send the receiver is not ready for");
	conn = open_with_send(peer, r, local);
	EXPECT_INT(rpma_write(conn, r[0], 1024, local, 1024, WLEN, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(0x5001)), 0);
	EXPECT_INT(rpma_read(conn, local, 2048, r[0], 1024, WLEN, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(0x5002)), 0);
	release_send(conn);
	OS_EXPECT_WC(conn, 0x5001, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	OS_EXPECT_WC(conn, 0x5002, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_is_pattern(lbuf + 2048, WLEN, LSEED + 1, 0));
	memcpy(model + 1024, lbuf + 1024, WLEN);
	/* the message, in the receive slot at the region's start from now on */
	memcpy(model, lbuf, MSG);
	finish(&conn, r, model);

	t_note("2: a flush behind a send the receiver is not ready for");
	conn = open_with_send(peer, r, local);
	EXPECT_INT(rpma_flush(conn, r[0], 1024, WLEN, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, OS_CTX(0x5003)), 0);
	release_send(conn);
	OS_EXPECT_WC(conn, 0x5003, t_flush_opcode(), IBV_WC_SUCCESS);
	finish(&conn, r, model);

	t_note("3: an atomic write behind a send the receiver is not ready for");
	conn = open_with_send(peer, r, local);
	EXPECT_INT(rpma_atomic_write(conn, r[0], 2048, word, RPMA_F_COMPLETION_ALWAYS,
			OS_CTX(0x5004)), 0);
	release_send(conn);
	OS_EXPECT_WC(conn, 0x5004, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	memcpy(model + 2048, word, 8);
	finish(&conn, r, model);

	os_local_delete(&local, lbuf);
	return c_end(peer);
}
