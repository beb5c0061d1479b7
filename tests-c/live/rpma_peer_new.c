/* SPDX-License-Identifier: BSD-3-Clause */
/* rpma_peer_new.c -- mirrors rpma_peer_new(3) (placeholder, being written) */
#include "rpma_test.h"
#include "rpma_live.h"

int
main(void)
{
	struct rpma_peer *peer = NULL;

	t_begin();
	EXPECT_INT(rpma_peer_new(t_ibv_ctx(), &peer), 0);
	EXPECT_TRUE(peer != NULL);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	EXPECT_TRUE(peer == NULL);
	return t_end();
}
