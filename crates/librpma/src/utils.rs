use std::ffi::{c_char, c_int};
use std::ptr::NonNull;

use crate::types::{ConnEventArg, ContextTypeArg};
use crate::{boundary, boundary_value, c_str, out, put, INVAL};
use rpma::conn::event_str;
use rpma::peer::{ContextType, Device};
use rpma::sys::ibv_context;

/// Describes a connection event.
#[no_mangle]
pub extern "C" fn rpma_utils_conn_event_2str(conn_event: ConnEventArg) -> *const c_char {
    boundary_value(c"Unsupported connection event".as_ptr(), || {
        event_str(conn_event.0).as_ptr()
    })
}

/// Finds the device context serving a local or remote address.
///
/// # Safety
/// `addr` is NULL or a string; `ibv_ctx_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_utils_get_ibv_context(
    addr: *const c_char,
    r#type: ContextTypeArg,
    ibv_ctx_ptr: *mut *mut ibv_context,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let addr = unsafe { c_str(addr) }?;
        let slot = out(ibv_ctx_ptr)?;
        let kind = ContextType::from_raw(r#type.0).ok_or(INVAL)?;
        let device = Device::find(addr, kind)?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, device.map_or(std::ptr::null_mut(), |d| d.as_ptr())) };
        Ok(())
    })
}

/// Tells whether a device supports on-demand paging.
///
/// # Safety
/// `ibv_ctx` is NULL or a live device context; `is_odp_capable` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_utils_ibv_context_is_odp_capable(
    ibv_ctx: *mut ibv_context,
    is_odp_capable: *mut c_int,
) -> c_int {
    boundary(|| {
        let ctx = NonNull::new(ibv_ctx).ok_or(INVAL)?;
        let slot = out(is_odp_capable)?;
        // Like the C library: 0 until the query says otherwise, so a failed
        // query leaves 0 behind.
        // SAFETY: checked output pointer.
        unsafe { put(slot, 0) };
        // SAFETY: a live context (caller contract), used only for this call.
        let odp = unsafe { Device::from_raw_context(ctx) }.is_odp_capable()?;
        // SAFETY: as above.
        unsafe { put(slot, c_int::from(odp)) };
        Ok(())
    })
}
