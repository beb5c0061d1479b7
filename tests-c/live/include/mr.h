/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- helpers shared by the live tests of the rpma_mr_* functions:
 * sentinels for "output untouched", a log function that records what the
 * library logs, page-aligned buffers, the usage bits, and encoding/decoding
 * of the 21-byte memory-region descriptor (little-endian address, size and
 * rkey, then the usage byte).
 *
 * Everything here is static and marked unused, so each test includes only
 * what it needs without tripping -Wunused.
 */
#ifndef RPMA_LIVE_MR_H
#define RPMA_LIVE_MR_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpma_test.h"
#include "rpma_live.h"

/* the size of a memory-region descriptor */
#define MR_DESC_SIZE 21
/* byte offsets of its fields */
#define MR_DESC_ADDR 0
#define MR_DESC_SIZE_FIELD 8
#define MR_DESC_RKEY 16
#define MR_DESC_USAGE 20

/* the union of all RPMA_MR_USAGE_* bits */
#define MR_USAGE_ALL 0xFF
/* the flush-type bits of the usage */
#define MR_FLUSH_BITS (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/* sentinels: a failed call must leave these in its output */
static char mr_sentinel_objs[2] T_UNUSED;
#define SENTINEL_LOCAL ((struct rpma_mr_local *)&mr_sentinel_objs[0])
#define SENTINEL_REMOTE ((struct rpma_mr_remote *)&mr_sentinel_objs[1])
#define SENTINEL_PTR ((void *)&mr_sentinel_objs[1])
#define SENTINEL_SIZE ((size_t)0xDEADBEEFCAFEULL)
#define SENTINEL_INT ((int)0x5EADBEEF)

/* the eight usage bits, in order, with their names for t_note() */
static const struct {
	int bit;
	const char *name;
} mr_usages[8] T_UNUSED = {
	{RPMA_MR_USAGE_READ_SRC, "READ_SRC"},
	{RPMA_MR_USAGE_READ_DST, "READ_DST"},
	{RPMA_MR_USAGE_WRITE_SRC, "WRITE_SRC"},
	{RPMA_MR_USAGE_WRITE_DST, "WRITE_DST"},
	{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, "FLUSH_TYPE_VISIBILITY"},
	{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, "FLUSH_TYPE_PERSISTENT"},
	{RPMA_MR_USAGE_SEND, "SEND"},
	{RPMA_MR_USAGE_RECV, "RECV"},
};

/* what the log function received */
#define MR_MAX_LOGS 8
static struct {
	int level;
	int where_ok; /* file_name non-NULL and line_no positive */
	char function[64];
	char message[512];
} mr_logs[MR_MAX_LOGS] T_UNUSED;
static int mr_nlogs T_UNUSED;

static T_UNUSED void
mr_log_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	if (mr_nlogs >= MR_MAX_LOGS) {
		mr_nlogs++;
		return;
	}
	mr_logs[mr_nlogs].level = level;
	mr_logs[mr_nlogs].where_ok = file_name != NULL && line_no > 0;
	snprintf(mr_logs[mr_nlogs].function, sizeof(mr_logs[mr_nlogs].function), "%s",
			function_name ? function_name : "(null)");
	va_start(ap, message_format);
	vsnprintf(mr_logs[mr_nlogs].message, sizeof(mr_logs[mr_nlogs].message),
			message_format, ap);
	va_end(ap);
	mr_nlogs++;
}

/* route the library's messages to mr_log_fn() at the given threshold */
static T_UNUSED void
mr_log_capture(enum rpma_log_level threshold)
{
	EXPECT_INT(rpma_log_set_function(mr_log_fn), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, threshold), 0);
	mr_nlogs = 0;
}

/* back to the library's defaults (before t_end()) */
static T_UNUSED void
mr_log_restore(void)
{
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
}

/* the end of a test: the log back to the defaults, peer deleted, buf freed */
static T_UNUSED int
mr_end(struct rpma_peer *peer, void *buf)
{
	mr_log_restore();
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	free(buf);
	return t_end();
}

