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

static const struct text_row table[] = {
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
	expect_texts_from_threads(rpma_err_2str, table, sizeof(table) / sizeof(table[0]));

	return t_end();
}
