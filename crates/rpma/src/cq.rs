//! Completion queues. A connection has a main CQ (send completions, and
//! receive completions unless there is a separate receive CQ) and maybe a
//! receive CQ; an SRQ may have its own receive CQ. Each CQ is armed when
//! created, so its channel fd becomes readable at the first completion.

use std::ffi::{c_int, c_uint};
use std::fmt;
use std::mem::MaybeUninit;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::error::{check_errno_value, provider_failed, Error, Result};
use crate::log::{Level, Op};
use crate::ready;
use crate::sys;
use crate::verbs::{next_cq_event, CompChannel};

/// A completion queue and the channel that reports its completions: its own
/// channel, or one shared by all queues of a connection.
// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"
```
use rpma::{Cq, Error, WorkCompletion};

/// The next completion, sleeping on the queue's channel while none waits.
fn next(cq: &Cq) -> rpma::Result<WorkCompletion> {
    let mut wc = [WorkCompletion::default()];
    loop {
        match cq.poll(&mut wc) {
            Ok(_) => return Ok(wc[0]),
            Err(Error::NoCompletion) => cq.wait()?,
            Err(e) => return Err(e),
        }
    }
}
```"#
)]
#[derive(Debug)]
pub struct Cq {
    cq: NonNull<sys::ibv_cq>,
    own_channel: Option<CompChannel>,
    channel: NonNull<sys::ibv_comp_channel>,
    /// Channel events taken from this CQ and not yet acknowledged.
    unacked: AtomicU32,
}

/// How many channel events a CQ takes before it acknowledges them in one
/// `ibv_ack_cq_events` call. Each call locks a mutex and signals a condition
/// variable inside libibverbs, so acknowledging one event per wait made
/// that the larger part of a wait's cost in the library (upstream librpma's
/// issues 1697 and 1698). Events still unacknowledged are acknowledged
/// before the CQ is destroyed, since `ibv_destroy_cq` waits for all of them.
pub(crate) const ACK_BATCH: u32 = 64;

// SAFETY: a CQ and its channel are libibverbs objects, which libibverbs
// allows to be used from any thread; the handles are never mutated after
// creation, and the count of unacknowledged events is atomic.
unsafe impl Send for Cq {}
// SAFETY: as above.
unsafe impl Sync for Cq {}

impl Cq {
    /// Creates an armed CQ of `size` entries on `ctx`, reporting to `shared`
    /// when given, else to a channel of its own.
    pub(crate) fn new(
        ctx: *mut sys::ibv_context,
        size: u32,
        shared: Option<&CompChannel>,
    ) -> Result<Cq> {
        let own_channel = match shared {
            Some(_) => None,
            None => Some(CompChannel::new(ctx)?),
        };
        let channel = shared
            .or(own_channel.as_ref())
            .map_or(std::ptr::null_mut(), CompChannel::as_ptr);
        let channel = NonNull::new(channel).expect("a shared or an own channel");
        // SAFETY: ctx is live; the channel (if any) belongs to ctx. A size
        // above i32::MAX wraps like the C library's implicit conversion and
        // is refused by the provider.
        let cq = unsafe {
            sys::ibv_create_cq(
                ctx,
                size as c_int,
                std::ptr::null_mut(),
                channel.as_ptr(),
                0,
            )
        };
        let cq = NonNull::new(cq).ok_or_else(|| provider_failed("ibv_create_cq"))?;
        let cq = Cq {
            cq,
            own_channel,
            channel,
            unacked: AtomicU32::new(0),
        };
        cq.arm()?;
        Ok(cq)
    }

    /// Asks for a channel event at the next completion.
    #[inline]
    pub(crate) fn arm(&self) -> Result<()> {
        // SAFETY: the CQ is live.
        check_errno_value("ibv_req_notify_cq", unsafe {
            sys::ibv_req_notify_cq(self.cq.as_ptr(), 0)
        })
    }

    /// Counts one channel event taken from this CQ, and acknowledges the
    /// events counted so far once there are `ACK_BATCH` of them.
    #[inline]
    pub(crate) fn took_event(&self) {
        // Each take sees a count of its own, so exactly one take in every
        // ACK_BATCH sees the count that fills the batch (the count starts
        // again from 0 when it is acknowledged).
        if self.unacked.fetch_add(1, Ordering::AcqRel) == ACK_BATCH - 1 {
            self.ack_pending();
        }
    }

