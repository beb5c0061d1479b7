/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumer.c -- a program built against an installed librpma. It checks that
 * the library loaded is the one in RPMA_EXPECT_LIB and that it works.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

int
main(void)
{
	const char *want = getenv("RPMA_EXPECT_LIB");
	char got_real[PATH_MAX], want_real[PATH_MAX];
	struct rpma_conn_cfg *cfg = NULL;
	Dl_info info;
	int timeout = 0;

	if (want == NULL || !dladdr((void *)rpma_conn_cfg_new, &info) ||
			!realpath(info.dli_fname, got_real) || !realpath(want, want_real) ||
			strcmp(got_real, want_real) != 0) {
		fprintf(stderr, "consumer: not served by %s\n", want ? want : "(RPMA_EXPECT_LIB unset)");
		return 1;
	}
	if (rpma_conn_cfg_new(&cfg) || rpma_conn_cfg_get_timeout(cfg, &timeout) ||
			timeout != RPMA_DEFAULT_TIMEOUT_MS || rpma_conn_cfg_delete(&cfg) || cfg != NULL) {
		fprintf(stderr, "consumer: the connection configuration does not behave\n");
		return 1;
	}
	printf("consumer: %s served by %s\n", rpma_err_2str(0), got_real);
	return 0;
}
