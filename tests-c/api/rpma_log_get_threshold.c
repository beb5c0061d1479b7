/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_log_get_threshold.c -- mirrors rpma_log_get_threshold(3): the default
 * of both thresholds, reading back what rpma_log_set_threshold stored, every
 * ERRORS entry (with the output left untouched), and readers running
 * concurrently with writers.
 */
#include <limits.h>
#include <pthread.h>

#include "rpma_test.h"

/* a value no threshold can hold: shows whether the output was written */
#define UNTOUCHED ((enum rpma_log_level)12345)

/* th reads back as want (a macro, so each check names th) */
#define EXPECT_LEVEL(th, want) do { \
	lvl = UNTOUCHED; \
	EXPECT_INT(rpma_log_get_threshold(th, &lvl), 0); \
	EXPECT_INT(lvl, want); \
} while (0)

#define N_READERS 4
#define N_WRITERS 2
#define N_ROUNDS 20000

static int stop_readers;
static int reader_bad[N_READERS];   /* failed calls or out-of-range values */
static int writer_bad[N_WRITERS];   /* failed calls */

static void *
reader(void *arg)
{
	int id = (int)(long)arg;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_SEQ_CST)) {
		enum rpma_log_level main_lvl = UNTOUCHED, aux_lvl = UNTOUCHED;

		if (rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &main_lvl) != 0 ||
				rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &aux_lvl) != 0)
			reader_bad[id]++;
		/* the writers only ever store WARNING..DEBUG (main), -1..ERROR (aux) */
		if (main_lvl < RPMA_LOG_LEVEL_WARNING || main_lvl > RPMA_LOG_LEVEL_DEBUG)
			reader_bad[id]++;
		if (aux_lvl < RPMA_LOG_DISABLED || aux_lvl > RPMA_LOG_LEVEL_ERROR)
			reader_bad[id]++;
	}
	return NULL;
}

static void *
writer(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < N_ROUNDS; i++) {
		int m = RPMA_LOG_LEVEL_WARNING + (i + id) % 4;
		int a = RPMA_LOG_DISABLED + (i + id) % 3;

		if (rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)m) != 0 ||
				rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX,
					(enum rpma_log_level)a) != 0)
			writer_bad[id]++;
	}
	return NULL;
}

int
main(void)
{
	enum rpma_log_level lvl;

	t_begin();

	/* defaults of a freshly loaded library */
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);

	/* reading changes nothing: a second read gives the same answers */
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);

	/* ERRORS: threshold is not RPMA_LOG_THRESHOLD or RPMA_LOG_THRESHOLD_AUX */
	lvl = UNTOUCHED;
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)-1, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)2, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)3, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)INT_MAX, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)INT_MIN, &lvl), RPMA_E_INVAL);
	EXPECT_INT(lvl, UNTOUCHED);

	/* ERRORS: level is NULL (with a valid and with an invalid threshold) */
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, NULL), RPMA_E_INVAL);

	/* failed calls changed neither threshold */
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);

	/* reads back every level stored by rpma_log_set_threshold, per threshold */
	for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
		EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)l), 0);
		EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX,
				(enum rpma_log_level)(RPMA_LOG_LEVEL_DEBUG - 1 - l)), 0);
		EXPECT_LEVEL(RPMA_LOG_THRESHOLD, l);
		EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG - 1 - l);
	}

	/* the two thresholds are independent */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_FATAL), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_FATAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);

	/* NOTES: thread-safe -- readers run while writers change both thresholds */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	pthread_t rd[N_READERS], wr[N_WRITERS];
	int readers = 0, writers = 0;
	for (int i = 0; i < N_READERS; i++)
		readers += pthread_create(&rd[i], NULL, reader, (void *)(long)i) == 0;
	for (int i = 0; i < N_WRITERS; i++)
		writers += pthread_create(&wr[i], NULL, writer, (void *)(long)i) == 0;
	EXPECT_INT(readers, N_READERS);
	EXPECT_INT(writers, N_WRITERS);
	for (int i = 0; i < writers; i++)
		pthread_join(wr[i], NULL);
	__atomic_store_n(&stop_readers, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < readers; i++)
		pthread_join(rd[i], NULL);
	int bad = 0;
	for (int i = 0; i < N_READERS; i++)
		bad += reader_bad[i];
	for (int i = 0; i < N_WRITERS; i++)
		bad += writer_bad[i];
	EXPECT_INT(bad, 0);

	/* afterwards the state is whatever was stored last, and still settable */
	lvl = UNTOUCHED;
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &lvl), 0);
	EXPECT_TRUE(lvl >= RPMA_LOG_LEVEL_WARNING && lvl <= RPMA_LOG_LEVEL_DEBUG);
	lvl = UNTOUCHED;
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &lvl), 0);
	EXPECT_TRUE(lvl >= RPMA_LOG_DISABLED && lvl <= RPMA_LOG_LEVEL_ERROR);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE), 0);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR);
	EXPECT_LEVEL(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE);

	return t_end();
}
