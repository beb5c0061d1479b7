/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_from_descriptor.c -- mirrors rpma_peer_cfg_from_descriptor(3):
 * INVAL for NULL desc / pcfg_ptr (nothing logged) and for desc_size 0 (an
 * ERROR message), NOMEM (nothing logged), the first byte decides (any
 * non-zero byte means supported), trailing bytes are ignored, the INFO
 * message, the round trip with rpma_peer_cfg_get_descriptor(3), and
 * *pcfg_ptr untouched on every failure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpma_test.h"

static char sentinel_obj;
#define SENTINEL ((struct rpma_peer_cfg *)&sentinel_obj)

/* what the log function received */
#define MAX_LOGS 8
static struct {
	int level;
	int where_ok; /* file_name non-NULL and line_no positive */
	char function[64];
	char message[256];
} logs[MAX_LOGS];
static int nlogs;

static void
log_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	if (nlogs >= MAX_LOGS) {
		nlogs++;
		return;
	}
	logs[nlogs].level = level;
	logs[nlogs].where_ok = file_name != NULL && line_no > 0;
	snprintf(logs[nlogs].function, sizeof(logs[nlogs].function), "%s",
			function_name ? function_name : "(null)");
	va_start(ap, message_format);
	vsnprintf(logs[nlogs].message, sizeof(logs[nlogs].message), message_format, ap);
	va_end(ap);
	nlogs++;
}

static void
expect_one_log(int level, const char *message)
{
	EXPECT_INT(nlogs, 1);
	EXPECT_INT(logs[0].level, level);
	EXPECT_TRUE(logs[0].where_ok);
	EXPECT_STR(logs[0].function, "rpma_peer_cfg_from_descriptor");
	EXPECT_STR(logs[0].message, message);
}

#define MSG_SUPPORTED "INFO: Direct Write To PMem is supported\n"
#define MSG_UNSUPPORTED "INFO: Direct Write To PMem is unsupported\n"
#define MSG_SIZE0 "incorrect size of the descriptor: 0 bytes (should be at least 1 bytes)\n"

/* decodes desc, checks the value and the INFO message, frees the config */
static void
check_decode(const void *desc, size_t desc_size, bool want)
{
	struct rpma_peer_cfg *pcfg = SENTINEL;
	bool supported = !want;

	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(desc, desc_size, &pcfg), 0);
	EXPECT_TRUE(pcfg != NULL && pcfg != SENTINEL);
	expect_one_log(RPMA_LOG_LEVEL_INFO, want ? MSG_SUPPORTED : MSG_UNSUPPORTED);
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	EXPECT_INT(supported, want);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
}

/*
 * NOMEM at the given threshold: every allocation fails (see t_malloc_fail()),
 * in a child so a crash cannot hide the rest
 */
enum { NOMEM_RET, NOMEM_UNTOUCHED, NOMEM_LOGS, NOMEM_USED, NOMEM_N };
static enum rpma_log_level nomem_threshold;

static void
nomem_body(long long *out, int n)
{
	const unsigned char desc[1] = {0x01};
	struct rpma_peer_cfg *pcfg = SENTINEL;

	(void) n;
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, nomem_threshold);
	nlogs = 0;
	t_malloc_fail(T_MALLOC_FAIL_ALL);
	out[NOMEM_RET] = rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &pcfg);
	t_malloc_fail(0);
	out[NOMEM_UNTOUCHED] = pcfg == SENTINEL;
	out[NOMEM_LOGS] = nlogs;
	out[NOMEM_USED] = t_malloc_failed() > 0;
}

static void
check_nomem(enum rpma_log_level threshold)
{
	long long res[NOMEM_N] = {0, 0, -1, 0};

	nomem_threshold = threshold;
	EXPECT_INT(t_in_child(nomem_body, res, NOMEM_N), 0);
	EXPECT_TRUE(res[NOMEM_USED] /* the injected failure was used */);
	EXPECT_INT(res[NOMEM_RET], RPMA_E_NOMEM);
	EXPECT_TRUE(res[NOMEM_UNTOUCHED] /* pcfg_ptr untouched after NOMEM */);
	EXPECT_INT(res[NOMEM_LOGS] /* messages logged */, 0);
}

