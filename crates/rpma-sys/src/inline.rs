//! The inline functions of `<infiniband/verbs.h>` that the library calls,
//! written out in Rust: the data path (posting, polling, arming a CQ, the
//! extended QP's `ibv_wr_start`/`ibv_wr_complete`) and two set-up calls
//! (`ibv_query_device_ex`, `ibv_advise_mr`). Each does what the header's
//! inline function does, so the library calls the provider as a C caller
//! of those functions does, with no compiled C in between. The
//! fault-injection build wraps these same functions (`inject`).
//!
//! Each op pointer of `ibv_context_ops` is read from the object's context
//! as verbs.h does. libibverbs never leaves one NULL: it fills the
//! context's ops with its own EOPNOTSUPP dummies before the provider's
//! (`verbs_set_ops`), and the C inline functions call the pointer
//! unchecked on that ground too. The ops of the extended context
//! (`verbs_context`) are checked first, as verbs.h's `verbs_get_ctx_op`
//! does.

use std::ffi::c_int;
use std::mem::{offset_of, size_of};

use super::raw::{
    ib_uverbs_advise_mr_advice, ibv_context, ibv_cq, ibv_device_attr_ex, ibv_pd, ibv_qp, ibv_qp_ex,
    ibv_query_device, ibv_query_device_ex_input, ibv_recv_wr, ibv_send_wr, ibv_sge, ibv_srq,
    ibv_wc, verbs_context,
};

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

/// The `verbs_context` field at `offset`, read back from its last member,
/// `context`, as verbs.h's `verbs_get_ctx` reaches it. The structure grows
/// at its front, so a provider built against older headers allocated less
/// of it than these bindings describe: the address is computed by byte
/// offsets from `ctx`, never through a reference to the whole structure.
///
/// # Safety
/// `ctx` is the `context` member of a live extended context whose
/// provider allocated the field at `offset` (see [`has_op`]).
unsafe fn vctx_field<T: Copy>(ctx: *mut ibv_context, offset: usize) -> T {
    let back = offset_of!(verbs_context, context) - offset;
    // SAFETY: caller contract: the field lies inside the provider's
    // allocation, `back` bytes before `ctx`.
    unsafe {
        ctx.cast::<u8>()
            .wrapping_sub(back)
            .cast::<T>()
            .read_unaligned()
    }
}

/// verbs.h's `verbs_get_ctx_op` test: `ctx` is an extended context
/// (`abi_compat` is the all-ones marker) whose size, as its provider set
/// it, reaches the op at `offset`.
///
/// # Safety
/// `ctx` is a live, initialized device context.
unsafe fn has_op(ctx: *mut ibv_context, offset: usize) -> bool {
    // SAFETY: caller contract; `sz` sits just before `context` in every
    // extended context.
    unsafe {
        (*ctx).abi_compat as usize == usize::MAX
            && vctx_field::<usize>(ctx, offset_of!(verbs_context, sz))
                >= size_of::<verbs_context>() - offset
    }
}

/// # Safety
/// `context` is a live, initialized device context, `input` is NULL or
/// valid, and `attr` is valid for writes.
pub unsafe fn ibv_query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
) -> c_int {
    // SAFETY: caller contract.
    if !input.is_null() && unsafe { (*input).comp_mask } != 0 {
        return libc::EINVAL;
    }
    type Op = Option<
        unsafe extern "C" fn(
            *mut ibv_context,
            *const ibv_query_device_ex_input,
            *mut ibv_device_attr_ex,
            usize,
        ) -> c_int,
    >;
    let offset = offset_of!(verbs_context, query_device_ex);
    // SAFETY: caller contract; the op is read only where `has_op` found it.
    if let Some(op) = unsafe { has_op(context, offset) }
        .then(|| unsafe { vctx_field::<Op>(context, offset) })
        .flatten()
    {
        // SAFETY: the provider's op, called as verbs.h calls it.
        let ret = unsafe { op(context, input, attr, size_of::<ibv_device_attr_ex>()) };
        if ret != libc::EOPNOTSUPP && ret != libc::ENOSYS {
            return ret;
        }
    }
    // SAFETY: caller contract: attr is valid for writes.
    unsafe {
        attr.write_bytes(0, 1);
        ibv_query_device(context, &raw mut (*attr).orig_attr)
    }
}

/// # Safety
/// `pd` is a live protection domain and `sg_list` holds `num_sge` valid
/// entries.
pub unsafe fn ibv_advise_mr(
    pd: *mut ibv_pd,
    advice: ib_uverbs_advise_mr_advice,
    flags: u32,
    sg_list: *mut ibv_sge,
    num_sge: u32,
) -> c_int {
    type Op = Option<
        unsafe extern "C" fn(
            *mut ibv_pd,
            ib_uverbs_advise_mr_advice,
            u32,
            *mut ibv_sge,
            u32,
        ) -> c_int,
    >;
    let offset = offset_of!(verbs_context, advise_mr);
    // SAFETY: caller contract; the op is read only where `has_op` found it.
    let op = unsafe {
        let context = (*pd).context;
        has_op(context, offset)
            .then(|| vctx_field::<Op>(context, offset))
            .flatten()
    };
    match op {
        // SAFETY: the provider's op, called as verbs.h calls it.
        Some(op) => unsafe { op(pd, advice, flags, sg_list, num_sge) },
        None => libc::EOPNOTSUPP,
    }
}
