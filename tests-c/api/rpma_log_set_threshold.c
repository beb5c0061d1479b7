/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_log_set_threshold.c -- mirrors rpma_log_set_threshold(3): every valid
 * level for both thresholds, every ERRORS entry (nothing changes on failure),
 * the main threshold gating what any log function receives, the auxiliary
 * threshold gating what the default function writes to stderr (and nothing
 * else), and concurrent setters.
 *
 * Messages are triggered through rpma_peer_cfg_from_descriptor(): a 0-byte
 * descriptor logs one ERROR message, a 1-byte one logs one INFO message.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log_race.h"

#define UNTOUCHED ((enum rpma_log_level)12345)

/* what the recording log function saw */
static int calls;
static int last_level;
static char last_message[1024];

static void
record_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void) file_name;
	(void) line_no;
	(void) function_name;
	__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	last_level = level;
	va_start(ap, message_format);
	vsnprintf(last_message, sizeof(last_message), message_format, ap);
	va_end(ap);
}

/* triggers one ERROR message; returns how many calls the log function got */
static int
trigger_error(void)
{
	int before = __atomic_load_n(&calls, __ATOMIC_SEQ_CST);

	last_message[0] = '\0';
	if (t_log_error() != 0)
		return -1;
	return __atomic_load_n(&calls, __ATOMIC_SEQ_CST) - before;
}

/* triggers one INFO message; returns how many calls the log function got */
static int
trigger_info(void)
{
	int before = __atomic_load_n(&calls, __ATOMIC_SEQ_CST);

	last_message[0] = '\0';
	if (t_log_info(1) != 0)
		return -1;
	return __atomic_load_n(&calls, __ATOMIC_SEQ_CST) - before;
}

static int
get(enum rpma_log_threshold t)
{
	enum rpma_log_level lvl = UNTOUCHED;

	if (rpma_log_get_threshold(t, &lvl) != 0)
		return -1000;
	return (int)lvl;
}

#define N_SETTERS 4
#define N_ROUNDS 20000

