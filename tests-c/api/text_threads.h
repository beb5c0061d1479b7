/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text_threads.h -- the checks of the *_2str tests, from one table of rows
 * (a value and the text it must give): expect_texts() checks each row in
 * turn, and in the NOTES check N_THREADS threads at once ask N_ROUNDS times
 * each for the text of a row and count the answers that differ.
 */
#ifndef TEXT_THREADS_H
#define TEXT_THREADS_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rpma_test.h"

#define N_THREADS 8
#define N_ROUNDS 20000

struct text_row {
	int value;
	const char *text;
	const char *expr; /* the value as the table writes it */
};

/* TEXT_ROW(value, text): a row that keeps the source text of its value */
#define TEXT_ROW(value, text) { (value), (text), #value }

/*
 * every row in order: the check that fn's text of the value is the row's
 * text, printed as EXPECT_STR(fn(<value as written>), text) would print it
 */
static void
expect_texts(const char *fn, const char *(*text_of)(int value),
		const struct text_row *table, size_t n)
{
	char expr[256];

	for (size_t i = 0; i < n; i++) {
		snprintf(expr, sizeof(expr), "%s(%s)", fn, table[i].expr);
		t_str(__FILE__, __LINE__, expr, text_of(table[i].value), table[i].text);
	}
}

static struct {
	const char *(*text_of)(int value);
	const struct text_row *table;
	size_t n;
	int mismatches[N_THREADS]; /* per thread */
} tt;

static void *
tt_worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < N_ROUNDS; i++) {
		size_t k = (size_t)(i + id) % tt.n;
		const char *s = tt.text_of(tt.table[k].value);

		if (s == NULL || strcmp(s, tt.table[k].text) != 0)
			tt.mismatches[id]++;
	}
	return NULL;
}

/* every thread was created, and no answer differed from the table */
static void
expect_texts_from_threads(const char *(*text_of)(int value),
		const struct text_row *table, size_t n)
{
	pthread_t th[N_THREADS];
	int created = 0, total = 0;

	tt.text_of = text_of;
	tt.table = table;
	tt.n = n;
	for (int i = 0; i < N_THREADS; i++)
		created += pthread_create(&th[i], NULL, tt_worker, (void *)(long)i) == 0;
	EXPECT_INT(created, N_THREADS);
	for (int i = 0; i < created; i++) {
		pthread_join(th[i], NULL);
		total += tt.mismatches[i];
	}
	EXPECT_INT(total, 0);
}

#endif /* TEXT_THREADS_H */
