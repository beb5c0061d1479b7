//! Work requests: the one place that turns an operation's regions, offsets
//! and lengths into a work request (`ibv_send_wr`, `ibv_recv_wr`, or the
//! extended QP's `ibv_wr_*` calls for the native flush and atomic write)
//! and posts it. Every operation of the data path ends here, so these
//! functions stay on the stack: no allocation, no lock, one verbs call.

use std::ffi::c_int;
use std::fmt;

use crate::error::{Errno, Error, Result};
use crate::log::{Level, Op};
use crate::mr::{MrLocal, MrRemote};
use crate::native::QpNative;
use crate::sys;

/// When an operation produces a completion. Errors always complete: an RC
/// queue pair reports a failed work request even when it was unsignalled.
///
/// The C forms of the operations (feature `raw`) take it as the C library
/// takes its flags:
///
/// ```
/// # #[cfg(feature = "raw")]
/// use rpma::{Completion, Conn, MrLocal, MrRemote};
///
/// /// Reads the peer's first 8 bytes into `dst`, reporting only a failure.
/// # #[cfg(feature = "raw")]
/// fn fetch(conn: &Conn, dst: &MrLocal, src: &MrRemote) -> rpma::Result<()> {
///     conn.read_at(Some(dst), 0, Some(src), 0, 8, Completion::OnError, 0)
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// A completion for every outcome (`RPMA_F_COMPLETION_ALWAYS`).
    Always,
    /// A completion only when the operation fails
    /// (`RPMA_F_COMPLETION_ON_ERROR`).
    OnError,
}

impl fmt::Display for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Completion::Always => "always",
            Completion::OnError => "on error",
        })
    }
}

impl Completion {
    /// The work request's send flags for it.
    #[inline]
    pub(crate) fn send_flags(self) -> u32 {
        match self {
            Completion::Always => sys::IBV_SEND_SIGNALED,
            Completion::OnError => 0,
        }
    }
}

/// A remote address and the key that grants access to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Remote {
    pub(crate) addr: u64,
    pub(crate) rkey: u32,
}

impl Remote {
    /// `offset` of the peer's region `mr`; the remote device checks the
    /// range against the key.
    #[inline]
    pub(crate) fn at(mr: &MrRemote, offset: usize) -> Remote {
        Remote {
            addr: mr.raddr.wrapping_add(offset as u64),
            rkey: mr.rkey,
        }
    }
}

/// The scatter/gather entry for `len` bytes at `offset` of `mr`: the
/// device checks the range against the registration, so neither is
/// checked here, and `len` is cut to 32 bits as in the C library.
#[inline]
pub(crate) fn local(mr: &MrLocal, offset: usize, len: usize) -> sys::ibv_sge {
    sys::ibv_sge {
        addr: mr.addr.wrapping_add(offset as u64),
        length: len as u32,
        lkey: mr.lkey,
    }
}

/// The scatter/gather entry of a local range of an operation, or none for
/// the 0-byte form (no region, offset and length 0). A missing region with
/// a range is `RPMA_E_INVAL`, `missing` its reason.
#[inline]
pub(crate) fn local_end(
    mr: Option<&MrLocal>,
    offset: usize,
    len: usize,
    missing: &'static str,
) -> Result<Option<sys::ibv_sge>> {
    match mr {
        Some(mr) => Ok(Some(local(mr, offset, len))),
        None if offset == 0 && len == 0 => Ok(None),
        None => Err(Error::inval(missing)),
    }
}

/// The two ends of a one-sided operation: both given, or neither with
/// every offset and the length 0 (a 0-byte operation to address 0, rkey 0).
#[inline]
pub(crate) fn one_sided_ends(
    local_mr: Option<&MrLocal>,
    local_offset: usize,
    remote_mr: Option<&MrRemote>,
    remote_offset: usize,
    len: usize,
) -> Result<(Option<sys::ibv_sge>, Remote)> {
    match (local_mr, remote_mr) {
        (Some(l), Some(r)) => Ok((
            Some(local(l, local_offset, len)),
            Remote::at(r, remote_offset),
        )),
        (None, None) if local_offset == 0 && remote_offset == 0 && len == 0 => {
            Ok((None, Remote { addr: 0, rkey: 0 }))
        }
        (None, None) => Err(Error::inval(
            "src, dst: neither given, but an offset or len is not 0",
        )),
        _ => Err(Error::inval("src, dst: only one of the two regions given")),
    }
}

