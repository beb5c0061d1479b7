/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_descriptors.c -- the way upstream's examples hand a memory
 * region over: the server registers a region, declares direct write to
 * PMem in its peer configuration and sends both descriptors in the private
 * data of its accept, in upstream's 28-byte struct. The client rebuilds
 * the region with rpma_mr_remote_from_descriptor(3) (size, flush type) and
 * the configuration with rpma_peer_cfg_from_descriptor(3), applies it with
 * rpma_conn_apply_remote_peer_cfg(3), and can then flush to persistency.
 * A server that sends a truncated (20-byte) descriptor or one with no usage
 * bits gets RPMA_E_INVAL from the client's rebuild, the output untouched; a
 * configuration without direct write to PMem makes the flush
 * RPMA_E_NOSUPP.
 */
#include "conn.h"


#define BUF_SIZE 4096
#define USAGE (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/* upstream's examples' private data (examples/common/common-conn.h) */
struct common_data {
	uint16_t data_offset;
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;
	char descriptors[24];
};

enum { R_GOOD, R_TRUNCATED, R_NO_USAGE, R_N };

static char sentinel;
#define MR_SENTINEL ((struct rpma_mr_remote *)&sentinel)
#define PCFG_SENTINEL ((struct rpma_peer_cfg *)&sentinel)

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	void *buf = NULL;
	struct rpma_mr_local *mr = c_reg_buf(peer, BUF_SIZE, USAGE, &buf);
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_conn *conn;
	struct common_data cd;
	size_t mr_desc_size = 0, pcfg_desc_size = 0;

	S_CHECK(rpma_peer_cfg_new(&pcfg) == 0);
	S_CHECK(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true) == 0);

	memset(&cd, 0, sizeof(cd));
	S_CHECK(rpma_mr_get_descriptor_size(mr, &mr_desc_size) == 0);
	S_CHECK(rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_desc_size) == 0);
	S_CHECK(mr_desc_size + pcfg_desc_size <= sizeof(cd.descriptors));
	cd.mr_desc_size = (uint8_t)mr_desc_size;
	cd.pcfg_desc_size = (uint8_t)pcfg_desc_size;
	S_CHECK(rpma_mr_get_descriptor(mr, &cd.descriptors[0]) == 0);
	S_CHECK(rpma_peer_cfg_get_descriptor(pcfg, &cd.descriptors[mr_desc_size]) == 0);

	for (int r = 0; r < R_N; r++) {
		struct common_data send = cd;
		struct rpma_conn_private_data pd = {&send, sizeof(send)};

		if (r == R_TRUNCATED) {
			/* claims a 20-byte region descriptor and an empty configuration */
			send.mr_desc_size = 20;
			send.pcfg_desc_size = 0;
		} else if (r == R_NO_USAGE) {
			send.descriptors[20] = 0; /* the usage byte */
			send.descriptors[21] = 0; /* no direct write to PMem */
		}
		conn = c_accept(ep, NULL, &pd);
		S_CHECK(c_closed(&conn));
	}

	/* the region stays registered until every flush is done */
	S_CHECK(rpma_peer_cfg_delete(&pcfg) == 0);
	c_dereg_buf(&mr, buf);
}

