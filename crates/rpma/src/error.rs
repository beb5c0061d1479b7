//! The library's error type and its mapping to the `RPMA_E_*` codes, and
//! how a failed libibverbs/librdmacm call becomes one: its errno read,
//! logged, and reported as `RPMA_E_PROVIDER`.

use std::ffi::{c_char, c_int, CStr};
use std::fmt;

use crate::log::{Level, Op};

/// Every failure a librpma function can report. The discriminants are the
/// C error codes, so the mapping is fixed in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[repr(i32)]
pub enum Error {
    /// A failure with no better description (`RPMA_E_UNKNOWN`).
    #[error("Unknown error")]
    Unknown = -100000,
    /// The operation is not supported (`RPMA_E_NOSUPP`).
    #[error("Not supported")]
    NoSupp = -100001,
    /// libibverbs or librdmacm failed; the log says how (`RPMA_E_PROVIDER`).
    #[error("Provider error occurred")]
    Provider = -100002,
    /// Memory could not be allocated (`RPMA_E_NOMEM`).
    #[error("Out of memory")]
    NoMem = -100003,
    /// An argument is invalid (`RPMA_E_INVAL`).
    #[error("Invalid argument")]
    Inval = -100004,
    /// No completion is ready yet (`RPMA_E_NO_COMPLETION`).
    #[error("No next completion available")]
    NoCompletion = -100005,
    /// No event is ready yet (`RPMA_E_NO_EVENT`).
    #[error("No next event available")]
    NoEvent = -100006,
    /// A temporary condition; retrying may succeed (`RPMA_E_AGAIN`).
    #[error("Temporary error, try again")]
    Again = -100007,
    /// The completion channel is shared, so the call does not apply
    /// (`RPMA_E_SHARED_CHANNEL`).
    #[error("Completion channel is shared")]
    SharedChannel = -100008,
    /// The completion channel is not shared, so the call does not apply
    /// (`RPMA_E_NOT_SHARED_CHNL`).
    #[error("Completion channel is not shared")]
    NotSharedChnl = -100009,
}

/// The result of every fallible operation of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    const ALL: [Error; 10] = [
        Error::Unknown,
        Error::NoSupp,
        Error::Provider,
        Error::NoMem,
        Error::Inval,
        Error::NoCompletion,
        Error::NoEvent,
        Error::Again,
        Error::SharedChannel,
        Error::NotSharedChnl,
    ];

    /// The `RPMA_E_*` value of this error.
    pub const fn code(self) -> c_int {
        self as c_int
    }

    /// The error whose code is `code`, if any.
    pub fn from_code(code: c_int) -> Option<Error> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }

    /// The static, NUL-terminated description of this error (the text
    /// `rpma_err_2str` hands out; `Display` gives the same words).
    pub const fn as_cstr(self) -> &'static CStr {
        match self {
            Error::Unknown => c"Unknown error",
            Error::NoSupp => c"Not supported",
            Error::Provider => c"Provider error occurred",
            Error::NoMem => c"Out of memory",
            Error::Inval => c"Invalid argument",
            Error::NoCompletion => c"No next completion available",
            Error::NoEvent => c"No next event available",
            Error::Again => c"Temporary error, try again",
            Error::SharedChannel => c"Completion channel is shared",
            Error::NotSharedChnl => c"Completion channel is not shared",
        }
    }
}

/// Description of any return value of the C API: 0 is a success, an unknown
/// code reads like `RPMA_E_UNKNOWN`.
pub fn describe(code: c_int) -> &'static CStr {
    match code {
        0 => c"Success",
        _ => Error::from_code(code).unwrap_or(Error::Unknown).as_cstr(),
    }
}

/// The calling thread's `errno`.
pub(crate) fn errno() -> c_int {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Sets `errno`, for calls that report failure only through it.
pub(crate) fn set_errno(value: c_int) {
    // SAFETY: __errno_location returns the calling thread's errno slot.
    unsafe { *libc::__errno_location() = value };
}

/// `strerror` text of an errno value, formatted without allocating.
pub(crate) struct Errno(pub c_int);

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0 as c_char; 128];
        // SAFETY: buf is writable for its length; on success the (XSI)
        // strerror_r leaves a NUL-terminated text in it.
        let text = unsafe {
            if libc::strerror_r(self.0, buf.as_mut_ptr(), buf.len()) != 0 {
                return write!(f, "errno {}", self.0);
            }
            CStr::from_ptr(buf.as_ptr())
        };
        f.write_str(&text.to_string_lossy())
    }
}

/// Logs a failed provider call at ERROR level with the current errno and
/// returns `RPMA_E_PROVIDER`.
pub(crate) fn provider_failed(call: &str) -> Error {
    provider_failed_in(Op::Verbs, call)
}

/// The same, naming the operation `op` as the message's origin.
pub(crate) fn provider_failed_in(op: Op, call: &str) -> Error {
    let e = errno();
    rpma_log!(Level::Error, op, "{}() failed: {}", call, Errno(e));
    Error::Provider
}

/// The same for calls that return an errno value instead of setting errno.
#[cold]
pub(crate) fn provider_failed_with(call: &str, err: c_int) -> Error {
    rpma_log!(Level::Error, Op::Verbs, "{}() failed: {}", call, Errno(err));
    Error::Provider
}

/// Maps the 0 / errno-value result of the libibverbs calls that return the
/// error instead of setting errno (the destroy calls, ibv_req_notify_cq).
#[inline]
pub(crate) fn check_errno_value(call: &str, ret: c_int) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(provider_failed_with(call, ret))
    }
}

/// Maps the 0 / non-zero result of a call that sets errno on failure.
pub(crate) fn check(call: &str, ret: c_int) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(provider_failed(call))
    }
}

/// Keeps the first error of a sequence of release steps, runs them all.
#[derive(Default)]
pub(crate) struct FirstError(Option<Error>);

impl FirstError {
    pub(crate) fn note(&mut self, r: Result<()>) {
        if let (None, Err(e)) = (self.0, r) {
            self.0 = Some(e);
        }
    }

    pub(crate) fn result(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_texts_agree() {
        for e in Error::ALL {
            assert_eq!(Error::from_code(e.code()), Some(e));
            assert_eq!(e.to_string(), e.as_cstr().to_str().unwrap());
        }
        assert_eq!(Error::Inval.code(), -100004);
    }

    #[test]
    fn unknown_codes_describe_as_unknown() {
        assert_eq!(describe(0), c"Success");
        assert_eq!(describe(-100010), c"Unknown error");
        assert_eq!(describe(1), c"Unknown error");
        assert_eq!(describe(i32::MIN), c"Unknown error");
        assert_eq!(describe(-100009), c"Completion channel is not shared");
    }
}
