/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mock_teardown.c -- the RPMA_E_PROVIDER entries of the disconnect/release
 * functions and of rpma_ep_next_conn_req(3) that a healthy rxe0 never
 * produces, injected in the client only:
 * - rpma_conn_disconnect: rdma_disconnect() fails; the connection stays up
 *   (no event, a write still completes) and a later disconnect works;
 * - rpma_mr_dereg: ibv_dereg_mr() fails; the region is freed all the same,
 *   *mr_ptr NULL;
 * - rpma_ep_next_conn_req: rdma_get_cm_event() failing with ENODATA gives
 *   RPMA_E_NO_EVENT, with EIO RPMA_E_PROVIDER, *req_ptr untouched;
 * - rpma_ep_shutdown: rdma_destroy_id() fails; the endpoint is freed all the
 *   same, *ep_ptr NULL;
 * - rpma_peer_delete: ibv_dealloc_pd() fails; the peer is freed all the
 *   same, *peer_ptr NULL.
 * The release mocks fail after doing the real work, so nothing leaks.
 */
#include "rpma_mock.h"
#include "mock.h"

static char m_sentinel_req;
#define SENTINEL_REQ ((struct rpma_conn_req *)&m_sentinel_req)

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req;
	struct m_client c;
	void *buf;

	t_begin();
	peer = c_start_serving(m_serve_region);
	if (m_connect(peer, NULL, &c)) {
		t_note("rpma_conn_disconnect: rdma_disconnect() fails");
		M_FAIL("rdma_disconnect", EIO, rpma_conn_disconnect(c.conn), RPMA_E_PROVIDER);
		EXPECT_TRUE(!c_event_pending(c.conn, 200));
		EXPECT_TRUE(m_write_completes(&c, (void *)0x44));
	}
	t_note("a later disconnect works");
	EXPECT_TRUE(m_close(&c));
	EXPECT_INT(t_server_join(), 0);

	t_note("rpma_mr_dereg: ibv_dereg_mr() fails");
	buf = calloc(1, M_BUF_SIZE);
	EXPECT_INT(rpma_mr_reg(peer, buf, M_BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr), 0);
	M_FAIL_AFTER("ibv_dereg_mr", EBUSY, rpma_mr_dereg(&mr), RPMA_E_PROVIDER);
	EXPECT_TRUE(mr == NULL);
	free(buf);

	/* the server has gone: its port is free for an endpoint of our own */
	EXPECT_INT(rpma_ep_listen(peer, t_ip(), t_port(), &ep), 0);

	t_note("rpma_ep_next_conn_req: rdma_get_cm_event() fails with ENODATA");
	req = SENTINEL_REQ;
	M_FAIL("rdma_get_cm_event", ENODATA, rpma_ep_next_conn_req(ep, NULL, &req),
			RPMA_E_NO_EVENT);
	EXPECT_TRUE(req == SENTINEL_REQ);

	t_note("rpma_ep_next_conn_req: rdma_get_cm_event() fails with EIO");
	M_FAIL("rdma_get_cm_event", EIO, rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == SENTINEL_REQ);

	t_note("rpma_ep_shutdown: rdma_destroy_id() fails");
	M_FAIL_AFTER("rdma_destroy_id", EIO, rpma_ep_shutdown(&ep), RPMA_E_PROVIDER);
	EXPECT_TRUE(ep == NULL);

	t_note("rpma_peer_delete: ibv_dealloc_pd() fails");
	M_FAIL_AFTER("ibv_dealloc_pd", EBUSY, rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	EXPECT_TRUE(peer == NULL);
	return t_end();
}
