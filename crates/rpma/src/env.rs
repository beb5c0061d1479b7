//! The environment variables a peer reads when it is made, read without
//! allocating: a peer's creation answers a failed allocation with
//! `Error::NoMem` (`RPMA_E_NOMEM`), while `std::env`'s readers copy the
//! value to the heap, whose failure aborts the process.

use std::ffi::CStr;

/// Hands `f` the value of the environment variable `name` as bytes, or
/// `None` when it is unset.
pub(crate) fn with_var<R>(name: &CStr, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
    // SAFETY: getenv takes a NUL-terminated name and returns NULL or a
    // NUL-terminated string owned by the environment, valid until the
    // environment changes. Nothing here changes it, and `f` is done with
    // the bytes before this returns; a program that changes the
    // environment while other threads read it breaks the rule that
    // setenv(3) (MT-Unsafe) and the unsafe std::env::set_var state.
    let value = unsafe { libc::getenv(name.as_ptr()) };
    if value.is_null() {
        return f(None);
    }
    // SAFETY: not NULL: a NUL-terminated string, as above.
    f(Some(unsafe { CStr::from_ptr(value) }.to_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_is_set_and_nothing_else() {
        // SAFETY: this test's own variable; no other test reads or sets it.
        unsafe { std::env::set_var("RPMA_ENV_TEST_VALUE", " 12") };
        assert_eq!(
            with_var(c"RPMA_ENV_TEST_VALUE", |v| v.map(<[u8]>::to_vec)),
            Some(b" 12".to_vec())
        );
        assert!(with_var(c"RPMA_ENV_TEST_UNSET", |v| v.is_none()));
    }
}
