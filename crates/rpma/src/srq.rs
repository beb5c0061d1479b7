//! Shared receive queue: one receive queue that several connections take
//! their incoming messages from, optionally with its own receive CQ.

use std::ptr::NonNull;
use std::sync::Arc;

use crate::alloc::try_arc;
use crate::cq::Cq;
use crate::error::{check_errno_value, provider_failed, Result};
use crate::mr::MrLocal;
use crate::peer::Peer;
use crate::post;
use crate::range::Local;
use crate::srq_cfg::SrqCfg;
use crate::sys;

// The doc is for rustdoc only: a doc comment would also reach
// include/librpma.h through cbindgen.
#[cfg_attr(
    doc,
    doc = "A shared receive queue: the receives of every connection configured
with it (`ConnCfg::set_srq`) come
from here. A clone is another handle to the same queue; every request
and connection made with the queue holds one, so the queue goes with
the last of them.

```no_run
use rpma::conn_cfg::ConnCfg;
use rpma::peer::Peer;
use rpma::srq::Srq;

fn receive_through_one_queue(peer: &Peer) -> rpma::Result<ConnCfg> {
    let srq = Srq::new(peer, None)?;
    let mut cfg = ConnCfg::new();
    // every request built from `cfg` receives through `srq`
    cfg.set_srq(&srq);
    Ok(cfg)
}
```"
)]
#[allow(missing_docs)]
#[derive(Debug, Clone)]
pub struct Srq {
    queue: Arc<Queue>,
}

/// What the handles of one shared receive queue share.
#[derive(Debug)]
struct Queue {
    // Field order is release order: the CQ goes before the queue, as in the
    // C library.
    rcq: Option<Cq>,
    srq: NonNull<sys::ibv_srq>,
    /// Whether the device is iWARP (the receive of nothing differs there).
    iwarp: bool,
    /// The peer whose protection domain holds the queue: let go after the
    /// queue (Drop runs before the fields go), and taken out by `release`.
    peer: Option<Peer>,
}

// SAFETY: an ibv_srq is a libibverbs object usable from any thread; the
// handle is not mutated after creation.
unsafe impl Send for Queue {}
// SAFETY: as above.
unsafe impl Sync for Queue {}

impl Srq {
    /// Creates an SRQ on the peer's protection domain, sized by `cfg` (or
    /// the defaults), with its own receive CQ when the CQ size is not 0.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_create_srq` fails, or the receive CQ
    /// cannot be made (`ibv_create_comp_channel`, `ibv_create_cq`,
    /// `ibv_req_notify_cq`); `Error::NoMem` when the queue's shared part
    /// cannot be allocated.
    pub fn new(peer: &Peer, cfg: Option<&SrqCfg>) -> Result<Srq> {
        let default = SrqCfg::new();
        let cfg = cfg.unwrap_or(&default);
        let mut attr: sys::ibv_srq_init_attr = Default::default();
        attr.attr.max_wr = cfg.rq_size();
        attr.attr.max_sge = 1;
        // SAFETY: the PD is live; attr is initialised.
        let srq = unsafe { sys::ibv_create_srq(peer.pd(), &mut attr) };
        let srq = NonNull::new(srq).ok_or_else(|| provider_failed("ibv_create_srq"))?;
        let mut queue = Queue {
            rcq: None,
            srq,
            iwarp: peer.is_iwarp(),
            peer: Some(peer.clone()),
        };
        if cfg.rcq_size() > 0 {
            queue.rcq = Some(Cq::new(peer.context(), cfg.rcq_size(), None)?);
        }
        Ok(Srq {
            queue: try_arc(queue)?,
        })
    }

    /// The libibverbs SRQ, live as long as `self`.
    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_srq {
        self.queue.srq.as_ptr()
    }

    /// Posts `dst` for a message to any connection using the queue;
    /// `context` comes back as the receive's completion's `wr_id`.
    /// Buffers are taken in no promised order.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_post_srq_recv` fails (the queue is
    /// full, or the provider refuses the post).
    pub fn recv(&self, dst: Local<'_>, context: u64) -> Result<()> {
        self.recv_at(Some(dst.mr), dst.offset, dst.len, context)
    }

    raw_api! {
        /// [`Srq::recv`] as C calls it: `len` bytes at `offset` of `dst`,
        /// or nothing (a 0-byte buffer; on iWARP one empty scatter/gather
        /// entry, as for a connection's receive).
        ///
        /// # Errors
        /// `Error::Inval` when `dst` is `None` but `offset` or `len` is
        /// not 0; otherwise as [`Srq::recv`]. The range is the device's to
        /// check against the region, as in the C library.
        fn recv_at(
            &self,
            dst: Option<&MrLocal>,
            offset: usize,
            len: usize,
            op_context: u64,
        ) -> Result<()> {
            let queue = post::RecvQueue::Srq(self.as_ptr());
            post::recv_into(queue, dst, offset, len, self.queue.iwarp, op_context)
        }
    }

    /// The SRQ's own receive CQ, if it has one (otherwise each connection's
    /// completion queue reports its receives).
    pub fn rcq(&self) -> Option<&Cq> {
        self.queue.rcq.as_ref()
    }

    /// Releases the receive CQ and then the queue; both are attempted.
    ///
    /// While requests or connections made with the queue live (or other
    /// clones), it stays for them, and this reports what the C library's
    /// release would: `Error::Provider`, with the log of `EBUSY` failures
    /// of `ibv_destroy_cq` and `ibv_destroy_comp_channel` (for the receive
    /// CQ) and `ibv_destroy_srq`. The last of them releases it.
    ///
    /// # Errors
    /// `Error::Provider` when the queue is in use (above), or
    /// `ibv_destroy_cq`, `ibv_destroy_comp_channel` or `ibv_destroy_srq`
    /// fails, or when the program deleted the peer first and its domain,
    /// released now, fails to go ([`Peer::delete`]); the first failure is
    /// returned.
    pub fn delete(self) -> Result<()> {
        let has_rcq = self.queue.rcq.is_some();
        match Arc::into_inner(self.queue) {
            Some(queue) => queue.release(),
            None => {
                let busy = |call| check_errno_value(call, libc::EBUSY);
                let rcq = match has_rcq {
                    true => busy("ibv_destroy_cq").and(busy("ibv_destroy_comp_channel")),
                    false => Ok(()),
                };
                rcq.and(busy("ibv_destroy_srq"))
            }
        }
    }

    /// A request's or a connection's clone let go at its end: when it was
    /// the last (the program deleted the queue while they lived), the
    /// queue is released here, with any failure reported.
    pub(crate) fn release(self) -> Result<()> {
        Arc::into_inner(self.queue).map_or(Ok(()), Queue::release)
    }
}

impl Queue {
    fn release(mut self) -> Result<()> {
        let r = self.rcq.take().map_or(Ok(()), Cq::destroy);
        let srq = self.srq.as_ptr();
        let peer = self.peer.take();
        std::mem::forget(self);
        // SAFETY: the SRQ is ours; no QP uses it any more (every QP made
        // with it held a clone of the queue, and the last is gone).
        let r2 = check_errno_value("ibv_destroy_srq", unsafe { sys::ibv_destroy_srq(srq) });
        let r3 = peer.map_or(Ok(()), Peer::release);
        r.and(r2).and(r3)
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        drop(self.rcq.take());
        // SAFETY: as in release.
        unsafe { sys::ibv_destroy_srq(self.srq.as_ptr()) };
    }
}
