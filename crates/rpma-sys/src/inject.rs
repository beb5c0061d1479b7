//! The fault-injection wrappers (feature `fault-injection`): each fallible
//! libibverbs/librdmacm function the library calls is shadowed here by a
//! function of the same name and signature that asks [`crate::fault::hit`]
//! first. The rest of the library calls `sys::name` and cannot tell.
//!
//! Calls that acquire or act (create, register, post, connect, ...) fail
//! without being made. Release calls (destroy, dereg, ack) are made and then
//! reported as failed: the run then tests the library's handling of the
//! error, not a provider leak that no caller could avoid.

/// `name(args) -> ret = how;` defines one wrapper. `how` is `null` (NULL
/// and errno), `minus1` (-1 and errno), `errval` (the errno value itself),
/// or `release minus1` / `release errval` for release calls.
macro_rules! faulty {
    ($( $name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty = $($how:ident)+ ; )*) => {
        $(
            /// Fault-injection wrapper of the provider function of the same name.
            ///
            /// # Safety
            /// That of the wrapped function.
            pub unsafe fn $name($($arg: $ty),*) -> $ret {
                faulty!(@call $name ($($arg),*) $($how)+)
            }
        )*
    };
    (@call $name:ident ($($arg:ident),*) release $how:ident) => {{
        // SAFETY: the caller upholds the wrapped function's contract.
        let ret = unsafe { $crate::verbs::$name($($arg),*) };
        if $crate::fault::hit(stringify!($name)) {
            faulty!(@fail $how)
        } else {
            ret
        }
    }};
    (@call $name:ident ($($arg:ident),*) $how:ident) => {{
        if $crate::fault::hit(stringify!($name)) {
            return faulty!(@fail $how);
        }
        // SAFETY: the caller upholds the wrapped function's contract.
        unsafe { $crate::verbs::$name($($arg),*) }
    }};
    (@fail null) => {{
        $crate::inject::set_errno($crate::fault::ERRNO);
        std::ptr::null_mut()
    }};
    (@fail minus1) => {{
        $crate::inject::set_errno($crate::fault::ERRNO);
        -1
    }};
    (@fail errval) => {
        $crate::fault::ERRNO
    };
}

/// Sets `errno`, as the wrapped functions that report failure through it do.
pub(crate) fn set_errno(value: std::ffi::c_int) {
    // SAFETY: __errno_location returns the calling thread's errno slot.
    unsafe { *libc::__errno_location() = value };
}