/// One send-queue work request before it is posted: the parts that vary.
/// [`post`] turns it into the verbs structure, every unused field zero.
///
/// [`post`]: SendWr::post
pub(crate) struct SendWr {
    wr_id: u64,
    opcode: sys::ibv_wr_opcode,
    send_flags: u32,
    /// in network byte order, ignored unless the opcode carries it
    imm_data: u32,
    sge: Option<sys::ibv_sge>,
    remote: Remote,
}

impl SendWr {
    #[inline]
    pub(crate) fn new(
        opcode: sys::ibv_wr_opcode,
        completion: Completion,
        op_context: u64,
    ) -> SendWr {
        SendWr {
            wr_id: op_context,
            opcode,
            send_flags: completion.send_flags(),
            imm_data: 0,
            sge: None,
            remote: Remote { addr: 0, rkey: 0 },
        }
    }

    #[inline]
    pub(crate) fn sge(mut self, sge: Option<sys::ibv_sge>) -> SendWr {
        self.sge = sge;
        self
    }

    #[inline]
    pub(crate) fn remote(mut self, remote: Remote) -> SendWr {
        self.remote = remote;
        self
    }

    /// Immediate data travels in network byte order, as the C library
    /// sends it; receivers convert it themselves.
    #[inline]
    pub(crate) fn imm(mut self, imm: u32) -> SendWr {
        self.imm_data = imm.to_be();
        self
    }

    #[inline]
    pub(crate) fn extra_flags(mut self, flags: u32) -> SendWr {
        self.send_flags |= flags;
        self
    }

    /// The verbs work request; `sge` is where its one entry (if any) lives
    /// during the post. Every field the request does not use is zero.
    #[inline(always)]
    fn to_verbs(&self, sge: &mut sys::ibv_sge) -> sys::ibv_send_wr {
        let (sg_list, num_sge) = match self.sge {
            Some(entry) => {
                *sge = entry;
                (std::ptr::from_mut(sge), 1)
            }
            None => (std::ptr::null_mut(), 0),
        };
        sys::ibv_send_wr {
            wr_id: self.wr_id,
            next: std::ptr::null_mut(),
            sg_list,
            num_sge,
            opcode: self.opcode,
            send_flags: self.send_flags,
            __bindgen_anon_1: sys::ibv_send_wr__bindgen_ty_1 {
                imm_data: self.imm_data,
            },
            wr: sys::ibv_send_wr__bindgen_ty_2 {
                rdma: sys::ibv_send_wr__bindgen_ty_2__bindgen_ty_1 {
                    remote_addr: self.remote.addr,
                    rkey: self.remote.rkey,
                },
            },
            ..Default::default()
        }
    }

    /// Posts on `qp`; `kind` names the operation in the log message of a
    /// failure.
    #[inline]
    pub(crate) fn post(self, qp: *mut sys::ibv_qp, kind: Kind) -> Result<()> {
        let mut sge = sys::ibv_sge::default();
        let mut wr = self.to_verbs(&mut sge);
        let mut bad = std::ptr::null_mut();
        // SAFETY: the QP is live (its owner is borrowed by the caller); the
        // work request and its SGE live on this stack frame for the call,
        // and the provider copies them (or the inline data) before it
        // returns.
        let ret = unsafe { sys::ibv_post_send(qp, &mut wr, &mut bad) };
        if ret == 0 {
            return Ok(());
        }
        log_failure(&wr, kind, ret);
        Err(Error::provider(kind.op(), "ibv_post_send", ret))
    }
}

