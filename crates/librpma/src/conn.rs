use std::ffi::{c_char, c_int, c_void};
use std::os::fd::AsRawFd;
use std::ptr::NonNull;

use crate::conn_req::private_data;
use crate::cq::cq_handle;
use crate::types::{rpma_conn_private_data, ConnEventArg, FlushTypeArg};
use crate::{arg, boundary, get, out, put, take_handle, INVAL};
use rpma::conn::{Conn, ATOMIC_WRITE_LEN};
use rpma::cq::Cq;
use rpma::error::{Error, Result};
use rpma::mr::{MrLocal, MrRemote};
use rpma::peer_cfg::PeerCfg;
use rpma::{Completion, FlushType};

/// The bit of the C `flags` that asks for a completion on success.
const ON_SUCCESS: c_int = 1 << 1;

/// The completion the C `flags` argument asks for. 0 is refused; bits other
/// than the success bit are ignored, as in the C library.
#[inline(always)]
fn completion(flags: c_int) -> Result<Completion> {
    match flags {
        0 => Err(INVAL),
        f if f & ON_SUCCESS != 0 => Ok(Completion::Always),
        _ => Ok(Completion::OnError),
    }
}

/// The flush type of the C value (`enum rpma_flush_type`): any value is
/// taken, as the C library takes it, and an unknown one is refused by the
/// flush's own checks.
#[inline(always)]
fn flush_type(value: c_int) -> FlushType {
    match value {
        0 => FlushType::Persistent,
        1 => FlushType::Visibility,
        _ => FlushType::Other,
    }
}

/// The work request id of the caller's `op_context`, as the C library makes
/// it: `wr_id = (uintptr_t)op_context`, bit-exact back in `ibv_wc::wr_id`.
#[inline(always)]
fn wr_id(op_context: *const c_void) -> u64 {
    op_context as usize as u64
}

/// The connection's event fd.
///
/// # Safety
/// `conn` is NULL or a live connection; `fd` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_event_fd(conn: *const Conn, fd: *mut c_int) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, fd, |c| c.event_fd().as_raw_fd()) }
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
        let ev = conn.next_event_raw()?;
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
    unsafe { get(conn, cq_ptr, |c| cq_handle(Some(c.cq()))) }
}

/// The separate receive completion queue, or NULL.
///
/// # Safety
/// `conn` is NULL or a live connection; `rcq_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_get_rcq(conn: *const Conn, rcq_ptr: *mut *mut Cq) -> c_int {
    // SAFETY: caller contract above.
    unsafe { get(conn, rcq_ptr, |c| cq_handle(c.rcq())) }
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
        let value = conn.compl_fd().ok_or(Error::NotSharedChnl)?.as_raw_fd();
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
    boundary(|| unsafe { take_handle(conn_ptr) }?.map_or(Ok(()), |c| c.delete()))
}

/// Reads from the peer's memory.
///
/// # Safety
/// `conn`, `dst` and `src` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_read(
    conn: *mut Conn,
    dst: *mut MrLocal,
    dst_offset: usize,
    src: *const MrRemote,
    src_offset: usize,
    len: usize,
    flags: c_int,
    op_context: *const c_void,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above.
        let (conn, dst, src) = unsafe { (arg(conn)?, dst.as_ref(), src.as_ref()) };
        let completion = completion(flags)?;
        conn.read_at(
            dst,
            dst_offset,
            src,
            src_offset,
            len,
            completion,
            wr_id(op_context),
        )
    })
}

/// Writes to the peer's memory.
///
/// # Safety
/// `conn`, `dst` and `src` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_write(
    conn: *mut Conn,
    dst: *mut MrRemote,
    dst_offset: usize,
    src: *const MrLocal,
    src_offset: usize,
    len: usize,
    flags: c_int,
    op_context: *const c_void,
) -> c_int {
    // Each entry point has a boundary (and so a closure) of its own: one
    // shared by two callers stays out of line, which costs the data path.
    // SAFETY: caller contract above.
    boundary(move || unsafe {
        write(
            conn, dst, dst_offset, src, src_offset, len, flags, None, op_context,
        )
    })
}

/// Writes to the peer's memory and hands `imm` to the peer's next receive.
///
/// # Safety
/// `conn`, `dst` and `src` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_write_with_imm(
    conn: *mut Conn,
    dst: *mut MrRemote,
    dst_offset: usize,
    src: *const MrLocal,
    src_offset: usize,
    len: usize,
    flags: c_int,
    imm: u32,
    op_context: *const c_void,
) -> c_int {
    // SAFETY: caller contract above.
    boundary(move || unsafe {
        write(
            conn,
            dst,
            dst_offset,
            src,
            src_offset,
            len,
            flags,
            Some(imm),
            op_context,
        )
    })
}

/// The body of both writes (each runs it inside its own boundary).
///
/// # Safety
/// As for `rpma_write`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn write(
    conn: *mut Conn,
    dst: *mut MrRemote,
    dst_offset: usize,
    src: *const MrLocal,
    src_offset: usize,
    len: usize,
    flags: c_int,
    imm: Option<u32>,
    op_context: *const c_void,
) -> Result<()> {
    // SAFETY: caller contract.
    let (conn, dst, src) = unsafe { (arg(conn)?, dst.as_ref(), src.as_ref()) };
    let completion = completion(flags)?;
    conn.write_at(
        dst,
        dst_offset,
        src,
        src_offset,
        len,
        completion,
        imm,
        wr_id(op_context),
    )
}

