/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qpprobe.so, an LD_PRELOAD probe: prints what each queue pair asked the
 * provider for (its extended send operations) and the answer, so that
 * generations.older-provider sees our library ask for the native
 * operations, be refused by the older provider, and try again without.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>

typedef int (*create_qp_ex_fn)(struct rdma_cm_id *, struct ibv_qp_init_attr_ex *);

int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	create_qp_ex_fn real = (create_qp_ex_fn)dlsym(RTLD_NEXT, "rdma_create_qp_ex");
	int ret = real(id, attr);
	unsigned long long ops = (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ?
		attr->send_ops_flags : 0;

	fprintf(stderr, "qpprobe: send_ops_flags %#llx: %s\n", ops,
		ret == 0 ? "created" : errno == EOPNOTSUPP ? "EOPNOTSUPP" : "failed");
	return ret;
}
