/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_live.h -- helpers for the C tests that need a live RDMA device (the
 * tests under tests-c/live/, run inside the SoftRoCE guest).
 *
 * Infrastructure failures (no RPMA_TESTING_IP, no device, a server that
 * never comes up) end the test with exit status 2, never with a passed or a
 * failed check: they say nothing about the library.
 *
 * This is the one harness of the live tests; the headers of live/include/
 * build their groups' conventions on it. What it holds, in order:
 * - the device: t_ip(), t_port(), t_peer() and what the device offers;
 * - the process pair: t_fork()/t_reap() for any child, t_server_start()/
 *   t_server_ready()/t_server_join() for the usual server, t_sync_*() for a
 *   one-byte rendezvous;
 * - time: t_now_ms(), t_sleep_ms();
 * - the command channel: t_chan_open()/t_chan_put()/t_chan_get(), records
 *   over a pipe, and t_readable();
 * - connections: t_listen(), t_next_conn_req(), t_accept(), t_request();
 * - waiting with deadlines: t_conn_event(), t_event_is(), t_cq_wait_ms().
 * Which library served the process is checked by t_begin() of rpma_test.h
 * (RPMA_TEST_EXPECT_LIB), before any of this runs.
 */
#ifndef RPMA_LIVE_H
#define RPMA_LIVE_H

#include <stdint.h>
#include <sys/types.h>

#include <librpma.h>

/* the address of rxe0 (RPMA_TESTING_IP) */
const char *t_ip(void);
/*
 * a TCP port for this test's listener, as a decimal string; chosen from the
 * pid at the first call, and fixed before t_server_start() forks, so the
 * server and the client agree on it
 */
const char *t_port(void);
/* the verbs context of t_ip(), through rpma_utils_get_ibv_context() */
struct ibv_context *t_ibv_ctx(void);
/* a new peer on t_ibv_ctx() */
struct rpma_peer *t_peer(void);

/*
 * Whether the device of t_ip() offers native RDMA ATOMIC WRITE (bit 40 of
 * device_cap_flags_ex) and native RDMA FLUSH (bits 38 and 39), as read with
 * ibv_query_device_ex: where it does, both libraries (C 1.3.0 and ours)
 * post the native operation, which completes with its own opcode. Our
 * library's switch (RPMA_NATIVE_FLUSH=0, RPMA_NATIVE_ATOMIC_WRITE=0 in the
 * environment) counts as "does not offer"; C librpma has no such switch.
 */
int t_native_atomic_write(void);
int t_native_flush(void);
/* the ibv_wc opcode an atomic write / a flush completes with on this device */
int t_atomic_write_opcode(void);
int t_flush_opcode(void);

/*
 * 1 when the device grants the persistent flush right on this process's
 * memory (rxe does on persistent memory only: the trixie suite runs tests
 * with all their memory there, softroce/rxe-run RXE_PMEM_MB), 0 otherwise
 */
int t_persistent_memory(void);

/*
 * What the device answers to ibv_advise_mr() for len bytes at offset of buf
 * (size bytes), asked through a region of the test's own (its own
 * protection domain, the access flags given): 0, or the errno. The answer
 * depends on the kernel (older rxe refuses every advice, newer rxe carries
 * it out), so tests of rpma_mr_advise() compare with it.
 */
int t_device_advise(void *buf, size_t size, int access, size_t offset, size_t len,
		int advice, uint32_t flags);
/* the RPMA_E_* code librpma makes of that answer (0 for 0) */
int t_advise_code(int err);
/*
 * 1 when the device offers On-Demand Paging (IBV_ODP_SUPPORT). The rxe of
 * Linux 7.2 does, and there ibv_advise_mr() on a region registered without
 * it (as every region of librpma's is, when plain registration works) can
 * oops the kernel, which kills the caller (tests-c/flakes/
 * 2026-12-05-sid-advise-oops.log): tests give no advice on such a device.
 * Older rxe offers no ODP and refuses every advice.
 */
int t_device_odp(void);

/* the running kernel as major * 1000 + minor (6.12 is 6012) */
int t_kernel(void);

/*
 * A child process. t_fork() flushes stdout and stderr, forks, and runs
 * fn(arg) in the child with its stdout sent to stderr (only the parent
 * prints observations); fn's return value is the child's exit status. It
 * returns the child's pid, or exits 2 when it cannot fork. t_reap() waits
 * up to ms for the child to end: its exit status, 128 + the number of the
 * signal that killed it, or -1 when waitpid() fails or the child did not
 * end in time (it is then killed with SIGKILL and collected).
 */
pid_t t_fork(int (*fn)(void *arg), void *arg);
int t_reap(pid_t pid, int ms);

