/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_srq_get_rcq.c -- mirrors rpma_srq_get_rcq(3): RPMA_E_INVAL for a
 * NULL srq or rcq_ptr (*rcq_ptr untouched, nothing logged); the receive CQ
 * rpma_srq_new(3) made (cfg NULL, the default rcq_size, rcq_size 1): the
 * same one on every call, a CQ of its own (its own completion channel:
 * another SRQ's receive CQ has another fd), empty until a message arrives;
 * NULL (written over whatever *rcq_ptr held) when rcq_size is 0. That the
 * SRQ's receives complete there is in rpma_srq_recv.c and
 * scenario_srq_wiring.c.
 */
#include "srq.h"

/* the receive CQ of srq: present, stable, empty, with an open fd; its fd */
static int
expect_rcq(struct rpma_srq *srq)
{
	struct rpma_cq *rcq = CQ_SENTINEL, *again = CQ_SENTINEL;
	int fd = -1;

	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(rcq != NULL && rcq != CQ_SENTINEL);
	EXPECT_INT(rpma_srq_get_rcq(srq, &again), 0);
	EXPECT_TRUE(again == rcq);
	EXPECT_INT(rpma_cq_get_fd(rcq, &fd), 0);
	EXPECT_TRUE(c_fd_open(fd));
	EXPECT_TRUE(s_cq_empty(rcq));
	return fd;
}

int
main(void)
{
	struct rpma_peer *peer;
	struct rpma_srq_cfg *cfg = NULL;
	struct rpma_srq *srq = NULL, *other = NULL;
	struct rpma_cq *rcq = CQ_SENTINEL, *other_rcq = NULL;
	int fd, other_fd;

	t_begin();
	peer = t_peer();
	s_log_begin();

	EXPECT_INT(rpma_srq_new(peer, NULL, &srq), 0);

	/* ERRORS: RPMA_E_INVAL for a NULL srq or rcq_ptr, *rcq_ptr untouched */
	t_note("INVAL");
	EXPECT_INT(rpma_srq_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	EXPECT_TRUE(rcq == CQ_SENTINEL);
	EXPECT_INT(rpma_srq_get_rcq(srq, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_get_rcq(NULL, NULL), RPMA_E_INVAL);
	EXPECT_INT(c_nlogs, 0);

	/* RETURN VALUE: 0 and the receive CQ (cfg NULL: it has one) */
	t_note("cfg NULL: a receive CQ");
	fd = expect_rcq(srq);

	/* DESCRIPTION: each SRQ has a receive CQ, and a channel, of its own */
	t_note("another SRQ, the default configuration");
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0);
	EXPECT_INT(rpma_srq_new(peer, cfg, &other), 0);
	other_fd = expect_rcq(other);
	EXPECT_INT(rpma_srq_get_rcq(other, &other_rcq), 0);
	EXPECT_INT(rpma_srq_get_rcq(srq, &rcq), 0);
	EXPECT_TRUE(other_rcq != rcq);
	EXPECT_TRUE(other_fd != fd);
	EXPECT_INT(rpma_srq_delete(&other), 0);

	t_note("rcq_size 1: a receive CQ");
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 1), 0);
	EXPECT_INT(rpma_srq_new(peer, cfg, &other), 0);
	(void) expect_rcq(other);
	EXPECT_INT(rpma_srq_delete(&other), 0);

	/* DESCRIPTION: rcq_size 0, no receive CQ: NULL */
	t_note("rcq_size 0: NULL");
	EXPECT_INT(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	EXPECT_INT(rpma_srq_new(peer, cfg, &other), 0);
	other_rcq = CQ_SENTINEL;
	EXPECT_INT(rpma_srq_get_rcq(other, &other_rcq), 0);
	EXPECT_TRUE(other_rcq == NULL);
	other_rcq = CQ_SENTINEL;
	EXPECT_INT(rpma_srq_get_rcq(other, &other_rcq), 0);
	EXPECT_TRUE(other_rcq == NULL);
	EXPECT_INT(rpma_srq_get_rcq(other, NULL), RPMA_E_INVAL);
	EXPECT_INT(rpma_srq_delete(&other), 0);

	/* the first SRQ's receive CQ is still the same */
	other_rcq = CQ_SENTINEL;
	EXPECT_INT(rpma_srq_get_rcq(srq, &other_rcq), 0);
	EXPECT_TRUE(other_rcq == rcq);
	EXPECT_INT(c_nlogs, 0);

	EXPECT_INT(rpma_srq_delete(&srq), 0);
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0);
	EXPECT_INT(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	EXPECT_INT(rpma_peer_delete(&peer), 0);
	return t_end();
}
