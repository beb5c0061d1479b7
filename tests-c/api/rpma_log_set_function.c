/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_log_set_function.c -- mirrors rpma_log_set_function(3): what a user
 * log function receives (level, file, line, function name, a format ending in
 * a newline and its arguments), replacing one user function by another,
 * going back to the default function, what the default function writes to
 * stderr (line format, aux threshold), the return value (never an error,
 * never RPMA_E_AGAIN), and swapping functions while another thread logs.
 *
 * Messages are triggered through rpma_peer_cfg_from_descriptor(): a 0-byte
 * descriptor logs one ERROR message, a 1-byte one logs one INFO message.
 * File names, line numbers, thread ids and timestamps differ between
 * implementations (and runs): they are checked, never printed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log_race.h"

#define FUNC "rpma_peer_cfg_from_descriptor"
#define MSG_UNSUPPORTED "INFO: Direct Write To PMem is unsupported\n"

/* everything the first user function saw in its last call */
static struct {
	int calls;
	int level;
	int file_ok;         /* file_name non-NULL and non-empty */
	int line_no;
	char function[128];
	char format_ends_nl; /* the format itself ends with '\n' */
	char message[1024];  /* the format applied to its arguments */
} seen;

static int calls_b;      /* calls of the second user function */

/* the last call of the first user function: level, message, and the rest
 * of the calling convention (a macro, so each check names seen) */
#define EXPECT_SEEN(lvl, msg) do { \
	EXPECT_INT(seen.level, lvl); \
	EXPECT_STR(seen.function, FUNC); \
	EXPECT_TRUE(seen.file_ok); \
	EXPECT_TRUE(seen.line_no > 0); \
	EXPECT_TRUE(seen.format_ends_nl); \
	EXPECT_STR(seen.message, msg); \
} while (0)

static void
fn_a(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;
	size_t len;

	__atomic_add_fetch(&seen.calls, 1, __ATOMIC_SEQ_CST);
	seen.level = level;
	seen.file_ok = file_name != NULL && file_name[0] != '\0';
	seen.line_no = line_no;
	snprintf(seen.function, sizeof(seen.function), "%s",
			function_name ? function_name : "(null)");
	len = message_format ? strlen(message_format) : 0;
	seen.format_ends_nl = len > 0 && message_format[len - 1] == '\n';
	seen.message[0] = '\0';
	if (message_format != NULL) {
		va_start(ap, message_format);
		vsnprintf(seen.message, sizeof(seen.message), message_format, ap);
		va_end(ap);
	}
}

static void
fn_b(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void) level;
	(void) file_name;
	(void) line_no;
	(void) function_name;
	(void) message_format;
	__atomic_add_fetch(&calls_b, 1, __ATOMIC_SEQ_CST);
}

static int
calls_a(void)
{
	return __atomic_load_n(&seen.calls, __ATOMIC_SEQ_CST);
}

static int
calls_of_b(void)
{
	return __atomic_load_n(&calls_b, __ATOMIC_SEQ_CST);
}

