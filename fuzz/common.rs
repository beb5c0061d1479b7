//! What every target shares: the error codes of librpma.h and a log set-up
//! that runs all of the library's message formatting (main threshold at
//! DEBUG) into a sink that only measures each message, so nothing reaches
//! syslog or stderr.

#![allow(dead_code)]

use std::ffi::{c_char, c_int, CStr};
use std::sync::Once;

use rpma::log::{self, Level, Threshold};

pub const RPMA_E_UNKNOWN: c_int = -100000;
pub const RPMA_E_INVAL: c_int = -100004;
pub const RPMA_E_NO_EVENT: c_int = -100006;

/// The log sink: reads the whole message (an over-long or unterminated one
/// is an ASan report) and drops it. The library passes no variadic
/// arguments (every '%' of the text is doubled).
unsafe extern "C" fn discard(
    level: c_int,
    file_name: *const c_char,
    line_no: c_int,
    function_name: *const c_char,
    message_format: *const c_char,
    _args: ...
) {
    assert!((0..=5).contains(&level) && line_no > 0);
    // SAFETY: the library passes NUL-terminated strings for the call's span.
    let lens = unsafe {
        [file_name, function_name, message_format].map(|p| CStr::from_ptr(p).to_bytes().len())
    };
    std::hint::black_box(lens);
}

pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        log::set_threshold(Threshold::Main, Level::Debug);
        log::set_function(Some(discard));
    });
}
