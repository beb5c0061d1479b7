/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario_bad_input_data_path.c -- bad input for the data path on the main
 * connection, and what the device refuses on fresh connections: one row of
 * the table at the end per entry point; bad_<name>() makes its calls. The
 * live objects, the server and the rules every rejected call is held to are
 * those of badinput.h. (Once one program, scenario_bad_input.c, split by
 * object.)
 */
#define _GNU_SOURCE
#include "badinput.h"

/* ---- the data path on the main connection ---- */

static void
read_into_model(int k, size_t roff, size_t loff, size_t len)
{
	memcpy(lmodel + loff, model[k] + roff, len);
}

static void
write_into_model(int k, size_t roff, size_t loff, size_t len)
{
	memcpy(model[k] + roff, lmodel + loff, len);
}

static void
bad_rpma_read(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_read(NULL, l, L_DST, r, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, L_DST, r, 0, 8, 0, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, L_DST, r, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, r, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, L_DST, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, l, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 8, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_read(c, NULL, 0, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_read(NULL, NULL, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(local_ok());

	t_note("unknown flag bits: taken, signalled only with RPMA_F_COMPLETION_ALWAYS's bit");
	if (TAKEN(rpma_read(c, l, L_DST, r, 16, 16, F_BIT7, NEVER)))
		read_into_model(R_FULL, 16, L_DST, 16);
	if (TAKEN(rpma_read(c, l, L_DST + 16, r, 32, 16, F_MIN, NEVER)))
		read_into_model(R_FULL, 32, L_DST + 16, 16);
	if (TAKEN(rpma_read(c, l, L_DST + 32, r, 48, 16, F_ALL, OS_CTX(0x701))))
		read_into_model(R_FULL, 48, L_DST + 32, 16);
	OS_EXPECT_WC(c, 0x701, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(local_ok());

	t_note("a length past 32 bits: the work request carries its low 32 bits");
	if (TAKEN(rpma_read(c, l, L_DST + 64, r, 64, LEN_2_32_PLUS_8, ALWAYS, OS_CTX(0x702))))
		read_into_model(R_FULL, 64, L_DST + 64, 8);
	OS_EXPECT_WC(c, 0x702, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(c));
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_write(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_write(NULL, r, 512, l, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 512, l, L_SRC, 8, 0, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 512, l, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, l, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 512, NULL, L_SRC, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, r, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 8, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_write(c, NULL, 0, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_write(NULL, NULL, 0, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken, signalled only with RPMA_F_COMPLETION_ALWAYS's bit");
	if (TAKEN(rpma_write(c, r, 512, l, L_SRC, 16, F_BIT7, NEVER)))
		write_into_model(R_FULL, 512, L_SRC, 16);
	if (TAKEN(rpma_write(c, r, 528, l, L_SRC + 16, 16, F_MIN, NEVER)))
		write_into_model(R_FULL, 528, L_SRC + 16, 16);
	if (TAKEN(rpma_write(c, r, 544, l, L_SRC + 32, 16, F_ALL, OS_CTX(0x711))))
		write_into_model(R_FULL, 544, L_SRC + 32, 16);
	OS_EXPECT_WC(c, 0x711, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("a length past 32 bits: the work request carries its low 32 bits");
	if (TAKEN(rpma_write(c, r, 576, l, L_SRC + 64, LEN_2_32_PLUS_8, ALWAYS, OS_CTX(0x712))))
		write_into_model(R_FULL, 576, L_SRC + 64, 8);
	OS_EXPECT_WC(c, 0x712, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_TRUE(os_cq_empty(c));
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_write_with_imm(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];

	EXPECT_INT(rpma_write_with_imm(NULL, r, 640, l, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 640, l, L_SRC, 8, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 640, l, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, l, 0, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 640, NULL, L_SRC, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, r, 0, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	t_note("the 0-byte form with an offset or a length");
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 0, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 8, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 8, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(c, NULL, 0, NULL, 0, 0, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_write_with_imm(NULL, NULL, 0, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_write_with_imm(c, r, 640, l, L_SRC, 16, F_BIT7, 0x11, NEVER))) {
		write_into_model(R_FULL, 640, L_SRC, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x11);
	}
	if (TAKEN(rpma_write_with_imm(c, r, 656, l, L_SRC + 16, 16, F_MIN, 0x12, NEVER))) {
		write_into_model(R_FULL, 656, L_SRC + 16, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x12);
	}
	if (TAKEN(rpma_write_with_imm(c, r, 672, l, L_SRC + 32, 16, F_ALL, 0x13,
			OS_CTX(0x721)))) {
		write_into_model(R_FULL, 672, L_SRC + 32, 16);
		want_message(IBV_WC_RECV_RDMA_WITH_IMM, 16, 0x13);
	}
	OS_EXPECT_WC(c, 0x721, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_atomic_write(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_remote *r = x.r[R_FULL];
	const char a[8] = "ABCDEFG", b[8] = "HIJKLMN";

	EXPECT_INT(rpma_atomic_write(NULL, r, 768, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, NULL, 768, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 768, NULL, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 768, a, 0, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(NULL, NULL, 0, NULL, 0, NEVER), INVAL);
	t_note("offsets that are not a multiple of 8");
	EXPECT_INT(rpma_atomic_write(c, r, 769, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 772, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, 775, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, RSIZE + 1, a, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_atomic_write(c, r, SIZE_MAX, a, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());

	t_note("unknown flag bits: taken");
	if (TAKEN(rpma_atomic_write(c, r, 768, a, F_BIT7, NEVER)))
		memcpy(model[R_FULL] + 768, a, 8);
	if (TAKEN(rpma_atomic_write(c, r, 776, b, F_MIN, NEVER)))
		memcpy(model[R_FULL] + 776, b, 8);
	if (TAKEN(rpma_atomic_write(c, r, 784, a, F_ALL, OS_CTX(0x731))))
		memcpy(model[R_FULL] + 784, a, 8);
	OS_EXPECT_WC(c, 0x731, t_atomic_write_opcode(), IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
}

static void
bad_rpma_flush(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_remote *r = x.r[R_FULL], *plain = x.r[R_PLAIN];
	const enum rpma_flush_type vis = RPMA_FLUSH_TYPE_VISIBILITY;
	const enum rpma_flush_type pers = RPMA_FLUSH_TYPE_PERSISTENT;

	EXPECT_INT(rpma_flush(NULL, r, 0, 8, vis, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_flush(c, NULL, 0, 8, vis, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_flush(c, r, 0, 8, vis, 0, NEVER), INVAL);
	EXPECT_INT(rpma_flush(NULL, NULL, 0, 0, vis, 0, NEVER), INVAL);
	t_note("a flush type the connection or the region does not support");
	EXPECT_INT(rpma_flush(c, r, 0, 8, pers, ALWAYS, NEVER), NOSUPP);
	EXPECT_INT(rpma_flush(c, plain, 0, 8, vis, ALWAYS, NEVER), NOSUPP);
	EXPECT_INT(rpma_flush(c, plain, 0, 8, pers, ALWAYS, NEVER), NOSUPP);
	OS_EXPECT_FENCE(c);

	t_note("unknown flush types pass the library");
	if (t_native_flush())
		t_note("... natively: a flush of no placement, which needs no right of the region");
	else
		t_note("... emulated: a read of the region");
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)99, ALWAYS, OS_CTX(0x741)), 0);
	OS_EXPECT_WC(c, 0x741, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)-1, ALWAYS, OS_CTX(0x742)), 0);
	OS_EXPECT_WC(c, 0x742, t_flush_opcode(), IBV_WC_SUCCESS);
	EXPECT_INT(rpma_flush(c, r, 0, 8, (enum rpma_flush_type)INT_MAX, ALWAYS, OS_CTX(0x743)),
			0);
	OS_EXPECT_WC(c, 0x743, t_flush_opcode(), IBV_WC_SUCCESS);
	t_note("... also on a region without any flush usage");
	EXPECT_INT(rpma_flush(c, plain, 0, 8, (enum rpma_flush_type)99, ALWAYS, OS_CTX(0x744)), 0);
	OS_EXPECT_WC(c, 0x744, t_flush_opcode(), IBV_WC_SUCCESS);
	t_note("lengths are not checked");
	EXPECT_INT(rpma_flush(c, r, 0, 0, vis, ALWAYS, OS_CTX(0x745)), 0);
	OS_EXPECT_WC(c, 0x745, t_flush_opcode(), IBV_WC_SUCCESS);
	if (t_native_flush()) {
		/* the device checks the range: see out_of_range() (0x823) */
		t_note("... natively the device checks [dst_offset, dst_offset + len): "
				"SIZE_MAX bytes are refused, on a fresh connection below");
	} else {
		t_note("... emulated, len plays no part: 8 bytes at dst_offset are read");
		EXPECT_INT(rpma_flush(c, r, 0, SIZE_MAX, vis, ALWAYS, OS_CTX(0x746)), 0);
		OS_EXPECT_WC(c, 0x746, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	}
	t_note("unknown flag bits: taken");
	EXPECT_INT(rpma_flush(c, r, 8, 8, vis, F_BIT7, NEVER), 0);
	EXPECT_INT(rpma_flush(c, r, 16, 8, vis, F_MIN, NEVER), 0);
	EXPECT_INT(rpma_flush(c, r, 24, 8, vis, F_ALL, OS_CTX(0x747)), 0);
	OS_EXPECT_WC(c, 0x747, t_flush_opcode(), IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_conn_apply_remote_peer_cfg(void)
{
	struct rpma_conn *c = x.conn;

	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, x.pcfg), INVAL);
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, NULL), INVAL);
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(NULL, NULL), INVAL);
	t_note("nothing was applied: a persistent flush is still refused");
	EXPECT_INT(rpma_flush(c, x.r[R_FULL], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS, NEVER),
			NOSUPP);
	OS_EXPECT_FENCE(c);
	t_note("the real one");
	EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, x.pcfg), 0);
	if (t_native_flush()) {
		/* the error would break the main connection: see out_of_range() */
		t_note("... natively a persistent flush needs a right the device grants only "
				"on persistent memory: refused, on a fresh connection below");
	} else {
		t_note("... emulated: a read of the region");
		EXPECT_INT(rpma_flush(c, x.r[R_FULL], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS,
				OS_CTX(0x751)), 0);
		OS_EXPECT_WC(c, 0x751, IBV_WC_RDMA_READ, IBV_WC_SUCCESS);
	}
	EXPECT_INT(rpma_flush(c, x.r[R_PLAIN], 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS, NEVER),
			NOSUPP);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_send(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;

	EXPECT_INT(rpma_send(NULL, l, L_SRC, 16, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, l, L_SRC, 16, 0, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 8, 0, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 0, 8, ALWAYS, NEVER), INVAL);
	EXPECT_INT(rpma_send(c, NULL, 0, 0, 0, NEVER), INVAL);
	EXPECT_INT(rpma_send(NULL, NULL, 0, 0, ALWAYS, NEVER), INVAL);
	OS_EXPECT_FENCE(c);

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_send(c, l, L_SRC, 16, F_BIT7, NEVER)))
		want_message(IBV_WC_RECV, 16, -1);
	if (TAKEN(rpma_send(c, l, L_SRC, 24, F_MIN, NEVER)))
		want_message(IBV_WC_RECV, 24, -1);
	if (TAKEN(rpma_send(c, l, L_SRC, 32, F_ALL, OS_CTX(0x761))))
		want_message(IBV_WC_RECV, 32, -1);
	OS_EXPECT_WC(c, 0x761, IBV_WC_SEND, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_send_with_imm(void)
{
	struct rpma_conn *c = x.conn;
	struct rpma_mr_local *l = x.mr;

	EXPECT_INT(rpma_send_with_imm(NULL, l, L_SRC, 16, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, l, L_SRC, 16, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 8, 0, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 0, 8, ALWAYS, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(c, NULL, 0, 0, 0, 1, NEVER), INVAL);
	EXPECT_INT(rpma_send_with_imm(NULL, NULL, 0, 0, ALWAYS, 1, NEVER), INVAL);
	OS_EXPECT_FENCE(c);

	t_note("unknown flag bits: taken; each consumes one receive of the server");
	if (TAKEN(rpma_send_with_imm(c, l, L_SRC, 8, F_BIT7, 0x21, NEVER)))
		want_message(IBV_WC_RECV, 8, 0x21);
	if (TAKEN(rpma_send_with_imm(c, l, L_SRC, 0, F_MIN, 0x22, NEVER)))
		want_message(IBV_WC_RECV, 0, 0x22);
	if (TAKEN(rpma_send_with_imm(c, NULL, 0, 0, F_ALL, 0xFFFFFFFFu, OS_CTX(0x771))))
		want_message(IBV_WC_RECV, 0, 0xFFFFFFFFLL);
	OS_EXPECT_WC(c, 0x771, IBV_WC_SEND, IBV_WC_SUCCESS);
	OS_EXPECT_FENCE(c);
}

static void
bad_rpma_recv(void)
{
	struct ibv_wc wc;

	EXPECT_INT(rpma_recv(NULL, x.mr, L_DST, 8, OS_CTX(0x781)), INVAL);
	EXPECT_INT(rpma_recv(x.conn, NULL, 8, 0, OS_CTX(0x782)), INVAL);
	EXPECT_INT(rpma_recv(x.conn, NULL, 0, 8, OS_CTX(0x783)), INVAL);
	EXPECT_INT(rpma_recv(NULL, NULL, 0, 0, OS_CTX(0x784)), INVAL);
	EXPECT_INT(rpma_cq_get_wc(x.rcq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	EXPECT_TRUE(os_cq_empty(x.conn));
}

static void
bad_rpma_conn_disconnect(void)
{
	EXPECT_INT(rpma_conn_disconnect(NULL), INVAL);
	t_note("the connection still carries a write");
	EXPECT_TRUE(!c_event_pending(x.conn, 0));
	if (TAKEN(rpma_write(x.conn, x.r[R_FULL], 1024, x.mr, L_SRC, 64, ALWAYS, OS_CTX(0x791))))
		write_into_model(R_FULL, 1024, L_SRC, 64);
	OS_EXPECT_WC(x.conn, 0x791, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

static void
bad_rpma_conn_delete(void)
{
	BI_DESTRUCTOR_NULLS(rpma_conn_delete, struct rpma_conn *);
	EXPECT_TRUE(os_cq_empty(x.conn));
	EXPECT_TRUE(c_close(&x.conn));
	t_note("the server got exactly the messages taken");
	expect_receives();
}

/* ---- what the device refuses: one fresh connection each ---- */

static struct rpma_conn *
fresh(void)
{
	struct rpma_conn *c = c_connect(x.peer, NULL, NULL);

	EXPECT_TRUE(c != NULL);
	if (c != NULL)
		nconns++;
	return c;
}

static void
close_fresh(struct rpma_conn **c)
{
	EXPECT_TRUE(os_cq_empty(*c));
	EXPECT_TRUE(c_close(c));
	expect_receives();
	EXPECT_TRUE(shm_ok());
	EXPECT_TRUE(local_ok());
}

/*
 * call (on connection c) is taken and its completion, wr_id id, has status
 * st; no byte of either side moved
 */
#define REFUSED(call, id, st) do { \
	struct rpma_conn *c = fresh(); \
	if (c != NULL) { \
		t_int(__FILE__, __LINE__, #call, (call), 0); \
		OS_EXPECT_WC(c, id, 0, st); \
		close_fresh(&c); \
	} \
} while (0)

/*
 * what rxe reports where Linux 6.1 and 6.12 differ (measured alike with both
 * C libraries and ours): a length beyond any region, and a local source
 * past the end of its region
 */
#define RXE_HUGE_LEN (t_kernel() >= 6012 ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_ACCESS_ERR)
#define RXE_LOCAL_SRC_OUT (t_kernel() >= 6012 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_PROT_ERR)

static void
out_of_range(void)
{
	struct rpma_mr_local *l = x.mr;
	struct rpma_mr_remote *r = x.r[R_FULL];
	const enum rpma_flush_type vis = RPMA_FLUSH_TYPE_VISIBILITY;
	struct rpma_conn *c;
	struct rpma_cq *cq = BI_SENT(struct rpma_cq *);
	int fd = BI_SENT_INT;

	t_note("a connection without a shared completion channel");
	c = fresh();
	if (c != NULL) {
		EXPECT_INT(rpma_conn_get_compl_fd(c, &fd), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_INT(fd, BI_SENT_INT);
		EXPECT_INT(rpma_conn_wait(c, 0, &cq, NULL), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_INT(rpma_conn_wait(c, F_ALL, &cq, NULL), RPMA_E_NOT_SHARED_CHNL);
		EXPECT_TRUE(cq == BI_SENT(struct rpma_cq *));
		close_fresh(&c);
	}
	t_note("reads: into the local region past its end, from the remote one past its end");
	REFUSED(rpma_read(c, l, LSIZE, r, 0, 8, ALWAYS, OS_CTX(0x801)), 0x801,
			IBV_WC_LOC_PROT_ERR);
	REFUSED(rpma_read(c, l, L_DST, r, RSIZE, 8, ALWAYS, OS_CTX(0x802)), 0x802,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_read(c, l, 0, r, 0, RSIZE + 8, ALWAYS, OS_CTX(0x803)), 0x803,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_read(c, l, 0, r, 0, SIZE_MAX, ALWAYS, OS_CTX(0x804)), 0x804,
			RXE_HUGE_LEN);
	t_note("writes: across the remote end, from past the local end, longer than the region");
	REFUSED(rpma_write(c, r, RSIZE - 4, l, L_SRC, 8, ALWAYS, OS_CTX(0x811)), 0x811,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_write(c, r, 0, l, LSIZE, 8, ALWAYS, OS_CTX(0x812)), 0x812,
			RXE_LOCAL_SRC_OUT);
	REFUSED(rpma_write(c, r, 0, l, 0, RSIZE + 8, ALWAYS, OS_CTX(0x813)), 0x813,
			IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_write_with_imm(c, r, RSIZE, l, L_SRC, 8, ALWAYS, 0x31, OS_CTX(0x814)),
			0x814, IBV_WC_REM_ACCESS_ERR);
	REFUSED(rpma_atomic_write(c, r, RSIZE, "ABCDEFG", ALWAYS, OS_CTX(0x815)), 0x815,
			IBV_WC_REM_ACCESS_ERR);
	t_note("flushes: past the end, and 4 bytes before it");
	REFUSED(rpma_flush(c, r, RSIZE, 8, vis, ALWAYS, OS_CTX(0x821)), 0x821,
			IBV_WC_REM_ACCESS_ERR);
	if (t_native_flush()) {
		t_note("... natively the range is [dst_offset, dst_offset + len): "
				"the last 4 bytes are in the region");
		c = fresh();
		if (c != NULL) {
			EXPECT_INT(rpma_flush(c, r, RSIZE - 4, 4, vis, ALWAYS, OS_CTX(0x822)), 0);
			OS_EXPECT_WC(c, 0x822, t_flush_opcode(), IBV_WC_SUCCESS);
			close_fresh(&c);
		}
		t_note("... and SIZE_MAX bytes from the start are not");
		REFUSED(rpma_flush(c, r, 0, SIZE_MAX, vis, ALWAYS, OS_CTX(0x823)), 0x823,
				RXE_HUGE_LEN);
		t_note("... a persistent flush: only a region in persistent memory has that right");
		c = fresh();
		if (c != NULL) {
			EXPECT_INT(rpma_conn_apply_remote_peer_cfg(c, x.pcfg), 0);
			EXPECT_INT(rpma_flush(c, r, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS,
					OS_CTX(0x751)), 0);
			if (t_persistent_memory()) {
				OS_EXPECT_WC(c, 0x751, t_flush_opcode(), IBV_WC_SUCCESS);
			} else {
				OS_EXPECT_WC(c, 0x751, 0, IBV_WC_REM_ACCESS_ERR);
			}
			close_fresh(&c);
		}
	} else {
		t_note("... emulated, 8 bytes at dst_offset are read: past the end");
		REFUSED(rpma_flush(c, r, RSIZE - 4, 4, vis, ALWAYS, OS_CTX(0x822)), 0x822,
				IBV_WC_REM_ACCESS_ERR);
	}
	t_note("a send longer than the receive");
	REFUSED(rpma_send(c, l, L_SRC, 2 * RECV_LEN, ALWAYS, OS_CTX(0x831)), 0x831,
			IBV_WC_REM_OP_ERR);
}

/* ---- the table ---- */

static const struct bi_row rows[] = {
	ROW(rpma_read),
	ROW(rpma_write),
	ROW(rpma_write_with_imm),
	ROW(rpma_atomic_write),
	ROW(rpma_flush),
	ROW(rpma_conn_apply_remote_peer_cfg),
	ROW(rpma_send),
	ROW(rpma_send_with_imm),
	ROW(rpma_recv),
	ROW(rpma_conn_disconnect),
	ROW(rpma_conn_delete),
	STEP("what the device refuses, on fresh connections", out_of_range),
	STEP("the server stops", the_end),
};

BI_MAIN(rows)
