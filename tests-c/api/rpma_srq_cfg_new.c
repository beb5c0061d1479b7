/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_new.c -- mirrors rpma_srq_cfg_new(3): INVAL for a NULL
 * cfg_ptr, the defaults 20 / 20 (not the documented 100), separate objects,
 * and NOMEM, which stores NULL in *cfg_ptr as upstream's implementation does.
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
#define SENTINEL ((struct rpma_srq_cfg *)&sentinel_obj)

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
		struct rpma_srq_cfg *cfg = SENTINEL;
		close(fds[0]);
		fail_malloc = 1;
		int ret = rpma_srq_cfg_new(&cfg);
		fail_malloc = 0;
		res[0] = ret;
		res[1] = cfg == NULL;
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
	/* ERRORS: RPMA_E_NOMEM, and *cfg_ptr is set to NULL */
	EXPECT_INT(res[0], RPMA_E_NOMEM);
	EXPECT_TRUE(res[1] /* cfg_ptr set to NULL after NOMEM */);
}

int
main(void)
{
	t_begin();

	/* ERRORS: RPMA_E_INVAL for a NULL cfg_ptr */
	EXPECT_INT(rpma_srq_cfg_new(NULL), RPMA_E_INVAL);

	/* RETURN VALUE: 0 and *cfg_ptr points to a new configuration */
	struct rpma_srq_cfg *a = SENTINEL;
	EXPECT_INT(rpma_srq_cfg_new(&a), 0);
	EXPECT_TRUE(a != NULL && a != SENTINEL);

	/* DESCRIPTION / NOTES: the defaults are 20 and 20 */
	uint32_t rq_size = 0, rcq_size = 0;
	EXPECT_INT(rpma_srq_cfg_get_rq_size(a, &rq_size), 0);
	EXPECT_INT(rq_size, 20);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(a, &rcq_size), 0);
	EXPECT_INT(rcq_size, 20);

	/* every call makes a separate object */
	struct rpma_srq_cfg *b = NULL;
	EXPECT_INT(rpma_srq_cfg_new(&b), 0);
	EXPECT_TRUE(b != NULL && b != a);
	EXPECT_INT(rpma_srq_cfg_set_rq_size(a, 7), 0);
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(a, 9), 0);
	EXPECT_INT(rpma_srq_cfg_get_rq_size(b, &rq_size), 0);
	EXPECT_INT(rq_size, 20);
	EXPECT_INT(rpma_srq_cfg_get_rcq_size(b, &rcq_size), 0);
	EXPECT_INT(rcq_size, 20);

	/* ERRORS: RPMA_E_NOMEM */
	check_nomem();

	EXPECT_INT(rpma_srq_cfg_delete(&a), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&b), 0);
	EXPECT_TRUE(a == NULL && b == NULL);

	return t_end();
}
