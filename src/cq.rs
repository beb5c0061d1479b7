//! Completion queues. A connection has a main CQ (send completions, and
//! receive completions unless there is a separate receive CQ) and maybe a
//! receive CQ; an SRQ may have its own receive CQ. Each CQ is armed when
//! created, so its channel fd becomes readable at the first completion.

use std::ffi::{c_int, c_uint};
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{Error, Result};
use crate::log::Level;
use crate::sys;
use crate::verbs::{check_errno_value, next_cq_event, provider_failed, CompChannel};

/// A completion queue and the channel that reports its completions: its own
/// channel, or one shared by all queues of a connection.
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
        if self.unacked.fetch_add(1, Ordering::AcqRel) + 1 >= ACK_BATCH {
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
    pub fn wait(&self) -> Result<()> {
        if self.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        next_cq_event(self.channel).ok_or(Error::NoCompletion)?;
        self.took_event();
        self.arm()
    }

    /// Moves up to `wc.len()` completions into `wc` and returns how many;
    /// `RPMA_E_NO_COMPLETION` when there are none. Failed work requests are
    /// completions too: their status tells.
    #[inline]
    pub fn get_wc(&self, wc: &mut [MaybeUninit<sys::ibv_wc>]) -> Result<usize> {
        let asked = c_int::try_from(wc.len()).map_err(|_| Error::Inval)?;
        // SAFETY: the CQ is live; the provider writes at most `asked`
        // entries into the slice, whose MaybeUninit elements have the
        // layout of ibv_wc.
        let got = unsafe { sys::ibv_poll_cq(self.cq.as_ptr(), asked, wc.as_mut_ptr().cast()) };
        match got {
            0 => {
                rpma_log!(Level::Debug, "rpma_cq_get_wc", "No completion in the CQ");
                Err(Error::NoCompletion)
            }
            n if n < 0 => {
                // Providers return a negative count without setting errno.
                rpma_log!(
                    Level::Error,
                    "rpma_cq_get_wc",
                    "ibv_poll_cq() failed: {}",
                    n
                );
                Err(Error::Provider)
            }
            n if n > asked => {
                rpma_log!(
                    Level::Error,
                    "rpma_cq_get_wc",
                    "ibv_poll_cq() returned {} where <= {} is expected",
                    n,
                    asked
                );
                Err(Error::Unknown)
            }
            n => Ok(n as usize),
        }
    }

    pub fn as_ptr(&self) -> *mut sys::ibv_cq {
        self.cq.as_ptr()
    }

    /// The file descriptor of the channel this CQ reports to.
    pub fn fd(&self) -> c_int {
        // SAFETY: the channel outlives the CQ (owner order).
        unsafe { self.channel.as_ref().fd }
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
