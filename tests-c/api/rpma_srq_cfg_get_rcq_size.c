/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_cfg_get_rcq_size.c -- mirrors rpma_srq_cfg_get_rcq_size(3): INVAL for a
 * NULL cfg or rcq_size (output untouched), the default 20 (not the documented
 * 100), and the value last set, including 0 and UINT32_MAX.
 */
#include "srq_cfg_size.h"

SRQ_CFG_GET_SIZE_MAIN(rpma_srq_cfg_get_rcq_size, rpma_srq_cfg_set_rcq_size,
		rpma_srq_cfg_get_rq_size, rpma_srq_cfg_set_rq_size)
