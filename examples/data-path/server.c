/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c -- the passive side of the data-path example: exposes a 4 KiB
 * buffer the client may write, read and flush, accepts exactly one client
 * and gives it the buffer's descriptor and the server's peer configuration
 * in the accept. Its receives sit on a shared RQ (SRQ) with a CQ of its
 * own: two messages and one write with immediate data must arrive there.
 * The server then checks its buffer byte by byte, answers with one message
 * (checksum of the buffer, immediates, the messages as received) and waits
 * for the client to hang up. The protocol is described in common.h.
 *
 * usage: server <addr> <port>
 *
 * Exits 0 when the whole exchange went as the protocol says, 1 on any
 * error, mismatch, or when no client came within 30 s.
 */
#include <stdlib.h>

#include "common.h"

#define WHO "server"

/* one receive per incoming message and one for the write with immediate */
#define RECV_SLOTS	3
/* larger than any message, so a too-long one shows as a wrong length */
#define SLOT_SIZE	64

/* the server's message memory: receive slots and the reply */
struct server_msgs {
	char slot[RECV_SLOTS][SLOT_SIZE];
	struct reply_msg reply;
};

#define MSGS_USAGE	(RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND)

/* the reply's op_context; the receives use the address of their slot */
#define OP_REPLY	((const void *)(uintptr_t)0x5e1d)

/*
 * Takes the completion of one receive from the SRQ's CQ and checks what
 * every receive must have: success, this connection's QP, and a slot of
 * ours not seen yet (*slot is set to its index). Returns 0 when so.
 */
static int
next_recv(struct rpma_cq *rcq, int conn_fd, uint32_t qp_num, struct server_msgs *msgs,
		bool seen[RECV_SLOTS], struct ibv_wc *wc, int *slot)
{
	int i;

	/* the client must not hang up before its reply: watch for that too */
	if (next_wc(WHO, rcq, conn_fd, wc))
		return 1;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, WHO ": a receive completed with status %s (%d)\n",
				wc_status_name(wc->status), (int)wc->status);
		return 1;
	}
	/* with a shared RQ the QP number is what names the connection */
	if (wc->qp_num != qp_num) {
		fprintf(stderr, WHO ": a receive completed for another QP\n");
		return 1;
	}
	for (i = 0; i < RECV_SLOTS; i++) {
		if (wc->wr_id == (uint64_t)(uintptr_t)msgs->slot[i] && !seen[i]) {
			seen[i] = true;
			*slot = i;
			return 0;
		}
	}
	fprintf(stderr, WHO ": a receive completed with a wr_id that names none of the free slots\n");
	return 1;
}

/*
 * Checks one received message: opcode RECV, immediate data present
 * exactly when with_imm (and then equal to imm after ntohl), SEND_LEN
 * bytes equal to want. Returns 0 when all match.
 */
static int
check_message(const struct ibv_wc *wc, const char *data, const char *want,
		bool with_imm, uint32_t imm)
{
	if (wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, WHO ": expected a RECV completion, got %s (%d)\n",
				wc_opcode_name(wc->opcode), (int)wc->opcode);
		return 1;
	}
	if (!!(wc->wc_flags & IBV_WC_WITH_IMM) != with_imm) {
		fprintf(stderr, WHO ": the message %s immediate data, it should %s\n",
				with_imm ? "lacks" : "carries", with_imm ? "have it" : "not");
		return 1;
	}
	/* the library hands over the raw completion: network byte order */
	if (with_imm && ntohl(wc->imm_data) != imm) {
		fprintf(stderr, WHO ": immediate data 0x%08x, expected 0x%08x\n",
				ntohl(wc->imm_data), imm);
		return 1;
	}
	if (wc->byte_len != SEND_LEN) {
		fprintf(stderr, WHO ": the message has %u bytes, expected %d\n",
				wc->byte_len, SEND_LEN);
		return 1;
	}
	if (memcmp(data, want, SEND_LEN) != 0) {
		fprintf(stderr, WHO ": the message's bytes differ from what the protocol says\n");
		return 1;
	}
	return 0;
}

/*
 * Checks the whole buffer against what the client's writes must have left
 * in it and returns its checksum in *sum. Returns 0 when every byte matches.
 */
static int
check_buffer(const uint8_t *buf, uint32_t *sum)
{
	uint32_t s = CHECKSUM_INIT;
	size_t i;

	for (i = 0; i < SERVER_BUF_SIZE; i++) {
		if (buf[i] != expected_server_byte(i)) {
			fprintf(stderr, WHO ": buffer byte %zu is 0x%02x, expected 0x%02x\n",
					i, buf[i], expected_server_byte(i));
			return 1;
		}
		s = checksum_step(s, buf[i]);
	}
	*sum = s;
	return 0;
}