/*
 * The ERRORS checks of a getter that writes a size_t through its second
 * argument: INVAL for a NULL object (the output untouched, whether it held
 * the sentinel or 0), for a NULL output and for both; nothing logged. A
 * macro, so each observation line names the getter, obj and var.
 */
#define MR_EXPECT_SIZE_GETTER_NULLS(getter, obj, var) do { \
	mr_nlogs = 0; \
	var = SENTINEL_SIZE; \
	EXPECT_INT(getter(NULL, &var), RPMA_E_INVAL); \
	EXPECT_TRUE(var == SENTINEL_SIZE); \
	var = 0; \
	EXPECT_INT(getter(NULL, &var), RPMA_E_INVAL); \
	EXPECT_INT(var, 0); \
	EXPECT_INT(getter(obj, NULL), RPMA_E_INVAL); \
	EXPECT_INT(getter(NULL, NULL), RPMA_E_INVAL); \
	EXPECT_INT(mr_nlogs, 0); \
} while (0)

/* its RETURN VALUE: 0 and want on every call, var preset to sentinel, then 0 */
#define MR_EXPECT_GOT_TWICE(getter, obj, var, sentinel, want) do { \
	var = sentinel; \
	EXPECT_INT(getter(obj, &var), 0); \
	EXPECT_INT(var, want); \
	var = 0; \
	EXPECT_INT(getter(obj, &var), 0); \
	EXPECT_INT(var, want); \
} while (0)

/*
 * ERRORS: RPMA_E_NOMEM. In a t_in_child() body (a crash cannot hide the other
 * checks): call with every malloc() failing; out[] gets what it did
 */
enum { NOMEM_RET, NOMEM_UNTOUCHED, NOMEM_LOGS, NOMEM_USED, NOMEM_N };
#define MR_NOMEM_RUN(out, call, untouched) do { \
	mr_nlogs = 0; \
	t_malloc_fail(T_MALLOC_FAIL_ALL); \
	out[NOMEM_RET] = (call); \
	t_malloc_fail(0); \
	out[NOMEM_UNTOUCHED] = (untouched); \
	out[NOMEM_LOGS] = mr_nlogs; \
	out[NOMEM_USED] = t_malloc_failed() > 0; \
} while (0)

/* parent: runs nomem_body (MR_NOMEM_RUN()) in a child; NOMEM, nothing logged */
static T_UNUSED void
mr_expect_nomem(void (*nomem_body)(long long *out, int n))
{
	long long res[NOMEM_N] = {0, 0, -1, 0};

	EXPECT_INT(t_in_child(nomem_body, res, NOMEM_N), 0);
	EXPECT_TRUE(res[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(res[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(res[NOMEM_UNTOUCHED] /* mr_ptr untouched after NOMEM */);
	EXPECT_INT(res[NOMEM_LOGS] /* messages logged */, 0);
}

/* true when the message starts with prefix (the rest may be errno text) */
static T_UNUSED int
mr_starts_with(const char *message, const char *prefix)
{
	return strncmp(message, prefix, strlen(prefix)) == 0;
}

/* a zeroed buffer of size bytes aligned to a page; exits 2 when none */
static T_UNUSED void *
mr_buf(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, size) != 0 || p == NULL) {
		fprintf(stderr, "live test setup: no memory for a %zu-byte buffer\n", size);
		exit(2);
	}
	memset(p, 0, size);
	return p;
}

/* t_begin(), *peer, a buffer (for mr_end()), then the log captured (not the peer's INFO) */
static T_UNUSED char *
mr_begin(struct rpma_peer **peer, size_t size)
{
	char *buf;

	t_begin();
	*peer = t_peer();
	buf = mr_buf(size);
	mr_log_capture(RPMA_LOG_LEVEL_DEBUG);
	return buf;
}

/* the n-byte little-endian number at p */
static T_UNUSED uint64_t
mr_get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* v as n little-endian bytes at p */
static T_UNUSED void
mr_put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)(v & 0xFF);
}

