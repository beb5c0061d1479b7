//! The uses a local memory region is registered for (`RPMA_MR_USAGE_*`),
//! and the access rights each of them needs. Below the regions themselves:
//! a peer's flush read target is registered by the same rules.

use std::ffi::c_int;

use crate::error::{Error, Result};
use crate::sys;

/// What a local region is used for: a set of the `RPMA_MR_USAGE_*` bits,
/// from which registration derives the access rights the region gets.
///
/// Only the eight defined bits can be in a `Usage`; [`Usage::from_bits`]
/// and `TryFrom<i32>` refuse anything else.
///
/// ```
/// use rpma::mr::Usage;
///
/// let mut u = Usage::READ_DST | Usage::WRITE_SRC;
/// u |= Usage::RECV;
/// assert!(u.contains(Usage::READ_DST | Usage::RECV));
/// assert!(!u.intersects(Usage::FLUSH_TYPES));
/// assert_eq!(u.bits(), 0x86);
/// assert_eq!(format!("{u:?}"), "Usage(READ_DST | WRITE_SRC | RECV)");
/// assert_eq!(Usage::from_bits(0x100), None);
/// assert!(matches!(Usage::try_from(-1), Err(rpma::Error::Inval(_))));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Usage(u32);

// The constants are spelled as calls, not as `Usage(1 << n)`: cbindgen,
// which reads this crate for librpma.h, would otherwise take them for C
// constants (C has the RPMA_MR_USAGE_* #defines already).
impl Usage {
    /// The region is read by the peer (`RPMA_MR_USAGE_READ_SRC`).
    pub const READ_SRC: Usage = Usage::bit(0);
    /// Data read from the peer lands here (`RPMA_MR_USAGE_READ_DST`).
    pub const READ_DST: Usage = Usage::bit(1);
    /// Data written to the peer comes from here (`RPMA_MR_USAGE_WRITE_SRC`).
    pub const WRITE_SRC: Usage = Usage::bit(2);
    /// The peer writes into the region (`RPMA_MR_USAGE_WRITE_DST`).
    pub const WRITE_DST: Usage = Usage::bit(3);
    /// The peer may flush the region to global visibility
    /// (`RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY`).
    pub const FLUSH_TYPE_VISIBILITY: Usage = Usage::bit(4);
    /// The peer may flush the region to persistence
    /// (`RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT`).
    pub const FLUSH_TYPE_PERSISTENT: Usage = Usage::bit(5);
    /// Messages are sent from here (`RPMA_MR_USAGE_SEND`).
    pub const SEND: Usage = Usage::bit(6);
    /// Messages are received here (`RPMA_MR_USAGE_RECV`).
    pub const RECV: Usage = Usage::bit(7);
    /// Every defined bit.
    pub const ALL: Usage = Usage::from_bits_truncate(u32::MAX);
    /// The two flush bits, as `rpma_mr_remote_get_flush_type` reports them.
    pub const FLUSH_TYPES: Usage = Usage::FLUSH_TYPE_VISIBILITY.union(Usage::FLUSH_TYPE_PERSISTENT);

