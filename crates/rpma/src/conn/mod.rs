//! Connections: an established (or establishing) RC connection with its
//! queues, its own rdma_cm event channel, and what the peer sent.

use std::ffi::c_int;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::alloc::try_copy;
use crate::cq::Cq;
use crate::error::{Error, FirstError, Result};
use crate::log::{Level, Op};
use crate::native::QpNative;
use crate::peer::FlushTarget;
use crate::peer_cfg::PeerCfg;
use crate::queues::{Parts, Queues};
use crate::ready;
use crate::sys;
use crate::verbs::{self, CmEvent, CmId, CompChannel, EventChannel};

mod activity;
mod event;
mod flush;
mod ops;
pub mod req;
pub use activity::Activity;
#[cfg(feature = "raw")]
pub use event::event_str;
pub use event::ConnEvent;
pub use flush::FlushType;
pub use ops::{Opts, Wake, ATOMIC_WRITE_LEN};

// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"A connection: its queues, its event channel, a clone of its peer (and
of the shared receive queue it receives through), and what the peer
sent. Dropping it releases it without a disconnect; call
[`Conn::disconnect`] and wait for [`ConnEvent::Closed`] to close it in
order. It is `Send` and `Sync`: operations may be posted from several
threads at once.

```
use rpma::{Conn, Error, FlushType, Local, Opts, Remote, WorkCompletion};

/// Writes `src` to `dst` and waits until it is visible at the peer.
fn put(conn: &Conn, src: Local<'_>, dst: Remote<'_>) -> rpma::Result<()> {
    // no completion for the write unless it fails; the flush's says both
    // are done, since a connection's operations complete in order
    conn.write(src, dst, Opts::unsignaled())?;
    conn.flush(dst, FlushType::Visibility, Opts::signaled().context(1))?;
    let mut wc = [WorkCompletion::default()];
    loop {
        match conn.cq().poll(&mut wc) {
            Ok(_) if wc[0].status().is_success() => return Ok(()),
            Ok(_) => return Err(Error::Unknown),
            Err(Error::NoCompletion) => conn.cq().wait()?,
            Err(e) => return Err(e),
        }
    }
}
```"#
)]
#[allow(missing_docs)] // documented for rustdoc above
#[derive(Debug)]
pub struct Conn {
    /// The id, queues and event channel, and the clones of the peer and
    /// the SRQ they are on, taken out (and released in the C library's
    /// order) by `release`, which `delete` and `Drop` both run.
    parts: Option<Parts>,
    /// The peer's flush read target, held exactly when the queue pair has
    /// no native flush.
    flush: Option<Arc<FlushTarget>>,
    /// What the peer sent: set at creation on the passive side, at the
    /// first ESTABLISHED event on the active side, and never changed
    /// afterwards, so the slice may be handed out until the connection is
    /// deleted.
    private_data: OnceLock<Box<[u8]>>,
    direct_write_to_pmem: AtomicBool,
    /// The QP and its native operations, and the event channel's fd, kept
    /// apart from the parts above: the data path and the event loop read
    /// them on every call, and need no "is it there yet" for them. Valid
    /// from `new` until the connection is released.
    qp: *mut sys::ibv_qp,
    native: QpNative,
    event_fd: c_int,
    /// An incoming request not accepted yet: releasing it rejects it.
    unanswered: bool,
    /// The device is iWARP: a read of nothing names one empty entry there
    /// (see [`Conn::read`]).
    iwarp: bool,
    /// The receiver-not-ready timer code to set when the first ESTABLISHED
    /// event comes (the active side's queue pair becomes ready to send as
    /// librdmacm takes the peer's answer); 0: nothing to set.
    rnr_timer_on_established: u8,
}

// SAFETY: the cm id, event channel, CQs and QP are librdmacm/libibverbs
// objects usable from any thread. After creation the only mutable state is
// the private data (a OnceLock) and the AtomicBool; the QP pointers and
// event fd are plain copies; everything else changes only in
// `delete(self)`/Drop, which own the connection.
unsafe impl Send for Conn {}
// SAFETY: as above.
unsafe impl Sync for Conn {}

