/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_utils_conn_event_2str.c -- mirrors rpma_utils_conn_event_2str(3): the
 * text of every connection event, the text of values that are no event, the
 * static lifetime of the strings, and calls from several threads at once.
 */
#include <limits.h>

#include "text_threads.h"

static const struct text_row table[] = {
	/* RETURN VALUE: the text of each event of enum rpma_conn_event */
	TEXT_ROW(RPMA_CONN_UNDEFINED, "Undefined connection event"),
	TEXT_ROW(RPMA_CONN_ESTABLISHED, "Connection established"),
	TEXT_ROW(RPMA_CONN_CLOSED, "Connection closed"),
	TEXT_ROW(RPMA_CONN_LOST, "Connection lost"),
	TEXT_ROW(RPMA_CONN_REJECTED, "Connection rejected"),
	TEXT_ROW(RPMA_CONN_UNREACHABLE, "Connection unreachable"),
	/* the same values written as plain numbers -1..4 */
	TEXT_ROW((enum rpma_conn_event)-1, "Undefined connection event"),
	TEXT_ROW((enum rpma_conn_event)0, "Connection established"),
	TEXT_ROW((enum rpma_conn_event)1, "Connection closed"),
	TEXT_ROW((enum rpma_conn_event)2, "Connection lost"),
	TEXT_ROW((enum rpma_conn_event)3, "Connection rejected"),
	TEXT_ROW((enum rpma_conn_event)4, "Connection unreachable"),
	/* any other value: one fixed text, never NULL, never an error */
	TEXT_ROW((enum rpma_conn_event)5, "Unsupported connection event"),
	TEXT_ROW((enum rpma_conn_event)6, "Unsupported connection event"),
	TEXT_ROW((enum rpma_conn_event)-2, "Unsupported connection event"),
	TEXT_ROW((enum rpma_conn_event)100, "Unsupported connection event"),
	TEXT_ROW((enum rpma_conn_event)INT_MAX, "Unsupported connection event"),
	TEXT_ROW((enum rpma_conn_event)INT_MIN, "Unsupported connection event"),
};
#define N_ROWS (sizeof(table) / sizeof(table[0]))

static const char *
event_text(int value)
{
	return rpma_utils_conn_event_2str((enum rpma_conn_event)value);
}

int
main(void)
{
	t_begin();

	expect_texts("rpma_utils_conn_event_2str", event_text, table, N_ROWS);

	/* the strings are static: the same pointer every time, still valid later */
	EXPECT_TRUE(rpma_utils_conn_event_2str(RPMA_CONN_LOST) ==
			rpma_utils_conn_event_2str(RPMA_CONN_LOST));
	EXPECT_TRUE(rpma_utils_conn_event_2str((enum rpma_conn_event)7) ==
			rpma_utils_conn_event_2str((enum rpma_conn_event)8));
	const char *kept = rpma_utils_conn_event_2str(RPMA_CONN_CLOSED);
	(void) rpma_utils_conn_event_2str(RPMA_CONN_REJECTED);
	EXPECT_STR(kept, "Connection closed");

	/* NOTES: thread-safe -- many threads asking at once get the same texts */
	expect_texts_from_threads(event_text, table, N_ROWS);

	return t_end();
}
