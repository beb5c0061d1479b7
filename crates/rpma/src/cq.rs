//! Completion queues. A connection has a main CQ (send completions, and
//! receive completions unless there is a separate receive CQ) and maybe a
//! receive CQ; an SRQ may have its own receive CQ. Each CQ is armed when
//! created, so its channel fd becomes readable at the first completion.

use std::ffi::{c_int, c_uint};
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{check_errno_value, provider_failed, Error, Result};
use crate::log::Level;
use crate::sys;
use crate::verbs::{next_cq_event, CompChannel};

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
        sys::prepare_req_notify_cq();
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
    #[inline]
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
        // SAFETY: the slice holds `asked` entries, whose MaybeUninit
        // elements have the layout of ibv_wc. (No entries: nothing can
        // be in range, and the provider's 0 is `RPMA_E_NO_COMPLETION`, as
        // before.)
        let got = unsafe { self.poll(asked, wc.as_mut_ptr().cast()) };
        if in_range(got, asked) {
            Ok(got as usize)
        } else {
            Err(get_wc_failure(got, asked))
        }
    }

    /// One `ibv_poll_cq` for at most `asked` entries; the raw count.
    /// The C entry point and [`Cq::get_wc`] share it, so what a count means
    /// is decided once, by [`in_range`] and [`get_wc_failure`].
    ///
    /// # Safety
    /// `wc` is writable for `asked` entries.
    #[inline(always)]
    pub unsafe fn poll(&self, asked: c_int, wc: *mut sys::ibv_wc) -> c_int {
        // SAFETY: the CQ is live; the provider writes at most `asked`
        // entries, which the caller provides.
        unsafe { sys::ibv_poll_cq(self.cq.as_ptr(), asked, wc) }
    }

    /// The libibverbs completion queue, live as long as `self`.
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

/// Whether `got`, the count `ibv_poll_cq` returned for `asked` entries,
/// means completions were taken: 1 ..= asked, in one unsigned comparison
/// (0 and negative counts wrap to large values), because every returning
/// poll of the data path passes here.
#[inline(always)]
pub fn in_range(got: c_int, asked: c_int) -> bool {
    (got as u32).wrapping_sub(1) < asked as u32
}

/// What a count outside 1 ..= asked means, logged as the C library does:
/// none is `RPMA_E_NO_COMPLETION`, a negative count (providers return one
/// without setting errno) `RPMA_E_PROVIDER`, more than asked
/// `RPMA_E_UNKNOWN`. An empty queue, which busy polling meets all the
/// time, is handled inline; the rest out of line, so the returning poll
/// keeps a small frame. (Named for `rpma_cq_get_wc`, whose cost the
/// benchmark's report gathers by name.)
#[inline(always)]
pub fn get_wc_failure(got: c_int, asked: c_int) -> Error {
    if got == 0 {
        if crate::log::enabled(Level::Debug) {
            log_no_completion();
        }
        return Error::NoCompletion;
    }
    get_wc_broken(got, asked)
}

/// The message's arguments out of line: they would need a stack frame on
/// the path of every returning poll.
#[cold]
#[inline(never)]
fn log_no_completion() {
    rpma_log!(Level::Debug, "rpma_cq_get_wc", "No completion in the CQ");
}

#[cold]
#[inline(never)]
fn get_wc_broken(got: c_int, asked: c_int) -> Error {
    if got < 0 {
        rpma_log!(
            Level::Error,
            "rpma_cq_get_wc",
            "ibv_poll_cq() failed: {}",
            got
        );
        Error::Provider
    } else {
        rpma_log!(
            Level::Error,
            "rpma_cq_get_wc",
            "ibv_poll_cq() returned {} where <= {} is expected",
            got,
            asked
        );
        Error::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_range_are_one_to_asked() {
        assert!(in_range(1, 1));
        assert!(in_range(5, 5));
        assert!(!in_range(0, 5));
        assert!(!in_range(6, 5));
        assert!(!in_range(-1, 5));
        assert!(!in_range(c_int::MIN, c_int::MAX));
    }

    #[test]
    fn counts_out_of_range_map_to_the_c_codes() {
        assert_eq!(get_wc_failure(0, 1), Error::NoCompletion);
        assert_eq!(get_wc_failure(-22, 4), Error::Provider);
        assert_eq!(get_wc_failure(5, 4), Error::Unknown);
    }
}
