//! Connection configuration: the knobs read when a connection request is
//! created. Every field is atomic, so one configuration may be read and
//! changed from several threads; a request takes a snapshot and later changes
//! do not affect it.
//!
//! [`ConnCfg`] holds the parameters of the connections built from it
//! (timeout, queue sizes, completion channel, shared receive queue). A
//! configuration that names a shared receive queue borrows it: the lifetime
//! `'srq` keeps the queue alive for as long as the configuration can still
//! hand it to a new connection request (see [`ConnCfg::set_srq`]).

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, Ordering::SeqCst};

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
           A configuration that names an SRQ borrows it for `'srq` (see \
           [`ConnCfg::set_srq`])."
)]
#[allow(missing_docs)]
#[derive(Debug)]
pub struct ConnCfg<'srq> {
    timeout_ms: AtomicI32,
    cq_size: AtomicU32,
    rcq_size: AtomicU32,
    sq_size: AtomicU32,
    rq_size: AtomicU32,
    shared_compl_channel: AtomicBool,
    /// Null or an SRQ that outlives `'srq` (a borrow from `set_srq`, or the
    /// C caller's promise to `set_srq_unchecked`).
    srq: AtomicPtr<Srq>,
    /// The borrow of the SRQ, for the borrow checker and for the auto
    /// traits (a configuration is Send/Sync only if `&Srq` is).
    _srq: PhantomData<&'srq Srq>,
}

/// The values of a configuration at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConnSettings {
    pub timeout_ms: i32,
    pub cq_size: u32,
    pub rcq_size: u32,
    pub sq_size: u32,
    pub rq_size: u32,
    pub shared_compl_channel: bool,
    pub srq: Option<NonNull<Srq>>,
}

impl Default for ConnCfg<'_> {
    fn default() -> Self {
        ConnCfg {
            timeout_ms: AtomicI32::new(DEFAULT_TIMEOUT_MS),
            cq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            rcq_size: AtomicU32::new(DEFAULT_RCQ_SIZE),
            sq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            rq_size: AtomicU32::new(DEFAULT_Q_SIZE),
            shared_compl_channel: AtomicBool::new(false),
            srq: AtomicPtr::new(std::ptr::null_mut()),
            _srq: PhantomData,
        }
    }
}

impl<'srq> ConnCfg<'srq> {
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
            return Err(Error::Inval);
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
    /// `srq`, which stays borrowed for as long as the configuration lives,
    /// and as long as any request or connection built from it
    /// ([`ConnReq<'a>`](crate::conn_req::ConnReq) and
    /// [`Conn<'a>`](crate::conn::Conn) carry the borrow on). There is no way
    /// back to "no SRQ".
    ///
    /// ```no_run
    /// use rpma::{conn_cfg::ConnCfg, ep::Ep, peer::Peer, srq::Srq};
    ///
    /// fn serve(peer: &Peer, ep: &Ep) -> rpma::Result<()> {
    ///     let srq = Srq::new(peer, None)?;
    ///     let mut cfg = ConnCfg::new();
    ///     cfg.set_srq(&srq);
    ///     let req = ep.next_conn_req(Some(&cfg))?;
    ///     drop(cfg);
    ///     let conn = req.connect(None)?;
    ///     // ... the connection receives through the SRQ ...
    ///     conn.delete()?;
    ///     srq.delete()
    /// }
    /// ```
    ///
    /// Deleting the SRQ while a connection that receives through it still
    /// lives does not compile, although the configuration is gone (E0505:
    /// the SRQ is moved out while the connection borrows it):
    ///
    /// ```compile_fail,E0505
    /// use rpma::{conn_cfg::ConnCfg, ep::Ep, peer::Peer, srq::Srq};
    ///
    /// fn serve(peer: &Peer, ep: &Ep) -> rpma::Result<()> {
    ///     let srq = Srq::new(peer, None)?;
    ///     let mut cfg = ConnCfg::new();
    ///     cfg.set_srq(&srq);
    ///     let req = ep.next_conn_req(Some(&cfg))?;
    ///     drop(cfg);
    ///     let conn = req.connect(None)?;
    ///     srq.delete()?;
    ///     conn.delete()
    /// }
    /// ```
    ///
    /// Dropping the SRQ while the configuration is still used afterwards
    /// does not compile (E0505: the SRQ is moved out while borrowed):
    ///
    /// ```compile_fail,E0505
    /// use rpma::{conn_cfg::ConnCfg, ep::Ep, peer::Peer, srq::Srq};
    ///
    /// fn serve(peer: &Peer, ep: &Ep) -> rpma::Result<()> {
    ///     let srq = Srq::new(peer, None)?;
    ///     let mut cfg = ConnCfg::new();
    ///     cfg.set_srq(&srq);
    ///     drop(srq);
    ///     let _req = ep.next_conn_req(Some(&cfg))?;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// `&mut self` rather than `&self`: through a shared reference a
    /// `ConnCfg<'long>` could be seen as a `ConnCfg<'short>` and be given an
    /// SRQ that dies before it does. So a shared configuration cannot take
    /// a queue that lives shorter than it (E0596: not borrowed mutably):
    ///
    /// ```compile_fail,E0596
    /// use rpma::{conn_cfg::ConnCfg, peer::Peer, srq::Srq};
    ///
    /// fn attach(cfg: &ConnCfg<'static>, peer: &Peer) -> rpma::Result<()> {
    ///     let srq = Srq::new(peer, None)?;
    ///     cfg.set_srq(&srq);
    ///     Ok(())
    /// }
    /// ```
    pub fn set_srq(&mut self, srq: &'srq Srq) {
        // The borrow of 'srq keeps the queue.
        self.srq.store(std::ptr::from_ref(srq).cast_mut(), SeqCst);
    }

    /// Makes connections use the SRQ at `srq` without borrowing it: for
    /// the C API, whose configurations live in heap handles and get the
    /// queue as a raw pointer.
    ///
    /// # Safety
    /// `srq` points to a live [`Srq`] that is not dropped while this
    /// configuration may still be read by a request being built from it
    /// (`Ep::next_conn_req`, `ConnReq::new`): the contract of
    /// `rpma_conn_cfg_set_srq`, whose caller keeps the SRQ until every
    /// connection request made with the configuration exists.
    pub unsafe fn set_srq_unchecked(&self, srq: NonNull<Srq>) {
        self.srq.store(srq.as_ptr(), SeqCst);
    }

    /// The SRQ set, if any, as a pointer (what `rpma_conn_cfg_get_srq`
    /// returns).
    pub fn srq(&self) -> Option<NonNull<Srq>> {
        NonNull::new(self.srq.load(SeqCst))
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
            srq: self.srq(),
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
            s,
            ConnSettings {
                timeout_ms: 1000,
                cq_size: 10,
                rcq_size: 0,
                sq_size: 10,
                rq_size: 10,
                shared_compl_channel: false,
                srq: None,
            }
        );
    }

    #[test]
    fn negative_timeout_is_rejected_and_changes_nothing() {
        let cfg = ConnCfg::new();
        assert_eq!(cfg.set_timeout(-1), Err(Error::Inval));
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
    fn srq_is_remembered() {
        let cfg = ConnCfg::new();
        let fake = NonNull::<Srq>::dangling();
        // SAFETY: the configuration is only read back here, never used to
        // build a request, so the pointer is never dereferenced.
        unsafe { cfg.set_srq_unchecked(fake) };
        assert_eq!(cfg.srq(), Some(fake));
        cfg.set_compl_channel(true);
        assert!(cfg.settings().shared_compl_channel);
    }
}
