/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_race.h -- shared by the rpma_log_set_* tests: the messages the library
 * logs for t_log_error() and t_log_info(1), what the default log function
 * writes to stderr for them, and a race of threads against a thread that
 * keeps logging.
 */
#ifndef LOG_RACE_H
#define LOG_RACE_H

#include <pthread.h>
#include <sched.h>

#include "rpma_test.h"

#define MSG_ERROR "incorrect size of the descriptor: 0 bytes (should be at least 1 bytes)\n"
#define MSG_SUPPORTED "INFO: Direct Write To PMem is supported\n"
#define MSG_INFO MSG_SUPPORTED /* the INFO message, by another name */

/* what the default function writes to stderr for one ERROR / INFO message */
static const char *
stderr_of_error(void)
{
	t_stderr_begin();
	(void) t_log_error();
	return t_stderr_end();
}

static const char *
stderr_of_info(void)
{
	t_stderr_begin();
	(void) t_log_info(1);
	return t_stderr_end();
}

#define MAX_RACERS 8

static struct {
	int (*round)(void); /* one round of logging: 0 when it went as expected */
	int stop;
	int rounds;         /* rounds logged so far */
	int bad;            /* rounds, and calls of the racers, that went wrong */
} race;

/* a racer starts only once messages are flowing */
static void
race_wait_for_messages(void)
{
	while (__atomic_load_n(&race.rounds, __ATOMIC_SEQ_CST) == 0)
		sched_yield();
}

static void *
race_logger(void *arg)
{
	(void) arg;
	while (!__atomic_load_n(&race.stop, __ATOMIC_SEQ_CST)) {
		if (race.round() != 0)
			__atomic_add_fetch(&race.bad, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&race.rounds, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/*
 * n threads run racer((void *)(long)id), adding what went wrong to race.bad,
 * while another thread logs round after round until they are all done.
 * Returns how many racers were started; *logger_started tells whether the
 * logging thread was.
 */
static int
race_run(int (*round)(void), void *(*racer)(void *), int n, int *logger_started)
{
	pthread_t th[MAX_RACERS], logger;
	int started = 0;

	race.round = round;
	*logger_started = pthread_create(&logger, NULL, race_logger, NULL) == 0;
	if (!*logger_started)   /* do not leave the racers waiting */
		__atomic_store_n(&race.rounds, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < n && i < MAX_RACERS; i++)
		started += pthread_create(&th[started], NULL, racer, (void *)(long)i) == 0;
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&race.stop, 1, __ATOMIC_SEQ_CST);
	if (*logger_started)
		pthread_join(logger, NULL);
	return started;
}

#endif /* LOG_RACE_H */
