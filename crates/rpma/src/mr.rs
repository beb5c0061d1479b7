//! Memory regions: local ones registered with a peer, and remote ones known
//! from the descriptor their owner sent.
//!
//! The descriptor is the wire format of the C library: 21 bytes, the
//! region's address (u64), its length (u64) and its rkey (u32), all
//! little-endian, then the usage bits as one byte.

use std::ffi::{c_int, c_void};
use std::fmt;

use crate::alloc::try_box;
use crate::error::{Errno, Error, Result};
use crate::log::{Level, Op};
use crate::peer::Peer;
use crate::sys;
use crate::verbs::Registration;

pub use crate::usage::Usage;

/// Size of a memory-region descriptor in bytes.
pub const DESCRIPTOR_SIZE: usize = 21;

// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"A registration of local memory on a peer: the device, and the remote
peer as its usage allows, read and write the memory while it lives.
A [`Region`](crate::Region) owns the memory it registers (and derefs
to its `MrLocal`); [`MrLocal::reg_scoped`] lends a buffer for a
closure.

```
use rpma::mr::MrLocal;
use rpma::{Peer, Usage};

/// Lends `buf` to the device while `f` runs: the region is the buffer's
/// registration, and goes before the borrow ends.
fn expose(peer: &Peer, buf: &mut [u8]) -> rpma::Result<[u8; 21]> {
    MrLocal::reg_scoped(peer, buf, Usage::WRITE_DST, |mr| {
        // ... the peer writes into it through this descriptor ...
        mr.descriptor()
    })
}
```"#
)]
#[allow(missing_docs)] // documented for rustdoc above
#[derive(Debug)]
pub struct MrLocal {
    // Field order is release order: the registration before the peer
    // whose protection domain holds it.
    reg: Registration,
    peer: Peer,
    usage: Usage,
    /// The registered address and the local key, copied out of the
    /// registration: what the work-request builders (`post`) read for
    /// every operation.
    pub(crate) addr: u64,
    pub(crate) lkey: u32,
}

