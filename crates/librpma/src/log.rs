use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use crate::types::{LogFunction, LogFunctionArg, LogLevelArg, LogThresholdArg};
use crate::{boundary, out, put, INVAL};
use rpma::error::Result;
use rpma::log::{self, Level, Op, Record, Sink, Threshold};

/// The user's `rpma_log_function`, as an address (0: none set yet). The
/// core's sink is [`C_SINK`] while one is installed.
static FUNCTION: AtomicUsize = AtomicUsize::new(0);

/// The core sink that hands messages to [`FUNCTION`]; static, so switching
/// between the default and a user function allocates nothing.
static C_SINK: &Sink = &call_function;

/// Longest message passed on, as the C library's 1 KiB buffer holds it.
const MESSAGE_MAX: usize = 1024;

/// A fixed buffer that drops what does not fit (keeping room for a NUL).
struct Buf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Buf<N> {
    fn push(&mut self, b: u8) {
        if self.len + 1 < N {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }

    fn as_c_ptr(&mut self) -> *const c_char {
        self.bytes[self.len] = 0;
        self.bytes.as_ptr().cast()
    }
}

/// Passes a record to the user's C function as the C library does: the
/// message ends in a newline (unless cut at the limit) and comes as a
/// printf format that prints it verbatim, every '%' doubled, so the
/// function's vprintf never reads a variadic argument.
fn call_function(record: &Record<'_>) {
    let f = FUNCTION.load(SeqCst);
    if f == 0 {
        return;
    }
    let mut message = Buf::<MESSAGE_MAX> {
        bytes: [0; MESSAGE_MAX],
        len: 0,
    };
    record
        .message_bytes()
        .iter()
        .chain(b"\n")
        .for_each(|&b| message.push(b));
    let mut format = Buf::<{ 2 * MESSAGE_MAX }> {
        bytes: [0; 2 * MESSAGE_MAX],
        len: 0,
    };
    for &b in &message.bytes[..message.len] {
        if b == b'%' {
            format.push(b);
        }
        format.push(b);
    }
    // SAFETY: a non-zero FUNCTION was stored by set_function from a
    // function pointer of exactly this type (the C caller promises it
    // points to an rpma_log_function).
    let function = unsafe { std::mem::transmute::<usize, LogFunction>(f) };
    // SAFETY: all pointers are NUL-terminated strings that outlive the
    // call; the format needs no variadic arguments.
    unsafe {
        function(
            record.level() as c_int,
            record.file_c().as_ptr(),
            c_int::try_from(record.line()).unwrap_or(c_int::MAX),
            record.function_c().as_ptr(),
            format.as_c_ptr(),
        )
    };
}

/// The C library's name for the function a message of `op` comes from: its
/// API function, or the internal one that logs it there (`rpma_info_new`,
/// `rpma_mr_read`, ...), which programs that filter their log see.
pub(crate) fn c_function(op: Op) -> &'static CStr {
    match op {
        Op::ResolveAddrInfo => c"rpma_info_new",
        Op::BindAddr => c"rpma_info_bind_addr",
        Op::ResolveAddr => c"rpma_info_resolve_addr",
        Op::ResolveRoute | Op::ConnReqNew => c"rpma_conn_req_new",
        Op::PeerNew => c"rpma_peer_new",
        Op::CreateQp => c"rpma_peer_setup_qp",
        Op::BuildQueues => c"rpma_conn_req_new_from_id",
        Op::SetAckTimeout => c"rpma_conn_req_connect",
        Op::EpListen => c"rpma_ep_listen",
        Op::EpNextConnReq => c"rpma_ep_next_conn_req",
        Op::ConnNextEvent => c"rpma_conn_next_event",
        Op::ConnDisconnect => c"rpma_conn_disconnect",
        Op::ConnWait => c"rpma_conn_wait",
        Op::CqPoll => c"rpma_cq_get_wc",
        Op::Flush => c"rpma_flush",
        Op::FlushTargetNew => c"rpma_flush_apm_new",
        Op::PostRead => c"rpma_mr_read",
        Op::PostWrite => c"rpma_mr_write",
        Op::PostAtomicWrite => c"rpma_mr_atomic_write",
        Op::PostFlush => c"rpma_mr_flush",
        Op::PostSend => c"rpma_mr_send",
        Op::PostRecv => c"rpma_mr_recv",
        Op::PostSrqRecv => c"rpma_mr_srq_recv",
        Op::MrAdvise => c"rpma_mr_advise",
        Op::MrRemoteFromDescriptor => c"rpma_mr_remote_from_descriptor",
        Op::PeerCfgFromDescriptor => c"rpma_peer_cfg_from_descriptor",
        // provider calls of no more specific step, and any operation the
        // core adds later
        _ => c"rpma",
    }
}

/// Installs the user's function, or the core's default sink for `None`.
pub(crate) fn set_function(function: Option<LogFunction>) {
    match function {
        None => log::set_default_sink(),
        Some(f) => {
            FUNCTION.store(f as usize, SeqCst);
            log::set_static_sink(&C_SINK);
        }
    }
}

fn threshold_arg(t: LogThresholdArg) -> Result<Threshold> {
    Threshold::from_raw(t.0).ok_or(INVAL)
}

/// Sets a logging threshold.
#[no_mangle]
pub extern "C" fn rpma_log_set_threshold(threshold: LogThresholdArg, level: LogLevelArg) -> c_int {
    boundary(|| {
        let threshold = threshold_arg(threshold)?;
        let level = Level::from_raw(level.0).ok_or(INVAL)?;
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
        set_function(log_function.0);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    static SEEN: Mutex<Vec<(c_int, String, String)>> = Mutex::new(Vec::new());

    /// Stands in for a C `rpma_log_function`: it reads only the fixed
    /// arguments, which a variadic caller passes as a plain call does.
    unsafe extern "C" fn capture(
        level: c_int,
        _file: *const c_char,
        _line: c_int,
        function: *const c_char,
        format: *const c_char,
    ) {
        // SAFETY: the adapter passes NUL-terminated strings.
        let (function, format) = unsafe { (CStr::from_ptr(function), CStr::from_ptr(format)) };
        let function = function.to_string_lossy().into_owned();
        if function == "rpma_mr_advise" {
            let format = format.to_string_lossy().into_owned();
            SEEN.lock().unwrap().push((level, function, format));
        }
    }

    #[test]
    fn a_c_function_gets_a_verbatim_format_with_a_newline() {
        type Plain =
            unsafe extern "C" fn(c_int, *const c_char, c_int, *const c_char, *const c_char);
        // SAFETY: on the C ABIs this library is built for, a variadic call
        // with no variadic arguments reaches a non-variadic function of the
        // same fixed parameters correctly.
        let f = unsafe { std::mem::transmute::<Plain, LogFunction>(capture as Plain) };
        log::set_op_names(c_function);
        set_function(Some(f));
        // (no unit test advises a region: this one's records alone)
        fn emit(args: std::fmt::Arguments<'_>) {
            log::emit(Level::Error, "log.rs\0", 1, Op::MrAdvise, args);
        }
        emit(format_args!("at 100% of {}", 7));
        set_function(None);
        emit(format_args!("to the default sink"));
        let seen = SEEN.lock().unwrap();
        assert_eq!(
            *seen,
            [(
                1,
                "rpma_mr_advise".to_string(),
                "at 100%% of 7\n".to_string()
            )]
        );
    }
}
