/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_utils_conn_event_2str.c -- mirrors rpma_utils_conn_event_2str(3): the
 * text of every connection event, the text of values that are no event, the
 * static lifetime of the strings, and calls from several threads at once.
 */
#include <limits.h>

#include "text_threads.h"

static const struct text_row table[] = {
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

static const char *
event_text(int value)
{
	return rpma_utils_conn_event_2str((enum rpma_conn_event)value);
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
	expect_texts_from_threads(event_text, table, sizeof(table) / sizeof(table[0]));

	return t_end();
}
