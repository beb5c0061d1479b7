//! Memory regions: local ones registered with a peer, and remote ones known
//! from the descriptor their owner sent.
//!
//! The descriptor is the wire format of the C library: 21 bytes, the
//! region's address (u64), its length (u64) and its rkey (u32), all
//! little-endian, then the usage bits as one byte.

use std::ffi::{c_int, c_void};
use std::ptr::NonNull;

use crate::alloc::try_box;
use crate::error::{check_errno_value, errno, provider_failed, Errno, Error, Result};
use crate::log::Level;
use crate::peer::Peer;
use crate::sys;

/// What a region is used for; the `RPMA_MR_USAGE_*` bits.
pub mod usage {
    pub const READ_SRC: i32 = 1 << 0;
    pub const READ_DST: i32 = 1 << 1;
    pub const WRITE_SRC: i32 = 1 << 2;
    pub const WRITE_DST: i32 = 1 << 3;
    pub const FLUSH_TYPE_VISIBILITY: i32 = 1 << 4;
    pub const FLUSH_TYPE_PERSISTENT: i32 = 1 << 5;
    pub const SEND: i32 = 1 << 6;
    pub const RECV: i32 = 1 << 7;
    /// Every defined bit.
    pub const ALL: i32 = 0xFF;
    /// The two flush bits, as `rpma_mr_remote_get_flush_type` reports them.
    pub const FLUSH_TYPES: i32 = FLUSH_TYPE_VISIBILITY | FLUSH_TYPE_PERSISTENT;
}

/// Size of a memory-region descriptor in bytes.
pub const DESCRIPTOR_SIZE: usize = 21;

/// The access a region gets for `usage`: what each use needs, no more
/// (remote write only for WRITE_DST, remote read only for READ_SRC and the
/// flush uses). A flush use is granted for both ways a peer may flush: the
/// emulated one (an 8-byte RDMA READ: C 1.2.0, and any peer without native
/// flush) and, when the device has native flush, the native FLUSH of that
/// placement (C 1.3.0 and ours). See rpma_mr_reg(3) for why the read right
/// this adds is no wider than what the region already exposes.
fn access_for(peer: &Peer, usage: i32) -> c_int {
    let mut access = 0;
    if usage & usage::READ_SRC != 0 {
        access |= sys::IBV_ACCESS_REMOTE_READ;
    }
    if usage & usage::READ_DST != 0 {
        access |= sys::IBV_ACCESS_LOCAL_WRITE;
        // iWARP carries an RDMA read back as a write into the reader's buffer.
        if peer.is_iwarp() {
            access |= sys::IBV_ACCESS_REMOTE_WRITE;
        }
    }
    if usage & usage::WRITE_SRC != 0 {
        access |= sys::IBV_ACCESS_LOCAL_WRITE;
    }
    if usage & usage::WRITE_DST != 0 {
        access |= sys::IBV_ACCESS_REMOTE_WRITE | sys::IBV_ACCESS_LOCAL_WRITE;
    }
    if usage & usage::FLUSH_TYPES != 0 {
        access |= sys::IBV_ACCESS_REMOTE_READ;
        if peer.native().flush {
            if usage & usage::FLUSH_TYPE_VISIBILITY != 0 {
                access |= sys::IBV_ACCESS_FLUSH_GLOBAL;
            }
            if usage & usage::FLUSH_TYPE_PERSISTENT != 0 {
                access |= sys::IBV_ACCESS_FLUSH_PERSISTENT;
            }
        }
    }
    if usage & usage::RECV != 0 {
        access |= sys::IBV_ACCESS_LOCAL_WRITE;
    }
    access as c_int
}

/// A registered local memory region.
#[derive(Debug)]
pub struct MrLocal {
    mr: NonNull<sys::ibv_mr>,
    usage: i32,
}

// SAFETY: an ibv_mr is a libibverbs object usable from any thread; the
// handle is not mutated after registration.
unsafe impl Send for MrLocal {}
// SAFETY: as above.
unsafe impl Sync for MrLocal {}

