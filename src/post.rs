//! Work requests: the one place that fills `ibv_send_wr`/`ibv_recv_wr` and
//! posts them. Every operation of the data path ends here, so these
//! functions stay on the stack: no allocation, no lock, one verbs call.

use std::ffi::{c_int, c_void};

use crate::error::{Error, Result};
use crate::log::Level;
use crate::mr::{MrLocal, MrRemote};
use crate::sys;
use crate::verbs::Errno;

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

/// The bit of the C `flags` that asks for a completion on success.
const ON_SUCCESS: c_int = 1 << 1;

impl Completion {
    /// Reads the C `flags` argument. 0 is refused; bits other than the
    /// success bit are ignored, as in the C library.
    #[inline]
    pub fn from_flags(flags: c_int) -> Result<Completion> {
        match flags {
            0 => Err(Error::Inval),
            f if f & ON_SUCCESS != 0 => Ok(Completion::Always),
            _ => Ok(Completion::OnError),
        }
    }

    #[inline]
    pub(crate) fn send_flags(self) -> u32 {
        match self {
            Completion::Always => sys::IBV_SEND_SIGNALED,
            Completion::OnError => 0,
        }
    }
}

/// The caller's pointer travels as the work request id and comes back
/// bit-exact in `ibv_wc::wr_id`.
#[inline]
pub(crate) fn wr_id(op_context: *const c_void) -> u64 {
    op_context as usize as u64
}

/// The scatter/gather entry of a local range, or none for the 0-byte form
/// (no region, offset and length 0). A missing region with a range is
/// `RPMA_E_INVAL`.
#[inline]
pub(crate) fn local(
    mr: Option<&MrLocal>,
    offset: usize,
    len: usize,
) -> Result<Option<sys::ibv_sge>> {
    match mr {
        Some(mr) => Ok(Some(mr.sge(offset, len))),
        None if offset == 0 && len == 0 => Ok(None),
        None => Err(Error::Inval),
    }
}

/// The two ends of a one-sided operation: both given, or neither with
/// every offset and the length 0 (a 0-byte operation to address 0, rkey 0).
#[inline]
pub(crate) fn one_sided(
    local_mr: Option<&MrLocal>,
    local_offset: usize,
    remote_mr: Option<&MrRemote>,
    remote_offset: usize,
    len: usize,
) -> Result<(Option<sys::ibv_sge>, Remote)> {
    match (local_mr, remote_mr) {
        (Some(l), Some(r)) => Ok((Some(l.sge(local_offset, len)), Remote::at(r, remote_offset))),
        (None, None) if local_offset == 0 && remote_offset == 0 && len == 0 => {
            Ok((None, Remote { addr: 0, rkey: 0 }))
        }
        _ => Err(Error::Inval),
    }
}

/// A remote address and the key that grants access to it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Remote {
    pub(crate) addr: u64,
    pub(crate) rkey: u32,
}

impl Remote {
    #[inline]
    pub(crate) fn at(mr: &MrRemote, offset: usize) -> Remote {
        Remote {
            addr: mr.raddr.wrapping_add(offset as u64),
            rkey: mr.rkey,
        }
    }
}

/// One send-queue work request before it is posted.
pub(crate) struct SendWr {
    wr: sys::ibv_send_wr,
    sge: sys::ibv_sge,
}

impl SendWr {
    #[inline]
    pub(crate) fn new(
        opcode: sys::ibv_wr_opcode,
        completion: Completion,
        op_context: *const c_void,
    ) -> SendWr {
        SendWr {
            wr: sys::ibv_send_wr {
                wr_id: wr_id(op_context),
                opcode,
                send_flags: completion.send_flags(),
                ..Default::default()
            },
            sge: sys::ibv_sge::default(),
        }
    }

    #[inline]
    pub(crate) fn sge(mut self, sge: Option<sys::ibv_sge>) -> SendWr {
        if let Some(sge) = sge {
            self.sge = sge;
            self.wr.num_sge = 1;
        }
        self
    }

    #[inline]
    pub(crate) fn remote(mut self, remote: Remote) -> SendWr {
        self.wr.wr.rdma = sys::ibv_send_wr__bindgen_ty_2__bindgen_ty_1 {
            remote_addr: remote.addr,
            rkey: remote.rkey,
        };
        self
    }

    /// Immediate data travels in network byte order, as the C library
    /// sends it; receivers convert it themselves.
    #[inline]
    pub(crate) fn imm(mut self, imm: u32) -> SendWr {
        self.wr.__bindgen_anon_1.imm_data = imm.to_be();
        self
    }

    #[inline]
    pub(crate) fn extra_flags(mut self, flags: u32) -> SendWr {
        self.wr.send_flags |= flags;
        self
    }

    /// Posts on `qp`; `kind` names the operation in the log message of a
    /// failure.
    #[inline]
    pub(crate) fn post(mut self, qp: *mut sys::ibv_qp, kind: Kind) -> Result<()> {
        if self.wr.num_sge == 1 {
            self.wr.sg_list = &mut self.sge;
        }
        let mut bad = std::ptr::null_mut();
        // SAFETY: the QP is live (its owner is borrowed by the caller); the
        // work request and its SGE live on this stack frame for the call,
        // and the provider copies them (or the inline data) before it
        // returns.
        let ret = unsafe { sys::ibv_post_send(qp, &mut self.wr, &mut bad) };
        if ret == 0 {
            return Ok(());
        }
        self.log_failure(kind, ret);
        Err(Error::Provider)
    }

