/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_hot_path.c -- the data path allocates nothing and takes no lock.
 *
 * This program defines calloc() and friends (malloc() is the harness's,
 * which reports each call here), the pthread lock functions and syscall()
 * itself (registered INTERPOSES, so CMake exports them from the
 * executable and every library of the process calls these). Each counts
 * the calls made from the code of the library under test (the caller's
 * address lies in a mapping of librpma.so.0), then forwards to glibc.
 * Rust's allocator ends in malloc()/posix_memalign(), and its contended
 * locks in syscall(SYS_futex); an uncontended Rust lock makes no call, which
 * is why crates/rpma/tests/hot_path.rs also checks the source has no lock at all.
 *
 * One process holds both ends of a connection over rxe0. After a warm-up,
 * 1000 rounds of every hot-path call run while counting: rpma_read,
 * rpma_write, rpma_write_with_imm, rpma_atomic_write, rpma_flush, rpma_send,
 * rpma_send_with_imm, rpma_recv, rpma_srq_recv and rpma_cq_get_wc (also on
 * an empty queue). Every operation must complete successfully, and the
 * library must have made no counted call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rpma_test.h"
#include "rpma_live.h"

/* ---- counting interposers ---- */

static uintptr_t lib_lo[8], lib_hi[8];
static int lib_maps;
static volatile int counting;
static unsigned long n_alloc, n_lock, n_futex;

static int
from_library(void *caller)
{
	uintptr_t a = (uintptr_t)caller;

	for (int i = 0; i < lib_maps; i++)
		if (a >= lib_lo[i] && a < lib_hi[i])
			return 1;
	return 0;
}

#define COUNT(counter) \
	do { \
		if (counting && from_library(__builtin_return_address(0))) \
			__atomic_add_fetch(&(counter), 1, __ATOMIC_RELAXED); \
	} while (0)

extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* malloc() itself is the harness's (rpma_test.c), which reports here */
static void
malloc_seen(void *caller)
{
	if (counting && from_library(caller))
		__atomic_add_fetch(&n_alloc, 1, __ATOMIC_RELAXED);
}

void *
calloc(size_t n, size_t size)
{
	COUNT(n_alloc);
	return __libc_calloc(n, size);
}

void *
realloc(void *p, size_t size)
{
	COUNT(n_alloc);
	return __libc_realloc(p, size);
}

void
free(void *p)
{
	COUNT(n_alloc);
	__libc_free(p);
}

int
posix_memalign(void **p, size_t align, size_t size)
{
	COUNT(n_alloc);
	*p = __libc_memalign(align, size);
	return *p ? 0 : ENOMEM;
}

void *
aligned_alloc(size_t align, size_t size)
{
	COUNT(n_alloc);
	return __libc_memalign(align, size);
}

void *
memalign(size_t align, size_t size)
{
	COUNT(n_alloc);
	return __libc_memalign(align, size);
}

/*
 * the real functions, looked up at the first call: other libraries'
 * constructors may lock before this program's own constructor would run
 */
static void *
real(void **slot, const char *name)
{
	if (*slot == NULL)
		*slot = dlsym(RTLD_NEXT, name);
	if (*slot == NULL) {
		fprintf(stderr, "hot_path: dlsym(%s) failed\n", name);
		_exit(2);
	}
	return *slot;
}

#define REAL(type, name) ({ static void *slot_; (type)real(&slot_, #name); })

/* int name(type *l): counts a lock, then takes it with the real name */
#define LOCK_FN(name, type) \
int \
name(type *l) \
{ \
	COUNT(n_lock); \
	return REAL(int (*)(type *), name)(l); \
}

LOCK_FN(pthread_mutex_lock, pthread_mutex_t)
LOCK_FN(pthread_mutex_trylock, pthread_mutex_t)
LOCK_FN(pthread_rwlock_rdlock, pthread_rwlock_t)
LOCK_FN(pthread_rwlock_wrlock, pthread_rwlock_t)
LOCK_FN(pthread_spin_lock, pthread_spinlock_t)