impl MrLocal {
    /// Registers `size` bytes at `ptr` with the peer's protection domain,
    /// with the access rights `usage` needs. `usage` must be a non-empty
    /// combination of [`usage`] bits.
    ///
    /// # Safety
    /// The memory stays allocated until the region is deregistered: the
    /// device reads and writes it (remote peers too, as `usage` allows)
    /// without the compiler knowing.
    pub unsafe fn reg(peer: &Peer, ptr: *mut c_void, size: usize, usage: i32) -> Result<MrLocal> {
        if ptr.is_null() || size == 0 || usage == 0 || usage & !usage::ALL != 0 {
            return Err(Error::Inval);
        }
        let mut access = access_for(peer, usage);
        // SAFETY: the PD is live; the memory is the caller's (contract).
        let mut mr = unsafe { sys::ibv_reg_mr(peer.pd(), ptr, size, access) };
        let persistent = sys::IBV_ACCESS_FLUSH_PERSISTENT as c_int;
        if mr.is_null() && errno() == libc::EINVAL && access & persistent != 0 {
            // The device grants native persistent flush only on persistent
            // memory (rxe: EINVAL elsewhere; the C library fails here). The
            // region is still flushable the emulated way, and natively to
            // visibility when asked. Nothing is logged: a registration that
            // succeeds logs nothing (rpma_mr_reg(3)).
            access &= !persistent;
            // SAFETY: as above.
            mr = unsafe { sys::ibv_reg_mr(peer.pd(), ptr, size, access) };
        }
        if mr.is_null() && errno() == libc::EOPNOTSUPP && peer.is_odp_capable() {
            // Memory the kernel cannot pin (file-backed DAX) can still be
            // registered for on-demand paging.
            let odp = access | sys::IBV_ACCESS_ON_DEMAND as c_int;
            // SAFETY: as above.
            mr = unsafe { sys::ibv_reg_mr(peer.pd(), ptr, size, odp) };
        }
        let mr = NonNull::new(mr).ok_or_else(|| provider_failed("ibv_reg_mr"))?;
        Ok(MrLocal { mr, usage })
    }

    fn raw(&self) -> &sys::ibv_mr {
        // SAFETY: the MR is live while self is.
        unsafe { self.mr.as_ref() }
    }

    /// The registered address.
    pub fn ptr(&self) -> *mut c_void {
        self.raw().addr
    }

    /// The registered length.
    pub fn size(&self) -> usize {
        self.raw().length
    }

    pub fn lkey(&self) -> u32 {
        self.raw().lkey
    }

    pub fn rkey(&self) -> u32 {
        self.raw().rkey
    }

    pub fn usage(&self) -> i32 {
        self.usage
    }

    /// The descriptor a remote peer needs to access this region.
    pub fn descriptor(&self) -> [u8; DESCRIPTOR_SIZE] {
        let mut d = [0u8; DESCRIPTOR_SIZE];
        d[0..8].copy_from_slice(&(self.ptr() as u64).to_le_bytes());
        d[8..16].copy_from_slice(&(self.size() as u64).to_le_bytes());
        d[16..20].copy_from_slice(&self.rkey().to_le_bytes());
        d[20] = self.usage as u8;
        d
    }

    /// The scatter/gather entry for `len` bytes at `offset`: the device
    /// checks the range against the registration, so neither is checked
    /// here, and `len` is cut to 32 bits as in the C library.
    #[inline]
    pub(crate) fn sge(&self, offset: usize, len: usize) -> sys::ibv_sge {
        sys::ibv_sge {
            addr: (self.ptr() as u64).wrapping_add(offset as u64),
            length: len as u32,
            lkey: self.lkey(),
        }
    }

    /// Gives the device a paging hint for part of the region
    /// (`ibv_advise_mr`); bounds are the kernel's to check.
    pub fn advise(&self, offset: usize, len: usize, advice: c_int, flags: u32) -> Result<()> {
        let mut sge = self.sge(offset, len);
        // SAFETY: the MR and its PD are live; one SGE is passed.
        let ret = unsafe {
            sys::ibv_advise_mr(
                self.raw().pd,
                advice as sys::ib_uverbs_advise_mr_advice,
                flags,
                &mut sge,
                1,
            )
        };
        if ret == 0 {
            return Ok(());
        }
        rpma_log!(
            Level::Error,
            "rpma_mr_advise",
            "ibv_advise_mr() failed: {}",
            Errno(ret)
        );
        Err(match ret {
            libc::EOPNOTSUPP => Error::NoSupp,
            libc::EFAULT | libc::EINVAL => Error::Inval,
            _ => Error::Provider,
        })
    }

