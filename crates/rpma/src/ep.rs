//! Endpoints: a listening cm id on a local address, handing out one
//! connection request per incoming connection.

use std::ffi::CStr;
use std::mem::ManuallyDrop;
use std::net::SocketAddr;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;
use std::time::Duration;

use crate::alloc::try_box;
use crate::conn::req::ConnReq;
use crate::conn_cfg::ConnCfg;
use crate::error::{Error, Result};
use crate::log::{Level, Op};
use crate::peer::{Peer, WeakPeer};
use crate::ready;
use crate::sys;
use crate::verbs::{host_and_port, AddrInfo, CmEvent, CmId, EventChannel};

// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"A listening endpoint: hands out one [`ConnReq`] per peer that
connects. `Sync`: one thread may wait for requests while others connect
the ones already taken.

```
use std::net::SocketAddr;
use std::time::Duration;
use rpma::{Conn, Ep, Peer};

fn accept_one(at: SocketAddr) -> rpma::Result<Option<Conn>> {
    let peer = Peer::local(at.ip())?;
    let ep = Ep::listen(&peer, at)?;
    let Some(req) = ep.next_request_timeout(None, Duration::from_secs(10))? else {
        return Ok(None);
    };
    println!("the client says {:?}", req.private_data());
    let conn = req.connect(b"welcome")?;
    // the connection lives on without the endpoint
    ep.shutdown()?;
    Ok(Some(conn))
}
```"#
)]
#[allow(missing_docs)] // documented for rustdoc above
#[derive(Debug)]
pub struct Ep {
    // Field order is release order: the id before its channel.
    id: Option<CmId>,
    evch: EventChannel,
    /// The peer of the requests it hands out. An endpoint puts nothing on
    /// the peer's domain, so the C API's does not hold it
    /// (`Peer::delete`)...
    peer: WeakPeer,
    /// ...while one made by [`Ep::listen`] keeps it for the requests to
    /// come.
    _held: Option<Peer>,
}

// SAFETY: the id and channel are librdmacm objects usable from any thread;
// the peer is Sync. Changing calls take the endpoint by value.
unsafe impl Send for Ep {}
// SAFETY: as above; shared calls only read the fd or take events, which
// librdmacm serialises.
unsafe impl Sync for Ep {}