    /// The names `Debug` prints, in bit order.
    const NAMES: [(&'static str, Usage); 8] = [
        ("READ_SRC", Usage::READ_SRC),
        ("READ_DST", Usage::READ_DST),
        ("WRITE_SRC", Usage::WRITE_SRC),
        ("WRITE_DST", Usage::WRITE_DST),
        ("FLUSH_TYPE_VISIBILITY", Usage::FLUSH_TYPE_VISIBILITY),
        ("FLUSH_TYPE_PERSISTENT", Usage::FLUSH_TYPE_PERSISTENT),
        ("SEND", Usage::SEND),
        ("RECV", Usage::RECV),
    ];

    /// The set with only bit `n`.
    const fn bit(n: u32) -> Usage {
        Usage(1 << n)
    }

    /// The empty set (which registration refuses).
    #[inline]
    pub const fn empty() -> Usage {
        Usage(0)
    }

    /// The set with exactly `bits`, or `None` if a bit outside
    /// [`Usage::ALL`] is set.
    #[inline]
    pub const fn from_bits(bits: u32) -> Option<Usage> {
        match bits & !Self::ALL.0 {
            0 => Some(Usage(bits)),
            _ => None,
        }
    }

    /// The defined bits of `bits`, the others dropped: for usage bytes that
    /// come from a peer and are only ever tested bit by bit.
    #[inline]
    pub const fn from_bits_truncate(bits: u32) -> Usage {
        Usage(bits & 0xFF)
    }

    /// The bits, as the C API spells them.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether no bit is set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every bit of `other` is set in `self`.
    #[inline]
    pub const fn contains(self, other: Usage) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits of both sets; `|` in const context.
    #[inline]
    pub const fn union(self, other: Usage) -> Usage {
        Usage(self.0 | other.0)
    }

    /// Whether `self` and `other` have a bit in common.
    #[inline]
    pub const fn intersects(self, other: Usage) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for Usage {
    type Output = Usage;
    #[inline]
    fn bitor(self, rhs: Usage) -> Usage {
        Usage(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Usage {
    #[inline]
    fn bitor_assign(&mut self, rhs: Usage) {
        self.0 |= rhs.0;
    }
}

impl std::ops::BitAnd for Usage {
    type Output = Usage;
    #[inline]
    fn bitand(self, rhs: Usage) -> Usage {
        Usage(self.0 & rhs.0)
    }
}

/// The C API's `int usage`: a negative value or a bit above the eight
/// usages is `Error::Inval`, as `rpma_mr_reg` reports it. 0 converts (to
/// the empty set); registration is what refuses it.
impl TryFrom<i32> for Usage {
    type Error = Error;
    #[inline]
    fn try_from(bits: i32) -> Result<Usage> {
        u32::try_from(bits)
            .ok()
            .and_then(Usage::from_bits)
            .ok_or(Error::inval(
                "usage: negative, or a bit above the eight usages",
            ))
    }
}

impl std::fmt::Debug for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Usage(")?;
        let mut names = Self::NAMES.iter().filter(|(_, u)| self.contains(*u));
        match names.next() {
            None => f.write_str("empty")?,
            Some((first, _)) => {
                f.write_str(first)?;
                for (name, _) in names {
                    write!(f, " | {name}")?;
                }
            }
        }
        f.write_str(")")
    }
}

impl Usage {
    /// The access flags a region registered for these uses gets: what
    /// each use needs, no more (remote write only for WRITE_DST, remote
    /// read only for READ_SRC and the flush uses). `iwarp`: the device
    /// carries an RDMA read back as a write into the reader's buffer, so a
    /// read destination needs remote write too. `native_flush`: a flush use
    /// is granted for both ways a peer may flush, the emulated one (an
    /// 8-byte RDMA READ: C 1.2.0, and any peer without native flush) and
    /// the native FLUSH of that placement (C 1.3.0 and ours). See
    /// rpma_mr_reg(3) for why the read right this adds is no wider than
    /// what the region already exposes.
    pub(crate) fn access(self, iwarp: bool, native_flush: bool) -> c_int {
        let mut access = 0;
        if self.contains(Usage::READ_SRC) {
            access |= sys::IBV_ACCESS_REMOTE_READ;
        }
        if self.contains(Usage::READ_DST) {
            access |= sys::IBV_ACCESS_LOCAL_WRITE;
            if iwarp {
                access |= sys::IBV_ACCESS_REMOTE_WRITE;
            }
        }
        if self.contains(Usage::WRITE_SRC) {
            access |= sys::IBV_ACCESS_LOCAL_WRITE;
        }
        if self.contains(Usage::WRITE_DST) {
            access |= sys::IBV_ACCESS_REMOTE_WRITE | sys::IBV_ACCESS_LOCAL_WRITE;
        }
        if self.intersects(Usage::FLUSH_TYPES) {
            access |= sys::IBV_ACCESS_REMOTE_READ;
            if native_flush {
                if self.contains(Usage::FLUSH_TYPE_VISIBILITY) {
                    access |= sys::IBV_ACCESS_FLUSH_GLOBAL;
                }
                if self.contains(Usage::FLUSH_TYPE_PERSISTENT) {
                    access |= sys::IBV_ACCESS_FLUSH_PERSISTENT;
                }
            }
        }
        if self.contains(Usage::RECV) {
            access |= sys::IBV_ACCESS_LOCAL_WRITE;
        }
        access as c_int
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_bits_are_the_c_values() {
        let named = [
            (Usage::READ_SRC, 1),
            (Usage::READ_DST, 2),
            (Usage::WRITE_SRC, 4),
            (Usage::WRITE_DST, 8),
            (Usage::FLUSH_TYPE_VISIBILITY, 16),
            (Usage::FLUSH_TYPE_PERSISTENT, 32),
            (Usage::SEND, 64),
            (Usage::RECV, 128),
        ];
        let mut all = Usage::empty();
        for (u, bits) in named {
            assert_eq!(u.bits(), bits);
            all |= u;
        }
        assert_eq!(all, Usage::ALL);
        assert_eq!(Usage::FLUSH_TYPES.bits(), 0x30);
        assert_eq!(format!("{:?}", Usage::empty()), "Usage(empty)");
    }

    /// The conversion from rpma_mr_reg's `int`: the values of
    /// tests-c/live/mr/rpma_mr_reg.c. 0 converts; reg refuses it.
    #[test]
    fn usage_from_c_int() {
        for v in 0..=0xFF {
            assert_eq!(Usage::try_from(v).map(Usage::bits), Ok(v as u32));
        }
        for v in [
            0x100,
            0x1FF,
            0x201,
            0x4000_0000,
            i32::MIN,
            -1,
            i32::MIN | 0xFF,
        ] {
            assert!(
                matches!(Usage::try_from(v), Err(Error::Inval(i)) if i.what().starts_with("usage:")),
                "{v:#x}"
            );
        }
    }

    #[test]
    fn each_use_gets_its_access_only() {
        let local = sys::IBV_ACCESS_LOCAL_WRITE as c_int;
        let rw = sys::IBV_ACCESS_REMOTE_WRITE as c_int;
        let rr = sys::IBV_ACCESS_REMOTE_READ as c_int;
        assert_eq!(Usage::READ_DST.access(false, false), local);
        assert_eq!(Usage::READ_DST.access(true, false), local | rw);
        assert_eq!(Usage::READ_SRC.access(true, true), rr);
        assert_eq!(Usage::SEND.access(false, false), 0);
        let flush = Usage::FLUSH_TYPE_PERSISTENT.access(false, true);
        assert_eq!(flush, rr | sys::IBV_ACCESS_FLUSH_PERSISTENT as c_int);
        assert_eq!(Usage::FLUSH_TYPE_PERSISTENT.access(false, false), rr);
    }
}
