use std::ffi::c_int;
use std::mem::MaybeUninit;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;

use crate::{arg, boundary, get, put, INVAL};
use rpma::cq::{Cq, WorkCompletion};
use rpma::sys::ibv_wc;

/// The caller's `struct ibv_wc` array as the core's entries.
///
/// # Safety
/// `wc` is non-NULL and writable for `n` entries, which are not otherwise
/// accessed while the slice lives.
#[inline(always)]
unsafe fn entries<'a>(wc: *mut ibv_wc, n: usize) -> &'a mut [MaybeUninit<WorkCompletion>] {
    // SAFETY: `WorkCompletion` is `repr(transparent)` over `ibv_wc`, and
    // `MaybeUninit` keeps that layout while allowing the entries to be
    // uninitialised, as the caller's buffer may be; the caller provides
    // `n` writable, unaliased entries.
    unsafe { std::slice::from_raw_parts_mut(wc.cast::<MaybeUninit<WorkCompletion>>(), n) }
}

/// The C handle of a CQ that lives inside a connection or an SRQ (NULL for
/// none): a borrowed pointer, valid as long as its owner.
pub(super) fn cq_handle(cq: Option<&Cq>) -> *mut Cq {
    cq.map_or(std::ptr::null_mut(), |q| std::ptr::from_ref(q).cast_mut())
}

/// The fd of the channel the CQ reports to.
///
/// # Safety
/// `cq` is NULL or a live CQ; `fd` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_cq_get_fd(cq: *const Cq, fd: *mut c_int) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(cq, fd, |q| q.fd().as_raw_fd()) }
}

/// Waits for the CQ's channel to report completions.
///
/// # Safety
/// `cq` is NULL or a live CQ.
#[no_mangle]
pub unsafe extern "C" fn rpma_cq_wait(cq: *mut Cq) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { arg(cq) }?.wait())
}

/// Takes up to `num_entries` completions.
///
/// # Safety
/// `cq` is NULL or a live CQ; `wc` is NULL or writable for `num_entries`
/// entries; `num_entries_got` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_cq_get_wc(
    cq: *mut Cq,
    num_entries: c_int,
    wc: *mut ibv_wc,
    num_entries_got: *mut c_int,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above.
        let cq = unsafe { arg(cq) }?;
        let got_slot = NonNull::new(num_entries_got);
        // more than one entry needs somewhere to say how many came
        if wc.is_null() || num_entries < 1 || (num_entries > 1 && got_slot.is_none()) {
            return Err(INVAL);
        }
        // SAFETY: the caller provides num_entries (at least 1) writable
        // entries.
        let got = cq.poll_uninit(unsafe { entries(wc, num_entries as usize) })?;
        if let Some(slot) = got_slot {
            // SAFETY: a non-NULL output pointer (caller contract); `got` is
            // at most num_entries, so it fits.
            unsafe { put(slot, got as c_int) };
        }
        Ok(())
    })
}
