//! Where emulated flushes read to. Without native RDMA flush, a flush is
//! an 8-byte RDMA read from the remote region, which completes only after
//! the writes before it reached the remote memory (the "appliance
//! persistency method"). What the read brings back is never looked at,
//! so all connections of a peer share one target page.
//!
//! One target per peer rather than one per connection, as the C library
//! has it: registering a page for every connection put an `ibv_reg_mr` on
//! the path of every connection set-up, before the connect message goes
//! out. Concurrent flushes landing in the same eight bytes do no harm, as
//! nothing reads them. The peer makes its target when its first
//! connection that emulates flush asks for it (`Peer::flush_target`), not
//! when the peer is made, so that a peer alone takes one verbs object (its
//! protection domain), as the C library's does: a process under an RDMA
//! cgroup limit runs out of objects where the C library's would.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::error::{errno, Errno, Error, Result};
use crate::log::{Level, Op};
use crate::sys;
use crate::usage::Usage;
use crate::verbs::Registration;

/// Bytes one emulated flush reads.
pub(crate) const READ_LEN: usize = 8;

/// A page whose first [`READ_LEN`] bytes are registered as an RDMA read
/// destination.
#[derive(Debug)]
pub(crate) struct FlushTarget {
    // Field order is release order: the registration before the page.
    reg: Registration,
    page: Page,
}

impl FlushTarget {
    /// Maps a page and registers its start on `pd`, with the access of a
    /// read destination on the peer's transport (`iwarp`).
    pub(crate) fn new(pd: *mut sys::ibv_pd, iwarp: bool, odp_capable: bool) -> Result<FlushTarget> {
        let page = Page::new()?;
        let access = Usage::READ_DST.access(iwarp, false);
        // SAFETY: the page stays mapped until the registration is gone
        // (field order, and `delete`).
        let reg =
            unsafe { Registration::new(pd, page.ptr.as_ptr(), READ_LEN, access, odp_capable) }?;
        Ok(FlushTarget { reg, page })
    }

    /// The scatter/gather entry of one flush's read.
    #[inline]
    pub(crate) fn sge(&self) -> sys::ibv_sge {
        let mr = self.reg.raw();
        sys::ibv_sge {
            addr: mr.addr as u64,
            length: READ_LEN as u32,
            lkey: mr.lkey,
        }
    }

    /// Lets go of one reference: the last one deletes the target and
    /// reports how that went (the peer holds one, and each connection that
    /// emulates flush one).
    pub(crate) fn release(target: Option<Arc<FlushTarget>>) -> Result<()> {
        target
            .and_then(Arc::into_inner)
            .map_or(Ok(()), FlushTarget::delete)
    }

    /// Deregisters and unmaps, reporting the first failure: a failed
    /// deregistration as `RPMA_E_PROVIDER`, a failed unmap as
    /// `RPMA_E_INVAL`, as the C library reports them.
    pub(crate) fn delete(self) -> Result<()> {
        let FlushTarget { reg, page } = self;
        let r = reg.destroy();
        r.and(page.unmap())
    }
}

/// One anonymous page, unmapped when dropped.
#[derive(Debug)]
struct Page {
    ptr: NonNull<c_void>,
    len: usize,
}

// SAFETY: the page is written only by the device and read by nobody; the
// handle is a plain address and length.
unsafe impl Send for Page {}
// SAFETY: as above.
unsafe impl Sync for Page {}

impl Page {
    fn new() -> Result<Page> {
        // SAFETY: sysconf has no preconditions.
        let len = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if len < 0 {
            rpma_log!(
                Level::Error,
                Op::FlushTargetNew,
                "sysconf(_SC_PAGESIZE) failed: {}",
                Errno(errno())
            );
            return Err(Error::provider(Op::FlushTargetNew, "sysconf", errno()));
        }
        let len = len as usize;
        // Shared, so that the page stays mapped in a child after fork()
        // when the program uses ibv_fork_init().
        // SAFETY: an anonymous mapping of fresh memory.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            rpma_log!(
                Level::Error,
                Op::FlushTargetNew,
                "mmap() failed: {}",
                Errno(errno())
            );
            return Err(Error::NoMem);
        }
        let ptr = NonNull::new(ptr).expect("mmap returned NULL");
        Ok(Page { ptr, len })
    }

    fn unmap(self) -> Result<()> {
        let (ptr, len) = (self.ptr.as_ptr(), self.len);
        std::mem::forget(self);
        // SAFETY: our own mapping, no longer registered.
        match unsafe { libc::munmap(ptr, len) } {
            0 => Ok(()),
            _ => Err(Error::Inval),
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // SAFETY: as in unmap.
        unsafe { libc::munmap(self.ptr.as_ptr(), self.len) };
    }
}
