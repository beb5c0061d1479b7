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

use std::ptr;

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
    pub(crate) qpx: *mut sys::ibv_qp_ex,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