    /// Acknowledges every event counted and not yet acknowledged. Waits
    /// running at the same time may add to the count meanwhile: what one
    /// swap takes, only that call acknowledges, so no event is acknowledged
    /// twice and none is forgotten.
    fn ack_pending(&self) {
        let n = self.unacked.swap(0, Ordering::AcqRel);
        if n > 0 {
            // SAFETY: the CQ is live, and each of the n events was taken
            // from its channel and counted exactly once.
            unsafe { sys::ibv_ack_cq_events(self.cq.as_ptr(), n as c_uint) };
        }
    }

    /// Blocks (unless its fd was made non-blocking) until the CQ's own
    /// channel reports completions, then arms it again. A successful wait
    /// does not promise a completion: callers poll until it is empty.
    ///
    /// # Errors
    /// `Error::SharedChannel` when the CQ reports to its connection's
    /// shared channel; `Error::NoCompletion` when `ibv_get_cq_event` fails
    /// (nothing came on a non-blocking fd, or the channel failed);
    /// `Error::Provider` when the CQ cannot be armed again
    /// (`ibv_req_notify_cq`).
    #[inline]
    pub fn wait(&self) -> Result<()> {
        if self.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        next_cq_event(self.channel).ok_or(Error::NoCompletion)?;
        self.took_event();
        self.arm()
    }

    /// [`Cq::wait`] without waiting: `false` when the channel has reported
    /// nothing. Whether it blocks until the channel reports is the fd's
    /// mode, so make the fd non-blocking first (`O_NONBLOCK` on
    /// [`Cq::fd`]; a blocking [`Cq::wait`] then returns at once too).
    ///
    /// # Errors
    /// `Error::SharedChannel` when the CQ reports to its connection's
    /// shared channel; `Error::Provider` when the CQ cannot be armed again.
    pub fn try_wait(&self) -> Result<bool> {
        if self.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        if next_cq_event(self.channel).is_none() {
            return Ok(false);
        }
        self.took_event();
        self.arm().map(|()| true)
    }

    /// [`Cq::wait`] for at most `timeout`: `false` when the channel
    /// reported nothing in time. With one thread waiting on the CQ at a
    /// time it never blocks past the deadline (with several, the one that
    /// loses the event waits for the next, as in [`Cq::wait`]).
    ///
    /// # Errors
    /// As [`Cq::wait`].
    pub fn wait_timeout(&self, timeout: Duration) -> Result<bool> {
        if self.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        if !ready::readable(&[self.fd()], Some(timeout))? {
            return Ok(false);
        }
        self.wait().map(|()| true)
    }

    /// The next completion: polls the CQ and, while it is empty, waits for
    /// its channel. Failed work requests are completions too: check
    /// [`WorkCompletion::status`]. The first wait makes the channel's fd
    /// non-blocking, so a [`Cq::wait`] on this CQ afterwards returns at
    /// once when nothing came.
    ///
    /// ```no_run
    /// # fn demo(conn: &rpma::Conn) -> rpma::Result<()> {
    /// let wc = conn.cq().next_wc()?;
    /// assert!(wc.status().is_success(), "{:?}", wc.status());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `Error::SharedChannel` when the CQ reports to its connection's
    /// shared channel; `Error::Provider` when the poll, the channel or the
    /// wait (`poll`, `fcntl`) fails.
    pub fn next_wc(&self) -> Result<WorkCompletion> {
        self.next_wc_within(None)?.ok_or(Error::NoCompletion)
    }

    /// [`Cq::next_wc`] waiting at most `timeout`: `None` when no
    /// completion came in time.
    ///
    /// # Errors
    /// As [`Cq::next_wc`].
    pub fn next_wc_timeout(&self, timeout: Duration) -> Result<Option<WorkCompletion>> {
        self.next_wc_within(Some(timeout))
    }

