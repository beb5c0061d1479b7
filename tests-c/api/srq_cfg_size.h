/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq_cfg_size.h -- the mains of the rpma_srq_cfg_{get,set}_{rq,rcq}_size
 * tests. The two sizes behave alike, so each pair of tests is one body
 * with the size's own getter and setter (GET, SET) and the other size's
 * (OGET, OSET) as parameters. They are macros so that EXPECT_INT prints
 * the library function's name, not a parameter's.
 */
#ifndef SRQ_CFG_SIZE_H
#define SRQ_CFG_SIZE_H

#include "rpma_test.h"

#define SENTINEL_U32 0xDEADBEEFu

/*
 * SRQ_CFG_GET_SIZE_MAIN: INVAL for a NULL cfg or size (output untouched),
 * the default 20 (not the documented 100), and the value last set,
 * including 0 and UINT32_MAX.
 */
#define SRQ_CFG_GET_SIZE_MAIN(GET, SET, OGET, OSET) \
int \
main(void) \
{ \
	t_begin(); \
\
	struct rpma_srq_cfg *cfg = NULL; \
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0); \
\
	/* ERRORS: RPMA_E_INVAL; *size is not written */ \
	uint32_t v = SENTINEL_U32; \
	EXPECT_INT(GET(NULL, &v), RPMA_E_INVAL); \
	EXPECT_INT(v, SENTINEL_U32); \
	EXPECT_INT(GET(cfg, NULL), RPMA_E_INVAL); \
	EXPECT_INT(GET(NULL, NULL), RPMA_E_INVAL); \
\
	/* RETURN VALUE 0; a never-changed configuration reports 20 */ \
	EXPECT_INT(T_GET_U32(GET, cfg), 20); \
\
	/* the value last set, including the boundaries */ \
	EXPECT_INT(SET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 0); \
\
	EXPECT_INT(SET(cfg, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), UINT32_MAX); \
\
	EXPECT_INT(SET(cfg, 1234), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 1234); \
\
	/* a failed call leaves *size alone */ \
	v = 0; \
	EXPECT_INT(GET(NULL, &v), RPMA_E_INVAL); \
	EXPECT_INT(v, 0); \
\
	/* reading does not change the value */ \
	EXPECT_INT(T_GET_U32(GET, cfg), 1234); \
\
	/* the value belongs to this size only */ \
	uint32_t w = SENTINEL_U32; \
	EXPECT_INT(OGET(cfg, &w), 0); \
	EXPECT_INT(w, 20); \
	EXPECT_INT(OSET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 1234); \
\
	/* another configuration has its own value */ \
	struct rpma_srq_cfg *other = NULL; \
	EXPECT_INT(rpma_srq_cfg_new(&other), 0); \
	EXPECT_INT(T_GET_U32(GET, other), 20); \
\
	EXPECT_INT(rpma_srq_cfg_delete(&other), 0); \
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0); \
\
	return t_end(); \
}

/*
 * SRQ_CFG_SET_SIZE_MAIN: INVAL for a NULL cfg, every value from 0 to
 * UINT32_MAX stored as given, the new value replaces the old one, the other
 * size and other objects stay as they were.
 */
#define SRQ_CFG_SET_SIZE_MAIN(SET, GET, OSET, OGET) \
int \
main(void) \
{ \
	t_begin(); \
\
	/* ERRORS: RPMA_E_INVAL for a NULL cfg, whatever the value */ \
	EXPECT_INT(SET(NULL, 0), RPMA_E_INVAL); \
	EXPECT_INT(SET(NULL, 20), RPMA_E_INVAL); \
	EXPECT_INT(SET(NULL, UINT32_MAX), RPMA_E_INVAL); \
\
	struct rpma_srq_cfg *cfg = NULL, *other = NULL; \
	EXPECT_INT(rpma_srq_cfg_new(&cfg), 0); \
	EXPECT_INT(rpma_srq_cfg_new(&other), 0); \
\
	/* NOTES: the value of a new configuration is 20 */ \
	EXPECT_INT(T_GET_U32(GET, cfg), 20); \
\
	/* RETURN VALUE 0; values are stored as given, no range check */ \
	static const uint32_t values[] = { \
		0, 1, 2, 19, 20, 21, 100, 0x7FFFFFFF, 0x80000000, UINT32_MAX - 1, UINT32_MAX \
	}; \
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) { \
		t_note("value %u", (unsigned)values[i]); \
		EXPECT_INT(SET(cfg, values[i]), 0); \
		EXPECT_INT(T_GET_U32(GET, cfg), values[i]); \
		/* the other size and the other object are unaffected */ \
		EXPECT_INT(T_GET_U32(OGET, cfg), 20); \
		EXPECT_INT(T_GET_U32(GET, other), 20); \
	} \
\
	/* the boundaries 0 and UINT32_MAX, one after the other */ \
	EXPECT_INT(SET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 0); \
	EXPECT_INT(SET(cfg, UINT32_MAX), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), UINT32_MAX); \
	EXPECT_INT(SET(cfg, 0), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 0); \
\
	/* back to the default value */ \
	EXPECT_INT(SET(cfg, 20), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 20); \
\
	/* a failed call changes no configuration */ \
	EXPECT_INT(SET(cfg, 5), 0); \
	EXPECT_INT(SET(NULL, 6), RPMA_E_INVAL); \
	EXPECT_INT(T_GET_U32(GET, cfg), 5); \
	EXPECT_INT(T_GET_U32(GET, other), 20); \
\
	/* changing the other size leaves this one alone */ \
	EXPECT_INT(OSET(cfg, 77), 0); \
	EXPECT_INT(T_GET_U32(GET, cfg), 5); \
	EXPECT_INT(T_GET_U32(OGET, cfg), 77); \
\
	EXPECT_INT(rpma_srq_cfg_delete(&other), 0); \
	EXPECT_INT(rpma_srq_cfg_delete(&cfg), 0); \
\
	return t_end(); \
}

#endif /* SRQ_CFG_SIZE_H */
