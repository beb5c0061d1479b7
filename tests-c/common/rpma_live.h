/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_live.h -- helpers for the C tests that need a live RDMA device (the
 * tests under tests-c/live/, run inside the SoftRoCE guest).
 *
 * Infrastructure failures (no RPMA_TESTING_IP, no device, a server that
 * never comes up) end the test with exit status 2, never with a passed or a
 * failed check: they say nothing about the library.
 */
#ifndef RPMA_LIVE_H
#define RPMA_LIVE_H

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

/* the running kernel as major * 1000 + minor (6.12 is 6012) */
int t_kernel(void);

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

#endif /* RPMA_LIVE_H */
