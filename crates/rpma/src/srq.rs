//! Shared receive queue: one receive queue that several connections take
//! their incoming messages from, optionally with its own receive CQ.

use std::ptr::NonNull;

use crate::cq::Cq;
use crate::error::{check_errno_value, provider_failed, Result};
use crate::mr::{local_end, MrLocal};
use crate::peer::Peer;
use crate::post;
use crate::srq_cfg::SrqCfg;
use crate::sys;

/// A shared receive queue (opaque to C).
#[derive(Debug)]
pub struct Srq {
    // Field order is release order: the CQ goes before the queue, as in the
    // C library.
    rcq: Option<Cq>,
    srq: NonNull<sys::ibv_srq>,
    /// Whether the device is iWARP (the receive of nothing differs there).
    iwarp: bool,
    /// The peer whose protection domain holds the queue: let go after the
    /// queue (Drop runs before the fields go), and taken out by `delete`.
    peer: Option<Peer>,
}

// SAFETY: an ibv_srq is a libibverbs object usable from any thread; the
// handle is not mutated after creation.
unsafe impl Send for Srq {}
// SAFETY: as above.
unsafe impl Sync for Srq {}

impl Srq {
    /// Creates an SRQ on the peer's protection domain, sized by `cfg` (or
    /// the defaults), with its own receive CQ when the CQ size is not 0.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_create_srq` fails, or the receive CQ
    /// cannot be made (`ibv_create_comp_channel`, `ibv_create_cq`,
    /// `ibv_req_notify_cq`).
    pub fn new(peer: &Peer, cfg: Option<&SrqCfg>) -> Result<Srq> {
        let default = SrqCfg::new();
        let cfg = cfg.unwrap_or(&default);
        let mut attr: sys::ibv_srq_init_attr = Default::default();
        attr.attr.max_wr = cfg.rq_size();
        attr.attr.max_sge = 1;
        // SAFETY: the PD is live; attr is initialised.
        let srq = unsafe { sys::ibv_create_srq(peer.pd(), &mut attr) };
        let srq = NonNull::new(srq).ok_or_else(|| provider_failed("ibv_create_srq"))?;
        let mut me = Srq {
            rcq: None,
            srq,
            iwarp: peer.is_iwarp(),
            peer: Some(peer.clone()),
        };
        if cfg.rcq_size() > 0 {
            me.rcq = Some(Cq::new(peer.context(), cfg.rcq_size(), None)?);
        }
        Ok(me)
    }

    raw_api! {
        /// The libibverbs SRQ, live as long as `self`.
        fn as_ptr(&self) -> *mut sys::ibv_srq {
            self.srq.as_ptr()
        }
    }

    /// Posts a buffer for a message to any connection using the SRQ
    /// (nothing: a 0-byte buffer, on iWARP one empty scatter/gather entry,
    /// as for [`crate::conn::Conn::recv`]). Buffers are taken in no promised order.
    ///
    /// # Errors
    /// `Error::Inval` when `dst` is `None` but `offset` or `len` is not 0;
    /// `Error::Provider` when `ibv_post_srq_recv` fails (the queue is full,
    /// or the provider refuses the post).
    pub fn recv(
        &self,
        dst: Option<&MrLocal<'_>>,
        offset: usize,
        len: usize,
        op_context: u64,
    ) -> Result<()> {
        let sge = local_end(dst, offset, len)?;
        post::recv(
            post::RecvQueue::Srq(self.as_ptr()),
            post::entry_for(sge, self.iwarp),
            op_context,
        )
    }

    /// The SRQ's own receive CQ, if it has one.
    pub fn rcq(&self) -> Option<&Cq> {
        self.rcq.as_ref()
    }

    /// Releases the receive CQ and then the queue; both are attempted.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_destroy_cq`, `ibv_destroy_comp_channel`
    /// or `ibv_destroy_srq` fails, or when the program deleted the peer
    /// first and its domain, released now, fails to go
    /// ([`Peer::delete`]); the first failure is returned.
    pub fn delete(mut self) -> Result<()> {
        let r = self.rcq.take().map_or(Ok(()), Cq::destroy);
        let srq = self.srq.as_ptr();
        let peer = self.peer.take();
        std::mem::forget(self);
        // SAFETY: the SRQ is ours; no QP uses it any more (caller's order).
        let r2 = check_errno_value("ibv_destroy_srq", unsafe { sys::ibv_destroy_srq(srq) });
        let r3 = peer.map_or(Ok(()), Peer::release);
        r.and(r2).and(r3)
    }
}

impl Drop for Srq {
    fn drop(&mut self) {
        drop(self.rcq.take());
        // SAFETY: as in delete.
        unsafe { sys::ibv_destroy_srq(self.srq.as_ptr()) };
    }
}
