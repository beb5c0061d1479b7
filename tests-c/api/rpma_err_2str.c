/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_err_2str.c -- mirrors rpma_err_2str(3): the text of every error code,
 * of success, and of values that are no error code at all (errno values
 * included), the static lifetime of the texts, and calls from several
 * threads at once.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "rpma_test.h"

static const struct {
	int ret;
	const char *text;
} table[] = {
	{0, "Success"},
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
	{-1, "Unknown error"},
	{INT_MIN, "Unknown error"},
};

#define N_TABLE (sizeof(table) / sizeof(table[0]))
#define N_THREADS 8
#define N_ROUNDS 20000

/* per-thread count of answers that differed from the table */
static int mismatches[N_THREADS];

static void *
worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < N_ROUNDS; i++) {
		size_t k = (size_t)(i + id) % N_TABLE;
		const char *s = rpma_err_2str(table[k].ret);

		if (s == NULL || strcmp(s, table[k].text) != 0)
			mismatches[id]++;
	}
	return NULL;
}

int
main(void)
{
	t_begin();

	/* RETURN VALUE: a description of each code */
	EXPECT_STR(rpma_err_2str(0), "Success");
	EXPECT_STR(rpma_err_2str(RPMA_E_UNKNOWN), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOSUPP), "Not supported");
	EXPECT_STR(rpma_err_2str(RPMA_E_PROVIDER), "Provider error occurred");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOMEM), "Out of memory");
	EXPECT_STR(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
	EXPECT_STR(rpma_err_2str(RPMA_E_NO_COMPLETION), "No next completion available");
	EXPECT_STR(rpma_err_2str(RPMA_E_NO_EVENT), "No next event available");
	EXPECT_STR(rpma_err_2str(RPMA_E_AGAIN), "Temporary error, try again");
	EXPECT_STR(rpma_err_2str(RPMA_E_SHARED_CHANNEL), "Completion channel is shared");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOT_SHARED_CHNL), "Completion channel is not shared");

	/* any other value reads as an unknown error */
	EXPECT_STR(rpma_err_2str(1), "Unknown error");
	EXPECT_STR(rpma_err_2str(-1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_UNKNOWN + 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOT_SHARED_CHNL - 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MAX), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MIN), "Unknown error");
	/* errno values, of either sign, are no librpma error codes */
	EXPECT_STR(rpma_err_2str(EINVAL), "Unknown error");
	EXPECT_STR(rpma_err_2str(-EINVAL), "Unknown error");
	EXPECT_STR(rpma_err_2str(ENOMEM), "Unknown error");
	EXPECT_STR(rpma_err_2str(-ENOMEM), "Unknown error");
	EXPECT_STR(rpma_err_2str(-EAGAIN), "Unknown error");

	/* the text is static: the same pointer every time */
	EXPECT_TRUE(rpma_err_2str(RPMA_E_INVAL) == rpma_err_2str(RPMA_E_INVAL));
	EXPECT_TRUE(rpma_err_2str(0) == rpma_err_2str(0));
	EXPECT_TRUE(rpma_err_2str(12345) == rpma_err_2str(12345));
	/* ... which stays valid after other calls */
	const char *kept = rpma_err_2str(RPMA_E_NO_EVENT);
	(void) rpma_err_2str(RPMA_E_NOMEM);
	(void) rpma_err_2str(-7);
	EXPECT_STR(kept, "No next event available");

	/* NOTES: thread-safe -- many threads asking at once get the same texts */
	pthread_t th[N_THREADS];
	int created = 0;
	for (int i = 0; i < N_THREADS; i++)
		created += pthread_create(&th[i], NULL, worker, (void *)(long)i) == 0;
	EXPECT_INT(created, N_THREADS);
	int total = 0;
	for (int i = 0; i < created; i++) {
		pthread_join(th[i], NULL);
		total += mismatches[i];
	}
	EXPECT_INT(total, 0);

	return t_end();
}
