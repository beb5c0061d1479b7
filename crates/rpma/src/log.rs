//! Logging: two thresholds and one sink, all in atomics so any thread may
//! log or reconfigure at any time.
//!
//! A message of level L reaches the sink when L is at or below the main
//! threshold. The default sink writes every message to syslog and, when L is
//! also at or below the auxiliary threshold, to stderr with a timestamp. A
//! user sink gets the level, source file, line, function name and a printf
//! format that prints the finished message, ending in a newline, as the C
//! library's callers expect.

use std::ffi::{c_char, c_int};
use std::fmt;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering::SeqCst};

/// Message levels, with the values of `enum rpma_log_level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Level {
    /// Nothing is logged (as a threshold).
    Disabled = -1,
    /// The library cannot go on.
    Fatal = 0,
    /// An operation failed.
    Error = 1,
    /// Something unexpected that the library works around.
    Warning = 2,
    /// A normal but noteworthy step.
    Notice = 3,
    /// Informational detail.
    Info = 4,
    /// Debugging detail.
    Debug = 5,
}

impl Level {
    /// The level with C value `raw`, or `None` outside the enum.
    pub fn from_raw(raw: i32) -> Option<Level> {
        Some(match raw {
            -1 => Level::Disabled,
            0 => Level::Fatal,
            1 => Level::Error,
            2 => Level::Warning,
            3 => Level::Notice,
            4 => Level::Info,
            5 => Level::Debug,
            _ => return None,
        })
    }

    /// Tag written before default-sink messages, and the syslog priority.
    fn tag_and_priority(self) -> Option<(&'static str, c_int)> {
        Some(match self {
            Level::Disabled => return None,
            Level::Fatal => ("*FATAL* ", libc::LOG_CRIT),
            Level::Error => ("*ERROR* ", libc::LOG_ERR),
            Level::Warning => ("*WARN*  ", libc::LOG_WARNING),
            Level::Notice => ("*NOTE*  ", libc::LOG_NOTICE),
            Level::Info => ("*INFO*  ", libc::LOG_INFO),
            Level::Debug => ("*DEBUG* ", libc::LOG_DEBUG),
        })
    }
}

/// The two thresholds, with the values of `enum rpma_log_threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Threshold {
    /// Gates every message.
    Main = 0,
    /// Used by the default sink: what also goes to stderr.
    Aux = 1,
}

impl Threshold {
    /// The threshold with C value `raw`, or `None` outside the enum.
    pub fn from_raw(raw: i32) -> Option<Threshold> {
        match raw {
            0 => Some(Threshold::Main),
            1 => Some(Threshold::Aux),
            _ => None,
        }
    }
}

/// A user log sink: `rpma_log_function` of the C API.
pub type LogFunction = unsafe extern "C" fn(
    level: c_int,
    file_name: *const c_char,
    line_no: c_int,
    function_name: *const c_char,
    message_format: *const c_char,
    ...
);

/// `SINK` holds a user function's address, or one of these markers.
const SINK_OFF: usize = 0;
const SINK_DEFAULT: usize = 1;

static SINK: AtomicUsize = AtomicUsize::new(SINK_DEFAULT);
static THRESHOLDS: [AtomicI32; 2] = [
    AtomicI32::new(Level::Warning as i32),
    AtomicI32::new(Level::Disabled as i32),
];

/// Sets `threshold` to `level`: messages less severe than `level` do not
/// pass it.
pub fn set_threshold(threshold: Threshold, level: Level) {
    THRESHOLDS[threshold as usize].store(level as i32, SeqCst);
}

/// The current level of `threshold`.
pub fn threshold(threshold: Threshold) -> Level {
    // Only valid levels are ever stored.
    Level::from_raw(THRESHOLDS[threshold as usize].load(SeqCst)).unwrap_or(Level::Disabled)
}

/// Installs a user sink, or the default one for `None`.
pub fn set_function(function: Option<LogFunction>) {
    SINK.store(function.map_or(SINK_DEFAULT, |f| f as usize), SeqCst);
}

/// Stops all logging (the library does this as it is unloaded).
pub fn disable() {
    SINK.store(SINK_OFF, SeqCst);
}

