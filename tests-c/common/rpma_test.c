/* SPDX-License-Identifier: BSD-3-Clause */
/* rpma_test.c -- the check harness of the C tests (see rpma_test.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
