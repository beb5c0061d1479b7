/* The two rdma-core headers whose items the bindings layer exposes. */
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
