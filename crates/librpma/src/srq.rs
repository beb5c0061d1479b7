use std::ffi::{c_int, c_void};

use crate::cq::cq_handle;
use crate::{arg, boundary, get, out, put, put_new_or_null, take_handle};
use rpma::cq::Cq;
use rpma::error::Error;
use rpma::mr::MrLocal;
use rpma::peer::Peer;
use rpma::srq::Srq;
use rpma::srq_cfg::SrqCfg;

/// Creates a shared receive queue.
///
/// # Safety
/// `peer` is NULL or a live peer; `cfg` is NULL or a live configuration;
/// `srq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_new(
    peer: *mut Peer,
    cfg: *mut SrqCfg,
    srq_ptr: *mut *mut Srq,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let (peer, cfg) = unsafe { (arg(peer)?, cfg.as_ref()) };
        let slot = out(srq_ptr)?;
        // An exhausted heap leaves NULL behind, as in the C library, whose
        // first step is the allocation; other failures leave *srq_ptr alone.
        let srq = Srq::new(peer, cfg).inspect_err(|e| {
            if *e == Error::NoMem {
                // SAFETY: checked output pointer.
                unsafe { put(slot, std::ptr::null_mut()) }
            }
        })?;
        // SAFETY: as above.
        unsafe { put_new_or_null(slot, srq) }
    })
}

/// Deletes a shared receive queue.
///
/// # Safety
/// `srq_ptr` is NULL or points to NULL or to an SRQ from this library that
/// no connection uses any more.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_delete(srq_ptr: *mut *mut Srq) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(srq_ptr) }?.map_or(Ok(()), |s| s.delete()))
}

/// Posts a buffer for a message to any connection using the SRQ.
///
/// # Safety
/// `srq` and `dst` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_recv(
    srq: *mut Srq,
    dst: *mut MrLocal,
    offset: usize,
    len: usize,
    op_context: *const c_void,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above.
        let (srq, dst) = unsafe { (arg(srq)?, dst.as_ref()) };
        // wr_id = (uintptr_t)op_context, as in the C library
        srq.recv_at(dst, offset, len, op_context as usize as u64)
    })
}

/// The SRQ's receive CQ, or NULL.
///
/// # Safety
/// `srq` is NULL or a live SRQ; `rcq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_get_rcq(srq: *const Srq, rcq_ptr: *mut *mut Cq) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(srq, rcq_ptr, |s| cq_handle(s.rcq())) }
}
