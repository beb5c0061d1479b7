//! Raw bindings to the libibverbs and librdmacm items the library uses,
//! generated at build time by bindgen from the installed rdma-core headers.
//! Inline verbs are reached through the generated `*__extern` C wrappers,
//! except the data-path ones, which `inline` writes out in Rust.
#![allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    dead_code,
    unused_imports,
    clippy::all,
    rustdoc::all
)]

mod raw {
    #![allow(
        non_upper_case_globals,
        non_camel_case_types,
        non_snake_case,
        dead_code
    )]
    #![allow(clippy::all, rustdoc::all)]
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub use raw::*;

// Explicit items shadow the glob re-export above.
#[cfg(not(feature = "fault-injection"))]
mod inline;
#[cfg(not(feature = "fault-injection"))]
pub use inline::{ibv_poll_cq, ibv_post_recv, ibv_post_send, ibv_post_srq_recv, ibv_req_notify_cq};

// With fault injection, these definitions shadow the glob re-export above:
// every fallible provider call of the library passes through them.
#[cfg(feature = "fault-injection")]
#[macro_use]
mod inject;

#[cfg(feature = "fault-injection")]
faulty! {
    ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd = null;
    ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int = release errval;
    ibv_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr = null;
    ibv_dereg_mr(mr: *mut ibv_mr) -> c_int = release errval;
    ibv_advise_mr(pd: *mut ibv_pd, advice: ib_uverbs_advise_mr_advice, flags: u32, sg_list: *mut ibv_sge, num_sge: u32) -> c_int = errval;
    ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel = null;
    ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int = release errval;
    ibv_create_cq(context: *mut ibv_context, cqe: c_int, cq_context: *mut c_void, channel: *mut ibv_comp_channel, comp_vector: c_int) -> *mut ibv_cq = null;
    ibv_destroy_cq(cq: *mut ibv_cq) -> c_int = release errval;
    ibv_get_cq_event(channel: *mut ibv_comp_channel, cq: *mut *mut ibv_cq, cq_context: *mut *mut c_void) -> c_int = minus1;
    ibv_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int = minus1;
    ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int = errval;
    ibv_create_srq(pd: *mut ibv_pd, srq_init_attr: *mut ibv_srq_init_attr) -> *mut ibv_srq = null;
    ibv_destroy_srq(srq: *mut ibv_srq) -> c_int = release errval;
    ibv_post_srq_recv(srq: *mut ibv_srq, recv_wr: *mut ibv_recv_wr, bad_recv_wr: *mut *mut ibv_recv_wr) -> c_int = errval;
    ibv_query_device_ex(context: *mut ibv_context, input: *const ibv_query_device_ex_input, attr: *mut ibv_device_attr_ex) -> c_int = errval;
    ibv_post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int = errval;
    ibv_post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int = errval;
    rdma_create_event_channel() -> *mut rdma_event_channel = null;
    rdma_create_id(channel: *mut rdma_event_channel, id: *mut *mut rdma_cm_id, context: *mut c_void, ps: rdma_port_space) -> c_int = minus1;
    rdma_destroy_id(id: *mut rdma_cm_id) -> c_int = release minus1;
    rdma_bind_addr(id: *mut rdma_cm_id, addr: *mut sockaddr) -> c_int = minus1;
    rdma_resolve_addr(id: *mut rdma_cm_id, src_addr: *mut sockaddr, dst_addr: *mut sockaddr, timeout_ms: c_int) -> c_int = minus1;
    rdma_resolve_route(id: *mut rdma_cm_id, timeout_ms: c_int) -> c_int = minus1;
    rdma_create_qp_ex(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int = minus1;
    rdma_connect(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int = minus1;
    rdma_listen(id: *mut rdma_cm_id, backlog: c_int) -> c_int = minus1;
    rdma_accept(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int = minus1;
    rdma_reject(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int = minus1;
    rdma_disconnect(id: *mut rdma_cm_id) -> c_int = minus1;
    rdma_get_cm_event(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int = minus1;
    rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int = release minus1;
    rdma_migrate_id(id: *mut rdma_cm_id, channel: *mut rdma_event_channel) -> c_int = minus1;
    rdma_getaddrinfo(node: *const c_char, service: *const c_char, hints: *const rdma_addrinfo, res: *mut *mut rdma_addrinfo) -> c_int = minus1;
}

#[cfg(feature = "fault-injection")]
use std::ffi::{c_char, c_int, c_void};

#[cfg(test)]
mod tests {
    //! The inline verbs reach the provider's ops (directly, or through the
    //! C wrappers bindgen generated): a mock op sees exactly what was passed.
    use super::*;
    use std::ptr;

    unsafe extern "C" fn mock_poll(cq: *mut ibv_cq, n: i32, wc: *mut ibv_wc) -> i32 {
        // SAFETY: the test passes a valid CQ and an array of n entries.
        unsafe {
            assert_eq!((*cq).cqe, 7);
            (*wc).wr_id = 0xfeed;
        }
        n - 1
    }

    unsafe extern "C" fn mock_post_send(
        qp: *mut ibv_qp,
        wr: *mut ibv_send_wr,
        bad: *mut *mut ibv_send_wr,
    ) -> i32 {
        // SAFETY: the test passes valid pointers.
        unsafe {
            assert_eq!((*qp).qp_num, 42);
            assert_eq!((*wr).wr_id, 9);
            assert!(bad.is_null() || (*bad).is_null());
        }
        -5
    }

    #[test]
    fn inline_verbs_dispatch_to_the_provider_ops() {
        let mut ctx = ibv_context::default();
        ctx.ops.poll_cq = Some(mock_poll);
        ctx.ops.post_send = Some(mock_post_send);
        let mut cq = ibv_cq {
            context: &mut ctx,
            cqe: 7,
            ..Default::default()
        };
        let mut wc = [ibv_wc::default(); 3];
        // SAFETY: cq and wc are live for the call; the mock only touches them.
        let got = unsafe { ibv_poll_cq(&mut cq, 3, wc.as_mut_ptr()) };
        assert_eq!((got, wc[0].wr_id), (2, 0xfeed));

        let mut qp = ibv_qp {
            context: &mut ctx,
            qp_num: 42,
            ..Default::default()
        };
        let mut wr = ibv_send_wr {
            wr_id: 9,
            ..Default::default()
        };
        let mut bad = ptr::null_mut();
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_post_send(&mut qp, &mut wr, &mut bad) }, -5);
    }
}
