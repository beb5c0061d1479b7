use std::ffi::{c_char, c_int};
use std::os::fd::AsRawFd;

use crate::conn_cfg::{for_request, ConnCfg};
use crate::{arg, boundary, c_str, get, out, put, put_new, take_handle};
use rpma::ep::Ep;
use rpma::peer::Peer;
use rpma::ConnReq;

/// Starts listening for connections.
///
/// # Safety
/// `peer` is NULL or a live peer; `addr` and `port` are NULL or strings;
/// `ep_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_ep_listen(
    peer: *mut Peer,
    addr: *const c_char,
    port: *const c_char,
    ep_ptr: *mut *mut Ep,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above (for all four).
        let (peer, addr, port) = unsafe { (arg(peer)?, c_str(addr)?, c_str(port)?) };
        let slot = out(ep_ptr)?;
        let ep = Ep::listen_cstr(peer, addr, port)?;
        // SAFETY: checked output pointer.
        unsafe { put_new(slot, ep) }
    })
}

/// Stops listening and deletes the endpoint.
///
/// # Safety
/// `ep_ptr` is NULL or points to NULL or to an endpoint from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_ep_shutdown(ep_ptr: *mut *mut Ep) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(ep_ptr) }?.map_or(Ok(()), |ep| ep.shutdown()))
}

/// The endpoint's event fd.
///
/// # Safety
/// `ep` is NULL or a live endpoint; `fd` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_ep_get_fd(ep: *const Ep, fd: *mut c_int) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(ep, fd, |e| e.fd().as_raw_fd()) }
}

/// Takes the next incoming connection request.
///
/// # Safety
/// `ep` is NULL or a live endpoint; `cfg` is NULL or a live configuration,
/// and an SRQ it names is live;
/// `req_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_ep_next_conn_req(
    ep: *mut Ep,
    cfg: *const ConnCfg,
    req_ptr: *mut *mut ConnReq,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let ep = unsafe { arg(ep) }?;
        let slot = out(req_ptr)?;
        // SAFETY: NULL or live (caller contract).
        let cfg = unsafe { for_request(cfg) };
        let req = ep.next_conn_req(cfg.as_ref())?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, Box::into_raw(req)) };
        Ok(())
    })
}