impl Ep {
    /// Listens on `addr`, a local address of `peer`'s device, for
    /// requests; the endpoint keeps `peer` for them.
    ///
    /// ```no_run
    /// use std::net::SocketAddr;
    /// use rpma::{ep::Ep, peer::Peer};
    ///
    /// let at: SocketAddr = "192.168.0.1:7204".parse().unwrap();
    /// let peer = Peer::local(at.ip())?;
    /// let ep = Ep::listen(&peer, at)?;
    /// // blocks until a client comes (next_request_timeout has a deadline)
    /// let conn = ep.next_request(None)?.connect(b"welcome")?;
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Provider` when the event channel or the id cannot be made,
    /// or the address cannot be bound (`rdma_bind_addr`) or listened on
    /// (`rdma_listen`).
    pub fn listen(peer: &Peer, addr: SocketAddr) -> Result<Ep> {
        let (host, port) = host_and_port(addr);
        let mut ep = Ep::listen_cstr(peer, &host, &port)?;
        ep._held = Some(peer.clone());
        Ok(ep)
    }

    raw_api! {
        /// [`Ep::listen`] as the C API's `rpma_ep_listen` calls it: the address
        /// (or a host name) and the port as C strings. This endpoint does not
        /// keep `peer`: once nothing else holds it, it refuses requests
        /// (`Error::Inval`), as [`Peer::delete`] says.
        ///
        /// # Errors
        /// As [`Ep::listen`]; `Error::Provider` (`rdma_getaddrinfo`) when the
        /// address cannot be resolved.
        fn listen_cstr(peer: &Peer, addr: &CStr, port: &CStr) -> Result<Ep> {
            let evch = EventChannel::new()?;
            let id = CmId::new(Some(&evch))?;
            let info = AddrInfo::resolve(addr, Some(port), true)?;
            id.bind(&info)?;
            id.listen()?;
            rpma_log!(
                Level::Notice,
                Op::EpListen,
                "Waiting for incoming connection on {}:{}",
                addr.to_string_lossy(),
                port.to_string_lossy()
            );
            Ok(Ep {
                id: Some(id),
                evch,
                peer: peer.downgrade(),
                _held: None,
            })
        }
    }

    /// The fd of the endpoint's event channel (readable when a request
    /// waits).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.evch.borrowed_fd()
    }

    /// Takes the next incoming request and builds its queues from `cfg`
    /// (or the defaults); blocks until one comes. The request (and the
    /// connection made from it) holds a clone of the SRQ `cfg` names, if
    /// any.
    ///
    /// # Errors
    /// `Error::Inval` when the next event is not a request (it is
    /// consumed), or `cfg` asks for a shared completion channel with a
    /// shared receive queue that has its own receive CQ (the request is
    /// rejected); `Error::Provider` when the queues cannot be built (the
    /// request is rejected; `ibv_create_cq` or `rdma_create_qp_ex` says
    /// why), the request's own event channel cannot be made or taken
    /// (`rdma_create_event_channel`, `rdma_migrate_id`) or the event
    /// channel fails; `Error::NoMem` when the request cannot be allocated
    /// (it is rejected).
    pub fn next_request(&self, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        let got = ready::take_within(&[self.fd()], None, || self.try_next_request(cfg))?;
        Ok(got.expect("a wait without a deadline ends with a request"))
    }

    /// The next incoming request if one waits, without waiting.
    ///
    /// # Errors
    /// As [`Ep::next_request`].
    pub fn try_next_request(&self, cfg: Option<&ConnCfg>) -> Result<Option<ConnReq>> {
        match self.evch.try_next(Op::EpNextConnReq)? {
            Some(ev) => self.take_conn_req(ev, cfg).map(Some),
            None => Ok(None),
        }
    }

    /// The next incoming request, waiting at most `timeout` for it: `None`
    /// when none came in time.
    ///
    /// # Errors
    /// As [`Ep::next_request`]; `Error::Provider` (`poll`) when the wait
    /// fails.
    pub fn next_request_timeout(
        &self,
        cfg: Option<&ConnCfg>,
        timeout: Duration,
    ) -> Result<Option<ConnReq>> {
        ready::take_within(&[self.fd()], Some(timeout), || self.try_next_request(cfg))
    }

    raw_api! {
        /// [`Ep::next_request`] as the C API's `rpma_ep_next_conn_req` calls it:
        /// the request on the heap, and the wait `rdma_get_cm_event`'s own,
        /// blocking or not as the fd is.
        ///
        /// # Errors
        /// As [`Ep::next_request`]; also `Error::NoEvent` when librdmacm has
        /// none (ENODATA), and `Error::Provider` (EAGAIN) when none waits on a
        /// non-blocking fd.
        fn next_conn_req(&self, cfg: Option<&ConnCfg>) -> Result<Box<ConnReq>> {
            // A failed allocation drops the request, which rejects it.
            try_box(self.take_conn_req(self.evch.next(Op::EpNextConnReq)?, cfg)?)
        }
    }

    fn take_conn_req(&self, ev: CmEvent, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        let e = ev.get();
        if e.event != sys::RDMA_CM_EVENT_CONNECT_REQUEST {
            // SAFETY: rdma_event_str returns a static string for any value.
            let name = unsafe { CStr::from_ptr(sys::rdma_event_str(e.event)) };
            rpma_log!(
                Level::Error,
                Op::EpNextConnReq,
                "Unexpected event received: {}",
                name.to_string_lossy()
            );
            ev.ack()?;
            return Err(Error::inval(
                "ep: the next event is not a connection request",
            ));
        }
        let raw =
            NonNull::new(e.id).ok_or(Error::provider(Op::EpNextConnReq, "rdma_get_cm_event", 0))?;
        // SAFETY: rdma_cm made this id for the request and hands it to us;
        // it must not be destroyed before the event is acked.
        let id = ManuallyDrop::new(unsafe { CmId::from_raw(raw) });
        // A C program may have deleted the peer (the C library's endpoint
        // then reads a freed one): the request is refused.
        let peer = self.peer.upgrade();
        let built = peer
            .as_ref()
            .ok_or(Error::inval("peer: deleted while the endpoint listens"))
            .and_then(|peer| ConnReq::from_incoming(peer, &id, ev.private_data(), cfg));
        let acked = ev.ack();
        let id = ManuallyDrop::into_inner(id);
        match built {
            Ok(parts) => {
                // On failure from here on the request is dropped, which
                // rejects it.
                let req = ConnReq::assemble(id, parts);
                acked?;
                req.leave_endpoint()?;
                Ok(req)
            }
            Err(e) => {
                // Unlike the C library, which leaves the peer waiting for
                // its timeout, refuse the request at once.
                let _ = id.reject();
                drop(id);
                Err(e)
            }
        }
    }

    /// Stops listening. Requests already taken from the endpoint, and
    /// connections made through it, live on: each request has an event
    /// channel of its own from the moment it is taken, so it can still be
    /// connected, on any thread.
    ///
    /// # Errors
    /// `Error::Provider` when `rdma_destroy_id` fails.
    pub fn shutdown(mut self) -> Result<()> {
        self.id.take().map_or(Ok(()), CmId::destroy)
    }
}
