//! `librpma.so.0`: the `extern "C"` face of the `rpma` crate, a drop-in
//! replacement for the C library (same symbols, version node, header,
//! behaviour and wire data). Here are the argument checks, the ownership of
//! the handles given to C, the panic boundary, the error-code mapping and
//! the library's load-time set-up; the behaviour itself lives in `rpma`.
//!
//! Every public `extern "C" fn` here is an upstream librpma function,
//! listed in `librpma.map`, the version script the Makefile links
//! librpma.so.0 with (node `LIBRPMA_1.0`, everything else local), and
//! tests/symbols.rs checks that the map, these sources and
//! include/librpma.h name the same functions.

pub mod conn;
pub mod conn_cfg;
pub mod conn_req;
pub mod cq;
pub mod ep;
pub mod err;
pub mod log;
pub mod mr;
pub mod peer;
pub mod peer_cfg;
pub mod srq;
pub mod srq_cfg;
pub mod types;
pub mod utils;

use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe, UnwindSafe};
use std::ptr::NonNull;

use rpma::alloc::try_box;
use rpma::error::{Error, Invalid, Result};

/// `RPMA_E_INVAL` for the C face's own checks (NULL pointers, values
/// outside a C enum): a C caller sees only the code, so one reason serves.
pub(crate) const INVAL: Error = Error::Inval(Invalid::new("an argument of the C call"));

/// Runs an entry point's body: `Ok` becomes 0, an error its `RPMA_E_*` code,
/// and a panic `RPMA_E_UNKNOWN` instead of unwinding into C. Always inlined:
/// on the data path an out-of-line copy shared by two entry points costs
/// more than the operation's own code.
#[inline(always)]
pub(crate) fn boundary(body: impl FnOnce() -> Result<()>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => e.code(),
        Err(_) => Error::Unknown.code(),
    }
}

/// The same for entry points that return a value; `on_panic` is returned
/// if the body panics.
#[inline(always)]
pub(crate) fn boundary_value<T>(on_panic: T, body: impl FnOnce() -> T + UnwindSafe) -> T {
    catch_unwind(body).unwrap_or(on_panic)
}

/// A reference from an argument pointer; NULL is `RPMA_E_INVAL`.
///
/// # Safety
/// `p` is NULL or points to a live `T` that is not mutated during `'a`.
pub(crate) unsafe fn arg<'a, T>(p: *const T) -> Result<&'a T> {
    // SAFETY: guaranteed by the caller.
    unsafe { p.as_ref() }.ok_or(INVAL)
}

/// A C string argument; NULL is `RPMA_E_INVAL`.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Result<&'a CStr> {
    if p.is_null() {
        return Err(INVAL);
    }
    // SAFETY: non-NULL and NUL-terminated (caller).
    Ok(unsafe { CStr::from_ptr(p) })
}

/// Hands a core object to C as a handle stored through `slot`; when the
/// allocation fails the object is released and `RPMA_E_NOMEM` returned.
///
/// # Safety
/// `slot` came from [`out`].
pub(crate) unsafe fn put_new<T>(slot: NonNull<*mut T>, value: T) -> Result<()> {
    let handle = new_handle(value)?;
    // SAFETY: caller contract.
    unsafe { put(slot, handle) };
    Ok(())
}

/// An output pointer; NULL is `RPMA_E_INVAL`. Nothing is written here, so a
/// function checks all its arguments before it stores any result.
pub(crate) fn out<T>(p: *mut T) -> Result<NonNull<T>> {
    NonNull::new(p).ok_or(INVAL)
}

/// Stores a value through a checked output pointer.
///
/// # Safety
/// `p` came from [`out`] for a pointer the C caller gave as writable `T`.
pub(crate) unsafe fn put<T>(p: NonNull<T>, value: T) {
    // SAFETY: guaranteed by the caller; `write` does not read (or drop) the
    // possibly uninitialised old value.
    unsafe { p.as_ptr().write(value) }
}

/// A getter: checks both pointers, then stores what `read` returns.
///
/// # Safety
/// `obj` is NULL or a live object; `dst` is NULL or writable for a `T`.
pub(crate) unsafe fn get<O, T>(obj: *const O, dst: *mut T, read: impl FnOnce(&O) -> T) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let obj = unsafe { arg(obj) }?;
        let dst = out(dst)?;
        // SAFETY: checked output pointer (caller contract).
        unsafe { put(dst, read(obj)) };
        Ok(())
    })
}

/// A setter that may reject its value: checks the object pointer, then
/// applies `write`.
///
/// # Safety
/// `obj` is NULL or a live object.
pub(crate) unsafe fn try_set<O>(obj: *const O, write: impl FnOnce(&O) -> Result<()>) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| write(unsafe { arg(obj) }?))
}