    /// The next completion if there is one, without waiting: polls the
    /// CQ, and when it is empty takes what its channel reported (which
    /// arms it again). Like [`Cq::next_wc`], it makes the channel's fd
    /// non-blocking.
    ///
    /// # Errors
    /// As [`Cq::next_wc`].
    pub fn try_next_wc(&self) -> Result<Option<WorkCompletion>> {
        if self.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        let mut wc = [WorkCompletion::default()];
        loop {
            match self.poll(&mut wc) {
                Ok(_) => return Ok(Some(wc[0])),
                Err(Error::NoCompletion) => {}
                Err(e) => return Err(e),
            }
            // Only a wait needs the fd non-blocking. A report taken arms
            // the CQ again: a completion that came before the arm is found
            // by the next poll, one after it makes the channel report.
            ready::set_nonblocking(self.fd())?;
            if !self.try_wait()? {
                return Ok(None);
            }
        }
    }

    fn next_wc_within(&self, timeout: Option<Duration>) -> Result<Option<WorkCompletion>> {
        ready::take_within(&[self.fd()], timeout, || self.try_next_wc())
    }

    /// Moves up to `out.len()` completions into `out` and returns how
    /// many (1 or more). Failed work requests are completions too: their
    /// [`WorkCompletion::status`] tells.
    ///
    /// # Errors
    /// As `rpma_cq_get_wc` reports them: `Error::NoCompletion` when there
    /// are none, and also for an empty `out`; `Error::Provider` when
    /// `ibv_poll_cq` returns a negative count; `Error::Unknown` when it
    /// returns more than `out.len()`; `Error::Inval` for more than
    /// `i32::MAX` entries.
    #[inline]
    pub fn poll(&self, out: &mut [WorkCompletion]) -> Result<usize> {
        // SAFETY: a `WorkCompletion` is a valid `MaybeUninit` of itself,
        // with the same layout; the provider only ever writes whole,
        // initialised entries, so `out` stays initialised.
        let out = unsafe { &mut *(std::ptr::from_mut(out) as *mut [MaybeUninit<WorkCompletion>]) };
        self.poll_uninit(out)
    }

    /// [`Cq::poll`] into entries that need not be initialised: the first
    /// `n` entries of `out` are initialised when it returns `Ok(n)`.
    ///
    /// # Errors
    /// As [`Cq::poll`].
    #[inline(always)]
    pub fn poll_uninit(&self, out: &mut [MaybeUninit<WorkCompletion>]) -> Result<usize> {
        let asked = c_int::try_from(out.len())
            .map_err(|_| Error::inval("out: more than i32::MAX entries"))?;
        // SAFETY: the CQ is live; `out` holds `asked` writable entries, and
        // `MaybeUninit<WorkCompletion>` has the layout of `ibv_wc`
        // (`repr(transparent)` both), so the provider writes at most
        // `asked` whole entries inside the slice. (No entries: nothing can
        // be in range, and the provider's 0 is `Error::NoCompletion`.)
        let got = unsafe { sys::ibv_poll_cq(self.cq.as_ptr(), asked, out.as_mut_ptr().cast()) };
        poll_outcome(got, asked)
    }

    raw_api! {
        /// The libibverbs completion queue, live as long as `self`.
        fn as_ptr(&self) -> *mut sys::ibv_cq {
            self.cq.as_ptr()
        }
    }

    /// The file descriptor of the channel this CQ reports to.
    pub fn fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the channel outlives the CQ (owner order) and holds an
        // open fd (not -1) until it is destroyed, after the CQ is.
        unsafe { BorrowedFd::borrow_raw(self.channel.as_ref().fd) }
    }

    /// Whether the channel is a connection's shared one.
    pub fn channel_is_shared(&self) -> bool {
        self.own_channel.is_none()
    }

    /// Destroys the CQ, then its own channel; the first failure is returned
    /// but both are attempted.
    #[inline]
    pub(crate) fn destroy(self) -> Result<()> {
        self.ack_pending();
        let cq = self.cq.as_ptr();
        let channel = {
            let mut me = std::mem::ManuallyDrop::new(self);
            me.own_channel.take()
        };
        // SAFETY: the CQ is ours and no QP uses it any more (owner order).
        let r = check_errno_value("ibv_destroy_cq", unsafe { sys::ibv_destroy_cq(cq) });
        let r2 = channel.map_or(Ok(()), CompChannel::destroy);
        r.and(r2)
    }
}

impl Drop for Cq {
    fn drop(&mut self) {
        self.ack_pending();
        // SAFETY: as in destroy; the own channel is dropped after this.
        unsafe { sys::ibv_destroy_cq(self.cq.as_ptr()) };
    }
}

