#include "src/wrapper.h"

// Static wrappers

void ibv_wr_rdma_read__extern(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr) { ibv_wr_rdma_read(qp, rkey, remote_addr); }
void ibv_wr_rdma_write__extern(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr) { ibv_wr_rdma_write(qp, rkey, remote_addr); }
void ibv_wr_start__extern(struct ibv_qp_ex *qp) { ibv_wr_start(qp); }
int ibv_wr_complete__extern(struct ibv_qp_ex *qp) { return ibv_wr_complete(qp); }
void ibv_wr_abort__extern(struct ibv_qp_ex *qp) { ibv_wr_abort(qp); }
int ibv_advise_mr__extern(struct ibv_pd *pd, enum ib_uverbs_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge) { return ibv_advise_mr(pd, advice, flags, sg_list, num_sge); }
int ibv_poll_cq__extern(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc) { return ibv_poll_cq(cq, num_entries, wc); }
int ibv_req_notify_cq__extern(struct ibv_cq *cq, int solicited_only) { return ibv_req_notify_cq(cq, solicited_only); }
int ibv_post_srq_recv__extern(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr) { return ibv_post_srq_recv(srq, recv_wr, bad_recv_wr); }
int ibv_query_device_ex__extern(struct ibv_context *context, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr) { return ibv_query_device_ex(context, input, attr); }
int ibv_post_send__extern(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) { return ibv_post_send(qp, wr, bad_wr); }
int ibv_post_recv__extern(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) { return ibv_post_recv(qp, wr, bad_wr); }
