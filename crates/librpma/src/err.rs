use std::ffi::{c_char, c_int};

use crate::boundary_value;
use rpma::error::describe;

/// Describes an error code returned by a librpma function.
#[no_mangle]
pub extern "C" fn rpma_err_2str(ret: c_int) -> *const c_char {
    boundary_value(c"Unknown error".as_ptr(), || describe(ret).as_ptr())
}