impl MrLocal {
    /// Registers `buf` for as long as `f` runs, hands `f` the region and
    /// deregisters it when `f` returns (or unwinds).
    ///
    /// A scope rather than a region that holds the borrow: a value can be
    /// leaked (`mem::forget`) without being dropped, and a leaked region
    /// would end the borrow while the memory is still registered, for the
    /// remote peer to write into after it is freed. `f` gets the region by
    /// reference only, so it cannot leak it, and the buffer stays borrowed
    /// until the deregistration.
    ///
    /// ```no_run
    /// use rpma::mr::{MrLocal, Usage};
    /// use rpma::peer::Peer;
    ///
    /// fn expose(peer: &Peer) -> rpma::Result<Vec<u8>> {
    ///     let mut buf = vec![0u8; 4096];
    ///     MrLocal::reg_scoped(peer, &mut buf, Usage::WRITE_DST, |mr| {
    ///         let descriptor = mr.descriptor();
    ///         // ... hand the descriptor to the peer, which writes ...
    ///     })?;
    ///     Ok(buf)
    /// }
    /// ```
    ///
    /// The borrow checker holds the buffer for the region.
    /// Freeing the buffer while it is registered does not compile (E0505:
    /// `buf` is moved out while the registration borrows it):
    ///
    /// ```compile_fail,E0505
    /// use rpma::mr::{MrLocal, Usage};
    /// use rpma::peer::Peer;
    ///
    /// fn expose(peer: &Peer) -> rpma::Result<()> {
    ///     let mut buf = vec![0u8; 4096];
    ///     MrLocal::reg_scoped(peer, &mut buf, Usage::WRITE_DST, |mr| {
    ///         drop(buf);
    ///     })
    /// }
    /// ```
    ///
    /// Nor does changing it while the device may be reading or writing it
    /// (E0499: `buf` is borrowed mutably a second time); copy in through
    /// the region ([`MrLocal::write`]) instead:
    ///
    /// ```compile_fail,E0499
    /// use rpma::mr::{MrLocal, Usage};
    /// use rpma::peer::Peer;
    ///
    /// fn expose(peer: &Peer) -> rpma::Result<()> {
    ///     let mut buf = vec![0u8; 4096];
    ///     MrLocal::reg_scoped(peer, &mut buf, Usage::SEND, |mr| {
    ///         buf.fill(1);
    ///     })
    /// }
    /// ```
    ///
    /// Nor does keeping the region past the scope (E0521: the borrowed
    /// region escapes the closure), which is what makes leaking it
    /// impossible:
    ///
    /// ```compile_fail,E0521
    /// use rpma::mr::{MrLocal, Usage};
    /// use rpma::peer::Peer;
    ///
    /// fn expose(peer: &Peer) -> rpma::Result<()> {
    ///     let mut buf = vec![0u8; 4096];
    ///     let mut kept = None;
    ///     MrLocal::reg_scoped(peer, &mut buf, Usage::WRITE_DST, |mr| kept = Some(mr))?;
    ///     drop(kept);
    ///     Ok(())
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`Region::reg`](crate::Region::reg), before `f` runs;
    /// `Error::Provider` when the deregistration fails (`ibv_dereg_mr`),
    /// and what `f` returned is dropped.
    pub fn reg_scoped<R>(
        peer: &Peer,
        buf: &mut [u8],
        usage: Usage,
        f: impl FnOnce(&MrLocal) -> R,
    ) -> Result<R> {
        let (ptr, len) = (buf.as_mut_ptr().cast::<c_void>(), buf.len());
        // SAFETY: `buf` is borrowed exclusively until this function
        // returns, and the region stays in this frame: `f` sees it by
        // reference only, and it is deregistered below or dropped
        // (deregistered) when `f` unwinds, both before the borrow ends.
        let mr = unsafe { MrLocal::reg_raw(peer, ptr, len, usage) }?;
        let r = f(&mr);
        mr.dereg()?;
        Ok(r)
    }

    raw_api! {
        /// Registers `size` bytes at `ptr` with the peer's protection domain,
        /// with the access rights `usage` needs. The constructor of the C API's
        /// `rpma_mr_reg`, whose memory Rust cannot see: Rust code uses
        /// [`Region::reg`](crate::Region::reg) or
        /// [`MrLocal::reg_scoped`].
        ///
        /// # Safety
        /// The memory stays allocated until the region is deregistered: the
        /// device reads and writes it (remote peers too, as `usage` allows)
        /// without the compiler knowing. (The region holds the peer itself.)
        ///
        /// # Errors
        /// `Error::Inval` for a null `ptr`, a zero `size` or an empty `usage`;
        /// `Error::Provider` when the provider refuses the registration
        /// (`ibv_reg_mr`, after its fallbacks).
        #[inline]
        unsafe fn reg_raw(
            peer: &Peer,
            ptr: *mut c_void,
            size: usize,
            usage: Usage,
        ) -> Result<MrLocal> {
            if ptr.is_null() {
                return Err(Error::inval("ptr: NULL"));
            }
            if size == 0 {
                return Err(Error::inval("size: zero (an empty buffer)"));
            }
            if usage.is_empty() {
                return Err(Error::inval("usage: empty"));
            }
            let access = usage.access(peer.is_iwarp(), peer.has_native_flush());
            // SAFETY: the PD is live; the memory is the caller's (contract).
            let reg =
                unsafe { Registration::new(peer.pd(), ptr, size, access, peer.is_odp_capable()) }?;
            let (addr, lkey) = (reg.raw().addr as u64, reg.raw().lkey);
            Ok(MrLocal {
                reg,
                peer: peer.clone(),
                usage,
                addr,
                lkey,
            })
        }
    }
}

impl MrLocal {
    fn raw(&self) -> &sys::ibv_mr {
        self.reg.raw()
    }

    /// The registered address.
    pub fn ptr(&self) -> *mut c_void {
        self.raw().addr
    }

    /// The registered length.
    pub fn size(&self) -> usize {
        self.raw().length
    }

    /// The key local work requests use for the region.
    pub fn lkey(&self) -> u32 {
        self.raw().lkey
    }

    /// The key a remote peer uses to access the region.
    pub fn rkey(&self) -> u32 {
        self.raw().rkey
    }