long
syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_futex)
		COUNT(n_futex);
	return REAL(long (*)(long, ...), syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* the address ranges of the file that holds rpma_read */
static void
find_library(void)
{
	Dl_info info;
	char line[512], path[400] = "";
	FILE *f;

	if (!dladdr((void *)rpma_read, &info) || info.dli_fname == NULL) {
		fprintf(stderr, "hot_path: dladdr failed\n");
		exit(2);
	}
	f = fopen("/proc/self/maps", "r");
	if (f == NULL) {
		perror("/proc/self/maps");
		exit(2);
	}
	/* the path of the mapping that contains the library's base */
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		char p[400];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %399s",
				&lo, &hi, p) == 3 &&
				(uintptr_t)info.dli_fbase >= lo && (uintptr_t)info.dli_fbase < hi)
			strcpy(path, p);
	}
	rewind(f);
	while (path[0] && fgets(line, sizeof(line), f) && lib_maps < 8) {
		uintptr_t lo, hi;
		char p[400];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s %399s",
				&lo, &hi, p) == 3 && strcmp(p, path) == 0) {
			lib_lo[lib_maps] = lo;
			lib_hi[lib_maps] = hi;
			lib_maps++;
		}
	}
	fclose(f);
	if (lib_maps == 0) {
		fprintf(stderr, "hot_path: no mapping of the library found\n");
		exit(2);
	}
}

/* ---- the connection, both ends in this process ---- */

#define ROUNDS 1000
#define WARMUP 10
#define MSG 64
#define WAIT_MS 10000

/* completions of one round: on the client 7 operations, on the server 3 receives */
#define CLIENT_OPS 7
#define SERVER_RECVS 3

static int
readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

static int
established(struct rpma_conn *conn)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int fd = -1;

	if (rpma_conn_get_event_fd(conn, &fd) || !readable(fd, WAIT_MS))
		return 0;
	return rpma_conn_next_event(conn, &ev) == 0 && ev == RPMA_CONN_ESTABLISHED;
}

/* takes n successful completions from cq; counts empty polls in *empty */
static int
drain(struct rpma_cq *cq, int n, unsigned long *empty)
{
	struct ibv_wc wc[8];
	int got;

	for (long spins = 0; n > 0 && spins < 100000000L; spins++) {
		int r = rpma_cq_get_wc(cq, 8, wc, &got);

		if (r == RPMA_E_NO_COMPLETION) {
			(*empty)++;
			continue;
		}
		if (r != 0)
			return 0;
		for (int i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "hot_path: completion status %d opcode %d\n",
						wc[i].status, wc[i].opcode);
				return 0;
			}
		n -= got;
	}
	return n == 0;
}

struct ends {
	struct rpma_conn *client, *server;
	struct rpma_mr_local *cmr, *smr;
	struct rpma_mr_remote *remote;
	struct rpma_srq *srq;
	struct rpma_cq *ccq, *scq;
};

/* one round of every hot-path call; 1 when all of them completed */
static int
round_trip(struct ends *e, unsigned long *empty)
{
	static const char word[] = "12345678"; /* 8 bytes and the NUL */
	int ok = 1;

	for (int i = 0; i < SERVER_RECVS; i++)
		ok &= rpma_recv(e->server, e->smr, (size_t)(2 + i) * MSG, MSG, NULL) == 0;
	ok &= rpma_srq_recv(e->srq, e->smr, 0, MSG, NULL) == 0;
	ok &= rpma_write(e->client, e->remote, 0, e->cmr, 0, MSG,
			RPMA_F_COMPLETION_ALWAYS, NULL) == 0;
	ok &= rpma_read(e->client, e->cmr, MSG, e->remote, 0, MSG,
			RPMA_F_COMPLETION_ALWAYS, NULL) == 0;
	ok &= rpma_atomic_write(e->client, e->remote, 8, word,
			RPMA_F_COMPLETION_ALWAYS, NULL) == 0;
	ok &= rpma_flush(e->client, e->remote, 0, MSG, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, NULL) == 0;
	ok &= rpma_send(e->client, e->cmr, 0, MSG, RPMA_F_COMPLETION_ALWAYS, NULL) == 0;
	ok &= rpma_send_with_imm(e->client, e->cmr, 0, MSG, RPMA_F_COMPLETION_ALWAYS,
			7, NULL) == 0;
	ok &= rpma_write_with_imm(e->client, e->remote, MSG, e->cmr, 0, MSG,
			RPMA_F_COMPLETION_ALWAYS, 9, NULL) == 0;
	ok &= drain(e->ccq, CLIENT_OPS, empty);
	ok &= drain(e->scq, SERVER_RECVS, empty);
	/* and the empty queue's path once per round */
	struct ibv_wc wc;
	if (rpma_cq_get_wc(e->scq, 1, &wc, NULL) == RPMA_E_NO_COMPLETION)
		(*empty)++;
	else
		ok = 0;
	return ok;
}

