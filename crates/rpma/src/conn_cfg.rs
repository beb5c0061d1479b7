//! Connection configuration: the knobs read when a connection request is
//! created. Every field is atomic, so one configuration may be read and
//! changed from several threads; a request takes a snapshot and later changes
//! do not affect it.
//!
//! [`ConnCfg`] holds the parameters of the connections built from it
//! (timeout, queue sizes, completion channel, shared receive queue). A
//! configuration that names a shared receive queue holds a clone of it,
//! and so does every request and connection built from it.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering::SeqCst};

use crate::error::{Error, Result};
use crate::srq::Srq;

pub use crate::timeouts::DEFAULT_TIMEOUT_MS;
/// Default size of the main completion queue and of each work queue.
pub const DEFAULT_Q_SIZE: u32 = 10;
/// By default no separate receive completion queue is created.
pub const DEFAULT_RCQ_SIZE: u32 = 0;

// The doc is for rustdoc only: a doc comment would also reach
// include/librpma.h through cbindgen, which must stay as it is.
#[cfg_attr(
    doc,
    doc = "The parameters of the connection requests built from it: resolution \
           timeout, queue sizes, completion channel and shared receive queue. \
           A clone of the configuration has the same values at the moment \
           of the clone.\n\n\
           ```\n\
           use rpma::conn_cfg::ConnCfg;\n\
           let cfg = ConnCfg::new();\n\
           cfg.set_sq_size(64);\n\
           cfg.set_rq_size(64);\n\
           assert_eq!(cfg.clone().sq_size(), 64);\n\
           ```"
)]
#[allow(missing_docs)]
#[derive(Debug)]
pub struct ConnCfg {
    timeout_ms: AtomicI32,
    cq_size: AtomicU32,
    rcq_size: AtomicU32,
    sq_size: AtomicU32,
    rq_size: AtomicU32,
    shared_compl_channel: AtomicBool,
    srq: Option<Srq>,
}

/// The values of a configuration at one moment.
#[derive(Debug, Clone)]
pub(crate) struct ConnSettings {
    pub timeout_ms: i32,
    pub cq_size: u32,
    pub rcq_size: u32,
    pub sq_size: u32,
    pub rq_size: u32,
    pub shared_compl_channel: bool,
    pub srq: Option<Srq>,
}

impl Default for ConnCfg {
    fn default() -> Self {
        ConnCfg {
            timeout_ms: AtomicI32::new(DEFAULT_TIMEOUT_MS),
            cq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            rcq_size: AtomicU32::new(DEFAULT_RCQ_SIZE),
            sq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            rq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            shared_compl_channel: AtomicBool::new(false),
            srq: None,
        }
    }
}

impl Clone for ConnCfg {
    fn clone(&self) -> Self {
        let s = self.settings();
        ConnCfg {
            timeout_ms: AtomicI32::new(s.timeout_ms),
            cq_size: AtomicU32::new(s.cq_size),
            rcq_size: AtomicU32::new(s.rcq_size),
            sq_size: AtomicU32::new(s.sq_size),
            rq_size: AtomicU32::new(s.rq_size),
            shared_compl_channel: AtomicBool::new(s.shared_compl_channel),
            srq: s.srq,
        }
    }
}

impl ConnCfg {
    /// A configuration with the default values and no SRQ.
    pub fn new() -> Self {
        ConnCfg::default()
    }

    /// Sets the resolution timeout (0 is allowed).
    ///
    /// # Errors
    /// `Error::Inval` when `timeout_ms` is negative.
    pub fn set_timeout(&self, timeout_ms: i32) -> Result<()> {
        if timeout_ms < 0 {
            return Err(Error::inval("timeout_ms: negative"));
        }
        self.timeout_ms.store(timeout_ms, SeqCst);
        Ok(())
    }

    /// The resolution timeout, in milliseconds.
    pub fn timeout(&self) -> i32 {
        self.timeout_ms.load(SeqCst)
    }

    /// Sets the size of the main completion queue.
    pub fn set_cq_size(&self, size: u32) {
        self.cq_size.store(size, SeqCst);
    }

    /// The size of the main completion queue.
    pub fn cq_size(&self) -> u32 {
        self.cq_size.load(SeqCst)
    }

    /// Sets the size of the separate receive completion queue (0: receives
    /// complete on the main one).
    pub fn set_rcq_size(&self, size: u32) {
        self.rcq_size.store(size, SeqCst);
    }

