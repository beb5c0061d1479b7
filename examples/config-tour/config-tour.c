/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config-tour.c -- what a librpma program sets up before it touches the
 * network: a connection configuration, a peer configuration sent to the
 * other side as a descriptor, and a log function that receives the
 * library's messages. Public API only; exits non-zero on any surprise.
 *
 * usage: config-tour
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <librpma.h>

static char last_message[256];
static enum rpma_log_level last_level = RPMA_LOG_DISABLED;

static void
keep_message(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void)file_name;
	(void)line_no;
	(void)function_name;
	last_level = level;
	va_start(ap, message_format);
	vsnprintf(last_message, sizeof(last_message), message_format, ap);
	va_end(ap);
}

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "config-tour: unexpected: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

int
main(void)
{
	struct rpma_conn_cfg *ccfg = NULL;
	struct rpma_peer_cfg *mine = NULL, *theirs = NULL;
	unsigned char desc[8];
	size_t desc_size = 0;
	uint32_t cq_size = 0, rcq_size = 0;
	int timeout = 0;
	bool direct = false;

	/* connection knobs: a bigger CQ, a separate receive CQ, 5 s to resolve */
	EXPECT(rpma_conn_cfg_new(&ccfg) == 0);
	EXPECT(rpma_conn_cfg_set_timeout(ccfg, 5000) == 0);
	EXPECT(rpma_conn_cfg_set_cq_size(ccfg, 64) == 0);
	EXPECT(rpma_conn_cfg_set_rcq_size(ccfg, 32) == 0);
	EXPECT(rpma_conn_cfg_set_timeout(ccfg, -1) == RPMA_E_INVAL);
	EXPECT(rpma_conn_cfg_get_timeout(ccfg, &timeout) == 0 && timeout == 5000);
	EXPECT(rpma_conn_cfg_get_cq_size(ccfg, &cq_size) == 0 && cq_size == 64);
	EXPECT(rpma_conn_cfg_get_rcq_size(ccfg, &rcq_size) == 0 && rcq_size == 32);
	printf("connection cfg: timeout %d ms, CQ %u, receive CQ %u\n", timeout, cq_size, rcq_size);

	/* a server declares direct write to PMem and ships it as a descriptor */
	EXPECT(rpma_peer_cfg_new(&mine) == 0);
	EXPECT(rpma_peer_cfg_set_direct_write_to_pmem(mine, true) == 0);
	EXPECT(rpma_peer_cfg_get_descriptor_size(mine, &desc_size) == 0 && desc_size <= sizeof(desc));
	EXPECT(rpma_peer_cfg_get_descriptor(mine, desc) == 0);
	printf("peer cfg descriptor: %zu byte(s), first 0x%02x\n", desc_size, desc[0]);

	/* the client rebuilds it; the library says what it read at INFO level */
	EXPECT(rpma_log_set_function(keep_message) == 0);
	EXPECT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO) == 0);
	EXPECT(rpma_peer_cfg_from_descriptor(desc, desc_size, &theirs) == 0);
	EXPECT(rpma_peer_cfg_get_direct_write_to_pmem(theirs, &direct) == 0 && direct);
	EXPECT(last_level == RPMA_LOG_LEVEL_INFO);
	printf("the library logged: %s", last_message);

	/* a truncated descriptor is refused, and nothing is created */
	EXPECT(rpma_peer_cfg_delete(&theirs) == 0 && theirs == NULL);
	EXPECT(rpma_peer_cfg_from_descriptor(desc, 0, &theirs) == RPMA_E_INVAL && theirs == NULL);
	printf("an empty descriptor: %s\n", rpma_err_2str(RPMA_E_INVAL));
	EXPECT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION) == 0);

	EXPECT(rpma_peer_cfg_delete(&mine) == 0 && rpma_conn_cfg_delete(&ccfg) == 0);
	printf("%s: %s\n", rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED), "not yet, that needs a peer");
	return 0;
}
