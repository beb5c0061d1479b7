use std::ffi::c_int;

use super::conn_req::private_data;
use super::types::{rpma_conn_private_data, ConnEventArg};
use super::{arg, boundary, get, out, put, take_handle};
use crate::conn::Conn;
use crate::cq::Cq;
use crate::error::Error;
use crate::peer_cfg::PeerCfg;

/// The connection's event fd.
///
/// # Safety
/// `conn` is NULL or a live connection; `fd` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_event_fd(conn: *const Conn, fd: *mut c_int) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, fd, Conn::event_fd) }
}

/// Takes the next connection event.
///
/// # Safety
/// `conn` is NULL or a live connection; `event` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_next_event(conn: *mut Conn, event: *mut ConnEventArg) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let conn = unsafe { arg(conn) }?;
        let slot = out(event)?;
        let ev = conn.next_event()?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, ConnEventArg(ev as c_int)) };
        Ok(())
    })
}

/// The private data the peer sent.
///
/// # Safety
/// `conn` is NULL or a live connection; `pdata` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_private_data(
    conn: *const Conn,
    pdata: *mut rpma_conn_private_data,
) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, pdata, |c| private_data(c.private_data())) }
}

/// Takes over the remote peer's configuration.
///
/// # Safety
/// `conn` and `pcfg` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_apply_remote_peer_cfg(
    conn: *mut Conn,
    pcfg: *const PeerCfg,
) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let (conn, pcfg) = unsafe { (arg(conn)?, arg(pcfg)?) };
        conn.apply_remote_peer_cfg(pcfg);
        Ok(())
    })
}

/// The number of the connection's queue pair.
///
/// # Safety
/// `conn` is NULL or a live connection; `qp_num` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_qp_num(conn: *const Conn, qp_num: *mut u32) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, qp_num, Conn::qp_num) }
}

/// The main completion queue.
///
/// # Safety
/// `conn` is NULL or a live connection; `cq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_cq(conn: *const Conn, cq_ptr: *mut *mut Cq) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, cq_ptr, |c| std::ptr::from_ref(c.cq()).cast_mut()) }
}

/// The separate receive completion queue, or NULL.
///
/// # Safety
/// `conn` is NULL or a live connection; `rcq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_rcq(conn: *const Conn, rcq_ptr: *mut *mut Cq) -> c_int {
    // SAFETY: caller contract above.
    unsafe {
        get(conn, rcq_ptr, |c| {
            c.rcq()
                .map_or(std::ptr::null_mut(), |q| std::ptr::from_ref(q).cast_mut())
        })
    }
}

/// The fd of the shared completion channel.
///
/// # Safety
/// `conn` is NULL or a live connection; `fd` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_compl_fd(conn: *const Conn, fd: *mut c_int) -> c_int {
    boundary(|| {
        // SAFETY: caller contract above.
        let conn = unsafe { arg(conn) }?;
        let slot = out(fd)?;
        let value = conn.compl_fd().ok_or(Error::NotSharedChnl)?;
        // SAFETY: checked output pointer.
        unsafe { put(slot, value) };
        Ok(())
    })
}

/// Starts the disconnection.
///
/// # Safety
/// `conn` is NULL or a live connection.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_disconnect(conn: *mut Conn) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { arg(conn) }?.disconnect())
}

/// Deletes a connection (without disconnecting it).
///
/// # Safety
/// `conn_ptr` is NULL or points to NULL or to a connection from this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_delete(conn_ptr: *mut *mut Conn) -> c_int {
    // SAFETY: caller contract above.
    boundary(|| unsafe { take_handle(conn_ptr) }?.map_or(Ok(()), |c| (*c).delete()))
}