    /// What the region was registered for.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The descriptor a remote peer needs to access this region.
    pub fn descriptor(&self) -> [u8; DESCRIPTOR_SIZE] {
        // the region as its peer will see it
        MrRemote {
            raddr: self.ptr() as u64,
            size: self.size() as u64,
            rkey: self.rkey(),
            usage: self.usage.bits() as u8,
        }
        .to_descriptor()
    }

    /// Copies `dst.len()` bytes at `offset` of the region into `dst`.
    ///
    /// The bytes are copied through a raw pointer: no reference to the
    /// region's memory is ever made, since the device may write it at any
    /// time (an RDMA write or a receive into it). What a copy that races
    /// such a write sees is unspecified, so read a range only after the
    /// completion (or the message) that says it is written.
    ///
    /// # Errors
    /// `Error::Inval` when the range is not inside the region.
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let src = self.range(offset, dst.len())?;
        // SAFETY: the range is inside the registered memory, which lives as
        // long as the region (its borrow or ownership, or the C caller's
        // promise); dst is a distinct, exclusively borrowed buffer.
        unsafe { std::ptr::copy_nonoverlapping(src, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    /// Copies `src` to `offset` of the region. `&mut self`, so no other
    /// thread copies in or out at the same time; the device may still read
    /// the range (an operation posted before, not yet completed, sends
    /// whichever bytes it finds).
    ///
    /// # Errors
    /// `Error::Inval` when the range is not inside the region.
    pub fn write(&mut self, offset: usize, src: &[u8]) -> Result<()> {
        let dst = self.range(offset, src.len())?;
        // SAFETY: as in read; the region is borrowed mutably, so no copy of
        // ours reads or writes the range meanwhile.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
        Ok(())
    }

    /// The start of `len` bytes at `offset` of the registered memory.
    fn range(&self, offset: usize, len: usize) -> Result<*mut u8> {
        range_in(self.ptr().cast(), self.size(), offset, len)
    }

    /// Gives the device a paging hint for part of the region
    /// (`ibv_advise_mr`); bounds are the kernel's to check, and the
    /// provider decides what it supports.
    ///
    /// # Errors
    /// `Error::NoSupp` when the provider does not support advice, or this
    /// one (EOPNOTSUPP); `Error::Inval` for a value or range it refuses
    /// (EINVAL, EFAULT); `Error::Provider` for any other failure.
    pub fn advise(
        &self,
        offset: usize,
        len: usize,
        advice: Advice,
        flags: AdviseFlags,
    ) -> Result<()> {
        let mut sge = sys::ibv_sge {
            addr: self.addr.wrapping_add(offset as u64),
            length: len as u32,
            lkey: self.lkey,
        };
        // SAFETY: the MR and its PD are live; one SGE is passed.
        let ret =
            unsafe { sys::ibv_advise_mr(self.raw().pd, advice.raw(), flags.bits(), &mut sge, 1) };
        if ret == 0 {
            return Ok(());
        }
        rpma_log!(
            Level::Error,
            Op::MrAdvise,
            "ibv_advise_mr() failed: {}",
            Errno(ret)
        );
        Err(match ret {
            libc::EOPNOTSUPP => Error::NoSupp,
            libc::EFAULT => Error::inval("offset, len: refused by ibv_advise_mr (EFAULT)"),
            libc::EINVAL => {
                Error::inval("advice, flags or range: refused by ibv_advise_mr (EINVAL)")
            }
            _ => Error::provider(Op::MrAdvise, "ibv_advise_mr", ret),
        })
    }

    /// Deregisters the region.
    ///
    /// Should the deregistration fail, the region is gone all the same
    /// (as when it is dropped): libibverbs refuses it only for a
    /// region with memory windows bound (this crate makes none) or on a
    /// device that is gone, which no longer writes anywhere.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_dereg_mr` fails, or when the program
    /// deleted the peer first and its domain, released now, fails to go
    /// ([`Peer::delete`]).
    pub fn dereg(self) -> Result<()> {
        let MrLocal { reg, peer, .. } = self;
        let r = reg.destroy();
        r.and(peer.release())
    }
}

/// A paging hint for [`MrLocal::advise`] (`enum ibv_advise_mr_advice`,
/// `advice` of `rpma_mr_advise`).
///
/// ```
/// use rpma::mr::{Advice, AdviseFlags};
/// use rpma::{Peer, Region, Usage};
///
/// fn warm_up(peer: &Peer) -> rpma::Result<Region> {
///     let region = Region::reg(peer, vec![0u8; 1 << 20], Usage::WRITE_DST)?;
///     // fault the pages in before the peer writes (on-demand paging)
///     region.advise(0, 1 << 20, Advice::PrefetchWrite, AdviseFlags::FLUSH)?;
///     Ok(region)
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advice {
    /// Prefetch the range for reading (`IBV_ADVISE_MR_ADVICE_PREFETCH`).
    Prefetch,
    /// Prefetch the range for writing
    /// (`IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE`).
    PrefetchWrite,
    /// Map what is already resident, without faulting pages in
    /// (`IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT`).
    PrefetchNoFault,
    /// Any other value, passed to the provider unchanged; it refuses what
    /// it does not know (usually `Error::Inval`). This is how the C face
    /// hands on an `int` it was given, exactly as the C library does.
    Other(u32),
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Advice::Prefetch => f.write_str("prefetch"),
            Advice::PrefetchWrite => f.write_str("prefetch for writing"),
            Advice::PrefetchNoFault => f.write_str("prefetch without faults"),
            Advice::Other(raw) => write!(f, "advice {raw}"),
        }
    }
}

