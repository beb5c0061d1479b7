//! Logging: two thresholds and one sink, all in atomics so any thread may
//! log or reconfigure at any time.
//!
//! A message of level L reaches the sink when L is at or below the main
//! threshold. The default sink writes every message to syslog and, when L is
//! also at or below the auxiliary threshold, to stderr with a timestamp. A
//! user sink, any `Fn(&Record)`, gets the level, source file, line,
//! function name and the finished message in a [`Record`].
//!
//! ```
//! use rpma::log::{self, Level, Record, Threshold};
//!
//! log::set_sink(Box::new(|r: &Record<'_>| {
//!     eprintln!("{:?} {}:{} {}: {}", r.level(), r.file(), r.line(), r.function(), r.message());
//! }));
//! log::set_threshold(Threshold::Main, Level::Notice);
//! // ... and back to syslog/stderr
//! log::set_default_sink();
//! ```

use std::ffi::{c_char, c_int, CStr};
use std::fmt;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering::SeqCst};
use std::sync::OnceLock;

/// Message levels, with the values of `enum rpma_log_level`.
///
/// ```
/// use rpma::log::{self, Level, Threshold};
///
/// // messages up to NOTICE reach the sink; the default sink also copies
/// // WARNING and worse to stderr (the second threshold)
/// log::set_threshold(Threshold::Main, Level::Notice);
/// assert_eq!(log::threshold(Threshold::Main), Level::Notice);
/// assert!(Level::Error < Level::Notice);
/// ```
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

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Disabled => "disabled",
            Level::Fatal => "fatal",
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
            Level::Info => "info",
            Level::Debug => "debug",
        })
    }
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
///
/// ```
/// use rpma::log::{self, Level, Threshold};
///
/// log::set_threshold(Threshold::Aux, Level::Error);
/// assert_eq!(log::threshold(Threshold::Aux), Level::Error);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Threshold {
    /// Gates every message.
    Main = 0,
    /// Used by the default sink: what also goes to stderr.
    Aux = 1,
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Threshold::Main => "main",
            Threshold::Aux => "aux",
        })
    }
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

/// A user log sink: called once per message that passes the main
/// threshold, from whichever thread logs it, possibly from several threads
/// at once. A panic in it is caught and loses that message only.
///
/// ```
/// use rpma::log::{self, Record};
///
/// log::set_sink(Box::new(|r: &Record<'_>| {
///     eprintln!("{:?} {}: {}", r.level(), r.function(), r.message());
/// }));
/// ```
pub type Sink = dyn Fn(&Record<'_>) + Send + Sync;

/// The operation a message comes from: an API call of the crate, or a
/// step inside one (resolving an address, posting a work request).
///
/// ```
/// use rpma::log::{self, Op, Record};
///
/// // count the failed posts of one kind
/// log::set_sink(Box::new(|r: &Record<'_>| {
///     if r.op() == Op::PostWrite {
///         eprintln!("a write was refused: {}", r.message());
///     }
/// }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Op {
    /// A libibverbs or librdmacm call made by no more specific step.
    Verbs,
    /// Resolving an address and port (`rdma_getaddrinfo`).
    ResolveAddrInfo,
    /// Binding a cm id to a local address.
    BindAddr,
    /// Resolving a remote address to a device.
    ResolveAddr,
    /// Resolving the route to a remote address.
    ResolveRoute,
    /// [`Peer::new`](crate::peer::Peer::new).
    PeerNew,
    /// Creating a connection's queue pair.
    CreateQp,
    /// Building a connection's completion queues and queue pair.
    BuildQueues,
    /// [`ConnReq::new`](crate::conn::req::ConnReq::new).
    ConnReqNew,
    /// Setting a connection's ACK timeout before it connects.
    SetAckTimeout,
    /// Setting a connection's receiver-not-ready timer once it is ready.
    SetMinRnrTimer,
    /// [`Ep::listen`](crate::ep::Ep::listen).
    EpListen,
    /// [`Ep::next_request`](crate::ep::Ep::next_request) and its C form.
    EpNextConnReq,
    /// [`Conn::next_event`](crate::conn::Conn::next_event).
    ConnNextEvent,
    /// [`Conn::disconnect`](crate::conn::Conn::disconnect).
    ConnDisconnect,
    /// [`Conn::wait`](crate::conn::Conn::wait).
    ConnWait,
    /// [`Cq::poll`](crate::cq::Cq::poll).
    CqPoll,
    /// The checks of [`Conn::flush`](crate::conn::Conn::flush).
    Flush,
    /// Making a peer's flush read target.
    FlushTargetNew,
    /// Posting an RDMA read (also an emulated flush).
    PostRead,
    /// Posting an RDMA write.
    PostWrite,
    /// Posting an atomic write.
    PostAtomicWrite,
    /// Posting a native flush.
    PostFlush,
    /// Posting a send.
    PostSend,
    /// Posting a receive on a connection.
    PostRecv,
    /// Posting a receive on a shared receive queue.
    PostSrqRecv,
    /// [`MrLocal::advise`](crate::mr::MrLocal::advise).
    MrAdvise,
    /// [`MrRemote::from_descriptor`](crate::mr::MrRemote::from_descriptor).
    MrRemoteFromDescriptor,
    /// [`PeerCfg::from_descriptor`](crate::peer_cfg::PeerCfg::from_descriptor).
    PeerCfgFromDescriptor,
    /// Waiting for a channel's fd, or changing its mode.
    Wait,
}

