//! The library's error type and its mapping to the `RPMA_E_*` codes, and
//! how a failed libibverbs/librdmacm call becomes one: its errno read,
//! logged, and reported as `RPMA_E_PROVIDER`.

use std::ffi::{c_char, c_int, CStr};
use std::fmt;

use crate::log::{Level, Op};

/// Every failure a librpma function can report. Each kind has one of the
/// C library's `RPMA_E_*` codes ([`Error::code`]); a failed provider call
/// also says which call failed, where, and with which errno
/// ([`ProviderError`], the error's `source`).
///
/// ```
/// use std::io::ErrorKind;
/// use rpma::{Error, MrRemote, Usage};
///
/// // a region with no usage is refused
/// let e = MrRemote::from_parts(0x1000, 64, 7, Usage::empty()).unwrap_err();
/// assert!(matches!(e, Error::Inval(_)), "{e}");
/// assert_eq!(e.to_string(), "Invalid argument: usage: empty");
/// let io: std::io::Error = e.into();
/// assert_eq!(io.kind(), ErrorKind::InvalidInput);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A failure with no better description (`RPMA_E_UNKNOWN`).
    #[error("Unknown error")]
    Unknown,
    /// The operation is not supported (`RPMA_E_NOSUPP`).
    #[error("Not supported")]
    NoSupp,
    /// libibverbs or librdmacm failed (`RPMA_E_PROVIDER`); it displays as
    /// its [`ProviderError`]: the call, the operation and the errno's text.
    #[error(transparent)]
    Provider(ProviderError),
    /// Memory could not be allocated (`RPMA_E_NOMEM`).
    #[error("Out of memory")]
    NoMem,
    /// An argument is invalid (`RPMA_E_INVAL`); [`Invalid`] says which
    /// one and why.
    #[error("Invalid argument: {0}")]
    Inval(Invalid),
    /// No completion is ready yet (`RPMA_E_NO_COMPLETION`).
    #[error("No next completion available")]
    NoCompletion,
    /// No event is ready yet (`RPMA_E_NO_EVENT`).
    #[error("No next event available")]
    NoEvent,
    /// A temporary condition; retrying may succeed (`RPMA_E_AGAIN`).
    #[error("Temporary error, try again")]
    Again,
    /// The completion channel is shared, so the call does not apply
    /// (`RPMA_E_SHARED_CHANNEL`).
    #[error("Completion channel is shared")]
    SharedChannel,
    /// The completion channel is not shared, so the call does not apply
    /// (`RPMA_E_NOT_SHARED_CHNL`).
    #[error("Completion channel is not shared")]
    NotSharedChnl,
}

/// A libibverbs or librdmacm call that failed: which one, in which
/// operation, and the errno it gave (0 when it gave none).
///
/// ```
/// use rpma::Error;
///
/// fn report(r: rpma::Result<()>) {
///     match r {
///         Err(Error::Provider(p)) => eprintln!("{}() failed: errno {}", p.call(), p.errno()),
///         Err(e) => eprintln!("{e}"),
///         Ok(()) => {}
///     }
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{call}() failed in {}: {}", op.as_cstr().to_string_lossy(), Errno(*errno))]
pub struct ProviderError {
    op: Op,
    call: &'static str,
    errno: c_int,
}

impl ProviderError {
    pub(crate) const fn new(op: Op, call: &'static str, errno: c_int) -> ProviderError {
        ProviderError { op, call, errno }
    }

    /// The operation of this crate the call was made for.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The name of the libibverbs or librdmacm function.
    pub fn call(&self) -> &'static str {
        self.call
    }

    /// The errno value the call reported (0: none).
    pub fn errno(&self) -> c_int {
        self.errno
    }
}

