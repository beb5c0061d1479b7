/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_err_2str.c -- mirrors rpma_err_2str(3): the text of every error code,
 * of success, and of values that are no error code at all (errno values
 * included), the static lifetime of the texts, and calls from several
 * threads at once.
 */
#include <errno.h>
#include <limits.h>

#include "text_threads.h"

/* RETURN VALUE: a description of each code, in this order */
static const struct text_row table[] = {
	TEXT_ROW(0, "Success"),
	TEXT_ROW(RPMA_E_UNKNOWN, "Unknown error"),
	TEXT_ROW(RPMA_E_NOSUPP, "Not supported"),
	TEXT_ROW(RPMA_E_PROVIDER, "Provider error occurred"),
	TEXT_ROW(RPMA_E_NOMEM, "Out of memory"),
	TEXT_ROW(RPMA_E_INVAL, "Invalid argument"),
	TEXT_ROW(RPMA_E_NO_COMPLETION, "No next completion available"),
	TEXT_ROW(RPMA_E_NO_EVENT, "No next event available"),
	TEXT_ROW(RPMA_E_AGAIN, "Temporary error, try again"),
	TEXT_ROW(RPMA_E_SHARED_CHANNEL, "Completion channel is shared"),
	TEXT_ROW(RPMA_E_NOT_SHARED_CHNL, "Completion channel is not shared"),
	/* any other value reads as an unknown error */
	TEXT_ROW(1, "Unknown error"),
	TEXT_ROW(-1, "Unknown error"),
	TEXT_ROW(RPMA_E_UNKNOWN + 1, "Unknown error"),
	TEXT_ROW(RPMA_E_NOT_SHARED_CHNL - 1, "Unknown error"),
	TEXT_ROW(INT_MAX, "Unknown error"),
	TEXT_ROW(INT_MIN, "Unknown error"),
	/* errno values, of either sign, are no librpma error codes */
	TEXT_ROW(EINVAL, "Unknown error"),
	TEXT_ROW(-EINVAL, "Unknown error"),
	TEXT_ROW(ENOMEM, "Unknown error"),
	TEXT_ROW(-ENOMEM, "Unknown error"),
	TEXT_ROW(-EAGAIN, "Unknown error"),
};
#define N_ROWS (sizeof(table) / sizeof(table[0]))

int
main(void)
{
	t_begin();

	expect_texts("rpma_err_2str", rpma_err_2str, table, N_ROWS);

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
	expect_texts_from_threads(rpma_err_2str, table, N_ROWS);

	return t_end();
}