/* helpers for checking the shape of a default-function stderr line */
static const char *
skip_digits(const char *p, int n)
{
	for (int i = 0; i < n; i++, p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	return p;
}

static const char *
skip_char(const char *p, char c)
{
	return p != NULL && *p == c ? p + 1 : NULL;
}

/*
 * "Mon DD HH:MM:SS.uuuuuu " -- returns what follows, or NULL when the text
 * does not start with a timestamp of that shape.
 */
static const char *
skip_timestamp(const char *p)
{
	if (!isupper((unsigned char)p[0]) || !islower((unsigned char)p[1]) ||
			!islower((unsigned char)p[2]))
		return NULL;
	p = skip_char(p + 3, ' ');
	p = p ? skip_digits(p, 2) : NULL;
	p = skip_char(p, ' ');
	p = p ? skip_digits(p, 2) : NULL;
	p = skip_char(p, ':');
	p = p ? skip_digits(p, 2) : NULL;
	p = skip_char(p, ':');
	p = p ? skip_digits(p, 2) : NULL;
	p = skip_char(p, '.');
	p = p ? skip_digits(p, 6) : NULL;
	return skip_char(p, ' ');
}

/* "[<tid>] " -- the thread id is a positive decimal number */
static const char *
skip_tid(const char *p)
{
	const char *q;

	p = skip_char(p, '[');
	if (p == NULL || !isdigit((unsigned char)*p) || *p == '0')
		return NULL;
	for (q = p; isdigit((unsigned char)*q); q++)
		;
	return skip_char(q, ']') ? skip_char(q + 1, ' ') : NULL;
}

/*
 * "<basename>: <line>: " -- the base name holds no '/', the line number is
 * right-aligned in at least three columns and positive.
 */
static const char *
skip_file_line(const char *p)
{
	const char *colon = p ? strstr(p, ": ") : NULL;
	const char *q;
	int digits = 0, width = 0;

	if (colon == NULL || colon == p || memchr(p, '/', (size_t)(colon - p)) != NULL)
		return NULL;
	q = colon + 2;
	while (*q == ' ') {
		q++;
		width++;
	}
	while (isdigit((unsigned char)*q)) {
		q++;
		width++;
		digits++;
	}
	if (digits == 0 || width < 3 || q[-digits] == '0')
		return NULL;
	return skip_char(q, ':') ? skip_char(q + 1, ' ') : NULL;
}

/* exactly one line: a single '\n', at the very end */
static int
one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl != NULL && nl[1] == '\0';
}

/* the whole line: timestamp, thread id, tag, file, line, function, message */
static int
default_line_ok(const char *line, const char *tag, const char *rest)
{
	const char *p = skip_timestamp(line);

	p = p ? skip_tid(p) : NULL;
	if (p == NULL || strncmp(p, tag, strlen(tag)) != 0)
		return 0;
	p = skip_file_line(p + strlen(tag));
	return p != NULL && strcmp(p, rest) == 0;
}

#define N_SWAPPERS 3
#define N_ROUNDS 20000

static void *
swapper(void *arg)
{
	int id = (int)(long)arg;

	race_wait_for_messages();
	for (int i = 0; i < N_ROUNDS; i++) {
		rpma_log_function *f;

		switch ((i + id) % 3) {
		case 0: f = fn_a; break;
		case 1: f = fn_b; break;
		default: f = RPMA_LOG_USE_DEFAULT_FUNCTION; break;
		}
		if (rpma_log_set_function(f) != 0)
			__atomic_add_fetch(&race.bad, 1, __ATOMIC_SEQ_CST);
		if (i % 64 == 0) {
			enum rpma_log_level l = RPMA_LOG_LEVEL_WARNING;
			if (rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &l) != 0 ||
					l != RPMA_LOG_LEVEL_WARNING)
				__atomic_add_fetch(&race.bad, 1, __ATOMIC_SEQ_CST);
		}
	}
	return NULL;
}