/// What `ibv_poll_cq` returning `got` for `asked` entries means: 1 ..=
/// asked completions were taken; none is `RPMA_E_NO_COMPLETION`; a
/// negative count (providers return one without setting errno)
/// `RPMA_E_PROVIDER`; more than asked `RPMA_E_UNKNOWN`. Logged as the C
/// library logs them.
#[inline]
fn poll_outcome(got: c_int, asked: c_int) -> Result<usize> {
    if (1..=asked).contains(&got) {
        return Ok(got as usize);
    }
    if got == 0 {
        // An empty queue is what a busy poller meets most: its message
        // (debug level) is formatted out of the poller's way.
        if crate::log::enabled(Level::Debug) {
            log_no_completion();
        }
        return Err(Error::NoCompletion);
    }
    Err(poll_failed(got, asked))
}

#[cold]
fn log_no_completion() {
    rpma_log!(Level::Debug, Op::CqPoll, "No completion in the CQ");
}

#[cold]
fn poll_failed(got: c_int, asked: c_int) -> Error {
    if got < 0 {
        rpma_log!(Level::Error, Op::CqPoll, "ibv_poll_cq() failed: {}", got);
        return Error::provider(Op::CqPoll, "ibv_poll_cq", got.saturating_neg());
    }
    rpma_log!(
        Level::Error,
        Op::CqPoll,
        "ibv_poll_cq() returned {} where <= {} is expected",
        got,
        asked
    );
    Error::Unknown
}

/// One completion as `ibv_poll_cq` reports it: a zero-cost wrapper over
/// libibverbs' `struct ibv_wc` (`repr(transparent)`), so a slice of them
/// is a buffer the provider fills directly, and the C face hands the
/// caller's `struct ibv_wc` array through unchanged.
///
/// ```
/// use rpma::{WcOpcode, WorkCompletion};
///
/// fn describe(wc: &WorkCompletion) {
///     if wc.status().is_success() && wc.opcode() == WcOpcode::Recv {
///         println!(
///             "{} bytes for context {}, immediate data {:?}",
///             wc.byte_len(),
///             wc.wr_id(),
///             wc.imm_data()
///         );
///     }
/// }
/// ```
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct WorkCompletion(sys::ibv_wc);

impl WorkCompletion {
    raw_api! {
        /// Wraps a raw completion.
        fn from_raw(wc: sys::ibv_wc) -> WorkCompletion {
            WorkCompletion(wc)
        }
    }

    raw_api! {
        /// The raw completion, for the fields without an accessor.
        fn as_raw(&self) -> &sys::ibv_wc {
            &self.0
        }
    }

    /// The work request id: the `op_context` the operation was posted with,
    /// bit-exact.
    #[inline]
    pub fn wr_id(&self) -> u64 {
        self.0.wr_id
    }

    /// What the work request was.
    #[inline]
    pub fn opcode(&self) -> WcOpcode {
        WcOpcode::from_raw(self.0.opcode)
    }

    /// Whether the work request succeeded, and if not, why.
    #[inline]
    pub fn status(&self) -> WcStatus {
        WcStatus::from_raw(self.0.status)
    }

    /// The number of bytes received (meaningful for receives).
    #[inline]
    pub fn byte_len(&self) -> u32 {
        self.0.byte_len
    }

    /// The immediate data of a send or write with immediate data, `None`
    /// when the completion carries none (`IBV_WC_WITH_IMM` clear).
    ///
    /// The value is in host byte order: the `imm` the sender passed to
    /// `send`/`write` (or to `rpma_send_with_imm`/`rpma_write_with_imm`),
    /// i.e. what a C caller gets as `ntohl(wc.imm_data)`. The raw field,
    /// as the C library leaves it in `struct ibv_wc`, is in network byte
    /// order; `WorkCompletion::as_raw` (feature `raw`) reaches it.
    #[inline]
    pub fn imm_data(&self) -> Option<u32> {
        if self.0.wc_flags & sys::IBV_WC_WITH_IMM != 0 {
            // SAFETY: both members of the union are plain u32s, so reading
            // either is sound whatever the provider wrote.
            Some(u32::from_be(unsafe { self.0.__bindgen_anon_1.imm_data }))
        } else {
            None
        }
    }