/// The crate's name for the operation ([`Op::as_cstr`]).
impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_cstr().to_string_lossy())
    }
}

impl Op {
    /// The crate's name for the operation.
    pub const fn as_cstr(self) -> &'static CStr {
        match self {
            Op::Verbs => c"verbs",
            Op::ResolveAddrInfo => c"resolve address info",
            Op::BindAddr => c"bind address",
            Op::ResolveAddr => c"resolve address",
            Op::ResolveRoute => c"resolve route",
            Op::PeerNew => c"Peer::new",
            Op::CreateQp => c"create queue pair",
            Op::BuildQueues => c"build queues",
            Op::ConnReqNew => c"ConnReq::new",
            Op::SetAckTimeout => c"set ACK timeout",
            Op::SetMinRnrTimer => c"set RNR timer",
            Op::EpListen => c"Ep::listen",
            Op::EpNextConnReq => c"Ep::next_conn_req",
            Op::ConnNextEvent => c"Conn::next_event",
            Op::ConnDisconnect => c"Conn::disconnect",
            Op::ConnWait => c"Conn::wait",
            Op::CqPoll => c"Cq::poll",
            Op::Flush => c"Conn::flush",
            Op::FlushTargetNew => c"flush target",
            Op::PostRead => c"post read",
            Op::PostWrite => c"post write",
            Op::PostAtomicWrite => c"post atomic write",
            Op::PostFlush => c"post flush",
            Op::PostSend => c"post send",
            Op::PostRecv => c"post receive",
            Op::PostSrqRecv => c"post SRQ receive",
            Op::MrAdvise => c"MrLocal::advise",
            Op::MrRemoteFromDescriptor => c"MrRemote::from_descriptor",
            Op::PeerCfgFromDescriptor => c"PeerCfg::from_descriptor",
            Op::Wait => c"wait",
        }
    }
}

/// How an embedding names operations in records, if not by
/// [`Op::as_cstr`] (see [`set_op_names`]).
static OP_NAMES: OnceLock<fn(Op) -> &'static CStr> = OnceLock::new();

raw_api! {
    /// Makes every record name its operation by `names` rather than by the
    /// crate's own names, for an embedding with names of its own (the C face
    /// gives the C library's function names). The first call counts.
    fn set_op_names(names: fn(Op) -> &'static CStr) {
        let _ = OP_NAMES.set(names);
    }
}

fn op_name(op: Op) -> &'static CStr {
    OP_NAMES.get().map_or(op.as_cstr(), |names| names(op))
}

/// One message, as a sink receives it. Everything it borrows lives only for
/// the call.
///
/// ```
/// use rpma::log::{self, Record};
///
/// log::set_sink(Box::new(|r: &Record<'_>| {
///     eprintln!("{}:{} {}: {}", r.file(), r.line(), r.function(), r.message());
/// }));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    level: Level,
    /// NUL-terminated.
    file: &'static str,
    line: u32,
    op: Op,
    message: &'a [u8],
}

