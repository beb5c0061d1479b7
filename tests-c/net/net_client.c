/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_client.c -- the client side of the lost-peer cases: streams 64-byte
 * writes into net_server's region, QD of them in flight, and reports how
 * and when it learns that the connection is gone.
 *
 * usage: net_client ADDR PORT MODE MARKER-FILE LIMIT-SECONDS [WRITES]
 *
 * MODE is how it waits for completions:
 *   busy       busy-polls rpma_cq_get_wc(), and polls the connection's
 *              event descriptor (non-blocking) between empty polls;
 *   wait       blocks in rpma_cq_wait();
 *   poll       poll(2) on the completion descriptor and the event descriptor;
 *   conn-wait  blocks in rpma_conn_wait() on a shared completion channel;
 *   rnr        instead of the writes, one rpma_send() that the server, which
 *              posts no receive, never takes: busy-polls for its completion
 *              for LIMIT-SECONDS, then deletes everything (how=outstanding
 *              when nothing came).
 * After 1000 completed writes it creates MARKER-FILE (the host then breaks
 * the link or powers the server off). What it learns first, an error
 * completion or a connection event, is printed with the time since the last
 * write completed, then it deletes everything and prints how long that took:
 *   RESULT mode=M how=H detect_s=D teardown_s=T writes_per_s=R
 * Exit 0 then; 3 when nothing was learnt within LIMIT-SECONDS of the marker
 * (a hang); 1 on another failure. Without a break it ends after WRITES
 * (default 20000) writes with "RESULT ... how=none" and exit 0. Until the
 * marker, LIMIT-SECONDS also bounds the connection and the first writes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net.h"

const char *net_side = "client";

#define QD 8
#define LEN 64
#define MARK_AFTER 1000
#define ALL_WRITES 20000 /* unless WRITES says otherwise */

static const char *mode;
static int limit;
static const char *phase = "nothing learnt";

static void
watchdog(int sig)
{
	char msg[128];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "client: %s within %d s\nRESULT mode=%s how=hang\n",
			phase, limit, mode);
	if (write(1, msg, (size_t)n) < 0)
		_exit(4);
	_exit(3);
}

/* 1 when fd is readable within ms milliseconds */
static int
readable(int fd, int ms)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, ms) == 1;
}