/// A setter that takes any value.
///
/// # Safety
/// `obj` is NULL or a live object.
pub(crate) unsafe fn set<O>(obj: *const O, write: impl FnOnce(&O)) -> c_int {
    // SAFETY: caller contract above.
    unsafe {
        try_set(obj, |o| {
            write(o);
            Ok(())
        })
    }
}

/// Moves `value` to the heap for a C handle; allocation failure is
/// `RPMA_E_NOMEM` rather than an abort.
pub(crate) fn new_handle<T>(value: T) -> Result<*mut T> {
    try_box(value).map(Box::into_raw)
}

/// The `*_new(T **)` pattern: checks `ptr`, then stores a new handle. On
/// `RPMA_E_NOMEM`, `*ptr` is set to NULL when `null_on_nomem` (some of the C
/// library's constructors do that, others leave `*ptr` alone).
///
/// # Safety
/// `ptr` is NULL or valid for writing a pointer.
pub(crate) unsafe fn new_into<T>(
    ptr: *mut *mut T,
    null_on_nomem: bool,
    make: impl FnOnce() -> T,
) -> c_int {
    boundary(|| {
        let slot = out(ptr)?;
        if null_on_nomem {
            // SAFETY: checked output pointer (caller contract).
            unsafe { put_new_or_null(slot, make()) }
        } else {
            // SAFETY: as above.
            unsafe { put_new(slot, make()) }
        }
    })
}

/// [`put_new`] for the constructors of the C library that allocate straight
/// into the output pointer: when the allocation fails, NULL is stored and
/// `RPMA_E_NOMEM` returned.
///
/// # Safety
/// `slot` came from [`out`].
pub(crate) unsafe fn put_new_or_null<T>(slot: NonNull<*mut T>, value: T) -> Result<()> {
    let handle = new_handle(value);
    let stored = match handle {
        Ok(h) => h,
        Err(_) => std::ptr::null_mut(),
    };
    // SAFETY: caller contract.
    unsafe { put(slot, stored) };
    handle.map(drop)
}

/// The `*_delete(T **)` pattern: NULL `ptr` is `RPMA_E_INVAL`, NULL `*ptr` a
/// no-op, otherwise the object is taken back from C and `*ptr` cleared.
///
/// # Safety
/// `ptr` is NULL or valid for reads and writes, and `*ptr` is NULL or a
/// handle made by [`new_handle`] that C no longer uses.
pub(crate) unsafe fn take_handle<T>(ptr: *mut *mut T) -> Result<Option<Box<T>>> {
    let slot = out(ptr)?;
    // SAFETY: slot is valid for reads (caller).
    let handle = unsafe { slot.as_ptr().read() };
    if handle.is_null() {
        return Ok(None);
    }
    // SAFETY: slot is valid for writes (caller).
    unsafe { put(slot, std::ptr::null_mut()) };
    // SAFETY: handle was made by new_handle, i.e. allocated as a Box<T> would be.
    Ok(Some(unsafe { Box::from_raw(handle) }))
}

/// Process-wide set-up when the library is loaded, as the C library does:
/// the syslog identity "rpma" (with the PID, facility LOCAL7), and log
/// messages that name the C library's functions.
extern "C" fn on_load() {
    // SAFETY: the identity is a static NUL-terminated string.
    unsafe { libc::openlog(c"rpma".as_ptr(), libc::LOG_PID, libc::LOG_LOCAL7) };
    rpma::log::set_op_names(log::c_function);
    log::set_function(None);
}

/// Logging stops and syslog is closed when the library is unloaded.
extern "C" fn on_unload() {
    rpma::log::disable();
    // SAFETY: closelog has no preconditions.
    unsafe { libc::closelog() };
}

#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;

#[used]
#[link_section = ".fini_array"]
static ON_UNLOAD: extern "C" fn() = on_unload;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_rpma_e_unknown() {
        let code = boundary(|| panic!("inside the library"));
        assert_eq!(code, Error::Unknown.code());
        assert_eq!(boundary_value(7, || -> i32 { panic!("again") }), 7);
    }

    #[test]
    fn handles_round_trip_and_delete_is_idempotent() {
        let mut h = new_handle(42u64).unwrap();
        // SAFETY: h is a live handle and &mut h is a valid slot.
        let back = unsafe { take_handle(&mut h) }.unwrap();
        assert_eq!(*back.unwrap(), 42);
        assert!(h.is_null());
        // SAFETY: as above; *slot is NULL now.
        assert!(unsafe { take_handle(&mut h) }.unwrap().is_none());
        // SAFETY: NULL slot is allowed.
        assert_eq!(
            unsafe { take_handle::<u64>(std::ptr::null_mut()) }.unwrap_err(),
            INVAL
        );
    }
}
