//! The library's error type and its mapping to the `RPMA_E_*` codes.

use std::ffi::{c_int, CStr};

/// Every failure a librpma function can report. The discriminants are the
/// C error codes, so the mapping is fixed in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[repr(i32)]
pub enum Error {
    #[error("Unknown error")]
    Unknown = -100000,
    #[error("Not supported")]
    NoSupp = -100001,
    #[error("Provider error occurred")]
    Provider = -100002,
    #[error("Out of memory")]
    NoMem = -100003,
    #[error("Invalid argument")]
    Inval = -100004,
    #[error("No next completion available")]
    NoCompletion = -100005,
    #[error("No next event available")]
    NoEvent = -100006,
    #[error("Temporary error, try again")]
    Again = -100007,
    #[error("Completion channel is shared")]
    SharedChannel = -100008,
    #[error("Completion channel is not shared")]
    NotSharedChnl = -100009,
}

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
