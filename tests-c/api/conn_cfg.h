/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_cfg.h -- shared by the rpma_conn_cfg_* tests. The checks are macros
 * wherever an argument shows in an observation line, so that each line names
 * the real getter, setter and variable, as the tests always printed them.
 */
#ifndef CONN_CFG_H
#define CONN_CFG_H

#include "rpma_test.h"

/*
 * GET_INTO(getter, obj, var, reset): var set to reset (so a value left
 * unwritten shows), then the check that getter(obj, &var) returns 0. A
 * macro, so the check names getter, obj and var; the caller checks var.
 */
#define GET_INTO(getter, obj, var, reset) do { \
	var = reset; \
	EXPECT_INT(getter(obj, &var), 0); \
} while (0)

/* GET_EXPECT(getter, obj, var, reset, want): GET_INTO, then var is want */
#define GET_EXPECT(getter, obj, var, reset, want) do { \
	GET_INTO(getter, obj, var, reset); \
	EXPECT_INT(var, want); \
} while (0)

/*
 * EXPECT_SRQ(reset, want): GET_INTO of rpma_conn_cfg_get_srq(cfg, &srq),
 * then the check "srq == want", with want as written by the caller (SRQ_A,
 * not what the macro SRQ_A stands for)
 */
#define EXPECT_SRQ(reset, want) do { \
	GET_INTO(rpma_conn_cfg_get_srq, cfg, srq, reset); \
	t_true(__FILE__, __LINE__, "srq == " #want, srq == (want)); \
} while (0)

/*
 * two objects stand in for SRQs: a configuration only stores the pointer;
 * their values show whether anything wrote to them
 */
static T_UNUSED int fake_srq_a = 0x0a0a;
static T_UNUSED int fake_srq_b = 0x0b0b;
#define SRQ_A ((struct rpma_srq *)&fake_srq_a)
#define SRQ_B ((struct rpma_srq *)&fake_srq_b)

typedef int conn_cfg_size_getter(const struct rpma_conn_cfg *cfg, uint32_t *size);

/*
 * the four queue sizes of cfg hold their defaults (cq, rcq, sq, rq: 10, 0,
 * 10, 10), checked in that order; the size read by skip (NULL: none) is
 * left out
 */
static T_UNUSED void
expect_default_sizes(const struct rpma_conn_cfg *cfg, conn_cfg_size_getter *skip)
{
	if (skip != rpma_conn_cfg_get_cq_size)
		EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_cq_size, cfg), 10);
	if (skip != rpma_conn_cfg_get_rcq_size)
		EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rcq_size, cfg), 0);
	if (skip != rpma_conn_cfg_get_sq_size)
		EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_sq_size, cfg), 10);
	if (skip != rpma_conn_cfg_get_rq_size)
		EXPECT_INT(T_GET_U32(rpma_conn_cfg_get_rq_size, cfg), 10);
}

/* the timeout of cfg holds its default, 1000 */
static T_UNUSED void
expect_default_timeout(const struct rpma_conn_cfg *cfg)
{
	int timeout_ms;

	GET_EXPECT(rpma_conn_cfg_get_timeout, cfg, timeout_ms, -1, 1000);
}

/*
 * CONN_CFG_GET_SIZE_MAIN(GET, SET, VAR, DFLT): the main of the
 * rpma_conn_cfg_get_{cq,rcq,sq,rq}_size tests. NULL arguments are rejected
 * without writing the output VAR; otherwise the default DFLT or the last
 * value set (0 and UINT32_MAX included) is reported exactly, and reading
 * has no side effect.
 */
#define CONN_CFG_GET_SIZE_MAIN(GET, SET, VAR, DFLT) \
int \
main(void) \
{ \
	struct rpma_conn_cfg *cfg = NULL; \
	uint32_t VAR; \
\
	t_begin(); \
\
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0); \
\
	/* ERRORS: RPMA_E_INVAL when cfg is NULL; *VAR is not written */ \
	VAR = 12345; \
	EXPECT_INT(GET(NULL, &VAR), RPMA_E_INVAL); \
	EXPECT_INT(VAR, 12345); \
