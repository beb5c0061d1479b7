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

#endif /* RPMA_TEST_H */
