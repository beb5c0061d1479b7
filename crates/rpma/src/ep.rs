//! Endpoints: a listening cm id on a local address, handing out one
//! connection request per incoming connection.

use std::ffi::CStr;
use std::mem::ManuallyDrop;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;

use crate::conn_cfg::ConnCfg;
use crate::conn_req::ConnReq;
use crate::error::{Error, Result};
use crate::log::Level;
use crate::peer::Peer;
use crate::sys;
use crate::verbs::{AddrInfo, CmId, EventChannel};

/// A listening endpoint (opaque to C).
#[derive(Debug)]
pub struct Ep {
    // Field order is release order: the id before its channel.
    id: Option<CmId>,
    evch: EventChannel,
    peer: NonNull<Peer>,
}

// SAFETY: the id and channel are librdmacm objects usable from any thread;
// the peer is Sync. Changing calls take the endpoint by value.
unsafe impl Send for Ep {}
// SAFETY: as above; shared calls only read the fd or take events, which
// librdmacm serialises.
unsafe impl Sync for Ep {}

impl Ep {
    /// Listens on `addr`:`port` (a local address and a decimal port).
    ///
    /// # Safety
    /// `peer` outlives the endpoint and every request it hands out.
    pub unsafe fn listen(peer: &Peer, addr: &CStr, port: &CStr) -> Result<Ep> {
        let evch = EventChannel::new()?;
        let id = CmId::new(Some(&evch))?;
        let info = AddrInfo::resolve(addr, Some(port), true)?;
        id.bind(&info)?;
        id.listen()?;
        rpma_log!(
            Level::Notice,
            "rpma_ep_listen",
            "Waiting for incoming connection on {}:{}",
            addr.to_string_lossy(),
            port.to_string_lossy()
        );
        Ok(Ep {
            id: Some(id),
            evch,
            peer: NonNull::from(peer),
        })
    }

    /// The fd of the endpoint's event channel (readable when a request
    /// waits).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.evch.borrowed_fd()
    }

    /// Takes the next incoming connection request and builds its queues
    /// from `cfg` (or the defaults). Any other event is consumed and
    /// reported as `RPMA_E_INVAL`.
    pub fn next_conn_req(&self, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        let ev = self.evch.next("rpma_ep_next_conn_req\0")?;
        let e = ev.get();
        if e.event != sys::RDMA_CM_EVENT_CONNECT_REQUEST {
            // SAFETY: rdma_event_str returns a static string for any value.
            let name = unsafe { CStr::from_ptr(sys::rdma_event_str(e.event)) };
            rpma_log!(
                Level::Error,
                "rpma_ep_next_conn_req",
                "Unexpected event received: {}",
                name.to_string_lossy()
            );
            ev.ack()?;
            return Err(Error::Inval);
        }
        let raw = NonNull::new(e.id).ok_or(Error::Provider)?;
        // SAFETY: rdma_cm made this id for the request and hands it to us;
        // it must not be destroyed before the event is acked.
        let id = ManuallyDrop::new(unsafe { CmId::from_raw(raw) });
        // SAFETY: the peer outlives the endpoint (contract of listen).
        let peer = unsafe { self.peer.as_ref() };
        let built = ConnReq::from_incoming(peer, &id, ev.private_data(), cfg);
        let acked = ev.ack();
        let id = ManuallyDrop::into_inner(id);
        match built {
            Ok((queues, pdata)) => {
                let req = ConnReq::assemble(peer, id, queues, pdata);
                acked?;
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

    /// Stops listening. Connections made through the endpoint live on.
    pub fn shutdown(mut self) -> Result<()> {
        self.id.take().map_or(Ok(()), CmId::destroy)
    }
}