impl Conn {
    fn parts(&self) -> &Parts {
        self.parts.as_ref().expect("present until deleted")
    }

    fn id(&self) -> &CmId {
        &self.parts().id
    }

    fn queues(&self) -> &Queues {
        &self.parts().queues
    }

    /// The fd of the connection's event channel.
    pub fn event_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the fd is the open one of the event channel among the
        // parts the connection was made of; the channel is
        // destroyed only when the connection is deleted or dropped, after
        // the borrow of `self` ends.
        unsafe { BorrowedFd::borrow_raw(self.event_fd) }
    }

    /// Takes the next connection event; blocks until one comes.
    ///
    /// # Errors
    /// `Error::Unknown` for an event that means nothing to a connection
    /// (consumed); `Error::Provider` when the event channel fails;
    /// `Error::NoMem` when the peer's private data cannot be copied.
    pub fn next_event(&self) -> Result<ConnEvent> {
        let got = ready::take_within(&[self.event_fd()], None, || self.try_next_event())?;
        Ok(got.expect("a wait without a deadline ends with an event"))
    }

    /// The next connection event if one waits, without waiting.
    ///
    /// # Errors
    /// As [`Conn::next_event`].
    pub fn try_next_event(&self) -> Result<Option<ConnEvent>> {
        match self.event_channel().try_next(Op::ConnNextEvent)? {
            Some(ev) => self.take_event(ev).map(Some),
            None => Ok(None),
        }
    }

    /// The next connection event, waiting at most `timeout` for it: `None`
    /// when none came in time.
    ///
    /// # Errors
    /// As [`Conn::next_event`]; `Error::Provider` (`poll`) when the wait
    /// fails.
    pub fn next_event_timeout(&self, timeout: Duration) -> Result<Option<ConnEvent>> {
        ready::take_within(&[self.event_fd()], Some(timeout), || self.try_next_event())
    }

    raw_api! {
        /// Takes the next connection event as `rdma_get_cm_event` does:
        /// blocking or not as the fd is (the C API's `rpma_conn_next_event`).
        ///
        /// # Errors
        /// As [`Conn::next_event`]; also `Error::NoEvent` when librdmacm
        /// has none (ENODATA), and `Error::Provider` (EAGAIN) when none
        /// waits on a non-blocking fd.
        fn next_event_raw(&self) -> Result<ConnEvent> {
            self.take_event(self.event_channel().next(Op::ConnNextEvent)?)
        }
    }

    fn event_channel(&self) -> &EventChannel {
        &self.parts().evch
    }

    /// What the event means to the connection; acks it.
    fn take_event(&self, ev: CmEvent) -> Result<ConnEvent> {
        let kind = ev.get().event;
        // The active side learns the peer's private data from the first
        // ESTABLISHED event; it is copied before the ack frees it.
        let mut pdata = None;
        if kind == sys::RDMA_CM_EVENT_ESTABLISHED && self.private_data.get().is_none() {
            let data = ev.private_data();
            if !data.is_empty() {
                match try_copy(data) {
                    Ok(d) => pdata = Some(d),
                    Err(e) => {
                        ev.ack()?;
                        return Err(e);
                    }
                }
            }
        }
        ev.ack()?;
        if let Some(d) = pdata {
            // Another thread's event may have set it meanwhile; the first
            // copy stays.
            let _ = self.private_data.set(d);
        }
        if kind == sys::RDMA_CM_EVENT_ESTABLISHED {
            // Setting it twice (a second thread's event) is harmless.
            verbs::apply_min_rnr_timer(self.qp, self.rnr_timer_on_established);
        }
        let event = match kind {
            sys::RDMA_CM_EVENT_ESTABLISHED => ConnEvent::Established,
            sys::RDMA_CM_EVENT_CONNECT_ERROR | sys::RDMA_CM_EVENT_DEVICE_REMOVAL => ConnEvent::Lost,
            sys::RDMA_CM_EVENT_DISCONNECTED | sys::RDMA_CM_EVENT_TIMEWAIT_EXIT => ConnEvent::Closed,
            sys::RDMA_CM_EVENT_REJECTED => ConnEvent::Rejected,
            sys::RDMA_CM_EVENT_UNREACHABLE => ConnEvent::Unreachable,
            other => {
                // SAFETY: rdma_event_str returns a static string for any value.
                let name = unsafe { std::ffi::CStr::from_ptr(sys::rdma_event_str(other)) };
                rpma_log!(
                    Level::Warning,
                    Op::ConnNextEvent,
                    "Unexpected event received: {}",
                    name.to_string_lossy()
                );
                return Err(Error::Unknown);
            }
        };
        rpma_log!(
            Level::Notice,
            Op::ConnNextEvent,
            "{}",
            event.as_cstr().to_string_lossy()
        );
        Ok(event)
    }

    /// Starts (or, after CLOSED, completes) the disconnection.
    ///
    /// # Errors
    /// `Error::Provider` when `rdma_disconnect` fails.
    pub fn disconnect(&self) -> Result<()> {
        rpma_log!(
            Level::Notice,
            Op::ConnDisconnect,
            "Requesting for disconnection"
        );
        self.id().disconnect()
    }

    /// What the peer sent with its request (incoming connections) or its
    /// accept (outgoing ones, known once the connection is established).
    ///
    /// rdma_cm does not carry the length the peer sent: on RoCE and IB
    /// the data comes zero-padded to the transport's full size (56 bytes
    /// with a request, 196 with an accept), so a protocol that sends data
    /// of varying length carries its length itself. On iWARP it is exactly
    /// what was sent.
    pub fn private_data(&self) -> Option<&[u8]> {
        self.private_data.get().map(|d| &d[..])
    }

    /// Takes over the remote peer's declaration of direct write to
    /// persistent memory (a snapshot; the configuration may go away).
    pub fn apply_remote_peer_cfg(&self, cfg: &PeerCfg) {
        self.direct_write_to_pmem
            .store(cfg.direct_write_to_pmem(), SeqCst);
    }

    /// Whether the remote peer declared direct write to persistent memory
    /// (the latest `apply_remote_peer_cfg`), which a persistent flush needs.
    pub fn direct_write_to_pmem(&self) -> bool {
        self.direct_write_to_pmem.load(SeqCst)
    }

    /// The number of the connection's queue pair.
    pub fn qp_num(&self) -> u32 {
        // SAFETY: the QP exists from creation until delete.
        unsafe { (*self.qp).qp_num }
    }

    raw_api! {
        /// The connection's queue pair, for callers that drive libibverbs
        /// directly; it lives as long as the connection.
        #[inline]
        fn qp(&self) -> *mut sys::ibv_qp {
            self.qp
        }
    }

    /// The main CQ.
    pub fn cq(&self) -> &Cq {
        &self.queues().cq
    }

    /// The connection's own receive CQ, if it has one.
    pub fn rcq(&self) -> Option<&Cq> {
        self.queues().rcq.as_ref()
    }

    /// The fd of the shared completion channel, if the connection has one.
    pub fn compl_fd(&self) -> Option<BorrowedFd<'_>> {
        self.queues().shared.as_ref().map(CompChannel::borrowed_fd)
    }

    /// Releases the parts; nothing is left to release afterwards (the
    /// `Drop` after a `delete` finds nothing).
    fn release(&mut self) -> Result<()> {
        let Some(parts) = self.parts.take() else {
            return Ok(());
        };
        let mut errors = FirstError::default();
        errors.note(FlushTarget::release(self.flush.take()));
        errors.note(parts.release(self.unanswered));
        errors.result()
    }

    /// Releases everything and reports the first failure; does not
    /// disconnect first (dropping the connection does the same and ignores
    /// failures).
    ///
    /// # Errors
    /// `Error::Provider` when a release step fails (`ibv_destroy_cq`,
    /// `ibv_destroy_comp_channel`, `rdma_reject` of a request never
    /// accepted, `rdma_destroy_id`, or `ibv_dereg_mr` of the peer's flush
    /// target when this was its last user); `Error::Inval` when that flush
    /// target's page cannot be unmapped.
    pub fn delete(mut self) -> Result<()> {
        self.release()
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.release();
    }
}