/*
 * Everything between ESTABLISHED and the reply: the three receives in the
 * order the client sends them (one RC connection keeps that order), the
 * buffer check and the reply. Returns 0 when all went as the protocol says.
 */
static int
exchange(struct rpma_conn *conn, struct rpma_srq *srq, const uint8_t *buf,
		struct server_msgs *msgs, struct rpma_mr_local *msgs_mr)
{
	struct rpma_cq *rcq = NULL, *conn_rcq = NULL, *cq = NULL;
	struct reply_msg *reply = &msgs->reply;
	bool seen[RECV_SLOTS] = { false };
	struct ibv_wc wc;
	uint32_t qp_num = 0, sum = 0;
	int slot = -1, conn_fd = -1;
	size_t i;
	int ret;

	ret = rpma_conn_get_event_fd(conn, &conn_fd);
	if (ret) {
		report(WHO, "rpma_conn_get_event_fd", ret);
		return 1;
	}
	ret = rpma_conn_get_qp_num(conn, &qp_num);
	if (ret) {
		report(WHO, "rpma_conn_get_qp_num", ret);
		return 1;
	}
	ret = rpma_srq_get_rcq(srq, &rcq);
	if (ret) {
		report(WHO, "rpma_srq_get_rcq", ret);
		return 1;
	}
	ret = rpma_conn_get_rcq(conn, &conn_rcq);
	if (ret) {
		report(WHO, "rpma_conn_get_rcq", ret);
		return 1;
	}
	/* the SRQ has a CQ of its own, so the connection gets none */
	if (rcq == NULL || conn_rcq != NULL) {
		fprintf(stderr, WHO ": receives should complete on the SRQ's CQ and only there\n");
		return 1;
	}
	ret = rpma_conn_get_cq(conn, &cq);
	if (ret) {
		report(WHO, "rpma_conn_get_cq", ret);
		return 1;
	}

	/* 1: rpma_send */
	if (next_recv(rcq, conn_fd, qp_num, msgs, seen, &wc, &slot) ||
			check_message(&wc, msgs->slot[slot], MSG[0], false, 0))
		return 1;
	memcpy(reply->msgs[0], msgs->slot[slot], SEND_LEN);
	printf(WHO ": SRQ receive: %u bytes by rpma_send: \"%.*s\"\n",
			wc.byte_len, SEND_LEN, msgs->slot[slot]);

	/* 2: rpma_send_with_imm */
	if (next_recv(rcq, conn_fd, qp_num, msgs, seen, &wc, &slot) ||
			check_message(&wc, msgs->slot[slot], MSG[1], true, SEND_IMM))
		return 1;
	memcpy(reply->msgs[1], msgs->slot[slot], SEND_LEN);
	reply->send_imm = htole32(ntohl(wc.imm_data));
	printf(WHO ": SRQ receive: %u bytes by rpma_send_with_imm, imm 0x%08x: \"%.*s\"\n",
			wc.byte_len, ntohl(wc.imm_data), SEND_LEN, msgs->slot[slot]);

	/* 3: rpma_write_with_imm, which takes a receive but writes no slot */
	if (next_recv(rcq, conn_fd, qp_num, msgs, seen, &wc, &slot))
		return 1;
	if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, WHO ": expected RECV_RDMA_WITH_IMM with immediate data, got %s (%d)\n",
				wc_opcode_name(wc.opcode), (int)wc.opcode);
		return 1;
	}
	if (ntohl(wc.imm_data) != WRITE_IMM) {
		fprintf(stderr, WHO ": immediate data 0x%08x, expected 0x%08x\n",
				ntohl(wc.imm_data), WRITE_IMM);
		return 1;
	}
	/* for a write, byte_len is the length written */
	if (wc.byte_len != WIMM_LEN) {
		fprintf(stderr, WHO ": the write with immediate reports %u bytes, expected %d\n",
				wc.byte_len, WIMM_LEN);
		return 1;
	}
	for (i = 0; i < WIMM_LEN; i++) {
		if (buf[WIMM_OFFSET + i] != WIMM_BYTE(i)) {
			fprintf(stderr, WHO ": byte %zu of the write with immediate is wrong\n", i);
			return 1;
		}
	}
	reply->write_imm = htole32(ntohl(wc.imm_data));
	printf(WHO ": SRQ receive: rpma_write_with_imm, imm 0x%08x, %d bytes at offset %d as expected\n",
			ntohl(wc.imm_data), WIMM_LEN, WIMM_OFFSET);

	/* all the client's writes are done: every byte must be as planned */
	if (check_buffer(buf, &sum))
		return 1;
	printf(WHO ": buffer holds what the client wrote, checksum 0x%08x\n", sum);

	reply->magic = htole32(REPLY_MAGIC);
	reply->checksum = htole32(sum);
	ret = rpma_send(conn, msgs_mr, offsetof(struct server_msgs, reply), sizeof(*reply),
			RPMA_F_COMPLETION_ALWAYS, OP_REPLY);
	if (ret) {
		report(WHO, "rpma_send", ret);
		return 1;
	}
	/* the client may read the reply and hang up before it completes here */
	if (last_send_done(WHO, conn, cq, OP_REPLY, IBV_WC_SEND, "the reply"))
		return 1;
	printf(WHO ": reply of %zu bytes sent\n", sizeof(*reply));
	return 0;
}