/* a connection (*connp, checked) and the struct it received (checked), or NULL */
static const struct common_data *
received(struct rpma_peer *peer, struct rpma_conn **connp)
{
	struct rpma_conn *conn = c_connect(peer, NULL, NULL);
	struct rpma_conn_private_data pd = {NULL, 0};
	const struct common_data *cd = NULL;

	EXPECT_TRUE(conn != NULL);
	*connp = conn;
	if (rpma_conn_get_private_data(conn, &pd) == 0 && pd.ptr != NULL &&
			pd.len >= sizeof(struct common_data))
		cd = pd.ptr;
	EXPECT_TRUE(cd != NULL);
	return cd;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_remote *mr = NULL, *mr2 = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	const struct common_data *cd;
	const unsigned char *desc;
	size_t size = 0;
	int flush_type = 0;
	bool direct = false;
	uint64_t len_field = 0;

	t_begin();
	peer = c_start_serving(serve);

	t_note("the server's descriptors");
	cd = received(peer, &conn);
	if (cd != NULL) {
		EXPECT_INT(cd->data_offset, 0);
		EXPECT_INT(cd->mr_desc_size, 21);
		EXPECT_INT(cd->pcfg_desc_size, 1);
		/* the wire format: the length (little-endian) at 8, the usage at 20 */
		desc = (const unsigned char *)cd->descriptors;
		for (int i = 7; i >= 0; i--)
			len_field = len_field << 8 | desc[8 + i];
		EXPECT_INT(len_field, BUF_SIZE);
		EXPECT_INT(desc[20], USAGE);
		EXPECT_INT(desc[21] /* the peer configuration */, 1);

		EXPECT_INT(rpma_mr_remote_from_descriptor(cd->descriptors, cd->mr_desc_size, &mr), 0);
		EXPECT_INT(rpma_mr_remote_get_size(mr, &size), 0);
		EXPECT_INT(size, BUF_SIZE);
		EXPECT_INT(rpma_mr_remote_get_flush_type(mr, &flush_type), 0);
		EXPECT_INT(flush_type, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
		/* a longer buffer works too: the whole private data after the header */
		EXPECT_INT(rpma_mr_remote_from_descriptor(cd->descriptors, 196 - 4, &mr2), 0);
		size = 0;
		EXPECT_INT(rpma_mr_remote_get_size(mr2, &size), 0);
		EXPECT_INT(size, BUF_SIZE);
		EXPECT_INT(rpma_mr_remote_delete(&mr2), 0);

		EXPECT_INT(rpma_peer_cfg_from_descriptor(&cd->descriptors[cd->mr_desc_size],
				cd->pcfg_desc_size, &pcfg), 0);
		EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct), 0);
		EXPECT_INT(direct, true);

		/* before and after applying the server's configuration */
		EXPECT_INT(rpma_flush(conn, mr, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				RPMA_F_COMPLETION_ON_ERROR, NULL), RPMA_E_NOSUPP);
		EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, pcfg), 0);
		EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
		EXPECT_INT(rpma_flush(conn, mr, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
		EXPECT_INT(rpma_flush(conn, mr, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ON_ERROR, NULL), RPMA_E_NOSUPP /* not in the usage */);
	}
	EXPECT_TRUE(c_close(&conn));

	t_note("a truncated descriptor and an empty configuration");
	cd = received(peer, &conn);
	if (cd != NULL) {
		EXPECT_INT(cd->mr_desc_size, 20);
		EXPECT_INT(cd->pcfg_desc_size, 0);
		mr2 = MR_SENTINEL;
		EXPECT_INT(rpma_mr_remote_from_descriptor(cd->descriptors, cd->mr_desc_size, &mr2),
				RPMA_E_INVAL);
		EXPECT_TRUE(mr2 == MR_SENTINEL);
		pcfg = PCFG_SENTINEL;
		EXPECT_INT(rpma_peer_cfg_from_descriptor(&cd->descriptors[cd->mr_desc_size],
				cd->pcfg_desc_size, &pcfg), RPMA_E_INVAL);
		EXPECT_TRUE(pcfg == PCFG_SENTINEL);
	}
	EXPECT_TRUE(c_close(&conn));

	t_note("no usage bits and no direct write to PMem");
	cd = received(peer, &conn);
	if (cd != NULL) {
		EXPECT_INT(cd->mr_desc_size, 21);
		EXPECT_INT(cd->descriptors[20], 0);
		mr2 = MR_SENTINEL;
		EXPECT_INT(rpma_mr_remote_from_descriptor(cd->descriptors, cd->mr_desc_size, &mr2),
				RPMA_E_INVAL);
		EXPECT_TRUE(mr2 == MR_SENTINEL);
		pcfg = NULL;
		EXPECT_INT(rpma_peer_cfg_from_descriptor(&cd->descriptors[cd->mr_desc_size],
				cd->pcfg_desc_size, &pcfg), 0);
		direct = true;
		EXPECT_INT(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct), 0);
		EXPECT_INT(direct, false);
		EXPECT_INT(rpma_conn_apply_remote_peer_cfg(conn, pcfg), 0);
		EXPECT_INT(rpma_peer_cfg_delete(&pcfg), 0);
		/* the first connection's region, through this connection */
		EXPECT_INT(rpma_flush(conn, mr, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				RPMA_F_COMPLETION_ON_ERROR, NULL), RPMA_E_NOSUPP);
	}
	EXPECT_TRUE(c_close(&conn));
	EXPECT_INT(rpma_mr_remote_delete(&mr), 0);

	return c_end(peer);
}
