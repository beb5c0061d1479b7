/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_peer_cfg_new.c -- mirrors rpma_peer_cfg_new(3): INVAL for a NULL
 * pcfg_ptr, NOMEM when the allocation fails (output untouched), the default
 * (direct write to PMem unsupported) and independent objects.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpma_test.h"

/* malloc fails while fail_malloc is set (used only in a child process) */
extern void *__libc_malloc(size_t size);
static volatile int fail_malloc;

void *
malloc(size_t size)
{
	return fail_malloc ? NULL : __libc_malloc(size);
}

static char sentinel_obj;
#define SENTINEL ((struct rpma_peer_cfg *)&sentinel_obj)

/* the NOMEM case runs in a child so a crash cannot take the other checks with it */
static void
check_nomem(void)
{
	int fds[2];
	int res[2] = {0, 0};
	int status = -1;

	fflush(stdout);
	if (pipe(fds) != 0) {
		EXPECT_TRUE(!"pipe() failed");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct rpma_peer_cfg *pcfg = SENTINEL;
		close(fds[0]);
		fail_malloc = 1;
		int ret = rpma_peer_cfg_new(&pcfg);
		fail_malloc = 0;
		res[0] = ret;
		res[1] = pcfg == SENTINEL;
		if (write(fds[1], res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	ssize_t got = pid > 0 ? read(fds[0], res, sizeof(res)) : -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	EXPECT_TRUE(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_TRUE(got == (ssize_t)sizeof(res));
	/* ERRORS: RPMA_E_NOMEM, *pcfg_ptr keeps its value */
	EXPECT_INT(res[0], RPMA_E_NOMEM);
	EXPECT_TRUE(res[1] /* pcfg_ptr untouched after NOMEM */);
}

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL pcfg_ptr */
	EXPECT_INT(rpma_peer_cfg_new(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and *pcfg_ptr points to a new configuration */
	struct rpma_peer_cfg *a = SENTINEL;
	EXPECT_INT(rpma_peer_cfg_new(&a), 0);
	EXPECT_TRUE(a != NULL && a != SENTINEL);

	/* DESCRIPTION: the default is "direct write to PMem unsupported" */
	bool supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(a, &supported), 0);
	EXPECT_INT(supported, false);
	unsigned char desc[2] = {0xAA, 0xAA};
	EXPECT_INT(rpma_peer_cfg_get_descriptor(a, desc), 0);
	EXPECT_INT(desc[0], 0x00);
	EXPECT_INT(desc[1], 0xAA);
	size_t desc_size = 0;
	EXPECT_INT(rpma_peer_cfg_get_descriptor_size(a, &desc_size), 0);
	EXPECT_INT(desc_size, 1);

	/* every call makes a separate object */
	struct rpma_peer_cfg *b = NULL;
	EXPECT_INT(rpma_peer_cfg_new(&b), 0);
	EXPECT_TRUE(b != NULL && b != a);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(a, true), 0);
	supported = true;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(b, &supported), 0);
	EXPECT_INT(supported, false);
	supported = false;
	EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(a, &supported), 0);
	EXPECT_INT(supported, true);

	/* ERRORS: RPMA_E_NOMEM */
	check_nomem();

	/* released with rpma_peer_cfg_delete(3) */
	EXPECT_INT(rpma_peer_cfg_delete(&a), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&b), 0);
	EXPECT_TRUE(a == NULL && b == NULL);

	return t_end();
}
