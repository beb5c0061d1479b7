//! Constants, enumerations and argument types of `librpma.h`, written so
//! cbindgen renders them as the C header declares them.
//!
//! Enumerations cross the C boundary as the `*Arg` integer wrappers: C may
//! pass any int where an enum is declared, and a Rust enum holding a value
//! outside its variants is undefined behaviour. cbindgen.toml renames each
//! wrapper to its `enum rpma_*` type.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int};

/// A user log function: `rpma_log_function` of the C API.
pub type LogFunction = unsafe extern "C" fn(
    level: c_int,
    file_name: *const c_char,
    line_no: c_int,
    function_name: *const c_char,
    message_format: *const c_char,
    ...
);

/// Reserved; no function uses it.
pub const RPMA_W_WAIT_FOR_COMPLETION: c_int = 1;

pub const RPMA_E_UNKNOWN: c_int = -100000;
pub const RPMA_E_NOSUPP: c_int = -100001;
pub const RPMA_E_PROVIDER: c_int = -100002;
pub const RPMA_E_NOMEM: c_int = -100003;
pub const RPMA_E_INVAL: c_int = -100004;
pub const RPMA_E_NO_COMPLETION: c_int = -100005;
pub const RPMA_E_NO_EVENT: c_int = -100006;
pub const RPMA_E_AGAIN: c_int = -100007;
pub const RPMA_E_SHARED_CHANNEL: c_int = -100008;
pub const RPMA_E_NOT_SHARED_CHNL: c_int = -100009;

pub const RPMA_DEFAULT_TIMEOUT_MS: c_int = 1000;

pub const RPMA_MR_USAGE_READ_SRC: c_int = 1 << 0;
pub const RPMA_MR_USAGE_READ_DST: c_int = 1 << 1;
pub const RPMA_MR_USAGE_WRITE_SRC: c_int = 1 << 2;
pub const RPMA_MR_USAGE_WRITE_DST: c_int = 1 << 3;
pub const RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY: c_int = 1 << 4;
pub const RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT: c_int = 1 << 5;
pub const RPMA_MR_USAGE_SEND: c_int = 1 << 6;
pub const RPMA_MR_USAGE_RECV: c_int = 1 << 7;

pub const RPMA_F_COMPLETION_ON_ERROR: c_int = 1 << 0;
pub const RPMA_F_COMPLETION_ALWAYS: c_int = (1 << 1) | RPMA_F_COMPLETION_ON_ERROR;

pub const RPMA_ATOMIC_WRITE_ALIGNMENT: c_int = 8;

/// Which device `rpma_utils_get_ibv_context` looks up.
#[repr(C)]
pub enum rpma_util_ibv_context_type {
    RPMA_UTIL_IBV_CONTEXT_LOCAL = 0,
    RPMA_UTIL_IBV_CONTEXT_REMOTE = 1,
}

/// Connection events.
#[repr(C)]
pub enum rpma_conn_event {
    RPMA_CONN_UNDEFINED = -1,
    RPMA_CONN_ESTABLISHED = 0,
    RPMA_CONN_CLOSED = 1,
    RPMA_CONN_LOST = 2,
    RPMA_CONN_REJECTED = 3,
    RPMA_CONN_UNREACHABLE = 4,
}

/// How far `rpma_flush` pushes data.
#[repr(C)]
pub enum rpma_flush_type {
    RPMA_FLUSH_TYPE_PERSISTENT = 0,
    RPMA_FLUSH_TYPE_VISIBILITY = 1,
}

/// Which logging threshold a call reads or sets.
#[repr(C)]
pub enum rpma_log_threshold {
    RPMA_LOG_THRESHOLD = 0,
    RPMA_LOG_THRESHOLD_AUX = 1,
    RPMA_LOG_THRESHOLD_MAX = 2,
}

/// Private data exchanged while a connection is set up: a pointer and a
/// length of at most 255 bytes.
#[repr(C)]
pub struct rpma_conn_private_data {
    pub ptr: *mut std::ffi::c_void,
    pub len: u8,
}

/// `enum rpma_util_ibv_context_type` as passed by C.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct ContextTypeArg(pub c_int);

/// `enum rpma_conn_event` as passed by C.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct ConnEventArg(pub c_int);

/// `enum rpma_flush_type` as passed by C: any value, as the C library
/// accepts any.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct FlushTypeArg(pub c_int);

/// `enum rpma_log_level` as passed by C.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct LogLevelArg(pub c_int);

/// `enum rpma_log_threshold` as passed by C.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct LogThresholdArg(pub c_int);

/// `rpma_log_function *`: a user log function, or NULL for the default.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct LogFunctionArg(pub Option<LogFunction>);

#[cfg(test)]
mod tests {
    use super::*;
    use rpma::error::Error;

    #[test]
    fn error_constants_match_the_error_type() {
        let pairs = [
            (RPMA_E_UNKNOWN, Error::Unknown),
            (RPMA_E_NOSUPP, Error::NoSupp),
            (RPMA_E_PROVIDER, Error::from_code(RPMA_E_PROVIDER).unwrap()),
            (RPMA_E_NOMEM, Error::NoMem),
            (RPMA_E_INVAL, Error::from_code(RPMA_E_INVAL).unwrap()),
            (RPMA_E_NO_COMPLETION, Error::NoCompletion),
            (RPMA_E_NO_EVENT, Error::NoEvent),
            (RPMA_E_AGAIN, Error::Again),
            (RPMA_E_SHARED_CHANNEL, Error::SharedChannel),
            (RPMA_E_NOT_SHARED_CHNL, Error::NotSharedChnl),
        ];
        for (c, e) in pairs {
            assert_eq!(c, e.code());
        }
        assert_eq!(RPMA_F_COMPLETION_ALWAYS, 3);
    }

    /// The C-facing enums restate the core's with upstream's names (for
    /// cbindgen); their values must stay the same.
    #[test]
    fn c_enums_match_the_core_enums() {
        use rpma::conn::ConnEvent;
        use rpma::log::{Level, Threshold};
        let events = [
            (rpma_conn_event::RPMA_CONN_UNDEFINED, ConnEvent::Undefined),
            (
                rpma_conn_event::RPMA_CONN_ESTABLISHED,
                ConnEvent::Established,
            ),
            (rpma_conn_event::RPMA_CONN_CLOSED, ConnEvent::Closed),
            (rpma_conn_event::RPMA_CONN_LOST, ConnEvent::Lost),
            (rpma_conn_event::RPMA_CONN_REJECTED, ConnEvent::Rejected),
            (
                rpma_conn_event::RPMA_CONN_UNREACHABLE,
                ConnEvent::Unreachable,
            ),
        ];
        for (c, core) in events {
            assert_eq!(c as i32, core as i32);
        }
        assert_eq!(
            rpma_log_threshold::RPMA_LOG_THRESHOLD as i32,
            Threshold::Main as i32
        );
        assert_eq!(
            rpma_log_threshold::RPMA_LOG_THRESHOLD_AUX as i32,
            Threshold::Aux as i32
        );
        assert_eq!(
            Threshold::from_raw(rpma_log_threshold::RPMA_LOG_THRESHOLD_MAX as i32),
            None
        );
        assert_eq!((Level::Disabled as i32, Level::Debug as i32), (-1, 5));
        assert_eq!(RPMA_DEFAULT_TIMEOUT_MS, rpma::conn_cfg::DEFAULT_TIMEOUT_MS);
    }
}
