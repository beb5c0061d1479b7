/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Annotations for valgrind's race detectors (helgrind, drd).
 *
 * They see the order that pthread locks and thread creation make, not the
 * order that atomic operations make, nor std's futex-based OnceLock. The
 * library publishes a few objects that way (it takes no pthread lock);
 * these calls tell the tools about that order. Outside valgrind each is a
 * handful of instructions that do nothing. A build machine without
 * valgrind's headers builds them empty.
 */
#include <stddef.h>

#if defined(__has_include)
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define RPMA_ANNOTATE 1
#endif
#endif

/* everything written before this call is seen by librpma_rs_happens_after(obj) */
void
librpma_rs_happens_before(const void *obj)
{
#ifdef RPMA_ANNOTATE
	ANNOTATE_HAPPENS_BEFORE(obj);
#else
	(void)obj;
#endif
}

/* sees what was written before librpma_rs_happens_before(obj) */
void
librpma_rs_happens_after(const void *obj)
{
#ifdef RPMA_ANNOTATE
	ANNOTATE_HAPPENS_AFTER(obj);
#else
	(void)obj;
#endif
}

/*
 * the tools check no access to the len bytes at addr: memory whose writes
 * reach readers only through atomics (a OnceLock's slot)
 */
void
librpma_rs_ignore_races(const void *addr, size_t len)
{
#ifdef RPMA_ANNOTATE
	ANNOTATE_BENIGN_RACE_SIZED(addr, len, "published through atomics");
#else
	(void)addr;
	(void)len;
#endif
}
