/* SPDX-License-Identifier: BSD-3-Clause */
/* rpma_live.c -- helpers for the tests on a live RDMA device (rpma_live.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rpma_live.h"

static void
give_up(const char *what)
{
	fprintf(stderr, "live test setup: %s\n", what);
	exit(2);
}

const char *
t_ip(void)
{
	const char *ip = getenv("RPMA_TESTING_IP");

	if (ip == NULL || *ip == '\0')
		give_up("RPMA_TESTING_IP is not set (run under softroce/rxe-run)");
	return ip;
}

const char *
t_port(void)
{
	static char port[8];

	/* distinct per process, so consecutive tests never share a listener;
	 * 20000-31999 stays below the ephemeral range (32768-60999 in the
	 * guest), from which rdma_cm gives clients their implicit ports. Tests
	 * that run side by side (the lanes of `xtask inside suite`) each get a
	 * part of that range: RPMA_TEST_PORT_BASE and RPMA_TEST_PORT_SPAN. */
	if (port[0] == '\0') {
		const char *b = getenv("RPMA_TEST_PORT_BASE");
		const char *s = getenv("RPMA_TEST_PORT_SPAN");
		int base = b ? atoi(b) : 20000;
		int span = s ? atoi(s) : 12000;

		if (span <= 0)
			span = 12000;
		snprintf(port, sizeof(port), "%d", base + (int)(getpid() % span));
	}
	return port;
}

struct ibv_context *
t_ibv_ctx(void)
{
	struct ibv_context *ctx = NULL;

	if (rpma_utils_get_ibv_context(t_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx) != 0 || ctx == NULL)
		give_up("rpma_utils_get_ibv_context failed");
	return ctx;
}

struct rpma_peer *
t_peer(void)
{
	struct rpma_peer *peer = NULL;

	if (rpma_peer_new(t_ibv_ctx(), &peer) != 0 || peer == NULL)
		give_up("rpma_peer_new failed");
	return peer;
}

/* device_cap_flags_ex bits, named in rdma-core 45 and later only */
#define T_CAP_FLUSH_GLOBAL (1ULL << 38)
#define T_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define T_CAP_ATOMIC_WRITE (1ULL << 40)
/* ibv_wc_opcode values of rdma-core 45 and later */
#define T_WC_FLUSH 8
#define T_WC_ATOMIC_WRITE 9

static uint64_t
cap_flags_ex(void)
{
	static int done;
	static uint64_t flags;
	struct ibv_device_attr_ex attr = {0};

	if (!done) {
		if (ibv_query_device_ex(t_ibv_ctx(), NULL, &attr) != 0)
			give_up("ibv_query_device_ex failed");
		flags = attr.device_cap_flags_ex;
		done = 1;
	}
	return flags;
}

/* the run-time switch of our library (C librpma has none) */
static int
switched_off(const char *var)
{
	const char *v = getenv(var);

	return v != NULL && strcmp(v, "0") == 0;
}

int
t_native_atomic_write(void)
{
	return (cap_flags_ex() & T_CAP_ATOMIC_WRITE) != 0 &&
		!switched_off("RPMA_NATIVE_ATOMIC_WRITE");
}

int
t_native_flush(void)
{
	uint64_t both = T_CAP_FLUSH_GLOBAL | T_CAP_FLUSH_PERSISTENT;

	return (cap_flags_ex() & both) == both && !switched_off("RPMA_NATIVE_FLUSH");
}

int
t_atomic_write_opcode(void)
{
	return t_native_atomic_write() ? T_WC_ATOMIC_WRITE : IBV_WC_RDMA_WRITE;
}

int
t_flush_opcode(void)
{
	return t_native_flush() ? T_WC_FLUSH : IBV_WC_RDMA_READ;
}

/* IBV_ACCESS_FLUSH_GLOBAL and IBV_ACCESS_FLUSH_PERSISTENT of rdma-core 45 */
#define T_ACCESS_FLUSH (3 << 8)

int
t_persistent_memory(void)
{
	static int answer = -1;
	/* heap memory, as the tests' regions are */
	const size_t size = 4096;
	char *buf;
	struct ibv_pd *pd;
	struct ibv_mr *mr = NULL;

	if (answer >= 0)
		return answer;
	if ((cap_flags_ex() & T_CAP_FLUSH_PERSISTENT) == 0)
		return answer = 0;
	buf = aligned_alloc(size, size);
	pd = ibv_alloc_pd(t_ibv_ctx());
	if (buf == NULL || pd == NULL)
		give_up("no memory or protection domain for the persistent-memory probe");
	memset(buf, 0, size);
	mr = ibv_reg_mr(pd, buf, size,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | T_ACCESS_FLUSH);
	answer = mr != NULL;
	if (mr != NULL)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	free(buf);
	return answer;
}

int
t_device_advise(void *buf, size_t size, int access, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	struct ibv_pd *pd = ibv_alloc_pd(t_ibv_ctx());
	struct ibv_mr *mr;
	struct ibv_sge sge;
	int err;

	if (pd == NULL)
		give_up("no protection domain for the advice probe");
	mr = ibv_reg_mr(pd, buf, size, access);
	if (mr == NULL)
		give_up("cannot register the advice probe's region");
	/* what librpma hands the device: one element, the length cut to 32 bits */
	sge.addr = (uint64_t)(uintptr_t)buf + offset;
	sge.length = (uint32_t)len;
	sge.lkey = mr->lkey;
	err = ibv_advise_mr(pd, (enum ibv_advise_mr_advice)advice, flags, &sge, 1);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	return err;
}