/// The C library's message for a failed post: one-sided operations are
/// described field by field, each number cut to 32 bits as its format
/// does.
#[cold]
fn log_failure(wr: &sys::ibv_send_wr, kind: Kind, ret: c_int) {
    if !crate::log::enabled(Level::Error) {
        return;
    }
    let log = |args: std::fmt::Arguments| rpma_log!(Level::Error, kind.op(), "{}", args);
    let signaled = if wr.send_flags & sys::IBV_SEND_SIGNALED != 0 {
        "IBV_SEND_SIGNALED"
    } else {
        "0"
    };
    // SAFETY: `rdma` is the union member every post here fills (or
    // leaves zeroed, for sends); both are plain integers.
    let rdma = unsafe { wr.wr.rdma };
    let (raddr, rkey) = (rdma.remote_addr as u32, rdma.rkey);
    // SAFETY: a non-NULL sg_list points to the entry `post` keeps on its
    // frame for as long as the request lives.
    let sge = unsafe { wr.sg_list.as_ref() }.copied().unwrap_or_default();
    let (laddr, len, lkey) = (sge.addr as u32, sge.length, sge.lkey);
    let wr_id = wr.wr_id as u32;
    let err = Errno(ret);
    match kind {
        Kind::Read => log(format_args!(
            "ibv_post_send(src_addr=0x{raddr:x}, rkey=0x{rkey:x}, dst_addr=0x{laddr:x}, length={len}, lkey=0x{lkey:x}, wr_id=0x{wr_id:x}, opcode=IBV_WR_RDMA_READ, send_flags={signaled}) failed: {err}"
        )),
        Kind::Write => log(format_args!(
            "ibv_post_send(dst_addr=0x{raddr:x}, rkey=0x{rkey:x}, src_addr=0x{laddr:x}, length={len}, lkey=0x{lkey:x}, wr_id=0x{wr_id:x}, opcode=IBV_WR_RDMA_WRITE, send_flags={signaled}) failed: {err}"
        )),
        Kind::AtomicWrite => log(format_args!(
            "ibv_post_send(dst_addr=0x{raddr:x}, rkey=0x{rkey:x}, src_addr=0x{laddr:x}, wr_id=0x{wr_id:x}, opcode=IBV_WR_RDMA_WRITE, send_flags={signaled}) failed: {err}"
        )),
        Kind::Send => log(format_args!("ibv_post_send failed: {err}")),
    }
}

/// The operation a send-queue work request carries out, as its log
/// messages name it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// RDMA read, also the emulated flush.
    Read,
    /// RDMA write, with or without immediate data.
    Write,
    /// The emulated atomic write.
    AtomicWrite,
    /// Send, with or without immediate data.
    Send,
}

impl Kind {
    fn op(self) -> Op {
        match self {
            Kind::Read => Op::PostRead,
            Kind::Write => Op::PostWrite,
            Kind::AtomicWrite => Op::PostAtomicWrite,
            Kind::Send => Op::PostSend,
        }
    }
}

/// The scatter/gather entry of a transfer as the device needs it. A
/// transfer of nothing (`None`) names no entry, except on iWARP, where it
/// names one empty entry: siw builds a read request from the send queue
/// slot's first entry whatever the entry count (a read of nothing would
/// carry the slot's last length and sink), and libsiw refuses a receive
/// without entries. On RoCE an empty entry is not the same: mlx5 takes a
/// zero byte count as 2 GiB.
#[inline]
pub(crate) fn entry_for(sge: Option<sys::ibv_sge>, iwarp: bool) -> Option<sys::ibv_sge> {
    match sge {
        None if iwarp => Some(sys::ibv_sge::default()),
        sge => sge,
    }
}

/// Where a receive work request goes.
pub(crate) enum RecvQueue {
    Qp(*mut sys::ibv_qp),
    Srq(*mut sys::ibv_srq),
}

/// Posts one receive into `len` bytes at `offset` of `dst` (none: the
/// 0-byte form, which on iWARP is one empty entry) on `queue`.
#[inline]
pub(crate) fn recv_into(
    queue: RecvQueue,
    dst: Option<&MrLocal>,
    offset: usize,
    len: usize,
    iwarp: bool,
    op_context: u64,
) -> Result<()> {
    let sge = local_end(dst, offset, len, "dst: none, but offset or len is not 0")?;
    recv(queue, entry_for(sge, iwarp), op_context)
}