/// Which argument was invalid and why, as one static text: the argument's
/// name as the API that was called spells it (the Rust method's, or the C
/// function's parameter), a colon, and the reason, such as `"len: zero"`
/// or `"desc: shorter than 21 bytes"`. `Display` prints the text.
///
/// ```
/// use rpma::{Error, Invalid, MrRemote};
///
/// let e = MrRemote::from_descriptor(&[0u8; 8]).unwrap_err();
/// match e {
///     Error::Inval(why) => assert!(why.what().starts_with("desc:"), "{why}"),
///     e => panic!("unexpected: {e}"),
/// }
/// let why = Invalid::new("len: zero");
/// assert_eq!(why.to_string(), "len: zero");
/// assert_eq!(Error::Inval(why).to_string(), "Invalid argument: len: zero");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid(&'static str);

impl Invalid {
    /// The reason `what`: the argument's name, a colon and why it is
    /// refused.
    pub const fn new(what: &'static str) -> Invalid {
        Invalid(what)
    }

    /// The argument's name and the reason, as one text.
    pub fn what(&self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The result of every fallible operation of this crate.
///
/// ```
/// fn might_fail() -> rpma::Result<u32> {
///     Err(rpma::Error::NoSupp)
/// }
/// assert!(might_fail().is_err());
/// ```
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    const ALL: [Error; 10] = [
        Error::Unknown,
        Error::NoSupp,
        Error::Provider(ProviderError::new(Op::Verbs, "any", 0)),
        Error::NoMem,
        Error::Inval(Invalid::new("unknown: only the error code is known")),
        Error::NoCompletion,
        Error::NoEvent,
        Error::Again,
        Error::SharedChannel,
        Error::NotSharedChnl,
    ];

    /// An invalid argument: `what` is its name, a colon and the reason.
    pub(crate) const fn inval(what: &'static str) -> Error {
        Error::Inval(Invalid::new(what))
    }

    /// A failed provider call.
    pub(crate) const fn provider(op: Op, call: &'static str, errno: c_int) -> Error {
        Error::Provider(ProviderError::new(op, call, errno))
    }

    /// The `RPMA_E_*` value of this error.
    pub const fn code(self) -> c_int {
        match self {
            Error::Unknown => -100000,
            Error::NoSupp => -100001,
            Error::Provider(_) => -100002,
            Error::NoMem => -100003,
            Error::Inval(_) => -100004,
            Error::NoCompletion => -100005,
            Error::NoEvent => -100006,
            Error::Again => -100007,
            Error::SharedChannel => -100008,
            Error::NotSharedChnl => -100009,
        }
    }

    /// The kind of error whose code is `code`, if any (a provider error
    /// names no call, an invalid argument no argument).
    pub fn from_code(code: c_int) -> Option<Error> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }

    /// The failed provider call, for `Error::Provider`.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        match self {
            Error::Provider(p) => Some(p),
            _ => None,
        }
    }

    /// Whether a post failed because the queue was full: the provider
    /// refused it with ENOMEM (`ibv_post_*`), or ENOMEM or ENOSPC
    /// (`ibv_wr_complete`, which posts the native flush and atomic write:
    /// librxe answers ENOSPC there). Retrying after completions were taken
    /// may succeed.
    pub fn is_queue_full(&self) -> bool {
        self.provider_error().is_some_and(|p| match p.call {
            "ibv_wr_complete" => p.errno == libc::ENOMEM || p.errno == libc::ENOSPC,
            call => p.errno == libc::ENOMEM && call.starts_with("ibv_post"),
        })
    }

    /// The static, NUL-terminated description of this error (the text
    /// `rpma_err_2str` hands out; `Display` gives the same words, except
    /// that a provider error names its call and an invalid argument adds
    /// which one and why).
    pub const fn as_cstr(self) -> &'static CStr {
        match self {
            Error::Unknown => c"Unknown error",
            Error::NoSupp => c"Not supported",
            Error::Provider(_) => c"Provider error occurred",
            Error::NoMem => c"Out of memory",
            Error::Inval(_) => c"Invalid argument",
            Error::NoCompletion => c"No next completion available",
            Error::NoEvent => c"No next event available",
            Error::Again => c"Temporary error, try again",
            Error::SharedChannel => c"Completion channel is shared",
            Error::NotSharedChnl => c"Completion channel is not shared",
        }
    }
}