/// Whether a message of `level` would be delivered; cheap, so callers test
/// it before formatting anything.
#[inline]
pub(crate) fn enabled(level: Level) -> bool {
    level != Level::Disabled
        && (level as i32) <= THRESHOLDS[0].load(SeqCst)
        && SINK.load(SeqCst) != SINK_OFF
}

/// Logs a message from library code. `function` names the API function the
/// message comes from.
#[macro_export]
#[doc(hidden)]
macro_rules! rpma_log {
    // The function's name chosen at run time: a NUL-terminated &'static str.
    ($level:expr, in $function:expr, $($arg:tt)+) => {
        if $crate::log::enabled($level) {
            $crate::log::emit(
                $level,
                concat!(file!(), "\0"),
                line!(),
                $function,
                format_args!($($arg)+),
            )
        }
    };
    ($level:expr, $function:literal, $($arg:tt)+) => {
        if $crate::log::enabled($level) {
            $crate::log::emit(
                $level,
                concat!(file!(), "\0"),
                line!(),
                concat!($function, "\0"),
                format_args!($($arg)+),
            )
        }
    };
}

/// Longest message text delivered (the C library formats into 1 KiB too);
/// longer messages are cut.
const MESSAGE_MAX: usize = 1024;

/// A fixed, stack-held text buffer that formatting can never overflow: text
/// beyond its capacity (less one byte for a terminating NUL) is dropped, and
/// NUL bytes are skipped. Logging therefore allocates nothing and cannot
/// fail, even when the heap is exhausted.
struct Text<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    fn new() -> Self {
        Text {
            bytes: [0; N],
            len: 0,
        }
    }

    fn push(&mut self, byte: u8) {
        if byte != 0 && self.len + 1 < N {
            self.bytes[self.len] = byte;
            self.len += 1;
        }
    }

    fn extend(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.push(b));
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The text with its terminating NUL, for C.
    fn as_c_ptr(&mut self) -> *const c_char {
        self.bytes[self.len] = 0;
        self.bytes.as_ptr().cast()
    }
}

impl<const N: usize> fmt::Write for Text<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.extend(s.as_bytes());
        Ok(())
    }
}

/// Delivers one message; `file` and `function` are NUL-terminated.
///
/// `extern "C"` although only Rust calls it: a function of that ABI cannot
/// unwind, so the compiler knows that no panic leaves a log call, and the
/// data path's entry points (whose only other calls are the provider's
/// ops, also `extern "C"`) carry no unwinding code, nor the registers it
/// needs. A panic while formatting loses the message and nothing else.
#[doc(hidden)]
#[cold]
#[inline(never)]
#[allow(improper_ctypes_definitions)]
pub extern "C" fn emit(
    level: Level,
    file: &'static str,
    line: u32,
    function: &'static str,
    args: fmt::Arguments,
) {
    let deliver = AssertUnwindSafe(|| deliver(level, file, line, function, args));
    let _ = std::panic::catch_unwind(deliver);
}

fn deliver(
    level: Level,
    file: &'static str,
    line: u32,
    function: &'static str,
    args: fmt::Arguments,
) {
    debug_assert!(file.ends_with('\0') && function.ends_with('\0'));
    let mut message = Text::<MESSAGE_MAX>::new();
    let _ = fmt::write(&mut message, args);
    let _ = fmt::Write::write_str(&mut message, "\n");
    match SINK.load(SeqCst) {
        SINK_OFF => {}
        SINK_DEFAULT => default_sink(level, trim_nul(file), line, trim_nul(function), &message),
        user => {
            // The format prints the message verbatim: every '%' is doubled,
            // so the sink's vprintf never reads an argument.
            let mut format = Text::<{ 2 * MESSAGE_MAX }>::new();
            for &b in message.as_bytes() {
                if b == b'%' {
                    format.push(b);
                }
                format.push(b);
            }
            // SAFETY: a non-marker value in SINK was stored by set_function
            // from a function pointer of exactly this type (the C caller
            // promises it points to an rpma_log_function).
            let sink: LogFunction = unsafe { std::mem::transmute::<usize, LogFunction>(user) };
            // SAFETY: all pointers are NUL-terminated strings that outlive
            // the call; the format needs no variadic arguments.
            unsafe {
                sink(
                    level as c_int,
                    file.as_ptr().cast(),
                    c_int::try_from(line).unwrap_or(c_int::MAX),
                    function.as_ptr().cast(),
                    format.as_c_ptr(),
                )
            };
        }
    }
}