\
	/* ERRORS: RPMA_E_INVAL when VAR is NULL (or both are) */ \
	EXPECT_INT(GET(cfg, NULL), RPMA_E_INVAL); \
	EXPECT_INT(GET(NULL, NULL), RPMA_E_INVAL); \
\
	/* DESCRIPTION: never changed -- the default */ \
	EXPECT_INT(T_GET_U32(GET, cfg), DFLT); \
\
	/* DESCRIPTION: the value last passed to the setter */ \
	EXPECT_INT(SET(cfg, 256), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 256); \
\
	/* reading has no side effect: a second read gives the same value */ \
	EXPECT_INT(T_GET_U32(GET, cfg), 256); \
\
	/* reported exactly as set: 0 and UINT32_MAX */ \
	EXPECT_INT(SET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 0); \
	EXPECT_INT(SET(cfg, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), UINT32_MAX); \
\
	/* a failed call changes nothing in the configuration */ \
	EXPECT_INT(GET(cfg, NULL), RPMA_E_INVAL); \
	EXPECT_INT(T_GET_U32(GET, cfg), UINT32_MAX); \
\
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0); \
\
	return t_end(); \
}

/*
 * CONN_CFG_SET_SIZE_MAIN(SET, GET, DFLT): the main of the
 * rpma_conn_cfg_set_{cq,rcq,sq,rq}_size tests. Only a NULL cfg is rejected;
 * every uint32_t value (0, INT_MAX + 1, UINT32_MAX included) is stored
 * unchanged, a new configuration holds DFLT, and no other value of the
 * configuration moves.
 */
#define CONN_CFG_SET_SIZE_MAIN(SET, GET, DFLT) \
int \
main(void) \
{ \
	struct rpma_conn_cfg *cfg = NULL; \
\
	t_begin(); \
\
	/* ERRORS: RPMA_E_INVAL when cfg is NULL, whatever the value */ \
	EXPECT_INT(SET(NULL, 5), RPMA_E_INVAL); \
	EXPECT_INT(SET(NULL, 0), RPMA_E_INVAL); \
	EXPECT_INT(SET(NULL, UINT32_MAX), RPMA_E_INVAL); \
\
	EXPECT_INT(rpma_conn_cfg_new(&cfg), 0); \
\
	/* a new configuration holds the default */ \
	EXPECT_INT(T_GET_U32(GET, cfg), DFLT); \
\
	/* RETURN VALUE: 0, and the value is stored as given */ \
	EXPECT_INT(SET(cfg, 64), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 64); \
\
	/* DESCRIPTION: 0 is accepted */ \
	EXPECT_INT(SET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 0); \
\
	/* DESCRIPTION: no limit is checked -- 1, INT_MAX, INT_MAX + 1, UINT32_MAX */ \
	EXPECT_INT(SET(cfg, 1), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 1); \
	EXPECT_INT(SET(cfg, INT_MAX), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), INT_MAX); \
	EXPECT_INT(SET(cfg, (uint32_t)INT_MAX + 1), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), (uint32_t)INT_MAX + 1); \
	EXPECT_INT(SET(cfg, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), UINT32_MAX); \
\
	/* a later call replaces the value */ \
	EXPECT_INT(SET(cfg, 4096), 0); \
	EXPECT_INT(SET(cfg, 33), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 33); \
\
	/* only this size changes: the other values keep their defaults */ \
	expect_default_sizes(cfg, GET); \
	expect_default_timeout(cfg); \
\
	/* a failed call (NULL cfg) leaves a live configuration alone */ \
	EXPECT_INT(SET(NULL, 7), RPMA_E_INVAL); \
	EXPECT_INT(T_GET_U32(GET, cfg), 33); \
\
	EXPECT_INT(rpma_conn_cfg_delete(&cfg), 0); \
\
	return t_end(); \
}

#endif /* CONN_CFG_H */
