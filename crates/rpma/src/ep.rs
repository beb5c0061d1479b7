//! Endpoints: a listening cm id on a local address, handing out one
//! connection request per incoming connection.

use std::ffi::{CStr, CString};
use std::mem::ManuallyDrop;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;

use crate::alloc::try_box;
use crate::conn_cfg::ConnCfg;
use crate::conn_req::ConnReq;
use crate::error::{Error, Result};
use crate::log::{Level, Op};
use crate::peer::{Peer, WeakPeer};
use crate::sys;
use crate::verbs::{AddrInfo, CmEvent, CmId, EventChannel};

/// A listening endpoint (opaque to C).
#[derive(Debug)]
pub struct Ep {
    // Field order is release order: the id before its channel.
    id: Option<CmId>,
    evch: EventChannel,
    /// The peer of the requests it hands out. An endpoint puts nothing on
    /// the peer's domain, so it does not hold it (`Peer::delete`).
    peer: WeakPeer,
}

// SAFETY: the id and channel are librdmacm objects usable from any thread;
// the peer is Sync. Changing calls take the endpoint by value.
unsafe impl Send for Ep {}
// SAFETY: as above; shared calls only read the fd or take events, which
// librdmacm serialises.
unsafe impl Sync for Ep {}

impl Ep {
    /// Listens on `addr`:`port` (a local address and a decimal port) for
    /// requests on `peer`. The requests it hands out hold the peer; the
    /// endpoint does not, so once nothing else does it refuses requests
    /// (`Error::Inval`).
    ///
    /// ```no_run
    /// use rpma::{ep::Ep, peer::{Device, Peer}};
    ///
    /// let peer = Peer::new(&Device::local("192.168.0.1")?)?;
    /// let ep = Ep::listen(&peer, "192.168.0.1", "7204")?;
    /// let req = ep.next_conn_req(None)?;
    /// let conn = req.connect(None)?;
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Inval` when `addr` or `port` has a NUL byte;
    /// `Error::Provider` when the event channel or the id cannot be made,
    /// or the address cannot be resolved (`rdma_getaddrinfo`), bound
    /// (`rdma_bind_addr`) or listened on (`rdma_listen`).
    pub fn listen(peer: &Peer, addr: &str, port: &str) -> Result<Ep> {
        let addr = CString::new(addr).map_err(|_| Error::Inval)?;
        let port = CString::new(port).map_err(|_| Error::Inval)?;
        Ep::listen_cstr(peer, &addr, &port)
    }

    /// [`Ep::listen`] with C strings, for the C API's `rpma_ep_listen`.
    ///
    /// # Errors
    /// As [`Ep::listen`] (a `CStr` holds no NUL byte to refuse).
    pub fn listen_cstr(peer: &Peer, addr: &CStr, port: &CStr) -> Result<Ep> {
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
        })
    }

    /// The fd of the endpoint's event channel (readable when a request
    /// waits).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.evch.borrowed_fd()
    }

    /// Takes the next incoming connection request and builds its queues
    /// from `cfg` (or the defaults). The request (and the connection made
    /// from it) holds a clone of the SRQ `cfg` names, if any.
    ///
    /// # Errors
    /// `Error::Inval` for an event that is not a request (consumed), or a
    /// `cfg` that asks for a shared completion channel with an SRQ that has
    /// its own receive CQ; `Error::NoEvent` when librdmacm has none
    /// (ENODATA); `Error::Provider` when `rdma_get_cm_event` or
    /// `rdma_ack_cm_event` fails, a CQ or the QP cannot be made, or the
    /// request's own event channel cannot be made or taken
    /// (`rdma_create_event_channel`, `rdma_migrate_id`);
    /// `Error::NoMem` when the private data or the request cannot be
    /// allocated. A request that fails after it came is rejected.
    pub fn next_conn_req(&self, cfg: Option<&ConnCfg>) -> Result<Box<ConnReq>> {
        self.take_conn_req(self.evch.next(Op::EpNextConnReq)?, cfg)
    }

    /// [`Ep::next_conn_req`] without waiting: `None` when no request
    /// waits. Whether it blocks until one comes is the fd's mode, so make
    /// the fd non-blocking first (`O_NONBLOCK` on [`Ep::fd`]).
    ///
    /// # Errors
    /// As [`Ep::next_conn_req`], but no `Error::NoEvent`: no request is
    /// `None`.
    pub fn try_next_conn_req(&self, cfg: Option<&ConnCfg>) -> Result<Option<Box<ConnReq>>> {
        match self.evch.try_next(Op::EpNextConnReq)? {
            Some(ev) => self.take_conn_req(ev, cfg).map(Some),
            None => Ok(None),
        }
    }

    fn take_conn_req(&self, ev: CmEvent, cfg: Option<&ConnCfg>) -> Result<Box<ConnReq>> {
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
            return Err(Error::Inval);
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
            .ok_or(Error::Inval)
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
                // Boxed as the C face boxed it for its handle: a failed
                // allocation is RPMA_E_NOMEM.
                try_box(req)
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

    /// Stops listening. Requests taken from the endpoint, and connections
    /// made through it, live on: each has its own event channel.
    ///
    /// # Errors
    /// `Error::Provider` when `rdma_destroy_id` fails.
    pub fn shutdown(mut self) -> Result<()> {
        self.id.take().map_or(Ok(()), CmId::destroy)
    }
}
