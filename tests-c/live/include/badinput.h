/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * badinput.h -- helpers of scenario_bad_input.c: sentinels that no call can
 * legitimately store, the checks "a rejected call left its output alone",
 * and the table of entry points (one row per exported function, each with
 * the function that feeds it bad input).
 *
 * Everything is static and marked unused.
 */
#ifndef BADINPUT_H
#define BADINPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rpma_test.h"

#define INVAL RPMA_E_INVAL

/* an object no call hands out: the sentinel of every pointer output */
static char bi_sentinel_obj T_UNUSED;
#define BI_SENT(type) ((type)(void *)&bi_sentinel_obj)
/* sentinels of the scalar outputs */
#define BI_SENT_INT ((int)0x5EADBEEF)
#define BI_SENT_U32 0xDEADBEEFu
#define BI_SENT_SIZE ((size_t)0xDEADBEEFCAFEULL)
/* the byte a bool output or an output buffer is pre-filled with */
#define BI_SENT_BYTE 0xA5

/* 1 when the n bytes at p are all BI_SENT_BYTE */
static T_UNUSED int
bi_untouched(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != BI_SENT_BYTE)
			return 0;
	return 1;
}

/*
 * A getter getter(obj, &out): a NULL object, a NULL output and both are
 * RPMA_E_INVAL, and out keeps the sentinel. A macro, so each observation
 * line names the getter.
 */
#define BI_GETTER_NULLS(getter, obj, type, sent) do { \
	type v_ = (sent); \
	int output_untouched; \
	EXPECT_INT(getter(NULL, &v_), INVAL); \
	output_untouched = v_ == (sent); \
	EXPECT_TRUE(output_untouched); \
	EXPECT_INT(getter((obj), NULL), INVAL); \
	EXPECT_INT(getter(NULL, NULL), INVAL); \
} while (0)

/* the same for an output of a type without a spare value (bool, a struct) */
#define BI_GETTER_NULLS_RAW(getter, obj, type) do { \
	type v_; \
	int output_untouched; \
	memset(&v_, BI_SENT_BYTE, sizeof(v_)); \
	EXPECT_INT(getter(NULL, &v_), INVAL); \
	output_untouched = bi_untouched(&v_, sizeof(v_)); \
	EXPECT_TRUE(output_untouched); \
	EXPECT_INT(getter((obj), NULL), INVAL); \
	EXPECT_INT(getter(NULL, NULL), INVAL); \
} while (0)

/*
 * A destructor fn(&obj): a NULL pointer to the object is RPMA_E_INVAL, a
 * pointer to NULL is 0 and stays NULL.
 */
#define BI_DESTRUCTOR_NULLS(fn, type) do { \
	type v_ = NULL; \
	EXPECT_INT(fn(NULL), INVAL); \
	EXPECT_INT(fn(&v_), 0); \
	EXPECT_TRUE(v_ == NULL); \
} while (0)

/* ---- the table of entry points ---- */

struct bi_row {
	const char *name; /* the entry point, or NULL for a step between rows */
	const char *step; /* what a step does */
	void (*fn)(void);
};

/* ROW(rpma_x): the row of rpma_x, whose bad input bad_rpma_x() feeds */
#define ROW(f) {#f, NULL, bad_##f}
#define STEP(what, fn) {NULL, what, fn}

#endif /* BADINPUT_H */
