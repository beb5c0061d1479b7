/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_utils_conn_event_2str.c -- mirrors rpma_utils_conn_event_2str(3): the
 * text of every connection event, the text of values that are no event, the
 * static lifetime of the strings, and calls from several threads at once.
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "rpma_test.h"

static const struct {
	int event;
	const char *text;
} table[] = {
	{RPMA_CONN_UNDEFINED, "Undefined connection event"},
	{RPMA_CONN_ESTABLISHED, "Connection established"},
	{RPMA_CONN_CLOSED, "Connection closed"},
	{RPMA_CONN_LOST, "Connection lost"},
	{RPMA_CONN_REJECTED, "Connection rejected"},
	{RPMA_CONN_UNREACHABLE, "Connection unreachable"},
	{5, "Unsupported connection event"},
	{-2, "Unsupported connection event"},
	{INT_MAX, "Unsupported connection event"},
	{INT_MIN, "Unsupported connection event"},
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
		const char *s = rpma_utils_conn_event_2str((enum rpma_conn_event)table[k].event);

		if (s == NULL || strcmp(s, table[k].text) != 0)
			mismatches[id]++;
	}
	return NULL;
}

int
main(void)
{
	t_begin();

	/* RETURN VALUE: the text of each event of enum rpma_conn_event */
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_UNDEFINED), "Undefined connection event");
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED), "Connection established");
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_CLOSED), "Connection closed");
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_LOST), "Connection lost");
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_REJECTED), "Connection rejected");
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_UNREACHABLE), "Connection unreachable");

	/* the same values written as plain numbers -1..4 */
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)-1), "Undefined connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)0), "Connection established");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)1), "Connection closed");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)2), "Connection lost");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)3), "Connection rejected");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)4), "Connection unreachable");

	/* any other value: one fixed text, never NULL, never an error */
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)5), "Unsupported connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)6), "Unsupported connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)-2), "Unsupported connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)100), "Unsupported connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MAX), "Unsupported connection event");
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MIN), "Unsupported connection event");

	/* the strings are static: the same pointer every time, still valid later */
	EXPECT_TRUE(rpma_utils_conn_event_2str(RPMA_CONN_LOST) ==
			rpma_utils_conn_event_2str(RPMA_CONN_LOST));
	EXPECT_TRUE(rpma_utils_conn_event_2str((enum rpma_conn_event)7) ==
			rpma_utils_conn_event_2str((enum rpma_conn_event)8));
	const char *kept = rpma_utils_conn_event_2str(RPMA_CONN_CLOSED);
	(void) rpma_utils_conn_event_2str(RPMA_CONN_REJECTED);
	EXPECT_STR(kept, "Connection closed");

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