int
main(int argc, char *argv[])
{
	struct ibv_context *ctx;
	struct rpma_peer *peer = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_mr_local *src = NULL;
	struct rpma_mr_remote *dst = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_private_data pdata;
	enum rpma_conn_event event;
	struct ibv_wc wc;
	char how[64] = "none";
	static char buf[LEN];
	int ret, evfd, cqfd = -1, inflight = 0, done = 0, marked = 0;
	double last_ok, start;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: %s ADDR PORT busy|wait|poll|conn-wait|rnr MARKER LIMIT [WRITES]\n",
				argv[0]);
		return 2;
	}
	mode = argv[3];
	limit = atoi(argv[5]);
	int all = argc == 7 ? atoi(argv[6]) : ALL_WRITES;

	signal(SIGALRM, watchdog);
	alarm((unsigned)limit);
	int shared = strcmp(mode, "conn-wait") == 0;
	int rnr = strcmp(mode, "rnr") == 0;

	if ((ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx)))
		return net_fail("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(ctx, &peer)))
		return net_fail("rpma_peer_new", ret);
	if ((ret = rpma_mr_reg(peer, buf, LEN, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND, &src)))
		return net_fail("rpma_mr_reg", ret);
	if ((ret = rpma_conn_cfg_new(&cfg)) || (ret = rpma_conn_cfg_set_sq_size(cfg, 2 * QD)) ||
			(shared && (ret = rpma_conn_cfg_set_compl_channel(cfg, true))))
		return net_fail("the connection configuration", ret);
	if ((ret = rpma_conn_req_new(peer, argv[1], argv[2], cfg, &req)))
		return net_fail("rpma_conn_req_new", ret);
	if ((ret = rpma_conn_req_connect(&req, NULL, &conn)))
		return net_fail("rpma_conn_req_connect", ret);
	if ((ret = rpma_conn_next_event(conn, &event)) || event != RPMA_CONN_ESTABLISHED)
		return net_fail("waiting for the connection", ret ? ret : RPMA_E_UNKNOWN);
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) ||
			(ret = rpma_mr_remote_from_descriptor(pdata.ptr, pdata.len, &dst)))
		return net_fail("the server's region", ret);
	if ((ret = rpma_conn_get_cq(conn, &cq)) || (ret = rpma_conn_get_event_fd(conn, &evfd)))
		return net_fail("the completion queue", ret);
	if (strcmp(mode, "poll") == 0 && (ret = rpma_cq_get_fd(cq, &cqfd)))
		return net_fail("rpma_cq_get_fd", ret);
	printf("client: connected, streaming %d-byte writes, %d in flight, waiting by %s\n", LEN,
			QD, mode);
	fflush(stdout);
	start = last_ok = net_now();
	if (rnr) {
		alarm(0);
		/* the server is alive and answers every retry: not a lost peer */
		if ((ret = rpma_send(conn, src, 0, LEN, RPMA_F_COMPLETION_ALWAYS, NULL)))
			return net_fail("rpma_send", ret);
		snprintf(how, sizeof(how), "outstanding");
		while (net_now() - last_ok < limit) {
			ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
			if (ret == RPMA_E_NO_COMPLETION)
				continue;
			if (ret)
				snprintf(how, sizeof(how), "rpma_cq_get_wc:%d", ret);
			else
				snprintf(how, sizeof(how), "wc:%s", ibv_wc_status_str(wc.status));
			break;
		}
		goto learnt;
	}

	while (done < all) {
		while (inflight < QD) {
			ret = rpma_write(conn, dst, (size_t)(done % 1024) * LEN, src, 0, LEN,
					RPMA_F_COMPLETION_ALWAYS, NULL);
			if (ret) {
				snprintf(how, sizeof(how), "rpma_write:%d", ret);
				goto learnt;
			}
			inflight++;
		}
		if (strcmp(mode, "wait") == 0) {
			if ((ret = rpma_cq_wait(cq))) {
				snprintf(how, sizeof(how), "rpma_cq_wait:%d", ret);
				goto learnt;
			}
		} else if (strcmp(mode, "conn-wait") == 0) {
			struct rpma_cq *which;

			if ((ret = rpma_conn_wait(conn, 0, &which, NULL))) {
				snprintf(how, sizeof(how), "rpma_conn_wait:%d", ret);
				goto learnt;
			}
		} else if (strcmp(mode, "poll") == 0) {
			struct pollfd p[2] = {{cqfd, POLLIN, 0}, {evfd, POLLIN, 0}};

			if (poll(p, 2, -1) < 0)
				continue;
			if (p[1].revents)
				goto event;
			if ((ret = rpma_cq_wait(cq))) {
				snprintf(how, sizeof(how), "rpma_cq_wait:%d", ret);
				goto learnt;
			}
		}
		/* take every completion there is; busy mode spins here */
		for (;;) {
			ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
			if (ret == RPMA_E_NO_COMPLETION)
				break;
			if (ret) {
				snprintf(how, sizeof(how), "rpma_cq_get_wc:%d", ret);
				goto learnt;
			}
			inflight--;
			if (wc.status != IBV_WC_SUCCESS) {
				snprintf(how, sizeof(how), "wc:%s", ibv_wc_status_str(wc.status));
				goto learnt;
			}
			done++;
			last_ok = net_now();
			if (done == MARK_AFTER && !marked) {
				close(open(argv[4], O_CREAT | O_WRONLY, 0644));
				alarm((unsigned)limit);
				marked = 1;
			}
		}
		if (strcmp(mode, "busy") == 0 && readable(evfd, 0))
			goto event;
		continue;
event:
		if ((ret = rpma_conn_next_event(conn, &event))) {
			snprintf(how, sizeof(how), "rpma_conn_next_event:%d", ret);
			goto learnt;
		}
		snprintf(how, sizeof(how), "event:%s", rpma_utils_conn_event_2str(event));
		goto learnt;
	}
learnt:;
	double detect = net_now() - last_ok;

	alarm(0);
	printf("client: learnt %s %.3f s after the last write completed (%d writes)\n", how,
			detect, done);
	fflush(stdout);
	/* deleting everything must not hang either */
	phase = "the teardown did not end";
	alarm((unsigned)limit);
	double t0 = net_now();

	(void)rpma_conn_disconnect(conn);
	/*
	 * A stream that ended well is closed politely: the peer still waits for
	 * the disconnect, which loss can make the CM send more than once, so
	 * this guest must not go away before it is acknowledged.
	 */
	if (strcmp(how, "none") == 0 &&
			(rpma_conn_next_event(conn, &event) || event != RPMA_CONN_CLOSED))
		printf("client: the polite close did not end in RPMA_CONN_CLOSED\n");
	(void)rpma_conn_delete(&conn);
	(void)rpma_mr_remote_delete(&dst);
	(void)rpma_mr_dereg(&src);
	(void)rpma_conn_cfg_delete(&cfg);
	(void)rpma_peer_delete(&peer);
	alarm(0);
	printf("RESULT mode=%s how=%s detect_s=%.3f teardown_s=%.3f writes_per_s=%.0f\n", mode,
			how, detect, net_now() - t0, done ? done / (last_ok - start) : 0.0);
	return 0;
}