    /// The C library's message for a failed post: one-sided operations are
    /// described field by field, each number cut to 32 bits as its format
    /// does.
    #[cold]
    fn log_failure(&self, kind: Kind, ret: c_int) {
        if !crate::log::enabled(Level::Error) {
            return;
        }
        let log = |args: std::fmt::Arguments| rpma_log!(Level::Error, in kind.func(), "{}", args);
        let signaled = if self.wr.send_flags & sys::IBV_SEND_SIGNALED != 0 {
            "IBV_SEND_SIGNALED"
        } else {
            "0"
        };
        // SAFETY: `rdma` is the union member every post here fills (or
        // leaves zeroed, for sends); both are plain integers.
        let rdma = unsafe { self.wr.wr.rdma };
        let (raddr, rkey) = (rdma.remote_addr as u32, rdma.rkey);
        let (laddr, len, lkey) = (self.sge.addr as u32, self.sge.length, self.sge.lkey);
        let wr_id = self.wr.wr_id as u32;
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
}

/// The operation a send-queue work request carries out, as the C library
/// names it in its log messages.
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
    fn func(self) -> &'static str {
        match self {
            Kind::Read => "rpma_mr_read\0",
            Kind::Write => "rpma_mr_write\0",
            Kind::AtomicWrite => "rpma_mr_atomic_write\0",
            Kind::Send => "rpma_mr_send\0",
        }
    }
}

/// Where a receive work request goes.
pub(crate) enum RecvQueue {
    Qp(*mut sys::ibv_qp),
    Srq(*mut sys::ibv_srq),
}

/// Posts one receive of `len` bytes at `offset` of `dst` (no region, offset
/// and length 0: a 0-byte buffer) on `queue`.
#[inline]
pub(crate) fn recv(
    queue: RecvQueue,
    dst: Option<&MrLocal>,
    offset: usize,
    len: usize,
    op_context: *const c_void,
) -> Result<()> {
    let mut sge = local(dst, offset, len)?;
    let mut wr = sys::ibv_recv_wr {
        wr_id: wr_id(op_context),
        next: std::ptr::null_mut(),
        sg_list: sge.as_mut().map_or(std::ptr::null_mut(), |s| s as *mut _),
        num_sge: c_int::from(sge.is_some()),
    };
    let mut bad = std::ptr::null_mut();
    // SAFETY: the queue is live (its owner is borrowed by the caller); wr
    // and its SGE live on this stack frame for the call.
    let (func, call, ret) = unsafe {
        match queue {
            RecvQueue::Qp(qp) => (
                "rpma_mr_recv\0",
                "ibv_post_recv",
                sys::ibv_post_recv(qp, &mut wr, &mut bad),
            ),
            RecvQueue::Srq(srq) => (
                "rpma_mr_srq_recv\0",
                "ibv_post_srq_recv",
                sys::ibv_post_srq_recv(srq, &mut wr, &mut bad),
            ),
        }
    };
    posted(func, call, ret)
}

/// The post verbs return an errno value rather than setting errno. The
/// C library's message names them without "()", unlike its other calls.
fn posted(func: &'static str, call: &str, ret: c_int) -> Result<()> {
    if ret == 0 {
        return Ok(());
    }
    rpma_log!(Level::Error, in func, "{} failed: {}", call, Errno(ret));
    Err(Error::Provider)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_success_bit() {
        assert_eq!(Completion::from_flags(0), Err(Error::Inval));
        assert_eq!(Completion::from_flags(1), Ok(Completion::OnError));
        assert_eq!(Completion::from_flags(3), Ok(Completion::Always));
        assert_eq!(Completion::from_flags(2), Ok(Completion::Always));
        assert_eq!(Completion::from_flags(4), Ok(Completion::OnError));
        assert_eq!(Completion::from_flags(-1), Ok(Completion::Always));
    }

    #[test]
    fn zero_byte_forms() {
        assert!(matches!(local(None, 0, 0), Ok(None)));
        assert_eq!(local(None, 1, 0).err(), Some(Error::Inval));
        assert_eq!(local(None, 0, 1).err(), Some(Error::Inval));
        assert!(matches!(one_sided(None, 0, None, 0, 0), Ok((None, _))));
        assert_eq!(one_sided(None, 0, None, 8, 0).err(), Some(Error::Inval));
    }

    #[test]
    fn immediate_data_is_big_endian() {
        let wr = SendWr::new(
            sys::IBV_WR_SEND_WITH_IMM,
            Completion::Always,
            std::ptr::null(),
        )
        .imm(0x0102_0304);
        // SAFETY: the union member was just written.
        let raw = unsafe { wr.wr.__bindgen_anon_1.imm_data };
        assert_eq!(raw.to_ne_bytes(), [1, 2, 3, 4]);
        assert_eq!(wr.wr.send_flags, sys::IBV_SEND_SIGNALED);
    }
}
