/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_conn_apply_remote_peer_cfg.c -- mirrors
 * rpma_conn_apply_remote_peer_cfg(3): INVAL for a NULL conn or pcfg; 0
 * otherwise; the effect, seen through rpma_flush(3) with
 * RPMA_FLUSH_TYPE_PERSISTENT: refused by the connection (NOSUPP and the
 * connection's message) until a configuration declaring direct write to
 * PMem is applied, accepted afterwards (also once that configuration is
 * deleted: the value is copied), refused again after a configuration
 * without it is applied; RPMA_FLUSH_TYPE_VISIBILITY is never affected.
 * The server's memory region comes as a descriptor in its private data.
 */
#include "conn.h"


#define BUF_SIZE 4096
#define USAGE (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)

#define MSG_CONN "Connection does not support flush to persistency. " \
	"Check if the remote node supports direct write to persistent memory.\n"
#define MSG_MR "The remote memory region does not support flushing to persistency\n"

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	void *buf = NULL;
	struct rpma_mr_local *mr = c_reg_buf(peer, BUF_SIZE, USAGE, &buf);
	struct rpma_conn *conn;
	char desc[32];
	struct rpma_conn_private_data pd = {desc, 0};
	size_t desc_size = 0;

	S_CHECK(rpma_mr_get_descriptor_size(mr, &desc_size) == 0);
	S_CHECK(desc_size <= sizeof(desc));
	S_CHECK(rpma_mr_get_descriptor(mr, desc) == 0);
	pd.len = (uint8_t)desc_size;

	conn = c_accept(ep, NULL, &pd);
	/* the region must stay registered until the client is done */
	S_CHECK(c_closed(&conn));
	c_dereg_buf(&mr, buf);
}

/* rpma_flush(PERSISTENT) through conn; checks the message of a refusal */
static int
flush_persistent(struct rpma_conn *conn, struct rpma_mr_remote *dst, const char *message)
{
	int ret;

	c_nlogs = 0;
	ret = rpma_flush(conn, dst, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (message != NULL) {
		c_expect_log(RPMA_LOG_LEVEL_ERROR, "rpma_flush", message, 1);
	} else {
		EXPECT_INT(c_nlogs, 0);
	}
	return ret;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_peer_cfg *yes = NULL, *no = NULL;
	struct rpma_mr_remote *dst = NULL, *no_persist = NULL;
	struct rpma_conn_private_data pd = {NULL, 0};
	/* a region that allows reading only: address 0, 8 bytes, rkey 0 */
	const unsigned char read_only_desc[21] = {
		0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		RPMA_MR_USAGE_READ_SRC};

	t_begin();

	EXPECT_INT(rpma_peer_cfg_new(&yes), 0);
	EXPECT_INT(rpma_peer_cfg_set_direct_write_to_pmem(yes, true), 0);
	EXPECT_INT(rpma_peer_cfg_new(&no), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL conn */
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, yes), RPMA_E_INVAL);
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, NULL), RPMA_E_INVAL);

	peer = c_start_serving(serve);
	EXPECT_INT(rpma_log_set_function(c_log), 0);

	C_CONNECT(conn, peer, NULL, NULL);
	EXPECT_INT(rpma_conn_get_private_data(conn, &pd), 0);
	EXPECT_INT(rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &dst), 0);
	EXPECT_INT(rpma_mr_remote_from_descriptor(read_only_desc, sizeof(read_only_desc),
			&no_persist), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL pcfg */
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, NULL), RPMA_E_INVAL);
	/* ... which changed nothing */
	EXPECT_INT(flush_persistent(conn, dst, MSG_CONN), RPMA_E_NOSUPP);

	t_note("a new connection: no direct write to PMem");
	EXPECT_INT(flush_persistent(conn, dst, MSG_CONN), RPMA_E_NOSUPP);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, dst, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	EXPECT_INT(c_nlogs, 0);

	t_note("a configuration without direct write to PMem");
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, no), 0);
	EXPECT_INT(flush_persistent(conn, dst, MSG_CONN), RPMA_E_NOSUPP);

	t_note("a configuration with direct write to PMem, then deleted");
	/* RETURN VALUE: 0 */
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, yes), 0);
	EXPECT_INT(rpma_peer_cfg_delete(&yes), 0);
	EXPECT_INT(flush_persistent(conn, dst, NULL), 0);
	/* now the connection allows it and only the region can refuse */
	EXPECT_INT(flush_persistent(conn, no_persist, MSG_MR), RPMA_E_NOSUPP);

	t_note("back to no direct write to PMem");
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, no), 0);
	EXPECT_INT(flush_persistent(conn, dst, MSG_CONN), RPMA_E_NOSUPP);
	c_nlogs = 0;
	EXPECT_INT(rpma_flush(conn, dst, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	EXPECT_INT(c_nlogs, 0);

	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_peer_cfg_delete(&no), 0);
	EXPECT_INT(rpma_mr_remote_delete(&dst), 0);
	EXPECT_INT(rpma_mr_remote_delete(&no_persist), 0);

	return c_end(peer);
}