int
main(void)
{
	t_begin();

	EXPECT_INT(rpma_log_set_function(log_fn), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);

	const unsigned char one[1] = {0x01};
	struct rpma_peer_cfg *pcfg;

	/* ERRORS: RPMA_E_INVAL for NULL desc or pcfg_ptr; nothing logged */
	t_note("NULL arguments");
	pcfg = SENTINEL;
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 1, &pcfg), RPMA_E_INVAL);
	EXPECT_TRUE(pcfg == SENTINEL);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 0, &pcfg), RPMA_E_INVAL);
	EXPECT_TRUE(pcfg == SENTINEL);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, sizeof(one), NULL), RPMA_E_INVAL);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(NULL, 0, NULL), RPMA_E_INVAL);
	EXPECT_INT(nlogs, 0);

	/* ERRORS: RPMA_E_INVAL for desc_size 0, with an ERROR message */
	t_note("desc_size 0");
	pcfg = SENTINEL;
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 0, &pcfg), RPMA_E_INVAL);
	EXPECT_TRUE(pcfg == SENTINEL);
	expect_one_log(RPMA_LOG_LEVEL_ERROR, MSG_SIZE0);
	/* pcfg_ptr pointing to NULL stays NULL */
	pcfg = NULL;
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 0, &pcfg), RPMA_E_INVAL);
	EXPECT_TRUE(pcfg == NULL);
	EXPECT_INT(nlogs, 1);

	/* DESCRIPTION: only the first byte counts, zero = unsupported, else supported */
	t_note("one-byte descriptors");
	static const unsigned char bytes[] = {0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF};
	for (size_t i = 0; i < sizeof(bytes); i++) {
		t_note("byte 0x%02X", bytes[i]);
		check_decode(&bytes[i], 1, bytes[i] != 0);
	}

	/* trailing bytes are ignored */
	t_note("longer buffers");
	const unsigned char zero_then_ones[4] = {0x00, 0x01, 0xFF, 0x80};
	const unsigned char one_then_zeros[4] = {0x01, 0x00, 0x00, 0x00};
	const unsigned char ff_then_zeros[3] = {0xFF, 0x00, 0x00};
	unsigned char big[256];
	memset(big, 0xFF, sizeof(big));
	big[0] = 0x00;
	check_decode(zero_then_ones, sizeof(zero_then_ones), false);
	check_decode(one_then_zeros, sizeof(one_then_zeros), true);
	check_decode(ff_then_zeros, sizeof(ff_then_zeros), true);
	check_decode(big, sizeof(big), false);
	big[0] = 0x80;
	check_decode(big, sizeof(big), true);

	/* no alignment needed */
	check_decode(&zero_then_ones[1], 1, true);

	/* the decoded configuration is a full, separate object */
	t_note("new objects");
	struct rpma_peer_cfg *a = NULL, *b = NULL;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 1, &a), 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 1, &b), 0);
	EXPECT_TRUE(a != NULL && b != NULL && a != b);
	unsigned char out[2] = {0xAA, 0xAA};
	size_t out_size = 0;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(a, &out_size), 0);
	EXPECT_INT(out_size, 1);
	EXPECT_INT(rpma_peer_cfg_get_descriptor(a, out), 0);
	EXPECT_INT(out[0], 0x01);
	EXPECT_INT(out[1], 0xAA);
	EXPECT_INT(rpma_peer_cfg_delete(&a), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&b), 0);

	/* round trip with rpma_peer_cfg_get_descriptor(3) */
	t_note("round trip");
	for (int v = 0; v <= 1; v++) {
		struct rpma_peer_cfg *local = NULL;
		unsigned char desc[1] = {0xAA};
		size_t desc_size = 0;
		EXPECT_INT(rpma_peer_cfg_new(&local), 0);
		EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(local, v), 0);
		EXPECT_INT(rpma_peer_cfg_get_descriptor_size(local, &desc_size), 0);
		EXPECT_INT(rpma_peer_cfg_get_descriptor(local, desc), 0);
		EXPECT_INT(desc[0], v);
		check_decode(desc, desc_size, v);
		EXPECT_INT(rpma_peer_cfg_delete(&local), 0);
	}

	/* the INFO message needs the threshold at INFO; the ERROR one does not */
	t_note("threshold WARNING");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	pcfg = NULL;
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 1, &pcfg), 0);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
	pcfg = SENTINEL;
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 0, &pcfg), RPMA_E_INVAL);
	EXPECT_TRUE(pcfg == SENTINEL);
	expect_one_log(RPMA_LOG_LEVEL_ERROR, MSG_SIZE0);

	t_note("threshold DISABLED");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	nlogs = 0;
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 0, &pcfg), RPMA_E_INVAL);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_from_descriptor(one, 1, &pcfg), 0);
	EXPECT_INT(nlogs, 0);
	EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);

	/* ERRORS: RPMA_E_NOMEM, nothing logged, *pcfg_ptr untouched */
	t_note("NOMEM, threshold WARNING");
	check_nomem(RPMA_LOG_LEVEL_WARNING);
	t_note("NOMEM, threshold INFO");
	check_nomem(RPMA_LOG_LEVEL_INFO);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);

	return t_end();
}
