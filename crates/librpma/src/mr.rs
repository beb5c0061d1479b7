use std::ffi::{c_int, c_void};

use crate::{arg, boundary, get, out, put, put_new, take_handle, INVAL};
use rpma::mr::{Advice, AdviseFlags, MrLocal, MrRemote, Usage, DESCRIPTOR_SIZE};
use rpma::peer::Peer;

/// Registers a memory region.
///
/// # Safety
/// `peer` is NULL or a live peer; the memory at `ptr` stays allocated while
/// registered; `mr_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_reg(
    peer: *mut Peer,
    ptr: *mut c_void,
    size: usize,
    usage: c_int,
    mr_ptr: *mut *mut MrLocal,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let peer = unsafe { arg(peer) }?;
        let slot = out(mr_ptr)?;
        // Bits outside the eight usages are INVAL here, 0 in reg: both
        // without a log, like every other INVAL of rpma_mr_reg.
        let usage = Usage::try_from(usage)?;
        // SAFETY: the memory is the caller's (contract above).
        let mr = unsafe { MrLocal::reg_raw(peer, ptr, size, usage) }?;
        // SAFETY: checked output pointer.
        unsafe { put_new(slot, mr) }
    })
}

/// Deregisters a memory region.
///
/// # Safety
/// `mr_ptr` is NULL or points to NULL or to a region from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_dereg(mr_ptr: *mut *mut MrLocal) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(mr_ptr) }?.map_or(Ok(()), |m| m.dereg()))
}

/// Writes the region's descriptor (rpma_mr_get_descriptor_size bytes).
///
/// # Safety
/// `mr` is NULL or a live region; `desc` is NULL or writable for the
/// descriptor's size.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_get_descriptor(mr: *const MrLocal, desc: *mut c_void) -> c_int {
    // SAFETY: caller contract above.
    unsafe {
        get(
            mr,
            desc.cast::<[u8; DESCRIPTOR_SIZE]>(),
            MrLocal::descriptor,
        )
    }
}

/// Rebuilds a remote region from its descriptor.
///
/// # Safety
/// `desc` is NULL or readable for `desc_size` bytes; `mr_ptr` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_remote_from_descriptor(
    desc: *const c_void,
    desc_size: usize,
    mr_ptr: *mut *mut MrRemote,
) -> c_int {
    boundary(|| {
        if desc.is_null() {
            return Err(INVAL);
        }
        let slot = out(mr_ptr)?;
        // Only the descriptor's own bytes are ever read, so the slice is cut
        // there: desc_size may be any number the caller received.
        let bytes = desc_size.min(DESCRIPTOR_SIZE);
        // SAFETY: non-NULL and readable for desc_size >= bytes bytes (caller).
        let bytes = unsafe { std::slice::from_raw_parts(desc.cast::<u8>(), bytes) };
        let mr = Box::into_raw(MrRemote::from_descriptor_boxed(bytes)?);
        // SAFETY: checked output pointer.
        unsafe { put(slot, mr) };
        Ok(())
    })
}

/// The size of a descriptor.
///
/// # Safety
/// `mr` is NULL or a live region; `desc_size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_get_descriptor_size(
    mr: *const MrLocal,
    desc_size: *mut usize,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(mr, desc_size, |_| DESCRIPTOR_SIZE) }
}

/// The registered address.
///
/// # Safety
/// `mr` is NULL or a live region; `ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_get_ptr(mr: *const MrLocal, ptr: *mut *mut c_void) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(mr, ptr, MrLocal::ptr) }
}

/// The registered size.
///
/// # Safety
/// `mr` is NULL or a live region; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_get_size(mr: *const MrLocal, size: *mut usize) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(mr, size, MrLocal::size) }
}

/// The size of a remote region.
///
/// # Safety
/// `mr` is NULL or a live remote region; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_remote_get_size(mr: *const MrRemote, size: *mut usize) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(mr, size, |m| m.size() as usize) }
}

/// The flush usage bits of a remote region.
///
/// # Safety
/// `mr` is NULL or a live remote region; `flush_type` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_remote_get_flush_type(
    mr: *const MrRemote,
    flush_type: *mut c_int,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(mr, flush_type, |m| m.flush_type().bits() as c_int) }
}

/// Deletes a remote region.
///
/// # Safety
/// `mr_ptr` is NULL or points to NULL or to a remote region from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_remote_delete(mr_ptr: *mut *mut MrRemote) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(mr_ptr) }.map(drop))
}

/// Gives the device a paging hint for part of a region.
///
/// # Safety
/// `mr` is NULL or a live region.
#[no_mangle]
pub unsafe extern "C" fn rpma_mr_advise(
    mr: *mut MrLocal,
    offset: usize,
    len: usize,
    advice: c_int,
    flags: u32,
) -> c_int {
    boundary(|| {
        // The C library dereferences a NULL region; here it is invalid.
        // SAFETY: caller contract above.
        let mr = unsafe { arg(mr) }?;
        // Any value goes on to the provider as it came, as in the C
        // library: Advice::Other and from_bits_retain keep the bits.
        mr.advise(
            offset,
            len,
            Advice::from_raw(advice),
            AdviseFlags::from_bits_retain(flags),
        )
    })
}