static T_UNUSED uint64_t
mr_get_le64(const unsigned char *p)
{
	return mr_get_le(p, 8);
}

static T_UNUSED uint32_t
mr_get_le32(const unsigned char *p)
{
	return (uint32_t)mr_get_le(p, 4);
}

/* encode a descriptor by hand, the way rpma_mr_get_descriptor() lays it out */
static T_UNUSED void
mr_make_desc(unsigned char *desc, uint64_t addr, uint64_t size, uint32_t rkey, uint8_t usage)
{
	mr_put_le(desc + MR_DESC_ADDR, addr, 8);
	mr_put_le(desc + MR_DESC_SIZE_FIELD, size, 8);
	mr_put_le(desc + MR_DESC_RKEY, rkey, 4);
	desc[MR_DESC_USAGE] = usage;
}

/*
 * The NULL cases of a destructor fn(&var): INVAL for a NULL pointer to the
 * object, 0 for var NULL, which stays NULL; nothing logged. A macro, so
 * each observation line names fn and var.
 */
#define MR_EXPECT_DESTRUCTOR_NULLS(fn, var) do { \
	t_note("NULL mr_ptr"); \
	mr_nlogs = 0; \
	EXPECT_INT(fn(NULL), RPMA_E_INVAL); \
	EXPECT_INT(mr_nlogs, 0); \
	t_note("*mr_ptr NULL"); \
	var = NULL; \
	EXPECT_INT(fn(&var), 0); \
	EXPECT_TRUE(var == NULL); \
	EXPECT_INT(mr_nlogs, 0); \
} while (0)

/*
 * fn(&var) destroys the object: 0, var NULL, nothing logged; a second call
 * on the same variable is the NULL case
 */
#define MR_EXPECT_DESTROYED(fn, var) do { \
	mr_nlogs = 0; \
	EXPECT_INT(fn(&var), 0); \
	EXPECT_TRUE(var == NULL); \
	EXPECT_INT(mr_nlogs, 0); \
	EXPECT_INT(fn(&var), 0); \
	EXPECT_TRUE(var == NULL); \
} while (0)

/*
 * a remote object of a hand-made descriptor (written into desc) of 4096
 * bytes at 0x10000, rkey 0x42, with usage
 */
static T_UNUSED struct rpma_mr_remote *
mr_remote_made(unsigned char *desc, uint8_t usage)
{
	struct rpma_mr_remote *remote = NULL;

	mr_make_desc(desc, 0x10000, 4096, 0x42, usage);
	EXPECT_INT(rpma_mr_remote_from_descriptor(desc, MR_DESC_SIZE, &remote), 0);
	return remote;
}

/*
 * rpma_mr_remote_from_descriptor() of the descriptor of a local region;
 * returns the remote object, or NULL (after a failed check) when any step
 * failed
 */
static T_UNUSED struct rpma_mr_remote *
mr_remote_of(const struct rpma_mr_local *mr)
{
	unsigned char desc[MR_DESC_SIZE];
	struct rpma_mr_remote *remote = NULL;

	if (rpma_mr_get_descriptor(mr, desc) != 0 ||
			rpma_mr_remote_from_descriptor(desc, sizeof(desc), &remote) != 0) {
		EXPECT_TRUE(!"descriptor round trip of a local region failed");
		return NULL;
	}
	return remote;
}

/*
 * the usage byte of the descriptor of a registered region (-1 when
 * rpma_mr_get_descriptor() fails)
 */
static T_UNUSED int
mr_desc_usage(const struct rpma_mr_local *mr)
{
	unsigned char desc[MR_DESC_SIZE];

	if (rpma_mr_get_descriptor(mr, desc) != 0)
		return -1;
	return desc[MR_DESC_USAGE];
}

#endif /* RPMA_LIVE_MR_H */
