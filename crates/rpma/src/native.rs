//! Native RDMA FLUSH and ATOMIC WRITE, through the extended QP's work-request
//! interface (`ibv_wr_start` … `ibv_wr_complete`), as rdma-core 45 and later
//! offer them.
//!
//! One binary serves every rdma-core: the bindings describe rdma-core 56,
//! but a QP's `ibv_qp_ex` is laid out by the provider loaded at run time,
//! and an older provider's structure ends before `wr_atomic_write` and
//! `wr_flush`. So those two pointers are read only from a QP that the
//! provider created with `IBV_QP_EX_WITH_ATOMIC_WRITE` / `IBV_QP_EX_WITH_FLUSH`
//! in its `send_ops_flags`: a provider that accepts those flags knows them,
//! and so has the fields. One that does not know them refuses the QP, and
//! the connection is built again without them (see `conn_req`).

use std::ffi::c_int;
use std::ptr;

use crate::error::{Errno, Error, Result};
use crate::log::{Level, Op};
use crate::post::{Completion, Remote};
use crate::sys;

/// What a device offers natively, from `device_cap_flags_ex`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DeviceNative {
    pub atomic_write: bool,
    pub flush: bool,
}

/// `IB_UVERBS_DEVICE_FLUSH_GLOBAL`, `…_FLUSH_PERSISTENT`, `…_ATOMIC_WRITE`:
/// bits 38 to 40. Native flush needs both flush bits, as in the C library.
const CAP_FLUSH_GLOBAL: u64 = 1 << 38;
const CAP_FLUSH_PERSISTENT: u64 = 1 << 39;
const CAP_ATOMIC_WRITE: u64 = 1 << 40;

impl DeviceNative {
    pub(crate) fn from_cap_flags(flags: u64) -> DeviceNative {
        let both = CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT;
        DeviceNative {
            atomic_write: flags & CAP_ATOMIC_WRITE != 0,
            flush: flags & both == both,
        }
    }

    /// What a peer uses of it: the switch can only turn an operation off.
    pub(crate) fn allowed_by(self, switch: Switch) -> DeviceNative {
        DeviceNative {
            atomic_write: self.atomic_write && switch.atomic_write,
            flush: self.flush && switch.flush,
        }
    }

    /// The `send_ops_flags` a QP asks for, and whether it asks at all.
    pub(crate) fn send_ops_flags(self) -> u64 {
        let mut ops = 0;
        if self.atomic_write {
            ops |= sys::IBV_QP_EX_WITH_ATOMIC_WRITE as u64;
        }
        if self.flush {
            ops |= sys::IBV_QP_EX_WITH_FLUSH as u64;
        }
        ops
    }
}

/// The run-time switch: `RPMA_NATIVE_FLUSH=0` and `RPMA_NATIVE_ATOMIC_WRITE=0`
/// make a process use the emulations even where the device has the native
/// operations (see librpma(7) for when a mixed cluster needs that).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Switch {
    pub atomic_write: bool,
    pub flush: bool,
}

impl Switch {
    /// Read when a peer is made, not on the data path.
    pub(crate) fn from_env() -> Switch {
        let on = |name| crate::env::with_var(name, |v| v != Some(b"0"));
        Switch {
            atomic_write: on(c"RPMA_NATIVE_ATOMIC_WRITE"),
            flush: on(c"RPMA_NATIVE_FLUSH"),
        }
    }
}

/// The native operations one QP has. `qpx` is null when it has none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QpNative {
    qpx: *mut sys::ibv_qp_ex,
    pub atomic_write: bool,
    pub flush: bool,
}

impl Default for QpNative {
    fn default() -> QpNative {
        QpNative {
            qpx: ptr::null_mut(),
            atomic_write: false,
            flush: false,
        }
    }
}

impl QpNative {
    /// What a QP created with `asked` in its `send_ops_flags` can do.
    ///
    /// # Safety
    /// `qp` is a live QP that the provider created with exactly the
    /// `send_ops_flags` of `asked` (and the flag that makes them count).
    pub(crate) unsafe fn of(qp: *mut sys::ibv_qp, asked: DeviceNative) -> QpNative {
        if !asked.atomic_write && !asked.flush {
            return QpNative::default();
        }
        // SAFETY: qp is live (caller contract).
        let qpx = unsafe { sys::ibv_qp_to_qp_ex(qp) };
        if qpx.is_null() {
            return QpNative::default();
        }
        // SAFETY: the provider accepted the flags, so its ibv_qp_ex has
        // these fields (see the module doc); it set them at creation.
        let (aw, fl) = unsafe { ((*qpx).wr_atomic_write.is_some(), (*qpx).wr_flush.is_some()) };
        QpNative {
            qpx,
            atomic_write: asked.atomic_write && aw,
            flush: asked.flush && fl,
        }
    }

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

    const ON: Switch = Switch {
        atomic_write: true,
        flush: true,
    };

    #[test]
    fn flush_needs_both_placement_bits() {
        let only_global = DeviceNative::from_cap_flags(CAP_FLUSH_GLOBAL).allowed_by(ON);
        assert!(!only_global.flush);
        let both =
            DeviceNative::from_cap_flags(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT).allowed_by(ON);
        assert!(both.flush && !both.atomic_write);
        assert_eq!(both.send_ops_flags(), sys::IBV_QP_EX_WITH_FLUSH as u64);
        let rxe = DeviceNative::from_cap_flags(0x1C001223C76).allowed_by(ON);
        assert_eq!(
            rxe,
            DeviceNative {
                atomic_write: true,
                flush: true
            }
        );
        assert_eq!(rxe.send_ops_flags(), 0x1800);
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

    #[test]
    fn the_switch_turns_each_off() {
        let off = Switch {
            atomic_write: false,
            flush: true,
        };
        let d = DeviceNative::from_cap_flags(0x1C001223C76).allowed_by(off);
        assert!(!d.atomic_write && d.flush);
        assert_eq!(DeviceNative::default().send_ops_flags(), 0);
    }
}
