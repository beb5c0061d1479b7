/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_cfg_set_cq_size.c -- mirrors rpma_conn_cfg_set_cq_size(3):
 * only a NULL cfg is rejected; every uint32_t value (0, INT_MAX + 1,
 * UINT32_MAX included) is stored unchanged, and no other value of the
 * configuration moves.
 */

#include "conn_cfg.h"

CONN_CFG_SET_SIZE_MAIN(rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, 10)