impl<'a> Record<'a> {
    /// The message's level (never [`Level::Disabled`]).
    pub fn level(&self) -> Level {
        self.level
    }

    /// The library source file the message comes from.
    pub fn file(&self) -> &'static str {
        trim_nul(self.file)
    }

    /// [`Record::file`] as a C string.
    #[cfg(feature = "raw")]
    pub fn file_c(&self) -> &'static CStr {
        c_str(self.file)
    }

    /// The line in [`Record::file`].
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The operation the message comes from.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The operation's name: [`Op::as_cstr`], or the embedding's name for
    /// it (the C face gives the C library's function names).
    pub fn function(&self) -> &'static str {
        op_name(self.op).to_str().unwrap_or("")
    }

    /// [`Record::function`] as a C string.
    #[cfg(feature = "raw")]
    pub fn function_c(&self) -> &'static CStr {
        op_name(self.op)
    }

    /// The finished message, without a trailing newline. Messages are cut
    /// at 1023 bytes, as the C library cuts them; a cut inside a UTF-8
    /// sequence drops the partial character here (see
    /// [`Record::message_bytes`]).
    pub fn message(&self) -> &'a str {
        match std::str::from_utf8(self.message) {
            Ok(s) => s,
            Err(e) => {
                let valid = &self.message[..e.valid_up_to()];
                // SAFETY: from_utf8 checked these bytes.
                unsafe { std::str::from_utf8_unchecked(valid) }
            }
        }
    }

    /// The finished message as bytes, exactly as cut (no NUL inside, no
    /// trailing newline).
    pub fn message_bytes(&self) -> &'a [u8] {
        self.message
    }
}