fn trim_nul(s: &str) -> &str {
    s.strip_suffix('\0').unwrap_or(s)
}

fn default_sink(level: Level, file: &str, line: u32, function: &str, message: &Text<MESSAGE_MAX>) {
    use fmt::Write as _;
    let Some((tag, priority)) = level.tag_and_priority() else {
        return;
    };
    let base = file.rsplit('/').next().unwrap_or(file);
    let mut body = Text::<{ MESSAGE_MAX + 256 }>::new();
    let _ = write!(body, "{tag}{base}: {line:3}: {function}: ");
    body.extend(message.as_bytes());
    if level <= threshold(Threshold::Aux) {
        let mut out = Text::<{ MESSAGE_MAX + 512 }>::new();
        write_timestamp(&mut out);
        let _ = write!(out, "[{}] ", thread_id());
        out.extend(body.as_bytes());
        // One write, so lines of concurrent threads do not interleave.
        // Logging has no way to report its own failure; a closed stderr
        // loses the line, as it would for the C library.
        let _ = std::io::stderr().write_all(out.as_bytes());
    }
    // SAFETY: "%s" with one NUL-terminated string argument.
    unsafe { libc::syslog(priority, c"%s".as_ptr(), body.as_c_ptr()) };
}

/// Appends "Mon DD HH:MM:SS.uuuuuu " in local time.
fn write_timestamp<const N: usize>(out: &mut Text<N>) {
    use fmt::Write as _;
    const FAILED: &str = "[time error] ";
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) } != 0 {
        let _ = out.write_str(FAILED);
        return;
    }
    // SAFETY: an all-zero tm is a valid value for localtime_r to overwrite.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call.
    if unsafe { libc::localtime_r(&ts.tv_sec, &mut tm) }.is_null() {
        let _ = out.write_str(FAILED);
        return;
    }
    let mut buf = [0u8; 64];
    // SAFETY: buf is writable for its length; the format is NUL-terminated.
    let n = unsafe {
        libc::strftime(
            buf.as_mut_ptr().cast(),
            buf.len(),
            c"%b %d %H:%M:%S".as_ptr(),
            &tm,
        )
    };
    if n == 0 {
        let _ = out.write_str(FAILED);
        return;
    }
    out.extend(&buf[..n]);
    let _ = write!(out, ".{:06} ", ts.tv_nsec / 1000);
}

fn thread_id() -> libc::pid_t {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    // The thresholds and the sink are process-wide.
    static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn defaults_are_warning_and_disabled() {
        let _g = SERIAL.lock().unwrap();
        assert_eq!(threshold(Threshold::Main), Level::Warning);
        assert_eq!(threshold(Threshold::Aux), Level::Disabled);
    }

    #[test]
    fn main_threshold_gates_messages() {
        let _g = SERIAL.lock().unwrap();
        assert!(enabled(Level::Error));
        assert!(!enabled(Level::Info));
        set_threshold(Threshold::Main, Level::Debug);
        assert!(enabled(Level::Info));
        set_threshold(Threshold::Main, Level::Disabled);
        assert!(!enabled(Level::Fatal));
        set_threshold(Threshold::Main, Level::Warning);
    }

    #[test]
    fn timestamp_has_the_c_library_shape() {
        let mut t = Text::<64>::new();
        write_timestamp(&mut t);
        // "Nov 21 11:20:00.123456 "
        let t = std::str::from_utf8(t.as_bytes()).unwrap();
        assert_eq!(t.len(), 23, "{t:?}");
        assert_eq!(&t[15..16], ".");
    }

    #[test]
    fn text_truncates_and_drops_nul() {
        use std::fmt::Write as _;
        let mut t = Text::<8>::new();
        write!(t, "a\0bcdefghijk").unwrap();
        assert_eq!(t.as_bytes(), b"abcdefg");
        let p = t.as_c_ptr();
        // SAFETY: as_c_ptr terminates the text inside the buffer.
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes(),
            b"abcdefg"
        );
    }
}
