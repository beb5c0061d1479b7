use std::ffi::{c_char, c_int, c_void};

use crate::conn_cfg::{for_request, ConnCfg};
use crate::types::rpma_conn_private_data;
use crate::{arg, boundary, c_str, out, put, take_handle, INVAL};
use rpma::conn::Conn;
use rpma::mr::MrLocal;
use rpma::peer::Peer;
use rpma::ConnReq;

/// Creates an outgoing connection request.
///
/// # Safety
/// `peer` is NULL or a live peer; `addr` and `port` are NULL or strings;
/// `cfg` is NULL or a live configuration, and an SRQ it names is live;
/// `req_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_req_new(
    peer: *mut Peer,
    addr: *const c_char,
    port: *const c_char,
    cfg: *const ConnCfg,
    req_ptr: *mut *mut ConnReq,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above (for all of them).
        let (peer, addr, port) = unsafe { (arg(peer)?, c_str(addr)?, c_str(port)?) };
        let slot = out(req_ptr)?;
        // SAFETY: as above.
        let cfg = unsafe { for_request(cfg) };
        let req = ConnReq::new_cstr(peer, addr, port, cfg.as_ref())?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, Box::into_raw(req)) };
        Ok(())
    })
}

/// Deletes a request (an incoming one is rejected).
///
/// # Safety
/// `req_ptr` is NULL or points to NULL or to a request from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_req_delete(req_ptr: *mut *mut ConnReq) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(req_ptr) }?.map_or(Ok(()), |r| r.delete()))
}

/// Connects (or accepts) a request; the request is consumed.
///
/// # Safety
/// `req_ptr` is NULL or points to NULL or to a request from this library;
/// `pdata` is NULL or a valid private-data descriptor; `conn_ptr` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_req_connect(
    req_ptr: *mut *mut ConnReq,
    pdata: *const rpma_conn_private_data,
    conn_ptr: *mut *mut Conn,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let req = unsafe { take_handle(req_ptr) }?.ok_or(INVAL)?;
        // From here on the request is consumed, whatever the outcome.
        let Ok(slot) = out(conn_ptr) else {
            return req.delete().and(Err(INVAL));
        };
        // SAFETY: NULL or valid (caller contract).
        let data = match unsafe { pdata.as_ref() } {
            None => None,
            Some(p) if p.ptr.is_null() || p.len == 0 => {
                return req.delete().and(Err(INVAL));
            }
            // SAFETY: ptr is readable for len bytes (caller contract).
            Some(p) => {
                Some(unsafe { std::slice::from_raw_parts(p.ptr.cast::<u8>(), p.len as usize) })
            }
        };
        let conn = req.connect_boxed(data)?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, Box::into_raw(conn)) };
        Ok(())
    })
}

/// Posts a receive on the request's queue pair before it is connected.
///
/// # Safety
/// `req` and `dst` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_req_recv(
    req: *mut ConnReq,
    dst: *mut MrLocal,
    offset: usize,
    len: usize,
    op_context: *const c_void,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let (req, dst) = unsafe { (arg(req)?, arg(dst)?) };
        // wr_id = (uintptr_t)op_context, as in the C library
        req.recv_at(dst, offset, len, op_context as usize as u64)
    })
}

/// The private data of an incoming request.
///
/// # Safety
/// `req` is NULL or a live request; `pdata` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_req_get_private_data(
    req: *const ConnReq,
    pdata: *mut rpma_conn_private_data,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { crate::get(req, pdata, |r| private_data(r.private_data())) }
}

/// The C view of library-owned private data.
pub(super) fn private_data(data: Option<&[u8]>) -> rpma_conn_private_data {
    match data {
        Some(d) => rpma_conn_private_data {
            ptr: d.as_ptr().cast_mut().cast(),
            len: d.len() as u8,
        },
        None => rpma_conn_private_data {
            ptr: std::ptr::null_mut(),
            len: 0,
        },
    }
}