impl From<Error> for std::io::Error {
    /// The io::Error of the same meaning.
    ///
    /// A provider error with an errno becomes that OS error, so that
    /// `raw_os_error()` gives the errno and the kind follows from it; the
    /// name of the failed call and the operation are then not in the
    /// io::Error, only in the `rpma::Error`: convert at the program's
    /// edge, after what needs them has looked. The exception is a full
    /// queue ([`Error::is_queue_full`]): it becomes `WouldBlock`, which
    /// says more there than the errno, with the error as the inner error.
    /// Every other error is the inner error of an io::Error of the kind
    /// of the same meaning (`Other` for a provider error without errno).
    fn from(e: Error) -> std::io::Error {
        use std::io::ErrorKind as K;
        let kind = match e {
            _ if e.is_queue_full() => K::WouldBlock,
            Error::Provider(p) if p.errno != 0 => {
                return std::io::Error::from_raw_os_error(p.errno)
            }
            Error::Provider(_) | Error::Unknown => K::Other,
            Error::NoSupp => K::Unsupported,
            Error::NoMem => K::OutOfMemory,
            Error::Inval(_) => K::InvalidInput,
            Error::NoCompletion | Error::NoEvent | Error::Again => K::WouldBlock,
            Error::SharedChannel | Error::NotSharedChnl => K::InvalidInput,
        };
        std::io::Error::new(kind, e)
    }
}

/// The calling thread's `errno`.
pub(crate) fn errno() -> c_int {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Sets `errno`, for calls that report failure only through it.
pub(crate) fn set_errno(value: c_int) {
    // SAFETY: __errno_location returns the calling thread's errno slot.
    unsafe { *libc::__errno_location() = value };
}

/// `strerror` text of an errno value, formatted without allocating.
pub(crate) struct Errno(pub c_int);

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0 as c_char; 128];
        // SAFETY: buf is writable for its length; on success the (XSI)
        // strerror_r leaves a NUL-terminated text in it.
        let text = unsafe {
            if libc::strerror_r(self.0, buf.as_mut_ptr(), buf.len()) != 0 {
                return write!(f, "errno {}", self.0);
            }
            CStr::from_ptr(buf.as_ptr())
        };
        f.write_str(&text.to_string_lossy())
    }
}

/// Logs a failed provider call at ERROR level with the current errno and
/// returns `RPMA_E_PROVIDER`.
pub(crate) fn provider_failed(call: &'static str) -> Error {
    provider_failed_in(Op::Verbs, call)
}

/// The same, naming the operation `op` as the message's origin.
pub(crate) fn provider_failed_in(op: Op, call: &'static str) -> Error {
    let e = errno();
    rpma_log!(Level::Error, op, "{}() failed: {}", call, Errno(e));
    Error::provider(op, call, e)
}

/// The same for calls that return an errno value instead of setting errno.
#[cold]
pub(crate) fn provider_failed_with(call: &'static str, err: c_int) -> Error {
    rpma_log!(Level::Error, Op::Verbs, "{}() failed: {}", call, Errno(err));
    Error::provider(Op::Verbs, call, err)
}

/// Maps the 0 / errno-value result of the libibverbs calls that return the
/// error instead of setting errno (the destroy calls, ibv_req_notify_cq).
#[inline]
pub(crate) fn check_errno_value(call: &'static str, ret: c_int) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(provider_failed_with(call, ret))
    }
}

/// Maps the 0 / non-zero result of a call that sets errno on failure.
pub(crate) fn check(call: &'static str, ret: c_int) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(provider_failed(call))
    }
}

/// Keeps the first error of a sequence of release steps, runs them all.
#[derive(Default)]
pub(crate) struct FirstError(Option<Error>);

impl FirstError {
    pub(crate) fn note(&mut self, r: Result<()>) {
        if let (None, Err(e)) = (self.0, r) {
            self.0 = Some(e);
        }
    }

