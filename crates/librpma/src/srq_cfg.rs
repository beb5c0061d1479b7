use std::ffi::c_int;

use crate::{boundary, get, new_into, set, take_handle};
use rpma::srq_cfg::SrqCfg;

/// Creates a shared-RQ configuration with the default values.
///
/// # Safety
/// `cfg_ptr` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_new(cfg_ptr: *mut *mut SrqCfg) -> c_int {
    // SAFETY: caller contract above.
    unsafe { new_into(cfg_ptr, true, SrqCfg::new) }
}

/// Deletes a shared-RQ configuration.
///
/// # Safety
/// `cfg_ptr` is NULL or points to NULL or to a configuration from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_delete(cfg_ptr: *mut *mut SrqCfg) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(cfg_ptr) }.map(drop))
}

/// Sets the size of the shared receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_set_rq_size(cfg: *mut SrqCfg, rq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_rq_size(rq_size)) }
}

/// Reads the size of the shared receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_get_rq_size(cfg: *const SrqCfg, rq_size: *mut u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rq_size, SrqCfg::rq_size) }
}

/// Sets the size of the SRQ's receive completion queue (0: none).
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_set_rcq_size(cfg: *mut SrqCfg, rcq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.set_rcq_size(rcq_size)) }
}

/// Reads the size of the SRQ's receive completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rcq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_srq_cfg_get_rcq_size(
    cfg: *const SrqCfg,
    rcq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rcq_size, SrqCfg::rcq_size) }
}
