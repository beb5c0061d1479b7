use std::ffi::c_int;

use crate::types::{LogFunctionArg, LogLevelArg, LogThresholdArg};
use crate::{boundary, out, put};
use rpma::error::{Error, Result};
use rpma::log::{self, Level, Threshold};

fn threshold_arg(t: LogThresholdArg) -> Result<Threshold> {
    Threshold::from_raw(t.0).ok_or(Error::Inval)
}

/// Sets a logging threshold.
#[no_mangle]
pub extern "C" fn rpma_log_set_threshold(threshold: LogThresholdArg, level: LogLevelArg) -> c_int {
    boundary(|| {
        let threshold = threshold_arg(threshold)?;
        let level = Level::from_raw(level.0).ok_or(Error::Inval)?;
        log::set_threshold(threshold, level);
        Ok(())
    })
}

/// Reads a logging threshold.
///
/// # Safety
/// `level` is NULL or valid for writing an int.
#[no_mangle]
pub unsafe extern "C" fn rpma_log_get_threshold(
    threshold: LogThresholdArg,
    level: *mut LogLevelArg,
) -> c_int {
    boundary(|| {
        let threshold = threshold_arg(threshold)?;
        let level = out(level)?;
        // SAFETY: checked output pointer (caller contract above).
        unsafe { put(level, LogLevelArg(log::threshold(threshold) as c_int)) };
        Ok(())
    })
}

/// Installs a log function; NULL selects the default one.
#[no_mangle]
pub extern "C" fn rpma_log_set_function(log_function: LogFunctionArg) -> c_int {
    boundary(|| {
        log::set_function(log_function.0);
        Ok(())
    })
}
