use std::ffi::c_char;

use super::boundary_value;
use super::types::ConnEventArg;
use crate::utils::conn_event_str;

/// Describes a connection event.
#[no_mangle]
pub extern "C" fn rpma_utils_conn_event_2str(conn_event: ConnEventArg) -> *const c_char {
    boundary_value(c"Unsupported connection event".as_ptr(), || {
        conn_event_str(conn_event.0).as_ptr()
    })
}