impl Advice {
    /// The advice of the C value `raw` (any value: unknown ones become
    /// [`Advice::Other`] with the same bits).
    pub fn from_raw(raw: c_int) -> Advice {
        match raw as u32 {
            sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH => Advice::Prefetch,
            sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE => Advice::PrefetchWrite,
            sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT => Advice::PrefetchNoFault,
            other => Advice::Other(other),
        }
    }

    raw_api! {
        /// The value passed to `ibv_advise_mr`.
        fn raw(self) -> sys::ib_uverbs_advise_mr_advice {
            match self {
                Advice::Prefetch => sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
                Advice::PrefetchWrite => sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                Advice::PrefetchNoFault => sys::IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
                Advice::Other(raw) => raw,
            }
        }
    }
}

/// Flags of [`MrLocal::advise`] (`enum ibv_advise_mr_flag`, `flags` of
/// `rpma_mr_advise`).
///
/// ```
/// use rpma::mr::AdviseFlags;
///
/// assert_eq!(AdviseFlags::FLUSH.bits(), 1);
/// assert!(AdviseFlags::empty().is_empty());
/// // bits libibverbs does not define pass through to the provider
/// assert_eq!(AdviseFlags::from_bits_retain(0x80).bits(), 0x80);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AdviseFlags(u32);

// Spelled as a call, as Usage's constants are, so cbindgen does not take
// it for a C constant.
impl AdviseFlags {
    /// Return only when the advice has been acted on
    /// (`IBV_ADVISE_MR_FLAG_FLUSH`).
    pub const FLUSH: AdviseFlags = AdviseFlags::from_bits_retain(1);

    /// No flag.
    pub const fn empty() -> AdviseFlags {
        AdviseFlags(0)
    }

    /// The flags with these bits, known or not: the provider refuses bits
    /// it does not know. This is how the C face hands on the `uint32_t` it
    /// was given, exactly as the C library does.
    pub const fn from_bits_retain(bits: u32) -> AdviseFlags {
        AdviseFlags(bits)
    }

    /// The bits passed to `ibv_advise_mr`.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for AdviseFlags {
    type Output = AdviseFlags;
    fn bitor(self, rhs: AdviseFlags) -> AdviseFlags {
        AdviseFlags(self.0 | rhs.0)
    }
}

/// A region of a remote peer, as its descriptor describes it. Nothing in
/// it is trusted: the remote device checks every access against the rkey.
// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"
```
use rpma::{MrRemote, Usage};

let mr = MrRemote::from_parts(0x1000, 4096, 7, Usage::WRITE_DST)?;
// what the owner sends its peer, and what the peer reads back
let back = MrRemote::from_descriptor(&mr.to_descriptor())?;
assert_eq!(back, mr);
assert_eq!(mr.slice(..64)?.len(), 64);
# Ok::<(), rpma::Error>(())
```"#
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrRemote {
    // Crate-visible so the work-request builders read them directly; the
    // public API has the accessors below.
    pub(crate) raddr: u64,
    pub(crate) size: u64,
    pub(crate) rkey: u32,
    pub(crate) usage: u8,
}

