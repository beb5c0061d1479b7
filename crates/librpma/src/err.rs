use std::ffi::{c_char, c_int, CStr};

use crate::boundary_value;
use rpma::error::Error;

/// Describes an error code returned by a librpma function.
#[no_mangle]
pub extern "C" fn rpma_err_2str(ret: c_int) -> *const c_char {
    boundary_value(c"Unknown error".as_ptr(), || describe(ret).as_ptr())
}

/// Description of any return value of the C API: 0 is a success, an unknown
/// code reads like `RPMA_E_UNKNOWN`.
fn describe(code: c_int) -> &'static CStr {
    match code {
        0 => c"Success",
        _ => Error::from_code(code).unwrap_or(Error::Unknown).as_cstr(),
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn unknown_codes_describe_as_unknown() {
        assert_eq!(describe(0), c"Success");
        assert_eq!(describe(-100010), c"Unknown error");
        assert_eq!(describe(1), c"Unknown error");
        assert_eq!(describe(i32::MIN), c"Unknown error");
        assert_eq!(describe(-100009), c"Completion channel is not shared");
    }
}
