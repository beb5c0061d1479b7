//! The two ways to a connection: a listener's incoming requests, and
//! requests made towards a listening peer.

use std::ffi::CString;
use std::net::SocketAddr;
use std::os::fd::BorrowedFd;
use std::time::Duration;

use super::{Conn, ConnCfg, Local, Peer};
use crate::conn_req::ConnReq;
use crate::ep::Ep;
use crate::error::Result;
use crate::ready;

/// The address and port of `addr` as rdma_cm takes them.
fn host_and_port(addr: SocketAddr) -> (CString, CString) {
    let text = |s: String| CString::new(s).expect("an address has no NUL");
    (text(addr.ip().to_string()), text(addr.port().to_string()))
}

/// A listening endpoint: hands out one [`Request`] per peer that
/// connects.
#[derive(Debug)]
pub struct Listener {
    // The endpoint does not hold its peer (requests do): the listener
    // keeps it for the requests to come.
    ep: Ep,
    _peer: Peer,
}

impl Listener {
    /// Listens on `addr`, a local address of `peer`'s device.
    ///
    /// # Errors
    /// `Error::Provider` when the address cannot be resolved or bound, or
    /// the listen fails (the log says why).
    pub fn bind(peer: &Peer, addr: SocketAddr) -> Result<Listener> {
        let (host, port) = host_and_port(addr);
        let ep = Ep::listen_cstr(peer, &host, &port)?;
        // non-blocking, so that the waits here are bounded by their
        // deadlines
        ready::set_nonblocking(ep.fd())?;
        Ok(Listener {
            ep,
            _peer: peer.clone(),
        })
    }

    /// The fd that is readable when a request waits: poll it to wait with
    /// a deadline.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.ep.fd()
    }

    /// Takes the next incoming request and builds its queues from `cfg`
    /// (or the defaults). Blocks until one comes.
    ///
    /// # Errors
    /// `Error::Inval` when the next event is not a request (it is
    /// consumed), or `cfg` asks for a shared completion channel with a
    /// shared receive queue that has its own receive CQ (the request is
    /// rejected); `Error::Provider` when the queues cannot be built (the
    /// request is rejected; `ibv_create_cq` or `rdma_create_qp_ex` says
    /// why) or the event channel fails; `Error::NoMem` when the request
    /// cannot be allocated (it is rejected).
    pub fn next_request(&self, cfg: Option<&ConnCfg>) -> Result<Request> {
        let got = ready::take_within(self.fd(), None, || self.try_next_request(cfg))?;
        Ok(got.expect("a wait without a deadline ends with a request"))
    }

    /// The next incoming request if one waits, without waiting.
    ///
    /// # Errors
    /// As [`Listener::next_request`].
    pub fn try_next_request(&self, cfg: Option<&ConnCfg>) -> Result<Option<Request>> {
        Ok(self.ep.try_next_conn_req(cfg)?.map(|req| Request { req }))
    }

    /// The next incoming request, waiting at most `timeout` for it: `None`
    /// when none came in time.
    ///
    /// # Errors
    /// As [`Listener::next_request`]; `Error::Provider` (`poll`) when the
    /// wait fails.
    pub fn next_request_timeout(
        &self,
        cfg: Option<&ConnCfg>,
        timeout: Duration,
    ) -> Result<Option<Request>> {
        ready::take_within(self.fd(), Some(timeout), || self.try_next_request(cfg))
    }

    /// Stops listening. Requests already taken from the listener, and
    /// connections made through it, live on: each request has an event
    /// channel of its own from the moment it is taken, so it can still be
    /// connected, on any thread.
    ///
    /// # Errors
    /// `Error::Provider` when the cm id cannot be destroyed.
    pub fn shutdown(self) -> Result<()> {
        self.ep.shutdown()
    }
}

/// A connection request: the queues are ready, the connection is not.
/// Dropping it rejects an incoming request.
#[derive(Debug)]
pub struct Request {
    req: Box<ConnReq>,
}

impl Request {
    /// Prepares a connection to `addr`, where a [`Listener`] waits:
    /// resolves the address and the route and builds the queues.
    ///
    /// # Errors
    /// `Error::Provider` when the address or the route cannot be resolved
    /// (`rdma_resolve_addr`, `rdma_resolve_route`: `ETIMEDOUT` when
    /// nothing answers within the configured timeout) or the queues cannot
    /// be built (`ibv_create_cq`, `rdma_create_qp_ex`); `Error::Inval` when
    /// `cfg` asks for a shared completion channel with a shared receive
    /// queue that has its own receive CQ; `Error::NoMem` when the request
    /// cannot be allocated.
    pub fn new(peer: &Peer, addr: SocketAddr, cfg: Option<&ConnCfg>) -> Result<Request> {
        let (host, port) = host_and_port(addr);
        let req = ConnReq::new_cstr(peer, &host, &port, cfg)?;
        Ok(Request { req })
    }

    /// Whether the request came in through a listener.
    pub fn is_incoming(&self) -> bool {
        self.req.is_passive()
    }

    /// What the peer sent with an incoming request; zero-padded to 56
    /// bytes on RoCE and IB, as [`Conn::private_data`] says.
    pub fn private_data(&self) -> Option<&[u8]> {
        self.req.private_data()
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
        self.req.recv(dst, context)
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
    pub fn connect(self, pdata: &[u8]) -> Result<Conn> {
        let pdata = (!pdata.is_empty()).then_some(pdata);
        Ok(*self.req.connect(pdata)?)
    }
}