    /// The number of the local queue pair the completion belongs to.
    #[inline]
    pub fn qp_num(&self) -> u32 {
        self.0.qp_num
    }

    /// The provider's own error detail (`vendor_err`), meaningful when the
    /// status is not a success.
    #[inline]
    pub fn vendor_err(&self) -> u32 {
        self.0.vendor_err
    }
}

impl std::fmt::Debug for WorkCompletion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkCompletion")
            .field("wr_id", &self.wr_id())
            .field("status", &self.status())
            .field("opcode", &self.opcode())
            .field("byte_len", &self.byte_len())
            .field("imm_data", &self.imm_data())
            .field("qp_num", &self.qp_num())
            .finish()
    }
}

/// The kind of work request a completion reports (`enum ibv_wc_opcode`).
///
/// ```
/// use rpma::WcOpcode;
///
/// assert_eq!(WcOpcode::from_raw(WcOpcode::Recv.raw()), WcOpcode::Recv);
/// assert_eq!(WcOpcode::from_raw(1000), WcOpcode::Other(1000));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WcOpcode {
    /// A send, with or without immediate data (`IBV_WC_SEND`).
    Send,
    /// An RDMA write (`IBV_WC_RDMA_WRITE`).
    Write,
    /// An RDMA read (`IBV_WC_RDMA_READ`).
    Read,
    /// An atomic compare and swap (`IBV_WC_COMP_SWAP`).
    CompSwap,
    /// An atomic fetch and add (`IBV_WC_FETCH_ADD`).
    FetchAdd,
    /// A native flush (`IBV_WC_FLUSH`).
    Flush,
    /// A native atomic write (`IBV_WC_ATOMIC_WRITE`).
    AtomicWrite,
    /// A receive (`IBV_WC_RECV`).
    Recv,
    /// An RDMA write with immediate data consumed a receive
    /// (`IBV_WC_RECV_RDMA_WITH_IMM`).
    RecvRdmaWithImm,
    /// Any other value, raw.
    Other(u32),
}

impl fmt::Display for WcOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            WcOpcode::Send => "send",
            WcOpcode::Write => "write",
            WcOpcode::Read => "read",
            WcOpcode::CompSwap => "compare and swap",
            WcOpcode::FetchAdd => "fetch and add",
            WcOpcode::Flush => "flush",
            WcOpcode::AtomicWrite => "atomic write",
            WcOpcode::Recv => "receive",
            WcOpcode::RecvRdmaWithImm => "receive of a write with immediate data",
            WcOpcode::Other(raw) => return write!(f, "opcode {raw}"),
        };
        f.write_str(name)
    }
}

impl WcOpcode {
    /// The opcode of raw value `raw`.
    pub fn from_raw(raw: u32) -> WcOpcode {
        match raw {
            sys::IBV_WC_SEND => WcOpcode::Send,
            sys::IBV_WC_RDMA_WRITE => WcOpcode::Write,
            sys::IBV_WC_RDMA_READ => WcOpcode::Read,
            sys::IBV_WC_COMP_SWAP => WcOpcode::CompSwap,
            sys::IBV_WC_FETCH_ADD => WcOpcode::FetchAdd,
            sys::IBV_WC_FLUSH => WcOpcode::Flush,
            sys::IBV_WC_ATOMIC_WRITE => WcOpcode::AtomicWrite,
            sys::IBV_WC_RECV => WcOpcode::Recv,
            sys::IBV_WC_RECV_RDMA_WITH_IMM => WcOpcode::RecvRdmaWithImm,
            other => WcOpcode::Other(other),
        }
    }

    /// The raw `enum ibv_wc_opcode` value.
    pub fn raw(self) -> u32 {
        match self {
            WcOpcode::Send => sys::IBV_WC_SEND,
            WcOpcode::Write => sys::IBV_WC_RDMA_WRITE,
            WcOpcode::Read => sys::IBV_WC_RDMA_READ,
            WcOpcode::CompSwap => sys::IBV_WC_COMP_SWAP,
            WcOpcode::FetchAdd => sys::IBV_WC_FETCH_ADD,
            WcOpcode::Flush => sys::IBV_WC_FLUSH,
            WcOpcode::AtomicWrite => sys::IBV_WC_ATOMIC_WRITE,
            WcOpcode::Recv => sys::IBV_WC_RECV,
            WcOpcode::RecvRdmaWithImm => sys::IBV_WC_RECV_RDMA_WITH_IMM,
            WcOpcode::Other(raw) => raw,
        }
    }
}