/// Writes 8 bytes to the peer's memory in one piece.
///
/// # Safety
/// `conn` and `dst` are NULL or live objects of this library; `src` is NULL
/// or points to 8 readable bytes.
#[no_mangle]
pub unsafe extern "C" fn rpma_atomic_write(
    conn: *mut Conn,
    dst: *mut MrRemote,
    dst_offset: usize,
    src: *const c_char,
    flags: c_int,
    op_context: *const c_void,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above; [u8; 8] has alignment 1.
        let (conn, dst, src) = unsafe {
            (
                arg(conn)?,
                arg(dst)?,
                arg(src.cast::<[u8; ATOMIC_WRITE_LEN]>())?,
            )
        };
        let completion = completion(flags)?;
        conn.atomic_write_at(dst, dst_offset, src, completion, wr_id(op_context))
    })
}

/// Makes earlier writes to the peer's memory visible or persistent there.
///
/// # Safety
/// `conn` and `dst` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_flush(
    conn: *mut Conn,
    dst: *mut MrRemote,
    dst_offset: usize,
    len: usize,
    r#type: FlushTypeArg,
    flags: c_int,
    op_context: *const c_void,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above.
        let (conn, dst) = unsafe { (arg(conn)?, arg(dst)?) };
        let completion = completion(flags)?;
        let kind = flush_type(r#type.0);
        conn.flush_at(dst, dst_offset, len, kind, completion, wr_id(op_context))
    })
}

/// Sends a message.
///
/// # Safety
/// `conn` and `src` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_send(
    conn: *mut Conn,
    src: *const MrLocal,
    offset: usize,
    len: usize,
    flags: c_int,
    op_context: *const c_void,
) -> c_int {
    // SAFETY: caller contract above.
    boundary(move || unsafe { send(conn, src, offset, len, flags, None, op_context) })
}

/// Sends a message with immediate data.
///
/// # Safety
/// `conn` and `src` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_send_with_imm(
    conn: *mut Conn,
    src: *const MrLocal,
    offset: usize,
    len: usize,
    flags: c_int,
    imm: u32,
    op_context: *const c_void,
) -> c_int {
    // SAFETY: caller contract above.
    boundary(move || unsafe { send(conn, src, offset, len, flags, Some(imm), op_context) })
}

/// The body of both sends (each runs it inside its own boundary).
///
/// # Safety
/// As for `rpma_send`.
#[inline(always)]
unsafe fn send(
    conn: *mut Conn,
    src: *const MrLocal,
    offset: usize,
    len: usize,
    flags: c_int,
    imm: Option<u32>,
    op_context: *const c_void,
) -> Result<()> {
    // SAFETY: caller contract.
    let (conn, src) = unsafe { (arg(conn)?, src.as_ref()) };
    let completion = completion(flags)?;
    conn.send_at(src, offset, len, completion, imm, wr_id(op_context))
}

/// Posts a buffer for the peer's next message.
///
/// # Safety
/// `conn` and `dst` are NULL or live objects of this library.
#[no_mangle]
pub unsafe extern "C" fn rpma_recv(
    conn: *mut Conn,
    dst: *mut MrLocal,
    offset: usize,
    len: usize,
    op_context: *const c_void,
) -> c_int {
    boundary(move || {
        // SAFETY: caller contract above.
        let (conn, dst) = unsafe { (arg(conn)?, dst.as_ref()) };
        conn.recv_at(dst, offset, len, wr_id(op_context))
    })
}

/// Waits on the connection's shared completion channel.
///
/// # Safety
/// `conn` is NULL or a live connection; `cq` is NULL or writable; `is_rcq`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rpma_conn_wait(
    conn: *mut Conn,
    flags: c_int,
    cq: *mut *mut Cq,
    is_rcq: *mut bool,
) -> c_int {
    let _ = flags; // reserved
    boundary(|| {
        // SAFETY: caller contract above.
        let conn = unsafe { arg(conn) }?;
        let cq = out(cq)?;
        let wake = conn.wait()?;
        if let Some(is_rcq) = NonNull::new(is_rcq) {
            // SAFETY: a non-NULL output pointer (caller contract).
            unsafe { put(is_rcq, wake.is_rcq) };
        }
        let woken = cq_handle(wake.rearmed.is_ok().then_some(wake.cq));
        // SAFETY: checked output pointer.
        unsafe { put(cq, woken) };
        wake.rearmed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_success_bit() {
        assert_eq!(completion(0), Err(INVAL));
        assert_eq!(completion(1), Ok(Completion::OnError));
        assert_eq!(completion(3), Ok(Completion::Always));
        assert_eq!(completion(2), Ok(Completion::Always));
        assert_eq!(completion(4), Ok(Completion::OnError));
        assert_eq!(completion(-1), Ok(Completion::Always));
    }

    #[test]
    fn flush_types_are_the_c_values() {
        assert_eq!(flush_type(0), FlushType::Persistent);
        assert_eq!(flush_type(1), FlushType::Visibility);
        assert_eq!(flush_type(2), FlushType::Other);
        assert_eq!(flush_type(-1), FlushType::Other);
    }
}