impl MrRemote {
    /// Decodes a descriptor the region's owner sent. Only its size (at
    /// least 21 bytes; more is ignored) and a non-zero usage byte are
    /// checked: the remote device checks every access against the rkey.
    ///
    /// # Errors
    /// `Error::Inval` for fewer than 21 bytes or a zero usage byte.
    pub fn from_descriptor(desc: &[u8]) -> Result<MrRemote> {
        let mr = Self::decode(desc)?;
        mr.log_decoded();
        Ok(mr)
    }

    raw_api! {
        /// [`MrRemote::from_descriptor`] into a new heap object (the C
        /// API's), allocated before the result is logged: out of memory
        /// logs nothing, as in the C library.
        ///
        /// # Errors
        /// As [`MrRemote::from_descriptor`]; `Error::NoMem` when the
        /// object cannot be allocated.
        fn from_descriptor_boxed(desc: &[u8]) -> Result<Box<MrRemote>> {
            let mr = try_box(Self::decode(desc)?)?;
            mr.log_decoded();
            Ok(mr)
        }
    }

    fn decode(desc: &[u8]) -> Result<MrRemote> {
        let Some(d) = desc.first_chunk::<DESCRIPTOR_SIZE>() else {
            rpma_log!(
                Level::Error,
                Op::MrRemoteFromDescriptor,
                "incorrect size of the descriptor: {} bytes (should be at least: {} bytes)",
                desc.len(),
                DESCRIPTOR_SIZE
            );
            return Err(Error::inval("desc: shorter than 21 bytes"));
        };
        let usage = d[20];
        if usage == 0 {
            rpma_log!(
                Level::Error,
                Op::MrRemoteFromDescriptor,
                "usage type of memory is not set"
            );
            return Err(Error::inval("desc: its usage byte is 0"));
        }
        let u64_at = |i: usize| u64::from_le_bytes(d[i..i + 8].try_into().unwrap());
        Ok(MrRemote {
            raddr: u64_at(0),
            size: u64_at(8),
            rkey: u32::from_le_bytes(d[16..20].try_into().unwrap()),
            usage,
        })
    }

    fn log_decoded(&self) {
        rpma_log!(
            Level::Debug,
            Op::MrRemoteFromDescriptor,
            "new struct rpma_mr_remote {{raddr=0x{:x}, size={}, rkey=0x{:x}, usage=0x{:x}}}",
            self.raddr,
            self.size,
            self.rkey,
            self.usage
        );
    }

    /// A remote region from its parts, as the peer that registered it
    /// would describe it: its address, length and key there, and the
    /// usages it was registered with.
    ///
    /// # Errors
    /// `Error::Inval` for an empty `usage` (a descriptor cannot carry it)
    /// or one with bits past the descriptor's byte.
    pub fn from_parts(raddr: u64, size: u64, rkey: u32, usage: Usage) -> Result<MrRemote> {
        let usage = u8::try_from(usage.bits())
            .map_err(|_| Error::inval("usage: a bit past the descriptor's byte"))?;
        if usage == 0 {
            return Err(Error::inval("usage: empty"));
        }
        Ok(MrRemote {
            raddr,
            size,
            rkey,
            usage,
        })
    }

    /// The region's descriptor, which [`MrRemote::from_descriptor`] reads
    /// back.
    pub fn to_descriptor(&self) -> [u8; DESCRIPTOR_SIZE] {
        let mut d = [0u8; DESCRIPTOR_SIZE];
        d[0..8].copy_from_slice(&self.raddr.to_le_bytes());
        d[8..16].copy_from_slice(&self.size.to_le_bytes());
        d[16..20].copy_from_slice(&self.rkey.to_le_bytes());
        d[20] = self.usage;
        d
    }

    /// The region's address in the remote peer's memory.
    #[inline]
    pub fn raddr(&self) -> u64 {
        self.raddr
    }

    /// The region's length in bytes, as the descriptor says (64 bits: it
    /// need not fit this side's `usize`).
    #[inline]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The key of the region at the remote peer.
    #[inline]
    pub fn rkey(&self) -> u32 {
        self.rkey
    }

