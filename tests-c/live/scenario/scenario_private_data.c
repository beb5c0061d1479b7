/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_private_data.c -- private data in both directions on RoCE.
 * The client sends 1, 28 (upstream's examples' struct: a 21-byte memory
 * region descriptor and a 1-byte peer configuration descriptor behind a
 * 4-byte header), 56 bytes or none; the server answers with 1, 28, 196
 * bytes or none. Whatever was sent, the server's connection reports 56
 * bytes and the client's 196: the data, then zeros. Too much data: 57
 * bytes from the client make rpma_conn_req_connect(3) fail with
 * RPMA_E_PROVIDER on the client (the server sees no request); 197 bytes
 * from the server make it fail there with RPMA_E_PROVIDER, and the client
 * sees RPMA_CONN_REJECTED. Both failures consume the request and leave
 * *conn_ptr untouched.
 */
#include <stddef.h>

#include "conn.h"

/* upstream's examples' private data (examples/common/common-conn.h) */
struct common_data {
	uint16_t data_offset;
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;
	char descriptors[24];
};

/* the rounds: how many bytes each side sends (0: none) */
static const struct { int from_client, from_server; } rounds[] = {
	{1, 1},
	{sizeof(struct common_data), sizeof(struct common_data)},
	{56, 196},
	{0, 0},
};
#define NROUNDS ((int)(sizeof(rounds) / sizeof(rounds[0])))

static char sentinel;
#define CONN_SENTINEL ((struct rpma_conn *)&sentinel)

/* len bytes that are never zero, different for each seed */
static void
pattern(unsigned char *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(1 + (seed * 31 + i * 7) % 255);
}

/* fills buf with what a side sends in a round; returns the length */
static int
payload(unsigned char *buf, int len, int seed)
{
	if (len == (int)sizeof(struct common_data)) {
		struct common_data cd;
		struct rpma_peer_cfg *pcfg = NULL;

		memset(&cd, 0, sizeof(cd));
		cd.data_offset = 0;
		cd.mr_desc_size = 21;
		cd.pcfg_desc_size = 1;
		pattern((unsigned char *)cd.descriptors, 21, seed);
		/* a real peer configuration descriptor */
		if (rpma_peer_cfg_new(&pcfg) == 0) {
			(void) rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true);
			(void) rpma_peer_cfg_get_descriptor(pcfg, &cd.descriptors[21]);
			(void) rpma_peer_cfg_delete(&pcfg);
		}
		memcpy(buf, &cd, sizeof(cd));
	} else {
		pattern(buf, (size_t)len, seed);
	}
	return len;
}

/* what arrived, as four values */
enum { PD_RET, PD_LEN, PD_SENT_BYTES, PD_ZEROS_AFTER, PD_N };

static void
describe(struct rpma_conn *conn, const unsigned char *sent, int sent_len, long long out[PD_N])
{
	struct rpma_conn_private_data pd = {NULL, 0};

	out[PD_RET] = rpma_conn_get_private_data(conn, &pd);
	out[PD_LEN] = pd.len;
	out[PD_SENT_BYTES] = pd.ptr != NULL && pd.len >= sent_len && memcmp(pd.ptr, sent, (size_t)sent_len) == 0;
	out[PD_ZEROS_AFTER] = pd.ptr != NULL && pd.len >= sent_len &&
		c_all_zero((const char *)pd.ptr + sent_len, (size_t)(pd.len - sent_len));
}

static void
serve(struct rpma_peer *peer, struct rpma_ep *ep)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn;
	unsigned char in[256], out[256];
	long long seen[PD_N];

	(void) peer;
	for (int r = 0; r < NROUNDS; r++) {
		struct rpma_conn_private_data pd = {out, 0};

		pd.len = (uint8_t)payload(out, rounds[r].from_server, 100 + r);
		(void) payload(in, rounds[r].from_client, r);
		conn = c_accept(ep, NULL, pd.len ? &pd : NULL);
		describe(conn, in, rounds[r].from_client, seen);
		for (int i = 0; i < PD_N; i++)
			c_put(seen[i]);
		S_CHECK(c_closed(&conn));
	}

	/* the client's 57 bytes never arrive: the next request is the last round's */
	pattern(out, 197, 7);
	struct rpma_conn_private_data big = {out, 197};
	S_CHECK(rpma_ep_next_conn_req(ep, NULL, &req) == 0);
	conn = CONN_SENTINEL;
	c_put(rpma_conn_req_connect(&req, &big, &conn));
	c_put(req == NULL);
	c_put(conn == CONN_SENTINEL);
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_req *req = NULL;
	unsigned char in[256], out[256];
	long long seen[PD_N];

	t_begin();
	EXPECT_INT(sizeof(struct common_data), 28);
	EXPECT_INT(offsetof(struct common_data, descriptors), 4);
	peer = c_start_serving(serve);

	for (int r = 0; r < NROUNDS; r++) {
		struct rpma_conn_private_data pd = {out, 0};

		t_note("client sends %d bytes, server sends %d bytes",
				rounds[r].from_client, rounds[r].from_server);
		pd.len = (uint8_t)payload(out, rounds[r].from_client, r);
		(void) payload(in, rounds[r].from_server, 100 + r);
		conn = c_connect(peer, NULL, pd.len ? &pd : NULL);
		EXPECT_TRUE(conn != NULL);
		describe(conn, in, rounds[r].from_server, seen);
		EXPECT_INT(seen[PD_RET], 0);
		EXPECT_INT(seen[PD_LEN], 196);
		EXPECT_INT(seen[PD_SENT_BYTES], 1);
		EXPECT_INT(seen[PD_ZEROS_AFTER], 1);
		EXPECT_INT(SERVER(rpma_conn_get_private_data), 0);
		EXPECT_INT(SERVER(len), 56);
		EXPECT_INT(SERVER(the client bytes), 1);
		EXPECT_INT(SERVER(zeros after them), 1);
		EXPECT_TRUE(c_close(&conn));
	}

	t_note("client sends 57 bytes");
	pattern(out, 57, 5);
	struct rpma_conn_private_data big = {out, 57};
	EXPECT_INT(rpma_conn_req_new(peer, t_ip(), t_port(), NULL, &req), 0);
	conn = CONN_SENTINEL;
	EXPECT_INT(rpma_conn_req_connect(&req, &big, &conn), RPMA_E_PROVIDER);
	EXPECT_TRUE(req == NULL /* consumed */);
	EXPECT_TRUE(conn == CONN_SENTINEL /* untouched */);

	t_note("server sends 197 bytes");
	conn = c_request(peer, NULL, NULL);
	EXPECT_TRUE(conn != NULL);
	EXPECT_INT(SERVER(rpma_conn_req_connect), RPMA_E_PROVIDER);
	EXPECT_INT(SERVER(request consumed), 1);
	EXPECT_INT(SERVER(conn untouched), 1);
	EXPECT_TRUE(c_event_is(conn, RPMA_CONN_REJECTED));
	EXPECT_INT(rpma_conn_delete(&conn), 0);

	return c_end(peer);
}
