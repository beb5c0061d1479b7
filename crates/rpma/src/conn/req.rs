//! Connection requests: the half-built connection before it is connected.
//! The active side makes one towards a listening peer; the passive side
//! gets one from its endpoint for each incoming request. Either way the
//! queues (CQs and the QP) are ready, so receives can be posted before the
//! connection exists.

use std::ffi::{c_void, CStr};
use std::mem::ManuallyDrop;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use super::Conn;
use crate::alloc::try_box;
use crate::conn_cfg::{ConnCfg, ConnSettings};
use crate::error::{Error, Result};
use crate::log::{Level, Op};
use crate::mr::MrLocal;
use crate::peer::Peer;
use crate::post;
use crate::queues::{Parts, Queues};
use crate::range::Local;
use crate::sys;
use crate::verbs::{self, host_and_port, AddrInfo, CmId, EventChannel};

// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"A connection request: the queues are ready (receives can be posted),
the connection is not. Dropping an incoming one rejects it.

```
use std::net::SocketAddr;
use std::time::Duration;
use rpma::{Conn, ConnCfg, ConnEvent, ConnReq, Error, Peer};

fn dial(server: SocketAddr) -> rpma::Result<Conn> {
    let peer = Peer::remote(server.ip())?;
    let cfg = ConnCfg::new();
    cfg.set_timeout(2000)?;
    let conn = ConnReq::new(&peer, server, Some(&cfg))?.connect(b"hello")?;
    match conn.next_event_timeout(Duration::from_secs(5))? {
        Some(ConnEvent::Established) => Ok(conn),
        _ => Err(Error::Unknown),
    }
}
```"#
)]
#[allow(missing_docs)] // documented for rustdoc above
#[derive(Debug)]
pub struct ConnReq {
    /// The id and its queues, its event channel, and the clones of the
    /// peer and the SRQ they are on: handed on by `connect`, or released
    /// by `release`.
    parts: Option<Parts>,
    passive: bool,
    private_data: Option<Box<[u8]>>,
}

// SAFETY: the cm id and queues are librdmacm/libibverbs objects usable from
// any thread; the peer and the SRQ are Sync. A request is used by one
// thread at a time (it is consumed or borrowed mutably by everything that
// changes it).
unsafe impl Send for ConnReq {}

/// Transport retries before a request fails with `IBV_WC_RETRY_EXC_ERR`:
/// 6 with an ACK timeout of ours, the C library's 7 without one (the
/// `RPMA_ACK_TIMEOUT=0` switch gives the C library's parameters exactly).
fn retry_count(ack_timeout: u8) -> u8 {
    if ack_timeout == 0 {
        7
    } else {
        6
    }
}

/// The parameters of every connect and accept, as the C library sets them
/// but for the retry count.
fn conn_param(pdata: Option<&[u8]>, ack_timeout: u8) -> sys::rdma_conn_param {
    let mut p: sys::rdma_conn_param = Default::default();
    if let Some(d) = pdata {
        p.private_data = d.as_ptr().cast::<c_void>();
        p.private_data_len = d.len() as u8;
    }
    // The maximum values: librdmacm then uses what the device allows.
    p.responder_resources = sys::RDMA_MAX_RESP_RES as u8;
    p.initiator_depth = sys::RDMA_MAX_INIT_DEPTH as u8;
    p.flow_control = 1;
    // The C library asks for 7, which rxe takes as "retransmit forever", so
    // a peer that vanished is never reported; 6 is finite everywhere
    // (timeouts.rs). The client's value is the one both sides' QPs take.
    p.retry_count = retry_count(ack_timeout);
    // 7: retry forever while the peer has no receive posted.
    p.rnr_retry_count = 7;
    p
}

/// What an incoming request is built of before its event is acked.
#[derive(Debug)]
pub(crate) struct Incoming {
    queues: Queues,
    private_data: Option<Box<[u8]>>,
    evch: EventChannel,
    peer: Peer,
    srq: Option<crate::srq::Srq>,
}

fn settings(cfg: Option<&ConnCfg>) -> ConnSettings {
    cfg.map_or_else(|| ConnCfg::new().settings(), ConnCfg::settings)
}

