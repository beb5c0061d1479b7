//! The data-path inline verbs of `<infiniband/verbs.h>` (posting, polling,
//! arming a CQ, and the extended QP's `ibv_wr_start`/`ibv_wr_complete`),
//! written out in Rust: each is the one call through the provider's op
//! that the header's inline function makes, so the library calls the
//! provider as a C caller of those functions does, rather than through a
//! compiled C wrapper (bindgen's `*__extern`) per operation. The
//! fault-injection build keeps the wrappers: its own definitions of these
//! names (in `inject`) shadow these.
//!
//! Each op pointer is read from the object's context as verbs.h does.
//! libibverbs never leaves one NULL: it fills the context's ops with its
//! own EOPNOTSUPP dummies before the provider's (`verbs_set_ops`), and the
//! C inline functions call the pointer unchecked on that ground too.

use std::ffi::c_int;

use super::raw::{ibv_cq, ibv_qp, ibv_qp_ex, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wc};

/// # Safety
/// `qp` is a live QP of an initialized context; the lists are as for the
/// provider's `post_send`.
#[inline(always)]
pub unsafe fn ibv_post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*qp).context).ops.post_send.unwrap_unchecked())(qp, wr, bad_wr) }
}

/// # Safety
/// `qp` is a live QP of an initialized context; the lists are as for the
/// provider's `post_recv`.
#[inline(always)]
pub unsafe fn ibv_post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*qp).context).ops.post_recv.unwrap_unchecked())(qp, wr, bad_wr) }
}

/// # Safety
/// `srq` is a live SRQ of an initialized context; the lists are as for the
/// provider's `post_srq_recv`.
#[inline(always)]
pub unsafe fn ibv_post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*srq).context).ops.post_srq_recv.unwrap_unchecked())(srq, wr, bad_wr) }
}

/// # Safety
/// `cq` is a live CQ of an initialized context and `wc` has room for
/// `num_entries` completions.
#[inline(always)]
pub unsafe fn ibv_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*cq).context).ops.poll_cq.unwrap_unchecked())(cq, num_entries, wc) }
}

/// # Safety
/// `cq` is a live CQ of an initialized context.
#[inline(always)]
pub unsafe fn ibv_req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: caller contract; the op is never NULL (see the module doc).
    unsafe { ((*(*cq).context).ops.req_notify_cq.unwrap_unchecked())(cq, solicited_only) }
}

/// # Safety
/// `qp` is the extended QP of a live QP created with `send_ops_flags`; the
/// provider always sets `wr_start` for such a QP.
#[inline(always)]
pub unsafe fn ibv_wr_start(qp: *mut ibv_qp_ex) {
    // SAFETY: caller contract.
    unsafe { ((*qp).wr_start.unwrap_unchecked())(qp) }
}

/// # Safety
/// As for [`ibv_wr_start`], after it.
#[inline(always)]
pub unsafe fn ibv_wr_complete(qp: *mut ibv_qp_ex) -> c_int {
    // SAFETY: caller contract; set together with wr_start.
    unsafe { ((*qp).wr_complete.unwrap_unchecked())(qp) }
}
