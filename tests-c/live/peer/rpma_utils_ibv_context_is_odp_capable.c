/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_utils_ibv_context_is_odp_capable.c -- mirrors
 * rpma_utils_ibv_context_is_odp_capable(3): RPMA_E_INVAL for a NULL ibv_ctx
 * (the output left untouched) and a NULL is_odp_capable, nothing logged for
 * either; on rxe0 the call returns 0 and stores exactly 0 or 1, the value
 * the device's own capabilities give (On-Demand Paging in general and for
 * RDMA WRITE and READ on RC), the same on every call, whatever the variable
 * held before.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rpma_test.h"
#include "rpma_live.h"
#include "utils-peer.h"

int
main(void)
{
	struct ibv_context *ctx;
	int odp = 77, again = -5, expected;

	t_begin();
	ctx = t_ibv_ctx();
	expected = up_known(up_device_odp_capable(ctx), "ODP capabilities");
	up_log_begin();

	/* ERRORS: RPMA_E_INVAL when ibv_ctx is NULL; *is_odp_capable untouched */
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(NULL, &odp), RPMA_E_INVAL);
	EXPECT_INT(odp, 77);

	/* ERRORS: RPMA_E_INVAL when is_odp_capable is NULL */
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(ctx, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(NULL, NULL), RPMA_E_INVAL);

	/* the argument checks log nothing */
	EXPECT_INT(up_log.n, 0);

	/*
	 * RETURN VALUE: 0, and *is_odp_capable holds 1 or 0 as the device
	 * supports On-Demand Paging for RDMA WRITE and READ on RC or not (the
	 * value rxe0 gives is printed and must be the same for both libraries)
	 */
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(ctx, &odp), 0);
	EXPECT_TRUE(odp == 0 || odp == 1);
	EXPECT_INT(odp, expected);

	/* the same answer on every call, overwriting whatever was there */
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(ctx, &again), 0);
	EXPECT_INT(again, odp);
	again = !odp;
	EXPECT_INT(rpma_utils_ibv_context_is_odp_capable(ctx, &again), 0);
	EXPECT_INT(again, odp);

	/* a successful query logs nothing */
	EXPECT_INT(up_log.n, 0);

	up_log_end();
	return t_end();
}