/*
 * Runs one connection from request to close. req is consumed in every
 * case. Returns 0 when the client came, did all the protocol says and
 * left cleanly.
 */
static int
serve(struct rpma_conn_req *req, const struct welcome_msg *welcome, struct rpma_srq *srq,
		const uint8_t *buf, struct server_msgs *msgs, struct rpma_mr_local *msgs_mr)
{
	struct rpma_conn_private_data pdata;
	struct rpma_conn *conn = NULL;
	int failed = 1;

	/* the library only reads the accept data, the cast drops const for the API */
	pdata.ptr = (void *)welcome;
	pdata.len = sizeof(*welcome);
	if (accept_and_wait(WHO, &req, &pdata, CONN_EVENT_TIMEOUT_MS, &conn))
		return 1;
	printf(WHO ": connection established, WELCOME of %zu bytes sent with the accept\n",
			sizeof(*welcome));

	/* on a failure, hang up at once: the client's waits end with an error */
	if (exchange(conn, srq, buf, msgs, msgs_mr))
		goto err_disconnect;

	/* the client has its reply; it is the one who hangs up */
	if (expect_event_within(WHO, conn, RPMA_CONN_CLOSED, "CLOSED", CONN_EVENT_TIMEOUT_MS))
		goto err_disconnect;
	printf(WHO ": the client closed the connection\n");
	failed = 0;

err_disconnect:
	/* rpma_conn_disconnect() also after CLOSED: it completes the disconnection here */
	drop_connection(WHO, &conn, &failed);
	return failed;
}

/*
 * Fills *msg with the descriptors of mr and pcfg. Returns 0, a librpma
 * error code, or RPMA_E_INVAL when they do not fit (*what names the step).
 */
