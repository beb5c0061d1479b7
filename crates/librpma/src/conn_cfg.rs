use std::ffi::c_int;
use std::sync::atomic::{AtomicPtr, Ordering::SeqCst};

use crate::{boundary, get, new_into, set, take_handle, try_set, INVAL};
use rpma::srq::Srq;

// What a C configuration handle holds: the values, and the SRQ handle as C
// set it. The C library reads the SRQ when a request is built, and its
// caller keeps the SRQ until then (rpma_conn_cfg_set_srq(3)), so the
// configuration holds no clone: an SRQ that only configurations name is
// not in use, and rpma_srq_delete releases it, as in C. (No doc comment:
// cbindgen would copy it into librpma.h.)
#[allow(missing_docs)]
#[derive(Debug, Default)]
pub struct ConnCfg {
    values: rpma::conn_cfg::ConnCfg,
    srq: AtomicPtr<Srq>,
}

/// The configuration a request is built from: the values of `cfg` now,
/// with the SRQ it names (or the defaults, for NULL).
///
/// # Safety
/// `cfg` is NULL or a live configuration, and an SRQ it names is live (the
/// contract of `rpma_conn_cfg_set_srq`).
pub(crate) unsafe fn for_request(cfg: *const ConnCfg) -> Option<rpma::conn_cfg::ConnCfg> {
    // SAFETY: caller contract above.
    let cfg = unsafe { cfg.as_ref() }?;
    let mut values = cfg.values.clone();
    // SAFETY: NULL or a live SRQ handle (caller contract).
    if let Some(srq) = unsafe { cfg.srq.load(SeqCst).as_ref() } {
        values.set_srq(srq);
    }
    Some(values)
}

/// Creates a connection configuration with the default values.
///
/// # Safety
/// `cfg_ptr` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_new(cfg_ptr: *mut *mut ConnCfg) -> c_int {
    // SAFETY: caller contract above.
    unsafe { new_into(cfg_ptr, true, ConnCfg::default) }
}

/// Deletes a connection configuration.
///
/// # Safety
/// `cfg_ptr` is NULL or points to NULL or to a configuration from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_delete(cfg_ptr: *mut *mut ConnCfg) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(cfg_ptr) }.map(drop))
}

/// Sets the timeout of address and route resolution.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_timeout(cfg: *mut ConnCfg, timeout_ms: c_int) -> c_int {
    // SAFETY: caller contract above.
    unsafe { try_set(cfg, |c| c.values.set_timeout(timeout_ms)) }
}

/// Reads the timeout.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `timeout_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_timeout(
    cfg: *const ConnCfg,
    timeout_ms: *mut c_int,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, timeout_ms, |c| c.values.timeout()) }
}

/// Sets the size of the main completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_cq_size(cfg: *mut ConnCfg, cq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.values.set_cq_size(cq_size)) }
}

/// Reads the size of the main completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `cq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_cq_size(
    cfg: *const ConnCfg,
    cq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, cq_size, |c| c.values.cq_size()) }
}

/// Sets the size of the receive completion queue (0: none).
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_rcq_size(cfg: *mut ConnCfg, rcq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.values.set_rcq_size(rcq_size)) }
}

/// Reads the size of the receive completion queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rcq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_rcq_size(
    cfg: *const ConnCfg,
    rcq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rcq_size, |c| c.values.rcq_size()) }
}

/// Sets the size of the send queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_sq_size(cfg: *mut ConnCfg, sq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.values.set_sq_size(sq_size)) }
}

/// Reads the size of the send queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `sq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_sq_size(
    cfg: *const ConnCfg,
    sq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, sq_size, |c| c.values.sq_size()) }
}

/// Sets the size of the receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_rq_size(cfg: *mut ConnCfg, rq_size: u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.values.set_rq_size(rq_size)) }
}

/// Reads the size of the receive queue.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `rq_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_rq_size(
    cfg: *const ConnCfg,
    rq_size: *mut u32,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, rq_size, |c| c.values.rq_size()) }
}

/// Chooses whether the completion queues share one completion channel.
///
/// # Safety
/// `cfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_set_compl_channel(cfg: *mut ConnCfg, shared: bool) -> c_int {
    // SAFETY: caller contract above.
    unsafe { set(cfg, |c| c.values.set_compl_channel(shared)) }
}

/// Reads whether the completion channel is shared.
///
/// # Safety
/// `cfg` is NULL or a live configuration; `shared` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_cfg_get_compl_channel(
    cfg: *const ConnCfg,
    shared: *mut bool,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, shared, |c| c.values.compl_channel()) }
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
pub unsafe extern "C" fn rpma_conn_cfg_set_srq(cfg: *mut ConnCfg, srq: *mut Srq) -> c_int {
    let set = |c: &ConnCfg| -> rpma::Result<()> {
        if srq.is_null() {
            return Err(INVAL);
        }
        c.srq.store(srq, SeqCst);
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
    cfg: *const ConnCfg,
    srq_ptr: *mut *mut Srq,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cfg, srq_ptr, |c| c.srq.load(SeqCst)) }
}