    /// The size of the receive completion queue (0: none).
    pub fn rcq_size(&self) -> u32 {
        self.rcq_size.load(SeqCst)
    }

    /// Sets the size of the send queue.
    pub fn set_sq_size(&self, size: u32) {
        self.sq_size.store(size, SeqCst);
    }

    /// The size of the send queue.
    pub fn sq_size(&self) -> u32 {
        self.sq_size.load(SeqCst)
    }

    /// Sets the size of the receive queue.
    pub fn set_rq_size(&self, size: u32) {
        self.rq_size.store(size, SeqCst);
    }

    /// The size of the receive queue.
    pub fn rq_size(&self) -> u32 {
        self.rq_size.load(SeqCst)
    }

    /// Chooses whether the completion queues share one completion channel.
    pub fn set_compl_channel(&self, shared: bool) {
        self.shared_compl_channel.store(shared, SeqCst);
    }

    /// Whether the completion queues share one completion channel.
    pub fn compl_channel(&self) -> bool {
        self.shared_compl_channel.load(SeqCst)
    }

    /// Makes connections built from this configuration receive through
    /// `srq`. The configuration holds a clone of the queue, and so does every
    /// request and connection built from it, so the queue lives as long
    /// as they do.
    ///
    /// ```no_run
    /// use rpma::{conn_cfg::ConnCfg, ep::Ep, peer::Peer, srq::Srq};
    ///
    /// fn serve(peer: &Peer, ep: &Ep) -> rpma::Result<()> {
    ///     let srq = Srq::new(peer, None)?;
    ///     let mut cfg = ConnCfg::new();
    ///     cfg.set_srq(&srq);
    ///     let conn = ep.next_request(Some(&cfg))?.connect(b"")?;
    ///     // the connection keeps the queue: deleting it now says it is busy
    ///     assert!(srq.clone().delete().is_err());
    ///     conn.delete()?;
    ///     drop(cfg);
    ///     srq.delete()
    /// }
    /// ```
    pub fn set_srq(&mut self, srq: &Srq) {
        self.srq = Some(srq.clone());
    }

    /// The shared receive queue set, if any.
    pub fn srq(&self) -> Option<&Srq> {
        self.srq.as_ref()
    }

    /// All values at once, as a connection request records them.
    pub(crate) fn settings(&self) -> ConnSettings {
        ConnSettings {
            timeout_ms: self.timeout(),
            cq_size: self.cq_size(),
            rcq_size: self.rcq_size(),
            sq_size: self.sq_size(),
            rq_size: self.rq_size(),
            shared_compl_channel: self.compl_channel(),
            srq: self.srq.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let s = ConnCfg::new().settings();
        assert_eq!(
            (s.timeout_ms, s.cq_size, s.rcq_size, s.sq_size, s.rq_size),
            (1000, 10, 0, 10, 10)
        );
        assert!(!s.shared_compl_channel);
        assert!(s.srq.is_none());
    }

    #[test]
    fn negative_timeout_is_rejected_and_changes_nothing() {
        let cfg = ConnCfg::new();
        assert_eq!(
            cfg.set_timeout(-1),
            Err(Error::inval("timeout_ms: negative"))
        );
        assert_eq!(cfg.timeout(), 1000);
        cfg.set_timeout(0).unwrap();
        assert_eq!(cfg.timeout(), 0);
        cfg.set_timeout(i32::MAX).unwrap();
        assert_eq!(cfg.timeout(), i32::MAX);
    }

    #[test]
    fn sizes_take_the_full_u32_range() {
        let cfg = ConnCfg::new();
        for v in [0, 1, u32::MAX] {
            cfg.set_cq_size(v);
            cfg.set_rcq_size(v);
            cfg.set_sq_size(v);
            cfg.set_rq_size(v);
            assert_eq!(
                (cfg.cq_size(), cfg.rcq_size(), cfg.sq_size(), cfg.rq_size()),
                (v, v, v, v)
            );
        }
    }

    #[test]
    fn a_clone_takes_the_values_of_the_moment() {
        let cfg = ConnCfg::new();
        cfg.set_cq_size(3);
        cfg.set_compl_channel(true);
        let copy = cfg.clone();
        cfg.set_cq_size(4);
        assert_eq!((copy.cq_size(), copy.compl_channel()), (3, true));
        assert_eq!(cfg.cq_size(), 4);
    }
}
