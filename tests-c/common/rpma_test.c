/* SPDX-License-Identifier: BSD-3-Clause */
/* rpma_test.c -- the check harness of the C tests (see rpma_test.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpma_test.h"

static int checks;
static int failures;

void
t_begin(void)
{
	const char *want = getenv("RPMA_TEST_EXPECT_LIB");
	Dl_info info;
	char got_real[PATH_MAX], want_real[PATH_MAX];

	if (want == NULL || *want == '\0') {
		fprintf(stderr, "RPMA_TEST_EXPECT_LIB is not set: refusing to guess which librpma serves this test\n");
		exit(2);
	}
	if (dladdr((void *)rpma_err_2str, &info) == 0 || info.dli_fname == NULL) {
		fprintf(stderr, "dladdr cannot tell where rpma_err_2str comes from\n");
		exit(2);
	}
	if (realpath(info.dli_fname, got_real) == NULL || realpath(want, want_real) == NULL ||
			strcmp(got_real, want_real) != 0) {
		fprintf(stderr, "wrong librpma: loaded %s, expected %s\n", info.dli_fname, want);
		exit(2);
	}
	fprintf(stderr, "librpma under test: %s\n", got_real);
}

int
t_end(void)
{
	printf("%d checks, %d failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}

static void
record(const char *file, int line, const char *expr, int ok)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "FAIL %s:%d: %s\n", file, line, expr);
	}
}

void
t_int(const char *file, int line, const char *expr, long long got, long long want)
{
	printf("%s = %lld\n", expr, got);
	record(file, line, expr, got == want);
	if (got != want)
		fprintf(stderr, "     got %lld, expected %lld\n", got, want);
}

void
t_str(const char *file, int line, const char *expr, const char *got, const char *want)
{
	int ok = got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;

	printf("%s = \"%s\"\n", expr, got ? got : "(null)");
	record(file, line, expr, ok);
	if (!ok)
		fprintf(stderr, "     got \"%s\", expected \"%s\"\n", got ? got : "(null)",
				want ? want : "(null)");
}

void
t_true(const char *file, int line, const char *expr, int cond)
{
	printf("%s : %s\n", expr, cond ? "true" : "false");
	record(file, line, expr, cond);
}

void
t_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * malloc() of every test binary, and so of the library under test too (see
 * rpma_test.h; valgrind needs --soname-synonyms=somalloc=nouserintercepts).
 * malloc_fail_left: 0 = pass everything to glibc, > 0 = that many calls
 * still to refuse, < 0 = refuse every call until disarmed. The tests are
 * single-threaded while armed, so plain volatile counters are enough.
 */
extern void *__libc_malloc(size_t size);
static volatile int malloc_fail_left;
static volatile int malloc_failed_count;
static void (*volatile malloc_watcher)(void *caller);

void *
malloc(size_t size)
{
	int left = malloc_fail_left;
	void (*watch)(void *) = malloc_watcher;

	if (watch)
		watch(__builtin_return_address(0));
	if (left == 0)
		return __libc_malloc(size);
	if (left > 0)
		malloc_fail_left = left - 1;
	malloc_failed_count++;
	return NULL;
}

void
t_malloc_fail(int count)
{
	if (count != 0)
		malloc_failed_count = 0;
	malloc_fail_left = count;
}

int
t_malloc_failed(void)
{
	return malloc_failed_count;
}

void
t_malloc_watch(void (*fn)(void *caller))
{
	malloc_watcher = fn;
}

int
t_in_child(void (*body)(long long *out, int n), long long *out, int n)
{
	size_t want = n > 0 ? (size_t)n * sizeof(*out) : 0, done = 0;
	int fds[2], status = 0;
	pid_t pid;
	ssize_t r;

	/* nothing buffered may be printed twice, by the child and by us */
	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) != 0) {
		perror("t_in_child: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("t_in_child: fork");
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		body(out, n);
		t_malloc_fail(0);
		while (done < want) {
			r = write(fds[1], (const char *)out + done, want - done);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				_exit(3);
			done += (size_t)r;
		}
		_exit(0);
	}
	close(fds[1]);
	while (done < want) {
		r = read(fds[0], (char *)out + done, want - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("t_in_child: waitpid");
			return 1;
		}
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "t_in_child: the child was killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "t_in_child: the child exited with status %d\n",
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 1;
	}
	if (done != want) {
		fprintf(stderr, "t_in_child: the child delivered %zu of %zu bytes\n", done, want);
		return 1;
	}
	return 0;
}

int
t_log_error(void)
{
	static const char desc[1] = {1};
	struct rpma_peer_cfg *cfg = NULL;

	return rpma_peer_cfg_from_descriptor(desc, 0, &cfg) == RPMA_E_INVAL && cfg == NULL ? 0 : -1;
}

int
t_log_info(char byte)
{
	char desc[1] = {byte};
	struct rpma_peer_cfg *cfg = NULL;

	if (rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &cfg) != 0 || cfg == NULL)
		return -1;
	return rpma_peer_cfg_delete(&cfg) == 0 ? 0 : -1;
}

static char captured[4096];
static int saved_stderr = -1;
static FILE *capture_file;

void
t_stderr_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	saved_stderr = dup(2);
	if (capture_file != NULL && saved_stderr >= 0)
		dup2(fileno(capture_file), 2);
}

const char *
t_stderr_end(void)
{
	size_t n;

	fflush(stderr);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
	}
	captured[0] = '\0';
	if (capture_file != NULL) {
		rewind(capture_file);
		n = fread(captured, 1, sizeof(captured) - 1, capture_file);
		captured[n] = '\0';
		fclose(capture_file);
		capture_file = NULL;
	}
	return captured;
}