    /// The usage bits the owner registered the region with, as sent. The
    /// descriptor carries one byte and `Usage` defines all eight of its
    /// bits, so nothing is lost.
    #[inline]
    pub fn usage(&self) -> Usage {
        Usage::from_bits_truncate(u32::from(self.usage))
    }

    /// The flush usages of the region (`RPMA_MR_USAGE_FLUSH_TYPE_*`).
    #[inline]
    pub fn flush_type(&self) -> Usage {
        Usage::from_bits_truncate(u32::from(self.usage)) & Usage::FLUSH_TYPES
    }
}

/// The start of `len` bytes at `offset` of `size` bytes at `base`;
/// `Error::Inval` when they do not fit.
fn range_in(base: *mut u8, size: usize, offset: usize, len: usize) -> Result<*mut u8> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(base.wrapping_add(offset)),
        _ => Err(Error::inval("offset: the buffer would end past the region")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_descriptor_agree() {
        let mr =
            MrRemote::from_parts(0x1122_3344_5566_7788, 4096, 0xabcd, Usage::READ_SRC).unwrap();
        let back = MrRemote::from_descriptor(&mr.to_descriptor()).unwrap();
        assert_eq!(back, mr);
        assert_eq!(
            MrRemote::from_parts(0, 1, 1, Usage::empty()).err(),
            Some(Error::inval("usage: empty"))
        );
    }

    /// read and write reach only the registered range: past its end, and
    /// on an offset whose sum with the length overflows, they refuse.
    #[test]
    fn copies_stay_inside_the_region() {
        let mut mem = [0u8; 16];
        let base = mem.as_mut_ptr();
        assert_eq!(range_in(base, 16, 4, 4), Ok(base.wrapping_add(4)));
        assert_eq!(range_in(base, 16, 12, 4), Ok(base.wrapping_add(12)));
        let past = Err(Error::inval("offset: the buffer would end past the region"));
        assert_eq!(range_in(base, 16, 13, 4), past);
        assert_eq!(range_in(base, 16, usize::MAX, 1), past);
        assert_eq!(range_in(base, 16, 16, 0), Ok(base.wrapping_add(16)));
        assert_eq!(range_in(base, 16, 9, 8), past);
        assert_eq!(range_in(base, 16, 8, 8), Ok(base.wrapping_add(8)));
    }

    #[test]
    fn advice_keeps_every_raw_value() {
        assert_eq!(Advice::from_raw(0), Advice::Prefetch);
        assert_eq!(Advice::from_raw(1), Advice::PrefetchWrite);
        assert_eq!(Advice::from_raw(2), Advice::PrefetchNoFault);
        for raw in [-1, 0, 1, 2, 3, 1000, c_int::MIN] {
            assert_eq!(Advice::from_raw(raw).raw(), raw as u32);
        }
        assert_eq!((AdviseFlags::FLUSH | AdviseFlags::empty()).bits(), 1);
    }

    #[test]
    fn descriptor_decodes_little_endian_and_validates() {
        let mut d = [0u8; 22];
        d[0..8].copy_from_slice(&0x7f12_3456_0000u64.to_le_bytes());
        d[8..16].copy_from_slice(&4096u64.to_le_bytes());
        d[16..20].copy_from_slice(&0x1234_abcdu32.to_le_bytes());
        d[20] = 0x18;
        let r = MrRemote::from_descriptor(&d).unwrap();
        assert_eq!(
            (r.raddr(), r.size(), r.rkey(), r.usage().bits()),
            (0x7f12_3456_0000, 4096, 0x1234_abcd, 0x18)
        );
        assert_eq!(r.flush_type(), Usage::FLUSH_TYPE_VISIBILITY);
        assert_eq!(
            MrRemote::from_descriptor(&d[..20]).err(),
            Some(Error::inval("desc: shorter than 21 bytes"))
        );
        d[20] = 0;
        assert_eq!(
            MrRemote::from_descriptor(&d).err(),
            Some(Error::inval("desc: its usage byte is 0"))
        );
        d[20] = 0xFF;
        assert_eq!(
            MrRemote::from_descriptor(&d).unwrap().flush_type(),
            Usage::FLUSH_TYPES
        );
    }
}