/* a set-up step that must succeed; says which one did not */
#define STEP(call) \
	do { \
		int r_ = (call); \
		if (r_ != 0) { \
			fprintf(stderr, "hot_path: %s = %d\n", #call, r_); \
			return 0; \
		} \
	} while (0)

static int
connect_ends(struct rpma_peer *peer, struct ends *e)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *creq = NULL, *sreq = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_srq_cfg *scfg = NULL;
	unsigned char desc[64];
	size_t size = 0;

	STEP(rpma_conn_cfg_new(&cfg));
	STEP(rpma_conn_cfg_set_sq_size(cfg, 16));
	STEP(rpma_conn_cfg_set_rq_size(cfg, 16));
	STEP(rpma_conn_cfg_set_cq_size(cfg, 32));
	STEP(rpma_srq_cfg_new(&scfg));
	STEP(rpma_srq_cfg_set_rq_size(scfg, 2 * (ROUNDS + WARMUP)));
	STEP(rpma_srq_cfg_set_rcq_size(scfg, 0));
	STEP(rpma_srq_new(peer, scfg, &e->srq));
	STEP(rpma_srq_cfg_delete(&scfg));
	STEP(rpma_ep_listen(peer, t_ip(), t_port(), &ep));
	STEP(rpma_conn_req_new(peer, t_ip(), t_port(), cfg, &creq));
	STEP(rpma_conn_req_connect(&creq, NULL, &e->client));
	STEP(rpma_ep_next_conn_req(ep, cfg, &sreq));
	STEP(rpma_conn_req_connect(&sreq, NULL, &e->server));
	/* the client's librdmacm completes the handshake when it takes the
	 * event, so the server's ESTABLISHED comes second */
	STEP(!established(e->client));
	STEP(!established(e->server));
	STEP(rpma_ep_shutdown(&ep));
	STEP(rpma_conn_cfg_delete(&cfg));
	STEP(rpma_mr_reg(peer, malloc(8 * MSG), 8 * MSG,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_SEND, &e->cmr));
	STEP(rpma_mr_reg(peer, malloc(8 * MSG), 8 * MSG,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_RECV,
			&e->smr));
	STEP(rpma_mr_get_descriptor_size(e->smr, &size));
	STEP(size > sizeof(desc));
	STEP(rpma_mr_get_descriptor(e->smr, desc));
	STEP(rpma_mr_remote_from_descriptor(desc, size, &e->remote));
	STEP(rpma_conn_get_cq(e->client, &e->ccq));
	STEP(rpma_conn_get_cq(e->server, &e->scq));
	return 1;
}

int
main(void)
{
	t_begin();
	find_library();
	t_malloc_watch(malloc_seen);

	struct rpma_peer *peer = t_peer();
	struct ends e = {0};
	unsigned long empty = 0;
	int rounds_ok = 0;

	if (!connect_ends(peer, &e)) {
		fprintf(stderr, "hot_path: could not set the connection up\n");
		return 2;
	}
	for (int i = 0; i < WARMUP; i++)
		rounds_ok += round_trip(&e, &empty);
	EXPECT_INT(rounds_ok, WARMUP);

	rounds_ok = 0;
	counting = 1;
	for (int i = 0; i < ROUNDS; i++)
		rounds_ok += round_trip(&e, &empty);
	counting = 0;

	t_note("1000 rounds of read, write, write_with_imm, atomic_write, flush, "
			"send, send_with_imm, 3 x recv, srq_recv and cq_get_wc");
	EXPECT_INT(rounds_ok, ROUNDS);
	EXPECT_TRUE(empty >= ROUNDS); /* the empty-queue path ran too */
	EXPECT_INT(n_alloc, 0);
	EXPECT_INT(n_lock, 0);
	EXPECT_INT(n_futex, 0);

	/* the counters do count: setting up a configuration allocates */
	struct rpma_conn_cfg *cfg = NULL;
	counting = 1;
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0);
	counting = 0;
	EXPECT_TRUE(n_alloc > 0);
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0);

	EXPECT_INT(rpma_conn_disconnect(e.client), 0);
	EXPECT_INT(rpma_conn_delete(&e.client), 0);
	EXPECT_INT(rpma_conn_delete(&e.server), 0);
	EXPECT_INT(rpma_srq_delete(&e.srq), 0);
	EXPECT_INT(rpma_mr_remote_delete(&e.remote), 0);
	EXPECT_INT(rpma_mr_dereg(&e.cmr), 0);
	EXPECT_INT(rpma_mr_dereg(&e.smr), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