impl ConnReq {
    /// Prepares a connection to `addr`, where an endpoint listens:
    /// resolves the address and the route (each within the
    /// configuration's timeout) and builds the queues, so receives can be
    /// posted before the connection exists. The request and its
    /// connection hold `peer`, and the SRQ `cfg` names, if any.
    ///
    /// ```no_run
    /// use std::net::SocketAddr;
    /// use rpma::{ConnReq, peer::Peer};
    ///
    /// let server: SocketAddr = "192.168.0.1:7204".parse().unwrap();
    /// let peer = Peer::remote(server.ip())?;
    /// let conn = ConnReq::new(&peer, server, None)?.connect(b"hello")?;
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Provider` when the address or the route cannot be resolved
    /// (`rdma_resolve_addr`, `rdma_resolve_route`: `ETIMEDOUT` when
    /// nothing answers within the configured timeout) or the queues cannot
    /// be built (`ibv_create_cq`, `rdma_create_qp_ex`); `Error::Inval` when
    /// `cfg` asks for a shared completion channel with a shared receive
    /// queue that has its own receive CQ; `Error::NoMem` when the request
    /// cannot be allocated.
    pub fn new(peer: &Peer, addr: SocketAddr, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        let (host, port) = host_and_port(addr);
        ConnReq::resolve(peer, &host, &port, cfg)
    }

    raw_api! {
        /// [`ConnReq::new`] as the C API's `rpma_conn_req_new` calls it: the
        /// address (or a host name) and the port as C strings, and the request
        /// on the heap, ready to be a C handle.
        ///
        /// # Errors
        /// As [`ConnReq::new`]; `Error::Provider` (`rdma_getaddrinfo`) when
        /// the address cannot be resolved.
        fn new_cstr(
            peer: &Peer,
            addr: &CStr,
            port: &CStr,
            cfg: Option<&ConnCfg>,
        ) -> Result<Box<ConnReq>> {
            // A failed allocation drops the request, which releases the
            // queues and the id.
            try_box(ConnReq::resolve(peer, addr, port, cfg)?)
        }
    }

    /// Resolves `addr`:`port` and builds the queues: the body of
    /// [`ConnReq::new`] and of its C form.
    fn resolve(peer: &Peer, addr: &CStr, port: &CStr, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        let s = settings(cfg);
        let info = AddrInfo::resolve(addr, Some(port), false)?;
        // The id is on the connection's event channel from the start and
        // takes the events of its two resolutions there itself. The C
        // library's id is synchronous (librdmacm opens a private channel
        // for it) and moves to a new channel when it connects. Without the
        // move a connection reaches ESTABLISHED sooner
        // (bench/results/history.md, "the phases of a conn cycle"), and
        // costs one open, one close and one migration command less.
        let evch = EventChannel::new()?;
        let id = CmId::new(Some(&evch))?;
        id.resolve_addr(&info, s.timeout_ms, Some(&evch))?;
        id.resolve_route(s.timeout_ms, Some(&evch))?;
        let queues = Queues::build(peer, &id, &s)?;
        rpma_log!(
            Level::Notice,
            Op::ConnReqNew,
            "Requesting a connection to {}:{}",
            addr.to_string_lossy(),
            port.to_string_lossy()
        );
        Ok(ConnReq {
            parts: Some(Parts {
                id,
                queues,
                evch,
                peer: peer.clone(),
                srq: s.srq,
            }),
            passive: false,
            private_data: None,
        })
    }

    /// The passive request of an incoming connect-request event: builds the
    /// queues on the event's id, and the event channel the id will move
    /// to. The caller acks the event afterwards; until then the id must
    /// not be destroyed, hence `ManuallyDrop`. The channel and the private
    /// data come first, so that a failure leaves no QP on the id.
    pub(crate) fn from_incoming(
        peer: &Peer,
        id: &ManuallyDrop<CmId>,
        private_data: &[u8],
        cfg: Option<&ConnCfg>,
    ) -> Result<Incoming> {
        let evch = EventChannel::new()?;
        let pdata = match private_data.is_empty() {
            true => None,
            false => Some(crate::alloc::try_copy(private_data)?),
        };
        let s = settings(cfg);
        let queues = Queues::build(peer, id, &s)?;
        Ok(Incoming {
            queues,
            private_data: pdata,
            evch,
            peer: peer.clone(),
            srq: s.srq,
        })
    }

    /// The passive request made of [`ConnReq::from_incoming`]'s parts.
    /// Dropped, it rejects the request.
    pub(crate) fn assemble(id: CmId, built: Incoming) -> ConnReq {
        let Incoming {
            queues,
            private_data,
            evch,
            peer,
            srq,
        } = built;
        ConnReq {
            parts: Some(Parts {
                id,
                queues,
                evch,
                peer,
                srq,
            }),
            passive: true,
            private_data,
        }
    }

    /// Moves an incoming request's id from its endpoint's event channel to
    /// its own, once the connect-request event is acked
    /// (`rdma_migrate_id` waits for that). Events that came for the id
    /// meanwhile move with it.
    pub(crate) fn leave_endpoint(&self) -> Result<()> {
        let parts = self.parts.as_ref().expect("present until released");
        parts.id.migrate(&parts.evch)
    }

    fn id(&self) -> &CmId {
        &self.parts.as_ref().expect("present until released").id
    }

    /// Whether the request came in through an endpoint.
    pub fn is_incoming(&self) -> bool {
        self.passive
    }

    /// What the peer sent with an incoming request (`None` for an outgoing
    /// one); zero-padded to 56 bytes on RoCE and IB, as
    /// [`Conn::private_data`] says.
    pub fn private_data(&self) -> Option<&[u8]> {
        self.private_data.as_deref()
    }

    /// Posts a receive into `dst` before the connection exists, for the
    /// peer's first message; `context` comes back as its completion's
    /// `wr_id`.
    ///
    /// # Errors
    /// `Error::Provider` (`ibv_post_recv`) when the receive queue is full
    /// (`ENOMEM`) or the provider refuses the post, or the request
    /// receives through a shared receive queue and so has no receive
    /// queue of its own (`EINVAL`).
    pub fn recv(&self, dst: Local<'_>, context: u64) -> Result<()> {
        self.recv_at(dst.mr, dst.offset, dst.len, context)
    }

    raw_api! {
        /// Posts a receive of `len` bytes at `offset` in `dst` on the request's
        /// QP, to be matched by the first message of the peer.
        ///
        /// # Errors
        /// `Error::Provider` when `ibv_post_recv` fails (the receive queue is
        /// full, or the provider refuses the post), or when the request was
        /// made with an SRQ, whose connection has no receive queue of its own
        /// (refused by the library, as [`crate::conn::Conn::recv`] says).
        fn recv_at(&self, dst: &MrLocal, offset: usize, len: usize, op_context: u64) -> Result<()> {
            let sge = post::local(dst, offset, len);
            post::recv(post::RecvQueue::Qp(self.id().qp()), Some(sge), op_context)
        }
    }

    /// Connects (or accepts an incoming request), sending `pdata` as
    /// private data (nothing when empty). The request is consumed either
    /// way; a failure releases it, which rejects an incoming one.
    ///
    /// # Errors
    /// `Error::Inval` when `pdata` is longer than 255 bytes (what rdma_cm
    /// carries is shorter still: 56 bytes with a connect, 196 with an
    /// accept, on RoCE); `Error::Provider` when the connect or accept
    /// fails (`rdma_connect`, `rdma_accept`: `EINVAL` for more private
    /// data than the transport carries), or the peer's flush target cannot
    /// be registered; `Error::NoMem` when the connection or the flush
    /// target's page cannot be allocated.
    pub fn connect(mut self, pdata: &[u8]) -> Result<Conn> {
        let pdata = (!pdata.is_empty()).then_some(pdata);
        Ok(*self.take_into_conn(pdata)?)
    }

    raw_api! {
        /// [`ConnReq::connect`] as the C API's `rpma_conn_req_connect` calls
        /// it: the request and the connection on the heap, and `None` for no
        /// private data. The request is consumed whatever happens; until its parts move
        /// into the connection, a failure releases (and rejects) it on drop.
        ///
        /// Every request already has the event channel its connection keeps:
        /// an active one from [`ConnReq::new`], an incoming one from the moment
        /// its endpoint handed it out (the C library makes the passive side's
        /// after the accept, when the endpoint may be gone and another thread
        /// waiting on the endpoint may have taken the new connection's
        /// events). Two things come before the connect or accept, so that their
        /// failure releases (or rejects) the request: the connection object,
        /// and the peer's flush region, which only the peer's first connection
        /// that emulates flush registers (later ones find it with one atomic
        /// load). The C library registers one after the accept, and when that
        /// fails it waits in `rdma_disconnect` for longer than the tests allow
        /// (rpma_conn_req_connect(3), NOTES).
        ///
        /// # Errors
        /// `Error::Inval` when `pdata` is longer than 255 bytes; `Error::NoMem`
        /// when the connection or the peer's flush target page cannot be
        /// allocated; `Error::Provider` when the flush target cannot be
        /// registered (`ibv_reg_mr`), or `rdma_connect` or `rdma_accept`
        /// fails.
        // boxed, as C holds it: taken by value, the request was first
        // copied out of its box
        #[allow(clippy::boxed_local)]
        fn connect_boxed(mut self: Box<Self>, pdata: Option<&[u8]>) -> Result<Box<Conn>> {
            self.take_into_conn(pdata)
        }
    }

    /// The body of [`ConnReq::connect`] and of its C form: the parts move
    /// into a connection (on the heap, so that an exhausted heap releases
    /// the request before the connect or accept); what is left of the
    /// request then releases nothing when it is dropped.
    fn take_into_conn(&mut self, pdata: Option<&[u8]>) -> Result<Box<Conn>> {
        // rdma_cm's length is one byte: longer data is refused, not cut
        if pdata.is_some_and(|d| d.len() > usize::from(u8::MAX)) {
            return Err(Error::inval("pdata: longer than 255 bytes"));
        }
        let parts = self.parts.take().expect("present until released");
        let (ack_timeout, rnr_timer) = (parts.peer.ack_timeout(), parts.peer.min_rnr_timer());
        let mut param = conn_param(pdata, ack_timeout);
        // the timeout reaches the queue pair when it is made ready to send,
        // inside the accept or after the connect
        parts.id.apply_ack_timeout(ack_timeout);
        let passive = self.passive;
        let private_data = self.private_data.take();
        // A failed allocation drops the connection, which releases the
        // parts (and rejects an incoming request) as the request would.
        let mut conn = try_box(Conn::new(parts, passive))?;
        conn.take_flush_target()?;
        if passive {
            conn.accept(&mut param)?;
            conn.set_min_rnr_timer(rnr_timer);
            conn.keep_private_data(private_data);
        } else {
            conn.set_min_rnr_timer_when_established(rnr_timer);
            conn.connect(&mut param)?;
        }
        Ok(conn)
    }

    fn release(&mut self) -> Result<()> {
        self.parts
            .take()
            .map_or(Ok(()), |parts| parts.release(self.passive))
    }

    /// Deletes the request; an incoming one is rejected, so the peer learns
    /// at once.
    ///
    /// # Errors
    /// `Error::Provider` when a release step fails (`ibv_destroy_cq`,
    /// `ibv_destroy_comp_channel`, `rdma_reject`, `rdma_destroy_id`); every
    /// step is attempted and the first failure returned.
    pub fn delete(mut self) -> Result<()> {
        self.release()
    }
}

impl Drop for ConnReq {
    fn drop(&mut self) {
        let _ = self.release();
    }
}

/// How a request's parts become a connection (`ConnReq::connect_boxed`),
/// kept beside the request: nothing else makes a connection.
impl Conn {
    /// Puts a connection together from a request's parts. `incoming`: the
    /// request came through an endpoint and is not accepted yet, so
    /// releasing the connection before `accept` rejects it.
    fn new(parts: Parts, incoming: bool) -> Conn {
        let qp = parts.id.qp();
        let native = parts.queues.native;
        let event_fd = parts.evch.fd();
        let iwarp = parts.peer.is_iwarp();
        Conn {
            parts: Some(parts),
            flush: None,
            private_data: OnceLock::new(),
            direct_write_to_pmem: AtomicBool::new(false),
            qp,
            native,
            event_fd,
            unanswered: incoming,
            iwarp,
            rnr_timer_on_established: 0,
        }
    }

    /// Takes the peer's flush read target when the connection emulates
    /// flush. A connection that flushes natively reads nowhere: like the C
    /// library's, it holds no flush region (so deleting it deregisters
    /// none).
    fn take_flush_target(&mut self) -> Result<()> {
        if !self.native.flush {
            self.flush = Some(self.parts().peer.flush_target()?);
        }
        Ok(())
    }

    /// Sets the queue pair's receiver-not-ready timer: on the passive side,
    /// whose queue pair is ready to send once the accept has returned.
    fn set_min_rnr_timer(&self, code: u8) {
        verbs::apply_min_rnr_timer(self.qp, code);
    }

    /// Has the first ESTABLISHED event set the queue pair's
    /// receiver-not-ready timer: on the active side, whose queue pair
    /// becomes ready to send as librdmacm takes the peer's answer.
    fn set_min_rnr_timer_when_established(&mut self, code: u8) {
        self.rnr_timer_on_established = code;
    }

    /// Keeps the private data the peer sent with its request.
    fn keep_private_data(&mut self, private_data: Option<Box<[u8]>>) {
        if let Some(p) = private_data {
            let _ = self.private_data.set(p);
        }
    }

    fn connect(&self, param: &mut sys::rdma_conn_param) -> Result<()> {
        self.id().connect(param)
    }

    fn accept(&mut self, param: &mut sys::rdma_conn_param) -> Result<()> {
        self.id().accept(param)?;
        self.unanswered = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeouts::DEFAULT_ACK_TIMEOUT;

    #[test]
    fn no_timeout_means_the_c_librarys_retry_count() {
        assert_eq!(retry_count(0), 7);
        assert_eq!(retry_count(DEFAULT_ACK_TIMEOUT), 6);
    }
}