    pub(crate) fn result(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_texts_agree() {
        for e in Error::ALL {
            assert_eq!(Error::from_code(e.code()), Some(e));
            if e.provider_error().is_none() {
                let text = e.to_string();
                assert!(text.starts_with(e.as_cstr().to_str().unwrap()), "{text}");
            }
        }
        let inval = Error::from_code(-100004).expect("RPMA_E_INVAL");
        assert!(matches!(inval, Error::Inval(_)), "{inval}");
        assert_eq!(inval.as_cstr(), c"Invalid argument");
        assert_eq!(Error::inval("len: zero").code(), -100004);
    }

    #[test]
    fn an_invalid_argument_says_which_and_why() {
        let e = Error::inval("len: zero");
        assert_eq!(e, Error::Inval(Invalid::new("len: zero")));
        assert_eq!(e.to_string(), "Invalid argument: len: zero");
        assert_eq!(e.as_cstr(), c"Invalid argument");
        let Error::Inval(why) = e else {
            panic!("not Inval: {e}")
        };
        assert_eq!(why.what(), "len: zero");
        assert_eq!(why.to_string(), "len: zero");
        // it is no larger than the provider error it sits next to
        assert!(std::mem::size_of::<Invalid>() <= std::mem::size_of::<ProviderError>());
    }

    #[test]
    fn provider_errors_name_their_call_and_become_io_errors() {
        use std::error::Error as _;
        let full = Error::provider(Op::Verbs, "ibv_post_send", libc::ENOMEM);
        assert!(full.is_queue_full());
        assert_eq!(full.code(), -100002);
        // it explains itself; the call is not repeated as a source
        assert!(full
            .to_string()
            .starts_with("ibv_post_send() failed in verbs: "));
        assert!(full.source().is_none());
        let io = std::io::Error::from(full);
        assert_eq!(io.kind(), std::io::ErrorKind::WouldBlock);
        let inner = io.get_ref().and_then(|e| e.downcast_ref::<Error>());
        assert_eq!(inner, Some(&full));

        // librxe's answer to a native flush or atomic write on a full queue
        let native_full = Error::provider(Op::Verbs, "ibv_wr_complete", libc::ENOSPC);
        assert!(native_full.is_queue_full());
        let other = Error::provider(Op::Verbs, "ibv_post_send", libc::ENOSPC);
        assert!(!other.is_queue_full());

        let gone = Error::provider(Op::ResolveAddr, "rdma_resolve_addr", libc::ENODEV);
        assert!(!gone.is_queue_full());
        assert_eq!(
            gone.provider_error().map(ProviderError::errno),
            Some(libc::ENODEV)
        );
        let io = std::io::Error::from(gone);
        assert_eq!(
            io.raw_os_error(),
            Some(libc::ENODEV),
            "a provider error with an errno becomes that OS error"
        );
        assert_eq!(
            io.kind(),
            std::io::Error::from_raw_os_error(libc::ENODEV).kind()
        );
        let refused = std::io::Error::from(other);
        assert_eq!(refused.raw_os_error(), Some(libc::ENOSPC));
        // a full queue keeps WouldBlock (and the error inside), not the errno
        assert_eq!(std::io::Error::from(full).raw_os_error(), None);
        // no errno: the error is the inner one
        let silent = Error::provider(Op::Verbs, "rdma_get_cm_event", 0);
        let io = std::io::Error::from(silent);
        assert_eq!(io.kind(), std::io::ErrorKind::Other);
        assert_eq!(
            io.get_ref().and_then(|e| e.downcast_ref::<Error>()),
            Some(&silent)
        );
        let inval = Error::inval("len: zero");
        let io = std::io::Error::from(inval);
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
        assert_eq!(io.raw_os_error(), None);
        assert_eq!(
            io.get_ref().and_then(|e| e.downcast_ref::<Error>()),
            Some(&inval)
        );
        assert_eq!(io.to_string(), "Invalid argument: len: zero");
        assert_eq!(
            std::io::Error::from(Error::NoCompletion).kind(),
            std::io::ErrorKind::WouldBlock
        );
    }
}