/// Posts one receive into `sge` (none: a 0-byte buffer) on `queue`.
/// `op_context` is the work request id, which comes back bit-exact in
/// `ibv_wc::wr_id`.
#[inline]
pub(crate) fn recv(queue: RecvQueue, sge: Option<sys::ibv_sge>, op_context: u64) -> Result<()> {
    if let RecvQueue::Qp(qp) = queue {
        // A queue pair that takes its receives from an SRQ has no receive
        // queue. rxe refuses the post with EINVAL, but libsiw writes into
        // the queue it does not have and crashes the process, so the
        // library refuses it the way rxe does.
        // SAFETY: the QP is live (its owner is borrowed by the caller);
        // libibverbs sets `srq` when it creates the QP and never changes it.
        if !unsafe { (*qp).srq }.is_null() {
            return Err(recv_failed(false, libc::EINVAL));
        }
    }
    let mut sge = sge;
    let (sg_list, num_sge) = match sge.as_mut() {
        Some(entry) => (std::ptr::from_mut(entry), 1),
        None => (std::ptr::null_mut(), 0),
    };
    let mut wr = sys::ibv_recv_wr {
        wr_id: op_context,
        next: std::ptr::null_mut(),
        sg_list,
        num_sge,
    };
    let mut bad = std::ptr::null_mut();
    // SAFETY: the queue is live (its owner is borrowed by the caller); wr
    // and its SGE live on this stack frame for the call.
    let (ret, on_srq) = unsafe {
        match queue {
            RecvQueue::Qp(qp) => (sys::ibv_post_recv(qp, &mut wr, &mut bad), false),
            RecvQueue::Srq(srq) => (sys::ibv_post_srq_recv(srq, &mut wr, &mut bad), true),
        }
    };
    if ret == 0 {
        return Ok(());
    }
    Err(recv_failed(on_srq, ret))
}

/// Logs a refused receive the way the C library does (its message names
/// the post verb without "()", unlike its other calls; the verbs return an
/// errno value rather than setting errno).
#[cold]
fn recv_failed(on_srq: bool, ret: c_int) -> Error {
    let (op, call) = if on_srq {
        (Op::PostSrqRecv, "ibv_post_srq_recv")
    } else {
        (Op::PostRecv, "ibv_post_recv")
    };
    rpma_log!(Level::Error, op, "{} failed: {}", call, Errno(ret));
    Error::provider(op, call, ret)
}

/// The native operations, posted through the extended QP (see `native`
/// for when a QP has them).
impl QpNative {
    /// Posts a native flush of `len` bytes at `remote`. `placement` is
    /// `IBV_FLUSH_PERSISTENT`, `IBV_FLUSH_GLOBAL`, or 0 for a flush type the
    /// C library does not know (it passes 0 too).
    pub(crate) fn flush(
        &self,
        remote: Remote,
        len: usize,
        placement: u8,
        completion: Completion,
        wr_id: u64,
    ) -> Result<()> {
        debug_assert!(self.flush);
        // SAFETY: `flush` is set only for a QP whose provider set wr_flush
        // (checked in `of`).
        let op = unsafe { (*self.qpx).wr_flush.unwrap_unchecked() };
        let level = sys::IBV_FLUSH_RANGE as u8;
        // SAFETY: the QP is the one `op` belongs to, inside wr_start.
        let ret = self.post(wr_id, completion, |qpx| unsafe {
            op(qpx, remote.rkey, remote.addr, len, placement, level)
        });
        posted(Op::PostFlush, ret)
    }

    /// Posts a native 8-byte atomic write of `src` to `remote`.
    pub(crate) fn atomic_write(
        &self,
        remote: Remote,
        src: &[u8; 8],
        completion: Completion,
        wr_id: u64,
    ) -> Result<()> {
        debug_assert!(self.atomic_write);
        // SAFETY: `atomic_write` is set only for a QP whose provider set
        // wr_atomic_write (checked in `of`).
        let op = unsafe { (*self.qpx).wr_atomic_write.unwrap_unchecked() };
        // SAFETY: the QP is the one `op` belongs to, inside wr_start; the
        // provider copies the 8 bytes at `src` (borrowed for this call)
        // before wr_complete returns.
        let ret = self.post(wr_id, completion, |qpx| unsafe {
            op(qpx, remote.rkey, remote.addr, src.as_ptr().cast())
        });
        posted(Op::PostAtomicWrite, ret)
    }