/// How a work request ended (`enum ibv_wc_status`): the statuses an RC
/// connection commonly reports by name, any other raw.
///
/// ```
/// use rpma::WcStatus;
///
/// assert!(WcStatus::Success.is_success());
/// // what a closed connection's outstanding operations end with
/// assert_eq!(WcStatus::from_raw(5), WcStatus::WrFlush);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WcStatus {
    /// It succeeded (`IBV_WC_SUCCESS`).
    Success,
    /// A local length error, e.g. a receive buffer too small
    /// (`IBV_WC_LOC_LEN_ERR`).
    LocalLength,
    /// A local queue pair operation error (`IBV_WC_LOC_QP_OP_ERR`).
    LocalQpOperation,
    /// A local protection error (`IBV_WC_LOC_PROT_ERR`).
    LocalProtection,
    /// Flushed because the queue pair went to the error state
    /// (`IBV_WC_WR_FLUSH_ERR`).
    WrFlush,
    /// A local access error (`IBV_WC_LOC_ACCESS_ERR`).
    LocalAccess,
    /// The peer refused the request as invalid (`IBV_WC_REM_INV_REQ_ERR`).
    RemoteInvalidRequest,
    /// A remote access error: bad rkey, range or rights
    /// (`IBV_WC_REM_ACCESS_ERR`).
    RemoteAccess,
    /// The peer failed the operation (`IBV_WC_REM_OP_ERR`).
    RemoteOperation,
    /// The transport retry counter ran out (`IBV_WC_RETRY_EXC_ERR`).
    RetryExceeded,
    /// The receiver-not-ready retry counter ran out
    /// (`IBV_WC_RNR_RETRY_EXC_ERR`).
    RnrRetryExceeded,
    /// A fatal error (`IBV_WC_FATAL_ERR`).
    Fatal,
    /// A general error (`IBV_WC_GENERAL_ERR`).
    General,
    /// Any other failure, raw.
    Other(u32),
}

impl fmt::Display for WcStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            WcStatus::Success => "success",
            WcStatus::LocalLength => "local length error",
            WcStatus::LocalQpOperation => "local queue pair operation error",
            WcStatus::LocalProtection => "local protection error",
            WcStatus::WrFlush => "flushed: the queue pair is in the error state",
            WcStatus::LocalAccess => "local access error",
            WcStatus::RemoteInvalidRequest => "remote invalid request",
            WcStatus::RemoteAccess => "remote access error",
            WcStatus::RemoteOperation => "remote operation error",
            WcStatus::RetryExceeded => "transport retries exceeded",
            WcStatus::RnrRetryExceeded => "receiver-not-ready retries exceeded",
            WcStatus::Fatal => "fatal error",
            WcStatus::General => "general error",
            WcStatus::Other(raw) => return write!(f, "status {raw}"),
        };
        f.write_str(text)
    }
}

impl WcStatus {
    /// The status of raw value `raw`.
    pub fn from_raw(raw: u32) -> WcStatus {
        match raw {
            sys::IBV_WC_SUCCESS => WcStatus::Success,
            sys::IBV_WC_LOC_LEN_ERR => WcStatus::LocalLength,
            sys::IBV_WC_LOC_QP_OP_ERR => WcStatus::LocalQpOperation,
            sys::IBV_WC_LOC_PROT_ERR => WcStatus::LocalProtection,
            sys::IBV_WC_WR_FLUSH_ERR => WcStatus::WrFlush,
            sys::IBV_WC_LOC_ACCESS_ERR => WcStatus::LocalAccess,
            sys::IBV_WC_REM_INV_REQ_ERR => WcStatus::RemoteInvalidRequest,
            sys::IBV_WC_REM_ACCESS_ERR => WcStatus::RemoteAccess,
            sys::IBV_WC_REM_OP_ERR => WcStatus::RemoteOperation,
            sys::IBV_WC_RETRY_EXC_ERR => WcStatus::RetryExceeded,
            sys::IBV_WC_RNR_RETRY_EXC_ERR => WcStatus::RnrRetryExceeded,
            sys::IBV_WC_FATAL_ERR => WcStatus::Fatal,
            sys::IBV_WC_GENERAL_ERR => WcStatus::General,
            other => WcStatus::Other(other),
        }
    }

