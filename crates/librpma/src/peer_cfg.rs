use std::ffi::{c_int, c_void};

use crate::{arg, boundary, new_into, out, put, take_handle, INVAL};
use rpma::peer_cfg::{PeerCfg, DESCRIPTOR_SIZE};

/// Creates a peer configuration.
///
/// # Safety
/// `pcfg_ptr` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_new(pcfg_ptr: *mut *mut PeerCfg) -> c_int {
    // SAFETY: caller contract above.
    unsafe { new_into(pcfg_ptr, false, PeerCfg::new) }
}

/// Deletes a peer configuration.
///
/// # Safety
/// `pcfg_ptr` is NULL or points to NULL or to a configuration from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_delete(pcfg_ptr: *mut *mut PeerCfg) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(pcfg_ptr) }.map(drop))
}

/// Declares whether direct write to PMem is supported.
///
/// # Safety
/// `pcfg` is NULL or a live configuration.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_set_direct_write_to_pmem(
    pcfg: *mut PeerCfg,
    supported: bool,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        unsafe { arg(pcfg) }?.set_direct_write_to_pmem(supported);
        Ok(())
    })
}

/// Reads whether direct write to PMem is declared supported.
///
/// # Safety
/// `pcfg` is NULL or a live configuration; `supported` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_get_direct_write_to_pmem(
    pcfg: *const PeerCfg,
    supported: *mut bool,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let pcfg = unsafe { arg(pcfg) }?;
        let supported = out(supported)?;
        // SAFETY: checked output pointer.
        unsafe { put(supported, pcfg.direct_write_to_pmem()) };
        Ok(())
    })
}

/// Writes the configuration's descriptor (1 byte) to `desc`.
///
/// # Safety
/// `pcfg` is NULL or a live configuration; `desc` is NULL or writable for
/// the descriptor size.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_get_descriptor(
    pcfg: *const PeerCfg,
    desc: *mut c_void,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let pcfg = unsafe { arg(pcfg) }?;
        let desc = out(desc.cast::<[u8; DESCRIPTOR_SIZE]>())?;
        // SAFETY: the caller provides DESCRIPTOR_SIZE writable bytes; a byte
        // array has alignment 1.
        unsafe { put(desc, pcfg.descriptor()) };
        Ok(())
    })
}

/// Reports the size of the configuration's descriptor.
///
/// # Safety
/// `pcfg` is NULL or a live configuration; `desc_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_get_descriptor_size(
    pcfg: *const PeerCfg,
    desc_size: *mut usize,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        unsafe { arg(pcfg) }?;
        let desc_size = out(desc_size)?;
        // SAFETY: checked output pointer.
        unsafe { put(desc_size, DESCRIPTOR_SIZE) };
        Ok(())
    })
}

/// Creates a peer configuration from a descriptor received from the peer.
///
/// # Safety
/// `desc` is NULL or readable for `desc_size` bytes; `pcfg_ptr` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_peer_cfg_from_descriptor(
    desc: *const c_void,
    desc_size: usize,
    pcfg_ptr: *mut *mut PeerCfg,
) -> c_int {
    boundary(|| {
        if desc.is_null() {
            return Err(INVAL);
        }
        let slot = out(pcfg_ptr)?;
        // Only the first byte is read; cutting the slice there keeps any
        // desc_size the caller passes valid.
        let bytes = desc_size.min(DESCRIPTOR_SIZE);
        // SAFETY: desc is non-NULL and readable for desc_size >= bytes bytes.
        let bytes = unsafe { std::slice::from_raw_parts(desc.cast::<u8>(), bytes) };
        let cfg = Box::into_raw(PeerCfg::from_descriptor_boxed(bytes)?);
        // SAFETY: checked output pointer.
        unsafe { put(slot, cfg) };
        Ok(())
    })
}
