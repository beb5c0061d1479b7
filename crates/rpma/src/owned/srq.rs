//! The owned shared receive queue, and the connection configuration that
//! can name one.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

use super::{Local, Peer};
use crate::conn_cfg;
use crate::cq::Cq;
use crate::error::Result;
use crate::srq;
use crate::srq_cfg::SrqCfg;

/// A shared receive queue: the receives of every connection configured
/// with it ([`ConnCfg::set_srq`]) come from here. Cloning is cheap; the
/// queue goes when the last clone and the last connection using it are
/// gone.
#[derive(Debug, Clone)]
pub struct Srq {
    // The queue holds its peer.
    srq: Arc<srq::Srq>,
}

impl Srq {
    /// Creates a shared receive queue on `peer`, sized by `cfg` (or the
    /// defaults), with its own receive completion queue unless the
    /// configuration's CQ size is 0.
    ///
    /// # Errors
    /// `Error::Provider` when the device refuses the queue or its CQ.
    pub fn new(peer: &Peer, cfg: Option<&SrqCfg>) -> Result<Srq> {
        Ok(Srq {
            srq: Arc::new(srq::Srq::new(peer, cfg)?),
        })
    }

    /// Posts `dst` for a message to any connection using the queue;
    /// `context` comes back in the receive's completion.
    ///
    /// # Errors
    /// `Error::Provider` when the queue is full or the provider refuses
    /// the post.
    pub fn recv(&self, dst: Local<'_>, context: u64) -> Result<()> {
        self.srq.recv(Some(dst.mr), dst.offset, dst.len, context)
    }

    /// The queue's own receive completion queue, if it has one (otherwise
    /// each connection's completion queue reports its receives).
    pub fn rcq(&self) -> Option<&Cq> {
        self.srq.rcq()
    }
}

/// A connection configuration ([`conn_cfg::ConnCfg`], through `Deref`,
/// for the sizes and the timeout) that can name a shared receive queue,
/// which every request and connection made with it keeps alive.
#[derive(Debug, Default)]
pub struct ConnCfg {
    // The configuration may point to the queue: it goes first.
    cfg: conn_cfg::ConnCfg<'static>,
    srq: Option<Srq>,
}

impl ConnCfg {
    /// The defaults of the C library.
    pub fn new() -> ConnCfg {
        ConnCfg::default()
    }

    /// Makes the connections receive through `srq`.
    pub fn set_srq(&mut self, srq: &Srq) {
        let srq = srq.clone();
        // SAFETY: the configuration holds a clone of the queue from now
        // on, and so does every request made from it (`srq`), so the
        // queue outlives every read of the pointer.
        unsafe { self.cfg.set_srq_unchecked(NonNull::from(&*srq.srq)) };
        self.srq = Some(srq);
    }

    /// The queue the connections receive through, if one was set.
    pub fn srq(&self) -> Option<&Srq> {
        self.srq.as_ref()
    }
}

impl Deref for ConnCfg {
    type Target = conn_cfg::ConnCfg<'static>;
    fn deref(&self) -> &conn_cfg::ConnCfg<'static> {
        &self.cfg
    }
}
