/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxe_smoke.c -- the SoftRoCE guest has a usable RDMA device: rxe0 is
 * listed, opens, answers queries with an active port, gives a protection
 * domain, and rdma_cm maps RPMA_TESTING_IP to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define FAIL(...) do { fprintf(stderr, "rxe smoke: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

static int
check_cm(const char *ip, struct ibv_context *expected)
{
	struct rdma_addrinfo hints, *ai;
	struct rdma_cm_id *id;
	int ok;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	if (rdma_getaddrinfo(ip, NULL, &hints, &ai))
		FAIL("rdma_getaddrinfo(%s) failed", ip);
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		rdma_freeaddrinfo(ai);
		FAIL("rdma_create_id failed");
	}
	ok = rdma_bind_addr(id, ai->ai_src_addr) == 0 && id->verbs != NULL &&
		strcmp(ibv_get_device_name(id->verbs->device), ibv_get_device_name(expected->device)) == 0;
	rdma_destroy_id(id);
	rdma_freeaddrinfo(ai);
	if (!ok)
		FAIL("binding %s does not lead to rxe0", ip);
	return 0;
}

int
main(void)
{
	const char *ip = getenv("RPMA_TESTING_IP");
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_pd *pd;
	int n, i, rc;

	if (ip == NULL)
		FAIL("RPMA_TESTING_IP is not set (run me through softroce/rxe-run)");
	list = ibv_get_device_list(&n);
	if (list == NULL)
		FAIL("ibv_get_device_list failed");
	for (i = 0; i < n && ctx == NULL; i++)
		if (strcmp(ibv_get_device_name(list[i]), "rxe0") == 0)
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (ctx == NULL)
		FAIL("rxe0 is not listed or does not open (%d devices)", n);
	if (ibv_query_device(ctx, &attr))
		FAIL("ibv_query_device failed");
	if (ibv_query_port(ctx, 1, &port) || port.state != IBV_PORT_ACTIVE)
		FAIL("port 1 of rxe0 is not active");
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL)
		FAIL("ibv_alloc_pd failed");
	ibv_dealloc_pd(pd);
	rc = check_cm(ip, ctx);
	ibv_close_device(ctx);
	if (rc == 0)
		printf("rxe smoke: rxe0 open, port active, max_qp %d, PD ok, %s resolves to rxe0\n",
				attr.max_qp, ip);
	return rc;
}