    /// Deregisters the region.
    pub fn dereg(self) -> Result<()> {
        let mr = self.mr.as_ptr();
        std::mem::forget(self);
        // SAFETY: the MR is ours and deregistered once.
        check_errno_value("ibv_dereg_mr", unsafe { sys::ibv_dereg_mr(mr) })
    }
}

impl Drop for MrLocal {
    fn drop(&mut self) {
        // SAFETY: as in dereg.
        unsafe { sys::ibv_dereg_mr(self.mr.as_ptr()) };
    }
}

/// A region of a remote peer, as its descriptor describes it. Nothing in
/// it is trusted: the remote device checks every access against the rkey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrRemote {
    pub raddr: u64,
    pub size: u64,
    pub rkey: u32,
    pub usage: u8,
}

impl MrRemote {
    /// Decodes a descriptor into a new heap object. Only its size (at least
    /// 21 bytes; more is ignored) and a non-zero usage byte are required.
    /// The object is allocated before anything is logged, as in the C
    /// library: out of memory logs nothing.
    pub fn from_descriptor(desc: &[u8]) -> Result<Box<MrRemote>> {
        let Some(d) = desc.first_chunk::<DESCRIPTOR_SIZE>() else {
            rpma_log!(
                Level::Error,
                "rpma_mr_remote_from_descriptor",
                "incorrect size of the descriptor: {} bytes (should be at least: {} bytes)",
                desc.len(),
                DESCRIPTOR_SIZE
            );
            return Err(Error::Inval);
        };
        let usage = d[20];
        if usage == 0 {
            rpma_log!(
                Level::Error,
                "rpma_mr_remote_from_descriptor",
                "usage type of memory is not set"
            );
            return Err(Error::Inval);
        }
        let u64_at = |i: usize| u64::from_le_bytes(d[i..i + 8].try_into().unwrap());
        let mr = try_box(MrRemote {
            raddr: u64_at(0),
            size: u64_at(8),
            rkey: u32::from_le_bytes(d[16..20].try_into().unwrap()),
            usage,
        })?;
        rpma_log!(
            Level::Debug,
            "rpma_mr_remote_from_descriptor",
            "new struct rpma_mr_remote {{raddr=0x{:x}, size={}, rkey=0x{:x}, usage=0x{:x}}}",
            mr.raddr,
            mr.size,
            mr.rkey,
            mr.usage
        );
        Ok(mr)
    }

    /// The flush usage bits of the region (`RPMA_MR_USAGE_FLUSH_TYPE_*`).
    pub fn flush_type(&self) -> i32 {
        self.usage as i32 & usage::FLUSH_TYPES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_decodes_little_endian_and_validates() {
        let mut d = [0u8; 22];
        d[0..8].copy_from_slice(&0x7f12_3456_0000u64.to_le_bytes());
        d[8..16].copy_from_slice(&4096u64.to_le_bytes());
        d[16..20].copy_from_slice(&0x1234_abcdu32.to_le_bytes());
        d[20] = 0x18;
        let r = MrRemote::from_descriptor(&d).unwrap();
        assert_eq!(
            (r.raddr, r.size, r.rkey, r.usage),
            (0x7f12_3456_0000, 4096, 0x1234_abcd, 0x18)
        );
        assert_eq!(r.flush_type(), usage::FLUSH_TYPE_VISIBILITY);
        assert_eq!(
            MrRemote::from_descriptor(&d[..20]).err(),
            Some(Error::Inval)
        );
        d[20] = 0;
        assert_eq!(MrRemote::from_descriptor(&d).err(), Some(Error::Inval));
        d[20] = 0xFF;
        assert_eq!(MrRemote::from_descriptor(&d).unwrap().flush_type(), 0x30);
    }
}
