/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_set_rcq_size.c -- mirrors rpma_srq_cfg_set_rcq_size(3): INVAL for a
 * NULL cfg, every value from 0 to UINT32_MAX stored as given, the new value
 * replaces the old one, the other size and other objects stay as they were.
 */
#include "srq_cfg_size.h"

SRQ_CFG_SET_SIZE_MAIN(rpma_srq_cfg_set_rcq_size, rpma_srq_cfg_get_rcq_size,
		rpma_srq_cfg_set_rq_size, rpma_srq_cfg_get_rq_size)
