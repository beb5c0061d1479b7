/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_err_2str.c -- mirrors rpma_err_2str(3): the text of every error code,
 * of success, and of values that are no error code at all.
 */
#include <limits.h>

#include "rpma_test.h"

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

	/* the text is static: the same pointer every time */
	EXPECT_TRUE(rpma_err_2str(RPMA_E_INVAL) == rpma_err_2str(RPMA_E_INVAL));

	return t_end();
}