    /// The raw `enum ibv_wc_status` value.
    pub fn raw(self) -> u32 {
        match self {
            WcStatus::Success => sys::IBV_WC_SUCCESS,
            WcStatus::LocalLength => sys::IBV_WC_LOC_LEN_ERR,
            WcStatus::LocalQpOperation => sys::IBV_WC_LOC_QP_OP_ERR,
            WcStatus::LocalProtection => sys::IBV_WC_LOC_PROT_ERR,
            WcStatus::WrFlush => sys::IBV_WC_WR_FLUSH_ERR,
            WcStatus::LocalAccess => sys::IBV_WC_LOC_ACCESS_ERR,
            WcStatus::RemoteInvalidRequest => sys::IBV_WC_REM_INV_REQ_ERR,
            WcStatus::RemoteAccess => sys::IBV_WC_REM_ACCESS_ERR,
            WcStatus::RemoteOperation => sys::IBV_WC_REM_OP_ERR,
            WcStatus::RetryExceeded => sys::IBV_WC_RETRY_EXC_ERR,
            WcStatus::RnrRetryExceeded => sys::IBV_WC_RNR_RETRY_EXC_ERR,
            WcStatus::Fatal => sys::IBV_WC_FATAL_ERR,
            WcStatus::General => sys::IBV_WC_GENERAL_ERR,
            WcStatus::Other(raw) => raw,
        }
    }

    /// Whether the work request succeeded.
    pub fn is_success(self) -> bool {
        self == WcStatus::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_map_to_the_c_codes() {
        assert_eq!(poll_outcome(1, 1), Ok(1));
        assert_eq!(poll_outcome(5, 5), Ok(5));
        assert_eq!(poll_outcome(0, 1), Err(Error::NoCompletion));
        let failed = |errno| Err(Error::provider(Op::CqPoll, "ibv_poll_cq", errno));
        assert_eq!(poll_outcome(-22, 4), failed(22));
        assert_eq!(poll_outcome(c_int::MIN, c_int::MAX), failed(c_int::MAX));
        assert_eq!(poll_outcome(5, 4), Err(Error::Unknown));
    }

    #[test]
    fn work_completion_reads_its_fields() {
        let mut raw = sys::ibv_wc {
            wr_id: 0xdead_beef_0000_0001,
            status: sys::IBV_WC_REM_ACCESS_ERR,
            opcode: sys::IBV_WC_RECV_RDMA_WITH_IMM,
            byte_len: 42,
            qp_num: 7,
            ..Default::default()
        };
        raw.__bindgen_anon_1.imm_data = 0x0102_0304u32.to_be();
        let wc = WorkCompletion::from_raw(raw);
        assert_eq!(wc.wr_id(), 0xdead_beef_0000_0001);
        assert_eq!(wc.status(), WcStatus::RemoteAccess);
        assert!(!wc.status().is_success());
        assert_eq!(wc.opcode(), WcOpcode::RecvRdmaWithImm);
        assert_eq!(wc.byte_len(), 42);
        assert_eq!(wc.qp_num(), 7);
        assert_eq!(wc.imm_data(), None, "no IBV_WC_WITH_IMM flag");
        raw.wc_flags = sys::IBV_WC_WITH_IMM;
        assert_eq!(WorkCompletion::from_raw(raw).imm_data(), Some(0x0102_0304));
    }

    #[test]
    fn opcodes_and_statuses_round_trip() {
        for raw in (0..=10).chain(128..=140) {
            assert_eq!(WcOpcode::from_raw(raw).raw(), raw);
        }
        for raw in 0..=30 {
            assert_eq!(WcStatus::from_raw(raw).raw(), raw);
        }
        assert_eq!(WcOpcode::from_raw(200), WcOpcode::Other(200));
        assert_eq!(WcStatus::from_raw(99), WcStatus::Other(99));
    }

    #[test]
    fn work_completion_is_an_ibv_wc() {
        use std::mem::{align_of, size_of};
        assert_eq!(size_of::<WorkCompletion>(), size_of::<sys::ibv_wc>());
        assert_eq!(align_of::<WorkCompletion>(), align_of::<sys::ibv_wc>());
    }
}
