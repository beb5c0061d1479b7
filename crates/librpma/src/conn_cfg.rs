use std::ffi::c_int;
use std::ptr::NonNull;

use crate::{boundary, get, new_into, set, take_handle, try_set};
use rpma::conn_cfg::ConnCfg;
use rpma::error::Error;
use rpma::srq::Srq;

// A configuration behind a C handle is a ConnCfg<'static>: Rust cannot see
// how long an SRQ set from C lives, so the handle claims no borrow and the
// queue is set with set_srq_unchecked under the C caller's contract. (No
// type alias: cbindgen would turn it into a typedef in librpma.h.)

/// Creates a connection configuration with the default values.
///
/// # Safety
/// `cfg_ptr` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_new(cfg_ptr: *mut *mut ConnCfg<'static>) -> c_int {
    // SAFETY: caller contract above.
    unsafe { new_into(cfg_ptr, true, ConnCfg::new) }
}

/// Deletes a connection configuration.
///
/// # Safety
/// `cfg_ptr` is NULL or points to NULL or to a configuration from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_delete(cfg_ptr: *mut *mut ConnCfg<'static>) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(cfg_ptr) }.map(drop))
}

/// Sets the timeout of address and route resolution.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_timeout(
    cfg: *mut ConnCfg<'static>,
    timeout_ms: c_int,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { try_set(cfg, |c| c.set_timeout(timeout_ms)) }
}

/// Reads the timeout.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `timeout_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_timeout(
    cfg: *const ConnCfg<'static>,
    timeout_ms: *mut c_int,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, timeout_ms, ConnCfg::timeout) }
}

/// Sets the size of the main completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_cq_size(
    cfg: *mut ConnCfg<'static>,
    cq_size: u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_cq_size(cq_size)) }
}

/// Reads the size of the main completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `cq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_cq_size(
    cfg: *const ConnCfg<'static>,
    cq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, cq_size, ConnCfg::cq_size) }
}

/// Sets the size of the receive completion queue (0: none).
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_rcq_size(
    cfg: *mut ConnCfg<'static>,
    rcq_size: u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_rcq_size(rcq_size)) }
}

/// Reads the size of the receive completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rcq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_rcq_size(
    cfg: *const ConnCfg<'static>,
    rcq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rcq_size, ConnCfg::rcq_size) }
}

/// Sets the size of the send queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_sq_size(
    cfg: *mut ConnCfg<'static>,
    sq_size: u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_sq_size(sq_size)) }
}

/// Reads the size of the send queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `sq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_sq_size(
    cfg: *const ConnCfg<'static>,
    sq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, sq_size, ConnCfg::sq_size) }
}

/// Sets the size of the receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_rq_size(
    cfg: *mut ConnCfg<'static>,
    rq_size: u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_rq_size(rq_size)) }
}

/// Reads the size of the receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_rq_size(
    cfg: *const ConnCfg<'static>,
    rq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rq_size, ConnCfg::rq_size) }
}

/// Chooses whether the completion queues share one completion channel.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_compl_channel(
    cfg: *mut ConnCfg<'static>,
    shared: bool,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_compl_channel(shared)) }
}

/// Reads whether the completion channel is shared.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `shared` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_compl_channel(
    cfg: *const ConnCfg<'static>,
    shared: *mut bool,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, shared, ConnCfg::compl_channel) }
}

/// Makes connections built from this configuration use a shared RQ.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `srq` is NULL or an SRQ handle.
// Part of the contract too, as in the C library (rpma_conn_cfg_set_srq(3)
// leaves the SRQ to the caller): the SRQ is not deleted while a connection
// request may still be made with this configuration. Kept out of the doc
// comment, which cbindgen copies into librpma.h.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_srq(cfg: *mut ConnCfg<'static>, srq: *mut Srq) -> c_int {
    let set = |c: &ConnCfg<'static>| -> rpma::Result<()> {
        let srq = NonNull::new(srq).ok_or(Error::Inval)?;
        // SAFETY: the caller keeps the SRQ alive for as long as the
        // configuration makes requests (the contract above the function),
        // which is what set_srq_unchecked asks for.
        unsafe { c.set_srq_unchecked(srq) };
        Ok(())
    };
    // SAFETY: caller contract above.
    unsafe { try_set(cfg, set) }
}

/// Reads the shared RQ (NULL when none is set).
///
/// # Safety
/// `cfg` is NULL or a live configuration; `srq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_srq(
    cfg: *const ConnCfg<'static>,
    srq_ptr: *mut *mut Srq,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe {
        get(cfg, srq_ptr, |c| {
            c.srq().map_or(std::ptr::null_mut(), NonNull::as_ptr)
        })
    }
}