/// A NUL-terminated `&'static str` as a `CStr`.
#[cfg(feature = "raw")]
fn c_str(s: &'static str) -> &'static CStr {
    CStr::from_bytes_until_nul(s.as_bytes()).unwrap_or(c"")
}

/// `SINK` holds the address of a `&'static Sink`, or one of these markers.
/// One word, so the check before any formatting stays one atomic load.
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

/// Installs `sink` for every message from now on.
///
/// A sink replaced later may still be running on another thread, and the
/// library takes no lock to find out when it is done; so a replaced boxed
/// sink is never dropped. Installing sinks is meant to be rare (once, at
/// start-up); code that switches often should use
/// [`set_static_sink`], which allocates nothing.
pub fn set_sink(sink: Box<Sink>) {
    let sink: &'static Sink = Box::leak(sink);
    set_static_sink(Box::leak(Box::new(sink)));
}

/// Installs a sink that lives for the whole program, without allocating:
///
/// ```
/// use rpma::log::{self, Record, Sink};
///
/// fn count(_: &Record<'_>) {}
/// static COUNT: &Sink = &count;
/// log::set_static_sink(&COUNT);
/// # log::set_default_sink();
/// ```
pub fn set_static_sink(sink: &'static &'static Sink) {
    SINK.store(std::ptr::from_ref(sink) as usize, SeqCst);
}

/// Goes back to the default sink (syslog, and stderr up to the auxiliary
/// threshold).
pub fn set_default_sink() {
    SINK.store(SINK_DEFAULT, SeqCst);
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

/// Logs a message from library code, coming from operation `op` (an
/// [`Op`]).
#[macro_export]
#[doc(hidden)]
macro_rules! rpma_log {
    ($level:expr, $op:expr, $($arg:tt)+) => {
        if $crate::log::enabled($level) {
            $crate::log::emit(
                $level,
                concat!(file!(), "\0"),
                line!(),
                $op,
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
        self.extend(&[byte]);
    }

    /// Appends `bytes` without their NUL bytes, a run between NULs at a
    /// time.
    fn extend(&mut self, bytes: &[u8]) {
        bytes.split(|&b| b == 0).for_each(|run| self.append(run));
    }

    /// Appends as much of `bytes` as fits.
    fn append(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(N - 1 - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
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

/// Delivers one message; `file` is NUL-terminated. A panic while
/// formatting or in the sink loses the message and nothing else. Cold:
/// messages are for failures and set-up, never on a path that succeeds.
///
/// `extern "C"`, the way stable Rust says that a function cannot unwind:
/// the compiler then needs no unwinding code around the log calls on the
/// data path (the provider's ops it calls there are `extern "C"` too).
#[doc(hidden)]
#[cold]
#[inline(never)]
#[allow(improper_ctypes_definitions)] // called from Rust only
pub extern "C" fn emit(level: Level, file: &'static str, line: u32, op: Op, args: fmt::Arguments) {
    let deliver = AssertUnwindSafe(|| deliver(level, file, line, op, args));
    let _ = std::panic::catch_unwind(deliver);
}

fn deliver(level: Level, file: &'static str, line: u32, op: Op, args: fmt::Arguments) {
    debug_assert!(file.ends_with('\0'));
    let sink = SINK.load(SeqCst);
    if sink == SINK_OFF {
        return;
    }
    let mut message = Text::<MESSAGE_MAX>::new();
    let _ = fmt::write(&mut message, args);
    let record = Record {
        level,
        file,
        line,
        op,
        message: message.as_bytes(),
    };
    if sink == SINK_DEFAULT {
        default_sink(&record);
    } else {
        // SAFETY: a non-marker value in SINK was stored by set_static_sink
        // from a `&'static &'static Sink`, valid for the whole program.
        let sink: &'static &'static Sink = unsafe { &*(sink as *const &'static Sink) };
        sink(&record);
    }
}

fn trim_nul(s: &str) -> &str {
    s.strip_suffix('\0').unwrap_or(s)
}

fn default_sink(record: &Record<'_>) {
    use fmt::Write as _;
    let Some((tag, priority)) = record.level.tag_and_priority() else {
        return;
    };
    let (level, file, line, function) =
        (record.level, record.file(), record.line, record.function());
    let base = file.rsplit('/').next().unwrap_or(file);
    let mut body = Text::<{ MESSAGE_MAX + 256 }>::new();
    let _ = write!(body, "{tag}{base}: {line:3}: {function}: ");
    body.extend(record.message);
    // The message ends in a newline, as the C library's do (one cut at
    // the limit has none, as there).
    if record.message.len() < MESSAGE_MAX - 1 {
        body.push(b'\n');
    }
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
    fn a_closure_sink_gets_the_record() {
        use std::sync::atomic::AtomicU32;
        let _g = SERIAL.lock().unwrap();
        type Seen = (Level, String, String, u32, String);
        static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
        static CALLS: AtomicU32 = AtomicU32::new(0);
        set_sink(Box::new(|r: &Record<'_>| {
            // other tests of this binary may log meanwhile
            // (no unit test advises a region: this one's records alone)
            if r.op() == Op::MrAdvise {
                CALLS.fetch_add(1, SeqCst);
                #[cfg(feature = "raw")]
                {
                    assert_eq!(r.file_c().to_bytes(), r.file().as_bytes());
                    assert_eq!(r.function_c(), c"MrLocal::advise");
                }
                SEEN.lock().unwrap().push((
                    r.level(),
                    r.file().to_string(),
                    r.function().to_string(),
                    r.line(),
                    r.message().to_string(),
                ));
            }
        }));
        rpma_log!(Level::Error, Op::MrAdvise, "value {} and 100%", 42);
        // below the main threshold: not formatted, not delivered
        rpma_log!(Level::Debug, Op::MrAdvise, "{}", {
            CALLS.fetch_add(100, SeqCst);
            0
        });
        disable();
        rpma_log!(Level::Error, Op::MrAdvise, "off");
        set_default_sink();
        assert_eq!(CALLS.load(SeqCst), 1);
        let seen = SEEN.lock().unwrap();
        let (level, file, function, line, message) = &seen[0];
        assert_eq!(*level, Level::Error);
        assert!(file.ends_with("log.rs"), "{file}");
        assert_eq!(function, "MrLocal::advise");
        assert!(*line > 0);
        assert_eq!(message, "value 42 and 100%");
    }

    #[test]
    fn a_record_message_is_cut_at_a_character() {
        let bytes = "ab\u{e9}".as_bytes();
        let r = Record {
            level: Level::Error,
            file: "f.rs\0",
            line: 1,
            op: Op::Verbs,
            message: &bytes[..3],
        };
        assert_eq!(r.message(), "ab");
        assert_eq!(r.message_bytes(), &bytes[..3]);
        assert_eq!(r.file(), "f.rs");
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
