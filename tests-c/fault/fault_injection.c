/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault_injection.c -- the fault-injection build of our library (cargo
 * feature fault-injection), on the host, no device needed:
 *  - RPMA_FAULT_INJECTION=1 makes the first allocation of a constructor
 *    fail: RPMA_E_NOMEM, output untouched; the next call succeeds;
 *  - with RPMA_FAULT_INJECTION_PANIC, the same call panics inside the
 *    library instead: the entry point's panic boundary turns it into
 *    RPMA_E_UNKNOWN, the process goes on, nothing is written;
 *  - the report at exit counts the calls and the live library heap blocks.
 * Each case runs in a fresh process (the library reads the variables once),
 * this program re-executed with the case's environment.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rpma_test.h"

static char sentinel_obj;
#define SENTINEL ((void *)&sentinel_obj)

/* one constructor per kind of object that needs no device */
static int
construct(int which, void **out)
{
	static const char desc[21] = {[20] = RPMA_MR_USAGE_READ_SRC};

	switch (which) {
	case 0:
		return rpma_peer_cfg_new((struct rpma_peer_cfg **)out);
	case 1:
		return rpma_conn_cfg_new((struct rpma_conn_cfg **)out);
	case 2:
		return rpma_srq_cfg_new((struct rpma_srq_cfg **)out);
	default:
		return rpma_mr_remote_from_descriptor(desc, sizeof(desc),
				(struct rpma_mr_remote **)out);
	}
}

static int
destroy(int which, void **obj)
{
	switch (which) {
	case 0:
		return rpma_peer_cfg_delete((struct rpma_peer_cfg **)obj);
	case 1:
		return rpma_conn_cfg_delete((struct rpma_conn_cfg **)obj);
	case 2:
		return rpma_srq_cfg_delete((struct rpma_srq_cfg **)obj);
	default:
		return rpma_mr_remote_delete((struct rpma_mr_remote **)obj);
	}
}

/*
 * the child: the first call fails with `want`, the second works. On NOMEM
 * rpma_conn_cfg_new and rpma_srq_cfg_new store NULL, as upstream's
 * implementation does; every other failure leaves the output untouched.
 */
static int
child(int which, int want)
{
	void *obj = SENTINEL;
	int ret = construct(which, &obj);
	void *left = (which == 1 || which == 2) && want == RPMA_E_NOMEM ? NULL : SENTINEL;

	if (ret != want || obj != left) {
		fprintf(stderr, "first call: %d (want %d), output %s\n", ret, want,
				obj == SENTINEL ? "untouched" : "written");
		return 1;
	}
	obj = SENTINEL;
	if (construct(which, &obj) != 0 || obj == SENTINEL || obj == NULL)
		return 2;
	if (destroy(which, &obj) != 0 || obj != NULL)
		return 3;
	return 0;
}

/* runs case (which, mode) in a fresh process; returns its exit status */
static int
run_case(const char *self, int which, const char *mode, char *report, size_t len)
{
	int pipefd[2];
	char arg[8];

	if (pipe(pipefd) != 0)
		return -1;
	snprintf(arg, sizeof(arg), "%d", which);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		setenv("RPMA_FAULT_INJECTION", "1", 1);
		/* a backtrace would leave std's symbol caches allocated */
		unsetenv("RUST_BACKTRACE");
		if (strcmp(mode, "panic") == 0)
			setenv("RPMA_FAULT_INJECTION_PANIC", "1", 1);
		execl(self, self, mode, arg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < len && (n = read(pipefd[0], report + got, len - 1 - got)) > 0)
		got += (size_t)n;
	report[got] = '\0';
	close(pipefd[0]);
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
main(int argc, char *argv[])
{
	if (argc == 3) {
		/* a case, in its own process (no t_begin: stdout is not ours) */
		int which = atoi(argv[2]);
		return child(which, strcmp(argv[1], "panic") == 0 ?
				RPMA_E_UNKNOWN : RPMA_E_NOMEM);
	}

	t_begin();
	static const char *names[] = {"rpma_peer_cfg_new", "rpma_conn_cfg_new",
			"rpma_srq_cfg_new", "rpma_mr_remote_from_descriptor"};
	static const char *modes[] = {"fail", "panic"};
	char report[4096];

	for (int which = 0; which < 4; which++) {
		for (int m = 0; m < 2; m++) {
			int rc = run_case("/proc/self/exe", which, modes[m], report,
					sizeof(report));
			t_note("%s, injected %s: exit %d", names[which], modes[m], rc);
			EXPECT_INT(rc, 0);
			/* the library said which call it made fail or panic */
			EXPECT_TRUE(strstr(report, m ? "(malloc) panics" : "(malloc) fails") != NULL);
			/* and at exit: call 1 injected, every block freed */
			EXPECT_TRUE(strstr(report, "injected=1 live-blocks=0") != NULL);
			if (rc != 0 || !strstr(report, "live-blocks=0"))
				fprintf(stderr, "%s", report);
		}
	}
	return t_end();
}
