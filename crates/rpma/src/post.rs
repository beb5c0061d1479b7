//! Work requests: the one place that fills `ibv_send_wr`/`ibv_recv_wr` and
//! posts them. Every operation of the data path ends here, so these
//! functions stay on the stack: no allocation, no lock, one verbs call.

use std::ffi::c_int;

use crate::error::{Errno, Error, Result};
use crate::log::{Level, Op};
use crate::sys;

/// When an operation produces a completion. Errors always complete: an RC
/// queue pair reports a failed work request even when it was unsignalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// A completion for every outcome (`RPMA_F_COMPLETION_ALWAYS`).
    Always,
    /// A completion only when the operation fails
    /// (`RPMA_F_COMPLETION_ON_ERROR`).
    OnError,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