/*
 * A server in a forked child. t_server_start() flushes stdout, forks, and
 * runs fn(arg) in the child with its stdout sent to stderr (only the parent
 * prints observations, so the output of a run stays deterministic). fn calls
 * t_server_ready() once it listens; t_server_start() returns when it has,
 * or exits 2 when the child dies first or 30 s pass. fn's return value is
 * the child's exit status, which t_server_join() returns (128 + signal
 * number when the child was killed, -1 when it did not end in 60 s).
 */
void t_server_start(int (*fn)(void *arg), void *arg);
void t_server_ready(void);
int t_server_join(void);

/*
 * A one-byte rendezvous between the two processes, for steps that must not
 * overlap (for example "the server has deleted its request"). t_sync_send()
 * is called on one side and t_sync_wait() on the other; both directions
 * exist. t_sync_wait() returns 0, or -1 after 30 s or when the other side
 * has gone.
 */
void t_sync_send(void);
int t_sync_wait(void);

/* ---- time ---- */

/* milliseconds of CLOCK_MONOTONIC, for deadlines */
long long t_now_ms(void);
/* sleeps ms milliseconds, resuming after a signal */
void t_sleep_ms(int ms);

/* ---- the command channel: a pipe between the two processes ---- */

/*
 * t_chan_open() makes a pipe ch (exits 2 when it cannot), to be called
 * before the fork so both processes hold it; each side then closes the end
 * it does not use. t_chan_put() writes the n bytes at p to the write end
 * (one record: n must stay below PIPE_BUF so records never interleave) and
 * returns 0, or -1 when they could not all be written. t_chan_get() reads
 * one record of n bytes into p, waiting at most ms for each part of it, and
 * returns 0, or -1 when nothing came in time or the writer has gone.
 */
void t_chan_open(int ch[2]);
int t_chan_put(int fd, const void *p, size_t n);
int t_chan_get(int fd, void *p, size_t n, int ms);

/*
 * 1 when fd becomes readable (POLLIN) within ms (0: right now), 0 when it
 * does not, -1 on a poll error; a signal does not cut the wait short
 */
int t_readable(int fd, int ms);

/* ---- waiting with a deadline ---- */

/* what t_conn_event() returns when no event came in time */
#define T_NO_EVENT 1000

/*
 * The next event of conn, waiting at most ms for its event fd to become
 * readable: rpma_conn_next_event()'s return value (0 with *ev set),
 * T_NO_EVENT when nothing came in time, or the negative error of
 * rpma_conn_get_event_fd() when the fd cannot be had.
 */
int t_conn_event(struct rpma_conn *conn, int ms, enum rpma_conn_event *ev);

/*
 * rpma_cq_get_wc(cq, n, wc, got) every millisecond for as long as it
 * returns RPMA_E_NO_COMPLETION and ms have not passed; its last return
 * value (RPMA_E_NO_COMPLETION when nothing came in time)
 */
int t_cq_wait_ms(struct rpma_cq *cq, int n, struct ibv_wc *wc, int *got, int ms);

/* ---- listening, accepting, connecting (on t_ip()) ---- */

/*
 * server: rpma_ep_listen() on t_ip():port and, when it succeeded,
 * t_server_ready(); rpma_ep_listen()'s return value
 */
int t_listen(struct rpma_peer *peer, const char *port, struct rpma_ep **ep);

/*
 * server: the next connection request of ep, waiting at most ms for ep's
 * fd to become readable first (ms < 0: rpma_ep_next_conn_req() blocks by
 * itself, without a limit); rpma_ep_next_conn_req()'s return value,
 * T_NO_EVENT when no request came in time, or rpma_ep_get_fd()'s error
 */
int t_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, int ms,
		struct rpma_conn_req **req);

/*
 * server: t_next_conn_req() and rpma_conn_req_connect() with pdata (may be
 * NULL), without waiting for ESTABLISHED; 0 with *conn set, or the first
 * step's non-zero return value
 */
int t_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, int ms, struct rpma_conn **conn);

/*
 * client: rpma_conn_req_new() to t_ip():port and rpma_conn_req_connect()
 * with pdata (may be NULL), without waiting for ESTABLISHED; 0 with *conn
 * set, or the first step's non-zero return value (the step is named on
 * stderr)
 */
int t_request(struct rpma_peer *peer, const char *port, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn);

/*
 * 1 when the next event of conn comes within ms and is want; 0 otherwise,
 * with what came instead on stderr (prefixed by who)
 */
int t_event_is(const char *who, struct rpma_conn *conn, enum rpma_conn_event want, int ms);

#endif /* RPMA_LIVE_H */