int
t_advise_code(int err)
{
	switch (err) {
	case 0:
		return 0;
	case EOPNOTSUPP:
		return RPMA_E_NOSUPP;
	case EINVAL:
	case EFAULT:
		return RPMA_E_INVAL;
	default:
		return RPMA_E_PROVIDER;
	}
}

int
t_device_odp(void)
{
	struct ibv_device_attr_ex attr = {0};

	if (ibv_query_device_ex(t_ibv_ctx(), NULL, &attr) != 0)
		give_up("ibv_query_device_ex failed");
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) != 0;
}

int
t_kernel(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		give_up("uname failed");
	return major * 1000 + minor;
}

/* to_parent: child -> parent; to_child: parent -> child */
static int to_parent[2] = {-1, -1}, to_child[2] = {-1, -1};
static pid_t server_pid = -1;
static int in_child;

static int
read_byte(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char b;

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return read(fd, &b, 1) == 1 ? 0 : -1;
}

static void
write_byte(int fd)
{
	char b = 1;

	if (write(fd, &b, 1) != 1)
		give_up("cannot write to the other process");
}

pid_t
t_fork(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		give_up("fork failed");
	if (pid == 0) {
		dup2(2, 1);
		_exit(fn(arg));
	}
	return pid;
}

int
t_reap(pid_t pid, int ms)
{
	long long end = t_now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0)
			return -1;
		if (t_now_ms() > end)
			break;
		t_sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* the server's fn and arg, for server_main() in the child */
static int (*server_fn)(void *arg);
static void *server_arg;

static int
server_main(void *unused)
{
	(void)unused;
	in_child = 1;
	close(to_parent[0]);
	close(to_child[1]);
	return server_fn(server_arg);
}

void
t_server_start(int (*fn)(void *arg), void *arg)
{
	if (pipe(to_parent) || pipe(to_child))
		give_up("pipe failed");
	(void)t_port(); /* fixed before the fork: both processes share it */
	server_fn = fn;
	server_arg = arg;
	server_pid = t_fork(server_main, NULL);
	close(to_parent[1]);
	close(to_child[0]);
	if (read_byte(to_parent[0], 30000))
		give_up("the server did not start listening");
}

void
t_server_ready(void)
{
	write_byte(to_parent[1]);
}

void
t_sync_send(void)
{
	write_byte(in_child ? to_parent[1] : to_child[1]);
}

int
t_sync_wait(void)
{
	return read_byte(in_child ? to_child[0] : to_parent[0], 30000);
}

int
t_server_join(void)
{
	int r = t_reap(server_pid, 60000);

	server_pid = -1;
	if (r < 0)
		fprintf(stderr, "the server did not end within 60 s\n");
	return r;
}

long long
t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
t_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int
t_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	return r > 0 && (p.revents & POLLIN) ? 1 : 0;
}

void
t_chan_open(int ch[2])
{
	if (pipe(ch) != 0)
		give_up("pipe failed");
}

int
t_chan_put(int fd, const void *p, size_t n)
{
	ssize_t r;

	do
		r = write(fd, p, n);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)n ? 0 : -1;
}

int
t_chan_get(int fd, void *p, size_t n, int ms)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		if (t_readable(fd, ms) != 1)
			return -1;
		r = read(fd, (char *)p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int
t_conn_event(struct rpma_conn *conn, int ms, enum rpma_conn_event *ev)
{
	int fd = -1;
	int r = rpma_conn_get_event_fd(conn, &fd);

	if (r != 0)
		return r;
	if (t_readable(fd, ms) != 1)
		return T_NO_EVENT;
	return rpma_conn_next_event(conn, ev);
}

int
t_cq_wait_ms(struct rpma_cq *cq, int n, struct ibv_wc *wc, int *got, int ms)
{
	long long end = t_now_ms() + ms;
	int ret;

	while ((ret = rpma_cq_get_wc(cq, n, wc, got)) == RPMA_E_NO_COMPLETION &&
			t_now_ms() < end)
		t_sleep_ms(1);
	return ret;
}

int
t_listen(struct rpma_peer *peer, const char *port, struct rpma_ep **ep)
{
	int r = rpma_ep_listen(peer, t_ip(), port, ep);

	if (r == 0)
		t_server_ready();
	return r;
}

int
t_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg, int ms,
		struct rpma_conn_req **req)
{
	if (ms >= 0) {
		int fd = -1;
		int r = rpma_ep_get_fd(ep, &fd);

		if (r != 0)
			return r;
		if (t_readable(fd, ms) != 1)
			return T_NO_EVENT;
	}
	return rpma_ep_next_conn_req(ep, cfg, req);
}

int
t_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, int ms, struct rpma_conn **conn)
{
	struct rpma_conn_req *req = NULL;
	int r = t_next_conn_req(ep, cfg, ms, &req);

	if (r != 0)
		return r;
	return rpma_conn_req_connect(&req, pdata, conn);
}

int
t_request(struct rpma_peer *peer, const char *port, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn)
{
	struct rpma_conn_req *req = NULL;
	int r = rpma_conn_req_new(peer, t_ip(), port, cfg, &req);

	if (r != 0) {
		fprintf(stderr, "t_request: rpma_conn_req_new: %d\n", r);
		return r;
	}
	r = rpma_conn_req_connect(&req, pdata, conn);
	if (r != 0)
		fprintf(stderr, "t_request: rpma_conn_req_connect: %d\n", r);
	return r;
}

int
t_event_is(const char *who, struct rpma_conn *conn, enum rpma_conn_event want, int ms)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = t_conn_event(conn, ms, &ev);

	if (ret != 0 || ev != want) {
		fprintf(stderr, "%s: waited for %s, got ret %d event %s\n", who,
				rpma_utils_conn_event_2str(want), ret,
				rpma_utils_conn_event_2str(ev));
		return 0;
	}
	return 1;
}