int
main(void)
{
	const char *out;
	int before;

	t_begin();

	/*
	 * Default state: the built-in function, which writes nothing to stderr
	 * while the auxiliary threshold is RPMA_LOG_DISABLED (its default).
	 */
	EXPECT_STR(stderr_of_error(), "");

	/* RETURN VALUE: 0; the user function now gets every delivered message */
	EXPECT_INT(rpma_log_set_function(fn_a), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a(), 1);
	EXPECT_SEEN(RPMA_LOG_LEVEL_ERROR, MSG_ERROR);

	/* default main threshold WARNING: INFO messages are not delivered */
	EXPECT_INT(t_log_info(1), 0);
	EXPECT_INT(calls_a(), 1);

	/* at INFO they are, with the same calling convention */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	EXPECT_INT(t_log_info(1), 0);
	EXPECT_INT(calls_a(), 2);
	EXPECT_SEEN(RPMA_LOG_LEVEL_INFO, MSG_SUPPORTED);
	EXPECT_INT(t_log_info(0), 0);
	EXPECT_INT(calls_a(), 3);
	EXPECT_STR(seen.message, MSG_UNSUPPORTED);
	/* the ERROR message still arrives too (one call per message) */
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a(), 4);
	EXPECT_INT(seen.level, RPMA_LOG_LEVEL_ERROR);
	EXPECT_STR(seen.message, MSG_ERROR);

	/* nothing is delivered at RPMA_LOG_DISABLED */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(t_log_info(1), 0);
	EXPECT_INT(calls_a(), 4);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);

	/* a user function is not subject to the aux threshold, and no stderr */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_STR(stderr_of_error(), "");
	EXPECT_INT(calls_a(), 5);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a(), 6);

	/* installing the same function again is harmless */
	EXPECT_INT(rpma_log_set_function(fn_a), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a(), 7);

	/* another user function replaces the first one */
	EXPECT_INT(rpma_log_set_function(fn_b), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_of_b(), 1);
	EXPECT_INT(calls_a(), 7);

	/* RPMA_LOG_USE_DEFAULT_FUNCTION (NULL) returns to the built-in function */
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_STR(stderr_of_error(), "");  /* aux threshold still DISABLED */
	EXPECT_INT(calls_of_b(), 1);
	EXPECT_INT(calls_a(), 7);
	EXPECT_INT(rpma_log_set_function(NULL), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_of_b(), 1);
	EXPECT_INT(calls_a(), 7);

	/*
	 * The default function writes a delivered message to stderr when its
	 * level is at or below the aux threshold:
	 * "Mon DD HH:MM:SS.uuuuuu [tid] *ERROR* file: line: function: message"
	 */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR), 0);
	out = stderr_of_error();
	EXPECT_TRUE(skip_timestamp(out) != NULL);
	EXPECT_TRUE(strlen(out) > 24 && out[15] == '.' && out[22] == ' ' && out[23] == '[');
	EXPECT_TRUE(skip_timestamp(out) != NULL && skip_tid(skip_timestamp(out)) != NULL);
	EXPECT_TRUE(strstr(out, "] *ERROR* ") != NULL);
	EXPECT_TRUE(strstr(out, ": " FUNC ": incorrect size of the descriptor: 0 bytes (should be at least 1 bytes)") != NULL);
	EXPECT_TRUE(default_line_ok(out, "*ERROR* ", FUNC ": " MSG_ERROR));
	EXPECT_TRUE(one_line(out));

	/* INFO at main threshold INFO and aux INFO: tag "*INFO*  " */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	EXPECT_STR(stderr_of_info(), "");   /* aux ERROR < INFO: syslog only */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_INFO), 0);
	out = stderr_of_info();
	EXPECT_TRUE(default_line_ok(out, "*INFO*  ", FUNC ": " MSG_SUPPORTED));
	EXPECT_TRUE(one_line(out));

	/* aux above main: the main threshold still gates the default function */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_STR(stderr_of_info(), "");
	out = stderr_of_error();
	EXPECT_TRUE(default_line_ok(out, "*ERROR* ", FUNC ": " MSG_ERROR));
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	EXPECT_STR(stderr_of_error(), "");

	/* a user function installed after the default one takes over again */
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG), 0);
	EXPECT_INT(rpma_log_set_function(fn_a), 0);
	EXPECT_STR(stderr_of_error(), "");
	EXPECT_INT(calls_a(), 8);
	EXPECT_STR(seen.message, MSG_ERROR);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);

	/*
	 * NOTES: thread-safe -- threads swap between two user functions and the
	 * default one while another thread keeps logging ERROR messages. Every
	 * call returns 0 and each message reaches at most one function.
	 */
	int a0 = calls_a(), b0 = calls_of_b();
	int trigger_started;
	int swappers = race_run(t_log_error, swapper, N_SWAPPERS, &trigger_started);
	int bad = race.bad, triggered = race.rounds;
	EXPECT_TRUE(trigger_started);
	EXPECT_INT(swappers, N_SWAPPERS);
	EXPECT_INT(bad, 0);
	EXPECT_TRUE(triggered > 0);
	EXPECT_TRUE((calls_a() - a0) + (calls_of_b() - b0) <= triggered);

	/* final state consistent: the last installation wins */
	EXPECT_INT(rpma_log_set_function(fn_b), 0);
	before = calls_of_b();
	a0 = calls_a();
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_of_b() - before, 1);
	EXPECT_INT(calls_a() - a0, 0);
	EXPECT_INT(rpma_log_set_function(fn_a), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a() - a0, 1);
	EXPECT_INT(calls_of_b() - before, 1);
	EXPECT_STR(seen.message, MSG_ERROR);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(calls_a() - a0, 1);
	EXPECT_INT(calls_of_b() - before, 1);

	return t_end();
}
