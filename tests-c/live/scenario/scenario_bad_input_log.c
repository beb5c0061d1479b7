/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_log.c -- bad input for rpma_err_2str,
 * rpma_utils_conn_event_2str and the log threshold and function: one row of
 * the table at the end per entry point; bad_<name>() makes its calls. The
 * live objects, the server and the rules every rejected call is held to are
 * those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- err, utils without a device, log ---- */

static void
bad_rpma_err_2str(void)
{
	EXPECT_STR(rpma_err_2str(1), "Unknown error");
	EXPECT_STR(rpma_err_2str(-1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_UNKNOWN + 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_NOT_SHARED_CHNL - 1), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MIN), "Unknown error");
	EXPECT_STR(rpma_err_2str(INT_MAX), "Unknown error");
	EXPECT_STR(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
}

static void
bad_rpma_utils_conn_event_2str(void)
{
	const char *unsupported = "Unsupported connection event";

	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)-2), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)5), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)99), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MIN), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str((enum rpma_conn_event)INT_MAX), unsupported);
	EXPECT_STR(rpma_utils_conn_event_2str(RPMA_CONN_UNREACHABLE), "Connection unreachable");
}

/* the level of a threshold, or the (negative) return code */
static int
level_of(enum rpma_log_threshold threshold)
{
	enum rpma_log_level level = (enum rpma_log_level)BI_SENT_INT;
	int ret = rpma_log_get_threshold(threshold, &level);

	return ret != 0 ? ret : (int)level;
}

static void
bad_rpma_log_set_threshold(void)
{
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)7, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)-1, RPMA_LOG_LEVEL_ERROR), INVAL);
	EXPECT_INT(rpma_log_set_threshold((enum rpma_log_threshold)INT_MIN, RPMA_LOG_LEVEL_ERROR),
			INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)-2), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)6), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)99), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, (enum rpma_log_level)INT_MIN), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)-2), INVAL);
	EXPECT_INT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, (enum rpma_log_level)99), INVAL);
	/* both keep the release defaults */
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD_AUX), RPMA_LOG_DISABLED);
}

static void
bad_rpma_log_get_threshold(void)
{
	enum rpma_log_level level = (enum rpma_log_level)BI_SENT_INT;

	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level), INVAL);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)7, &level), INVAL);
	EXPECT_INT(rpma_log_get_threshold((enum rpma_log_threshold)-1, &level), INVAL);
	EXPECT_INT(level, BI_SENT_INT);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, NULL), INVAL);
	EXPECT_INT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, NULL), INVAL);
}

static void
bad_rpma_log_set_function(void)
{
	/* no value is refused: NULL is RPMA_LOG_USE_DEFAULT_FUNCTION */
	EXPECT_INT(rpma_log_set_function(c_log), 0);
	c_nlogs = 0;
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(rpma_log_set_function(NULL), 0);
	/* the recorder is no longer called */
	EXPECT_INT(t_log_error(), 0);
	EXPECT_INT(c_nlogs, 1);
	EXPECT_INT(level_of(RPMA_LOG_THRESHOLD), RPMA_LOG_LEVEL_WARNING);
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_err_2str),
	ROW(rpma_utils_conn_event_2str),
	ROW(rpma_log_set_threshold),
	ROW(rpma_log_get_threshold),
	ROW(rpma_log_set_function),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
