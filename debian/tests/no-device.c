/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * no-device.c -- the installed librpma's calls that need no RDMA device,
 * each checked against its manual page: the error strings, the event
 * names, the connection and SRQ configurations' defaults and setters, a
 * peer configuration's descriptor round trip, the log thresholds, and the
 * refusal of a remote region's descriptor that is too short. Prints one
 * line a failure and exits 1 if there was any.
 */
#include <stdio.h>
#include <string.h>

#include <librpma.h>

static int failures;

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                         \
		}                                                           \
	} while (0)

static void
errors(void)
{
	static const struct {
		int code;
		const char *text;
	} e[] = {
		{RPMA_E_UNKNOWN, "Unknown error"},
		{RPMA_E_NOSUPP, "Not supported"},
		{RPMA_E_PROVIDER, "Provider error occurred"},
		{RPMA_E_NOMEM, "Out of memory"},
		{RPMA_E_INVAL, "Invalid argument"},
		{RPMA_E_NO_COMPLETION, "No next completion available"},
		{RPMA_E_NO_EVENT, "No next event available"},
		{RPMA_E_AGAIN, "Temporary error, try again"},
		{RPMA_E_SHARED_CHANNEL, "Completion channel is shared"},
		{RPMA_E_NOT_SHARED_CHNL, "Completion channel is not shared"},
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		CHECK(strcmp(rpma_err_2str(e[i].code), e[i].text) == 0);
	CHECK(strcmp(rpma_err_2str(-1), "Unknown error") == 0);
	CHECK(strcmp(rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED),
			"Connection established") == 0);
	CHECK(strcmp(rpma_utils_conn_event_2str(RPMA_CONN_CLOSED), "Connection closed") == 0);
}

static void
conn_cfg(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout = 0;
	uint32_t size = 0;
	bool shared = true;

	CHECK(rpma_conn_cfg_new(&cfg) == 0 && cfg != NULL);
	CHECK(rpma_conn_cfg_get_timeout(cfg, &timeout) == 0 && timeout == RPMA_DEFAULT_TIMEOUT_MS);
	CHECK(rpma_conn_cfg_get_cq_size(cfg, &size) == 0 && size == 10);
	CHECK(rpma_conn_cfg_get_rcq_size(cfg, &size) == 0 && size == 0);
	CHECK(rpma_conn_cfg_get_sq_size(cfg, &size) == 0 && size == 10);
	CHECK(rpma_conn_cfg_get_rq_size(cfg, &size) == 0 && size == 10);
	CHECK(rpma_conn_cfg_get_compl_channel(cfg, &shared) == 0 && !shared);
	CHECK(rpma_conn_cfg_set_cq_size(cfg, 64) == 0);
	CHECK(rpma_conn_cfg_get_cq_size(cfg, &size) == 0 && size == 64);
	CHECK(rpma_conn_cfg_set_timeout(cfg, -1) == RPMA_E_INVAL);
	CHECK(rpma_conn_cfg_get_timeout(cfg, &timeout) == 0 && timeout == RPMA_DEFAULT_TIMEOUT_MS);
	CHECK(rpma_conn_cfg_set_timeout(NULL, 5) == RPMA_E_INVAL);
	CHECK(rpma_conn_cfg_delete(&cfg) == 0 && cfg == NULL);
	CHECK(rpma_conn_cfg_delete(&cfg) == 0);
}

static void
srq_cfg(void)
{
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t size = 0;

	CHECK(rpma_srq_cfg_new(&cfg) == 0 && cfg != NULL);
	CHECK(rpma_srq_cfg_set_rq_size(cfg, 7) == 0);
	CHECK(rpma_srq_cfg_get_rq_size(cfg, &size) == 0 && size == 7);
	CHECK(rpma_srq_cfg_set_rcq_size(cfg, 9) == 0);
	CHECK(rpma_srq_cfg_get_rcq_size(cfg, &size) == 0 && size == 9);
	CHECK(rpma_srq_cfg_delete(&cfg) == 0 && cfg == NULL);
}

static void
peer_cfg(void)
{
	struct rpma_peer_cfg *cfg = NULL, *copy = NULL;
	size_t len = 0;
	char desc[64];
	bool pmem = false;

	CHECK(rpma_peer_cfg_new(&cfg) == 0);
	CHECK(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &pmem) == 0 && !pmem);
	CHECK(rpma_peer_cfg_set_direct_write_to_pmem(cfg, true) == 0);
	CHECK(rpma_peer_cfg_get_descriptor_size(cfg, &len) == 0 && len > 0 && len <= sizeof(desc));
	CHECK(rpma_peer_cfg_get_descriptor(cfg, desc) == 0);
	CHECK(rpma_peer_cfg_from_descriptor(desc, len, &copy) == 0);
	CHECK(rpma_peer_cfg_get_direct_write_to_pmem(copy, &pmem) == 0 && pmem);
	CHECK(rpma_peer_cfg_from_descriptor(desc, 0, &copy) == RPMA_E_INVAL);
	CHECK(rpma_peer_cfg_delete(&copy) == 0 && copy == NULL);
	CHECK(rpma_peer_cfg_delete(&cfg) == 0);
}

static void
remote_region_and_log(void)
{
	struct rpma_mr_remote *mr = NULL;
	char desc[4] = {0};
	enum rpma_log_level level = RPMA_LOG_LEVEL_DEBUG;

	CHECK(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr) == RPMA_E_INVAL);
	CHECK(mr == NULL);
	CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR) == 0);
	CHECK(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level) == 0);
	CHECK(level == RPMA_LOG_LEVEL_ERROR);
}

int
main(void)
{
	errors();
	conn_cfg();
	srq_cfg();
	peer_cfg();
	remote_region_and_log();
	printf("%s: %d failed\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
