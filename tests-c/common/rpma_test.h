/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_test.h -- a small check harness for the C tests.
 *
 * Every check prints one observation line on stdout ("<expression> = <value>")
 * and counts a failure when the value is not the expected one. The
 * differential runner runs each test against two libraries and compares the
 * stdout of both runs, so observations must not contain addresses, file names
 * or anything else that legitimately differs between implementations.
 *
 * t_begin() refuses to run unless RPMA_TEST_EXPECT_LIB names the file that
 * actually provides rpma_* to this process: a test can never pass against a
 * library it did not ask for.
 */
#ifndef RPMA_TEST_H
#define RPMA_TEST_H

#include <limits.h>
#include <stdint.h>

#include <librpma.h>

void t_begin(void);
int t_end(void);

void t_int(const char *file, int line, const char *expr, long long got, long long want);
void t_str(const char *file, int line, const char *expr, const char *got, const char *want);
void t_true(const char *file, int line, const char *expr, int cond);
void t_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* EXPECT_INT(expr, want): expr is an integer expression; prints its value. */
#define EXPECT_INT(expr, want) t_int(__FILE__, __LINE__, #expr, (long long)(expr), (long long)(want))
/* EXPECT_STR(expr, want): both are C strings; prints the string. */
#define EXPECT_STR(expr, want) t_str(__FILE__, __LINE__, #expr, (expr), (want))
/* EXPECT_TRUE(cond): prints whether cond holds. */
#define EXPECT_TRUE(cond) t_true(__FILE__, __LINE__, #cond, !!(cond))

/* T_UNUSED: marks a static helper (or object) that not every including test
 * uses, so -Wunused does not fail the build over it */
#define T_UNUSED __attribute__((unused))

/*
 * Allocation failure (RPMA_E_NOMEM). rpma_test.c provides malloc() itself, so
 * it serves every test binary and the library under test alike; calloc(),
 * realloc() and free() stay glibc's. Unarmed it is a transparent pass-through
 * to glibc's __libc_malloc.
 *
 * t_malloc_fail(count) arms it: the next count calls of malloc() return NULL
 * (T_MALLOC_FAIL_ALL: every call until disarmed); t_malloc_fail(0) disarms.
 * Arming resets the tally that t_malloc_failed() returns: how many calls
 * were really refused, so a test can check its forced failure was used.
 *
 * Under valgrind pass --soname-synonyms=somalloc=nouserintercepts, or
 * valgrind's own allocator replaces this malloc() and no failure can be
 * injected.
 */
#define T_MALLOC_FAIL_ALL (-1)
void t_malloc_fail(int count);
int t_malloc_failed(void);
/* t_malloc_watch(fn): fn(caller) runs at every malloc() with the address
 * malloc() was called from; NULL stops it */
void t_malloc_watch(void (*fn)(void *caller));

/*
 * t_in_child(body, out, n): runs body(out, n) in a forked child, which sends
 * out[0..n-1] back through a pipe into the caller's out. Returns 0 only when
 * the child exited with status 0 and delivered all n values, so a crash of
 * the library is a failed check, not a crashed test; the reason of any other
 * result goes to stderr. The body must not print on stdout (the child's
 * observations would not be counted); it reports through out instead, and
 * the caller checks those values once t_in_child() has returned 0.
 */
int t_in_child(void (*body)(long long *out, int n), long long *out, int n);

/*
 * Make the library log one message, through rpma_peer_cfg_from_descriptor:
 * t_log_error() an ERROR ("incorrect size of the descriptor: 0 bytes ..."),
 * t_log_info(byte) an INFO ("INFO: Direct Write To PMem is supported" for a
 * non-zero byte, "... unsupported" for 0). Each returns 0 when the call
 * behaved as documented and left nothing to free, -1 otherwise.
 */
int t_log_error(void);
int t_log_info(char byte);

/*
 * Capture what is written to file descriptor 2 between t_stderr_begin() and
 * t_stderr_end(); the latter restores stderr and returns the text (at most
 * 4 KiB, valid until the next capture).
 */
void t_stderr_begin(void);
const char *t_stderr_end(void);

/*
 * T_GET_U32(getter, obj): calls getter(obj, &v) with v preset to a sentinel
 * and yields v when the call returns 0, the (negative) return code when it
 * fails, and LLONG_MIN for any other return. No uint32_t can equal the
 * latter two, so EXPECT_INT(T_GET_U32(get, cfg), 64) checks both the return
 * code and the value, and its observation line names the real getter.
 */
#define T_GET_U32(getter, obj) __extension__({ \
	uint32_t t_v_ = 0xDEADBEEF; \
	int t_r_ = getter((obj), &t_v_); \
	t_r_ == 0 ? (long long)t_v_ : t_r_ < 0 ? (long long)t_r_ : LLONG_MIN; \
})

#endif /* RPMA_TEST_H */