static int
pack_welcome(struct welcome_msg *msg, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, const char **what)
{
	size_t mr_size = 0, pcfg_size = 0;
	int ret;

	memset(msg, 0, sizeof(*msg));
	*what = "rpma_mr_get_descriptor_size";
	ret = rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor_size";
	ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
	if (ret)
		return ret;
	/* both sizes come from the library: never trust them to fit blindly */
	*what = "fitting the descriptors into the WELCOME";
	if (mr_size + pcfg_size > sizeof(msg->descriptors))
		return RPMA_E_INVAL;
	*what = "rpma_mr_get_descriptor";
	ret = rpma_mr_get_descriptor(mr, msg->descriptors);
	if (ret)
		return ret;
	*what = "rpma_peer_cfg_get_descriptor";
	ret = rpma_peer_cfg_get_descriptor(pcfg, msg->descriptors + mr_size);
	if (ret)
		return ret;
	msg->magic = htole32(WELCOME_MAGIC);
	msg->version = htole16(PROTO_VERSION);
	msg->mr_desc_size = (uint8_t)mr_size;
	msg->pcfg_desc_size = (uint8_t)pcfg_size;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct rpma_peer *peer = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_mr_local *mr = NULL, *msgs_mr = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct server_msgs *msgs = NULL;
	struct welcome_msg welcome;
	const char *addr, *port, *what;
	uint8_t *buf = NULL;
	int failed = 1;
	int ret, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <addr> <port>\n", argv[0]);
		return 1;
	}
	addr = argv[1];
	port = argv[2];
	/* line by line even into a file: a script waits for "listening" */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* addr is this host's own: the device is the one that has it */
	if (open_peer(WHO, addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &peer))
		return 1;

	/* the buffer the client works on, filled with the starting pattern */
	buf = page_alloc(WHO, SERVER_BUF_SIZE);
	if (buf == NULL)
		goto err_peer_delete;
	for (i = 0; i < SERVER_BUF_SIZE; i++)
		buf[i] = PATTERN_BYTE(i);
	ret = rpma_mr_reg(peer, buf, SERVER_BUF_SIZE, SERVER_USAGE, &mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (buffer)", ret);
		goto err_free_buf;
	}

	/* the memory messages arrive in and the reply leaves from */
	msgs = page_alloc(WHO, sizeof(*msgs));
	if (msgs == NULL)
		goto err_mr_dereg;
	memset(msgs, 0, sizeof(*msgs));
	ret = rpma_mr_reg(peer, msgs, sizeof(*msgs), MSGS_USAGE, &msgs_mr);
	if (ret) {
		report(WHO, "rpma_mr_reg (messages)", ret);
		goto err_free_msgs;
	}

	ret = rpma_peer_cfg_new(&pcfg);
	if (ret) {
		report(WHO, "rpma_peer_cfg_new", ret);
		goto err_msgs_mr_dereg;
	}
	ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, SERVER_DIRECT_WRITE_TO_PMEM);
	if (ret) {
		report(WHO, "rpma_peer_cfg_set_direct_write_to_pmem", ret);
		goto err_pcfg_delete;
	}
	ret = pack_welcome(&welcome, mr, pcfg, &what);
	if (ret) {
		report(WHO, what, ret);
		goto err_pcfg_delete;
	}

	/*
	 * A shared RQ with the default sizes, which include a CQ of its own.
	 * Its receives can be posted before any connection exists, so they
	 * are there whenever the client starts sending.
	 */
	ret = rpma_srq_new(peer, NULL, &srq);
	if (ret) {
		report(WHO, "rpma_srq_new", ret);
		goto err_pcfg_delete;
	}
	for (i = 0; i < RECV_SLOTS; i++) {
		ret = rpma_srq_recv(srq, msgs_mr, (size_t)i * SLOT_SIZE, SLOT_SIZE, msgs->slot[i]);
		if (ret) {
			report(WHO, "rpma_srq_recv", ret);
			goto err_srq_delete;
		}
	}
	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		report(WHO, "rpma_conn_cfg_new", ret);
		goto err_srq_delete;
	}
	ret = rpma_conn_cfg_set_srq(cfg, srq);
	if (ret) {
		report(WHO, "rpma_conn_cfg_set_srq", ret);
		goto err_cfg_delete;
	}

	ret = rpma_ep_listen(peer, addr, port, &ep);
	if (ret) {
		report(WHO, "rpma_ep_listen", ret);
		goto err_cfg_delete;
	}
	printf(WHO ": listening on %s:%s, %d byte region registered, %d receives posted on the SRQ\n",
			addr, port, SERVER_BUF_SIZE, RECV_SLOTS);

	/* the request's connection is built with cfg, so it uses the SRQ */
	if (next_request(WHO, ep, cfg, ACCEPT_TIMEOUT_MS, &req))
		goto err_ep_shutdown;
	printf(WHO ": a connection request arrived\n");

	failed = serve(req, &welcome, srq, buf, msgs, msgs_mr);

	/* tear down in reverse; any failure here still fails the run */
err_ep_shutdown:
	teardown_step(WHO, "rpma_ep_shutdown", rpma_ep_shutdown(&ep), &failed);
err_cfg_delete:
	teardown_step(WHO, "rpma_conn_cfg_delete", rpma_conn_cfg_delete(&cfg), &failed);
err_srq_delete:
	/* after the connection: its QP used the SRQ */
	teardown_step(WHO, "rpma_srq_delete", rpma_srq_delete(&srq), &failed);
err_pcfg_delete:
	teardown_step(WHO, "rpma_peer_cfg_delete", rpma_peer_cfg_delete(&pcfg), &failed);
err_msgs_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (messages)", rpma_mr_dereg(&msgs_mr), &failed);
err_free_msgs:
	free(msgs);
err_mr_dereg:
	teardown_step(WHO, "rpma_mr_dereg (buffer)", rpma_mr_dereg(&mr), &failed);
err_free_buf:
	free(buf);
err_peer_delete:
	teardown_step(WHO, "rpma_peer_delete", rpma_peer_delete(&peer), &failed);
	if (!failed)
		printf(WHO ": done\n");
	return failed;
}
