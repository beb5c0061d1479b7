/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_get_cq_size.c -- mirrors rpma_conn_cfg_get_cq_size(3):
 * NULL arguments are rejected without writing the output; otherwise the
 * default (10) or the last value set is reported exactly, even far beyond
 * what a device can provide.
 */

#include "conn_cfg.h"

CONN_CFG_GET_SIZE_MAIN(rpma_conn_cfg_get_cq_size, rpma_conn_cfg_set_cq_size,
		cq_size, 10)