static void *
setter(void *arg)
{
	int id = (int)(long)arg;

	race_wait_for_messages();
	for (int i = 0; i < N_ROUNDS; i++) {
		enum rpma_log_threshold t = (i + id) % 2 ? RPMA_LOG_THRESHOLD_AUX : RPMA_LOG_THRESHOLD;
		int l = RPMA_LOG_DISABLED + (i * 7 + id) % 7;

		if (rpma_log_set_threshold(t, (enum rpma_log_level)l) != 0)
			__atomic_add_fetch(&race.bad, 1, __ATOMIC_SEQ_CST);
		/* an invalid call in between must not disturb anything */
		if (rpma_log_set_threshold(t, (enum rpma_log_level)6) != RPMA_E_INVAL)
			__atomic_add_fetch(&race.bad, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* one ERROR and one INFO message: at most one call each, whatever the
 * thresholds are right now */
static int
trigger_round(void)
{
	int n = trigger_error();
	int m = trigger_info();

	return n < 0 || n > 1 || m < 0 || m > 1;
}

int
main(void)
{
	t_begin();

	/* the defaults this page documents */
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_DISABLED);

	/* RETURN VALUE: 0 for every valid level, on both thresholds */
	for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
		EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)l), 0);
		EXPECT_INT(get(RPMA_LOG_THRESHOLD), l);
	}
	for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
		EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)l), 0);
		EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), l);
	}
	/* setting one threshold leaves the other alone */
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_DEBUG);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_LEVEL_DEBUG);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR), 0);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_NOTICE);
	/* setting the same value twice is fine */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR), 0);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_LEVEL_ERROR);

	/* ERRORS: invalid threshold; nothing changes */
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)-1, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)2, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)3, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)INT_MAX, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)INT_MIN, RPMA_LOG_LEVEL_INFO), RPMA_E_INVAL);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_NOTICE);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_LEVEL_ERROR);

	/* ERRORS: invalid level (below RPMA_LOG_DISABLED or above DEBUG); nothing changes */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)-2), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)6), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)INT_MAX), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)INT_MIN), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)-2), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)6), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)INT_MAX), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)INT_MIN), RPMA_E_INVAL);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_NOTICE);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_LEVEL_ERROR);

	/* ERRORS: both arguments invalid */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, (enum rpma_log_level)6), RPMA_E_INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)3, (enum rpma_log_level)-2), RPMA_E_INVAL);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_NOTICE);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_LEVEL_ERROR);

	/*
	 * DESCRIPTION: the main threshold decides what a (user) log function
	 * receives: a message of level L arrives iff L <= the threshold.
	 * The auxiliary threshold plays no part in it.
	 */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(rpma_log_set_function(record_fn), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(trigger_error(), 1);
	EXPECT_INT(last_level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_STR(last_message, MSG_ERROR);
	EXPECT_INT(trigger_info(), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	EXPECT_INT(trigger_info(), 1);
	EXPECT_INT(last_level, RPMA_LOG_LEVEL_INFO);
	EXPECT_STR(last_message, MSG_INFO);
	EXPECT_INT(trigger_error(), 1);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE), 0);
	EXPECT_INT(trigger_info(), 0);
	EXPECT_INT(trigger_error(), 1);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_INT(trigger_info(), 1);
	EXPECT_INT(trigger_error(), 1);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	EXPECT_INT(trigger_error(), 1);
	EXPECT_INT(trigger_info(), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_FATAL), 0);
	EXPECT_INT(trigger_error(), 0);
	EXPECT_INT(trigger_info(), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(trigger_error(), 0);
	EXPECT_INT(trigger_info(), 0);

	/* a high auxiliary threshold does not let anything past the main one */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_INT(trigger_error(), 0);
	EXPECT_INT(trigger_info(), 0);
	/* ... and a disabled one does not hold back what the main one allows */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(trigger_info(), 1);
	EXPECT_INT(trigger_error(), 1);

	/* a failed set left the gate where it was */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)6), RPMA_E_INVAL);
	EXPECT_INT(trigger_info(), 1);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)-2), RPMA_E_INVAL);
	EXPECT_INT(trigger_info(), 0);

	/* with a user function the auxiliary threshold writes nothing to stderr */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_STR(stderr_of_error(), "");

	/*
	 * DESCRIPTION: with the default function, a delivered message also goes
	 * to stderr iff its level <= the auxiliary threshold.
	 */
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_STR(stderr_of_error(), "");

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_FATAL), 0);
	EXPECT_STR(stderr_of_error(), "");

	const char *out;
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR), 0);
	out = stderr_of_error();
	EXPECT_TRUE(strstr(out, "*ERROR* ") != NULL);
	EXPECT_TRUE(strstr(out, ": rpma_peer_cfg_from_descriptor: " MSG_ERROR) != NULL);
	EXPECT_TRUE(strchr(out, '\n') == out + strlen(out) - 1);

	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	out = stderr_of_error();
	EXPECT_TRUE(strstr(out, ": rpma_peer_cfg_from_descriptor: " MSG_ERROR) != NULL);

	/* INFO: the main threshold (WARNING) stops it before the aux one matters */
	EXPECT_STR(stderr_of_info(), "");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	out = stderr_of_info();
	EXPECT_TRUE(strstr(out, "*INFO*  ") != NULL);
	EXPECT_TRUE(strstr(out, ": rpma_peer_cfg_from_descriptor: " MSG_INFO) != NULL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE), 0);
	EXPECT_STR(stderr_of_info(), "");
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_INFO), 0);
	out = stderr_of_info();
	EXPECT_TRUE(strstr(out, ": rpma_peer_cfg_from_descriptor: " MSG_INFO) != NULL);

	/* main threshold DISABLED: nothing at all, whatever the aux one says */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_STR(stderr_of_error(), "");
	EXPECT_STR(stderr_of_info(), "");

	/* a failed set of the aux threshold left it where it was */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)6), RPMA_E_INVAL);
	EXPECT_STR(stderr_of_error(), "");

	/*
	 * NOTES: thread-safe -- setters on both thresholds race with a thread
	 * that keeps logging through a user function.
	 */
	EXPECT_INT(rpma_log_set_function(record_fn), 0);
	int trigger_started;
	int setters = race_run(trigger_round, setter, N_SETTERS, &trigger_started);
	int bad = race.bad, triggered = race.rounds;
	EXPECT_TRUE(trigger_started);
	EXPECT_INT(setters, N_SETTERS);
	EXPECT_INT(bad, 0);
	EXPECT_TRUE(triggered > 0);
	/* both thresholds hold valid levels, and the gate follows a fresh set */
	EXPECT_TRUE(get(RPMA_LOG_THRESHOLD) >= RPMA_LOG_DISABLED &&
			get(RPMA_LOG_THRESHOLD) <= RPMA_LOG_LEVEL_DEBUG);
	EXPECT_TRUE(get(RPMA_LOG_THRESHOLD_AUX) >= RPMA_LOG_DISABLED &&
			get(RPMA_LOG_THRESHOLD_AUX) <= RPMA_LOG_LEVEL_DEBUG);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
	EXPECT_INT(get(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_DISABLED);
	EXPECT_INT(trigger_error(), 1);
	EXPECT_INT(trigger_info(), 0);

	return t_end();
}