    /// One work request between `ibv_wr_start` and `ibv_wr_complete`;
    /// `build` adds the operation. wr_complete's result.
    fn post(
        &self,
        wr_id: u64,
        completion: Completion,
        build: impl FnOnce(*mut sys::ibv_qp_ex),
    ) -> c_int {
        let qpx = self.qpx;
        // SAFETY: qpx is the extended QP of a live QP (the caller borrows its
        // connection) created with send_ops_flags, so wr_start/wr_complete
        // are set; wr_id and wr_flags are the request's fields to fill.
        unsafe {
            sys::ibv_wr_start(qpx);
            (*qpx).wr_id = wr_id;
            (*qpx).wr_flags = completion.send_flags();
            build(qpx);
            sys::ibv_wr_complete(qpx)
        }
    }
}

/// wr_complete's result; a failure is logged as in C.
fn posted(op: Op, ret: c_int) -> Result<()> {
    if ret == 0 {
        return Ok(());
    }
    rpma_log!(Level::Error, op, "ibv_wr_complete() failed: {}", Errno(ret));
    Err(Error::provider(op, "ibv_wr_complete", ret))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::c_void;

    #[test]
    fn immediate_data_is_big_endian() {
        let wr = SendWr::new(sys::IBV_WR_SEND_WITH_IMM, Completion::Always, 0).imm(0x0102_0304);
        let mut sge = sys::ibv_sge::default();
        let verbs = wr.to_verbs(&mut sge);
        // SAFETY: the union member was just written.
        let raw = unsafe { verbs.__bindgen_anon_1.imm_data };
        assert_eq!(raw.to_ne_bytes(), [1, 2, 3, 4]);
        assert_eq!(verbs.send_flags, sys::IBV_SEND_SIGNALED);
        assert!(verbs.sg_list.is_null());
        assert_eq!(verbs.num_sge, 0);
    }

    #[test]
    fn the_verbs_request_points_at_its_entry() {
        let entry = sys::ibv_sge {
            addr: 0x1000,
            length: 8,
            lkey: 7,
        };
        let wr = SendWr::new(sys::IBV_WR_RDMA_WRITE, Completion::OnError, 0x5a5a)
            .extra_flags(sys::IBV_SEND_FENCE)
            .sge(Some(entry))
            .remote(Remote {
                addr: 0x2000,
                rkey: 9,
            });
        let mut sge = sys::ibv_sge::default();
        let verbs = wr.to_verbs(&mut sge);
        assert_eq!(verbs.sg_list, std::ptr::from_mut(&mut sge));
        assert_eq!(verbs.num_sge, 1);
        assert_eq!((sge.addr, sge.length, sge.lkey), (0x1000, 8, 7));
        assert_eq!(
            (verbs.wr_id, verbs.opcode),
            (0x5a5a, sys::IBV_WR_RDMA_WRITE)
        );
        assert_eq!(verbs.send_flags, sys::IBV_SEND_FENCE);
        assert!(verbs.next.is_null());
        // SAFETY: the union members were just written.
        let (rdma, imm) = unsafe { (verbs.wr.rdma, verbs.__bindgen_anon_1.imm_data) };
        assert_eq!((rdma.remote_addr, rdma.rkey, imm), (0x2000, 9, 0));
    }

    #[test]
    fn nothing_names_one_empty_entry_only_on_iwarp() {
        assert!(entry_for(None, false).is_none());
        let empty = entry_for(None, true).expect("one entry on iWARP");
        assert_eq!((empty.addr, empty.length, empty.lkey), (0, 0, 0));
        let entry = sys::ibv_sge {
            addr: 0x1000,
            length: 8,
            lkey: 7,
        };
        for iwarp in [false, true] {
            let kept = entry_for(Some(entry), iwarp).expect("the entry is kept");
            assert_eq!((kept.addr, kept.length, kept.lkey), (0x1000, 8, 7));
        }
    }

    #[test]
    fn zero_byte_forms() {
        let missing = "dst: none, but offset or len is not 0";
        assert!(matches!(local_end(None, 0, 0, missing), Ok(None)));
        assert_eq!(
            local_end(None, 1, 0, missing).err(),
            Some(Error::inval(missing))
        );
        assert_eq!(
            local_end(None, 0, 1, missing).err(),
            Some(Error::inval(missing))
        );
        assert!(matches!(one_sided_ends(None, 0, None, 0, 0), Ok((None, _))));
        assert!(matches!(
            one_sided_ends(None, 0, None, 8, 0),
            Err(Error::Inval(i)) if i.what().starts_with("src, dst: neither")
        ));
    }

    /// What the fake provider below saw.
    #[derive(Default)]
    struct Seen {
        started: u32,
        flush: Option<(u32, u64, usize, u8, u8)>,
        atomic: Option<(u32, u64, [u8; 8])>,
        id_flags: (u64, u32),
        complete_ret: c_int,
    }

    thread_local! {
        static SEEN: std::cell::RefCell<Seen> = Default::default();
    }

    unsafe extern "C" fn start(_: *mut sys::ibv_qp_ex) {
        SEEN.with(|s| s.borrow_mut().started += 1);
    }
    unsafe extern "C" fn flush(
        qp: *mut sys::ibv_qp_ex,
        rkey: u32,
        addr: u64,
        len: usize,
        ty: u8,
        level: u8,
    ) {
        // SAFETY: the test passes its own live ibv_qp_ex.
        let id_flags = unsafe { ((*qp).wr_id, (*qp).wr_flags) };
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            s.flush = Some((rkey, addr, len, ty, level));
            s.id_flags = id_flags;
        });
    }
    unsafe extern "C" fn atomic(qp: *mut sys::ibv_qp_ex, rkey: u32, addr: u64, src: *const c_void) {
        let mut bytes = [0u8; 8];
        // SAFETY: the library passes its 8-byte source; qp is the test's.
        let id_flags = unsafe {
            std::ptr::copy_nonoverlapping(src.cast::<u8>(), bytes.as_mut_ptr(), 8);
            ((*qp).wr_id, (*qp).wr_flags)
        };
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            s.atomic = Some((rkey, addr, bytes));
            s.id_flags = id_flags;
        });
    }
    unsafe extern "C" fn complete(_: *mut sys::ibv_qp_ex) -> c_int {
        SEEN.with(|s| s.borrow().complete_ret)
    }

    fn fake_qp() -> sys::ibv_qp_ex {
        sys::ibv_qp_ex {
            wr_start: Some(start),
            wr_complete: Some(complete),
            wr_flush: Some(flush),
            wr_atomic_write: Some(atomic),
            ..Default::default()
        }
    }

    #[test]
    fn native_requests_carry_what_the_caller_gave() {
        let mut qp = fake_qp();
        let native = QpNative {
            qpx: &mut qp,
            atomic_write: true,
            flush: true,
        };
        let placement = sys::IBV_FLUSH_PERSISTENT as u8;
        let at = |addr, rkey| Remote { addr, rkey };
        let flushed = native.flush(at(0x1000, 7), 64, placement, Completion::Always, 0xfeed);
        assert_eq!(flushed, Ok(()));
        SEEN.with(|s| {
            let s = s.borrow();
            assert_eq!(s.started, 1);
            let range = sys::IBV_FLUSH_RANGE as u8;
            assert_eq!(s.flush, Some((7, 0x1000, 64, placement, range)));
            assert_eq!(s.id_flags, (0xfeed, sys::IBV_SEND_SIGNALED));
        });
        let written = native.atomic_write(at(0x2008, 9), b"ABCDEFGH", Completion::OnError, 0);
        assert_eq!(written, Ok(()));
        SEEN.with(|s| {
            let s = s.borrow();
            assert_eq!(s.atomic, Some((9, 0x2008, *b"ABCDEFGH")));
            assert_eq!(s.id_flags, (0, 0));
        });
    }

    #[test]
    fn a_refused_request_is_a_provider_error() {
        let mut qp = fake_qp();
        let native = QpNative {
            qpx: &mut qp,
            atomic_write: true,
            flush: true,
        };
        SEEN.with(|s| s.borrow_mut().complete_ret = libc::ENOMEM);
        let at = Remote { addr: 0, rkey: 1 };
        let flushed = native.flush(at, 8, 1, Completion::OnError, 1);
        let full = |e: Error| {
            e.is_queue_full() && e.provider_error().map(|p| p.call()) == Some("ibv_wr_complete")
        };
        assert!(flushed.is_err_and(full));
        let written = native.atomic_write(at, &[0; 8], Completion::OnError, 1);
        assert!(written.is_err_and(full));
    }
}
