use std::ffi::c_int;
use std::ptr::NonNull;

use crate::{boundary, out, put_new, take_handle, INVAL};
use rpma::peer::Peer;
use rpma::sys::ibv_context;

/// Creates a peer on a device context.
///
/// # Safety
/// `ibv_ctx` is NULL or a live device context; `peer_ptr` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_new(
    ibv_ctx: *mut ibv_context,
    peer_ptr: *mut *mut Peer,
) -> c_int {
    boundary(|| {
        let ctx = NonNull::new(ibv_ctx).ok_or(INVAL)?;
        let slot = out(peer_ptr)?;
        // SAFETY: a live context (caller contract).
        let peer = unsafe { Peer::from_raw_context(ctx) }?;
        // SAFETY: checked output pointer.
        unsafe { put_new(slot, peer) }
    })
}

/// Deletes a peer.
///
/// # Safety
/// `peer_ptr` is NULL or points to NULL or to a peer from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_delete(peer_ptr: *mut *mut Peer) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(peer_ptr) }?.map_or(Ok(()), |p| p.delete()))
}
