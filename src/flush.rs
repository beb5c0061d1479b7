//! The flush of a connection. Without native RDMA flush, a flush is an
//! 8-byte RDMA read from the remote region: it completes only after the
//! writes before it reached the remote memory ("appliance persistency
//! method"). The read lands in a page of the connection's own.

use std::ffi::c_void;
use std::ptr::NonNull;

use crate::error::{Error, Result};
use crate::log::Level;
use crate::mr::{usage, MrLocal, MrRemote};
use crate::peer::Peer;
use crate::verbs::{errno, Errno};

/// How far a flush pushes the data written before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushType {
    /// Into persistent memory (`RPMA_FLUSH_TYPE_PERSISTENT`).
    Persistent,
    /// To where every reader of the remote memory sees it
    /// (`RPMA_FLUSH_TYPE_VISIBILITY`).
    Visibility,
    /// Any other value of the C enum: the C library does not refuse it and
    /// flushes as for the other two; so do we.
    Other,
}

impl FlushType {
    pub fn from_c(value: std::ffi::c_int) -> FlushType {
        match value {
            0 => FlushType::Persistent,
            1 => FlushType::Visibility,
            _ => FlushType::Other,
        }
    }
}

/// Whether a flush of `kind` to `dst` is possible on a connection whose
/// peer does (or does not) write directly to persistent memory.
pub(crate) fn check(kind: FlushType, direct_write_to_pmem: bool, dst: &MrRemote) -> Result<()> {
    let allowed = dst.flush_type();
    // The messages are the C library's: programs may look for them.
    let refusal = match kind {
        FlushType::Persistent if !direct_write_to_pmem => {
            "Connection does not support flush to persistency. Check if the remote node supports direct write to persistent memory."
        }
        FlushType::Persistent if allowed & usage::FLUSH_TYPE_PERSISTENT == 0 => {
            "The remote memory region does not support flushing to persistency"
        }
        FlushType::Visibility if allowed & usage::FLUSH_TYPE_VISIBILITY == 0 => {
            "The remote memory region does not support flushing to global visibility"
        }
        _ => return Ok(()),
    };
    rpma_log!(Level::Error, "rpma_flush", "{}", refusal);
    Err(Error::NoSupp)
}

/// Bytes one emulated flush reads.
pub(crate) const READ_LEN: usize = 8;

/// The read target of emulated flushes: one page, of which the first
/// [`READ_LEN`] bytes are registered.
#[derive(Debug)]
pub(crate) struct Apm {
    mr: Option<MrLocal>,
    page: NonNull<c_void>,
    len: usize,
}

// SAFETY: the page is only written by the device and never read by us; the
// MR is Send + Sync.
unsafe impl Send for Apm {}
// SAFETY: as above.
unsafe impl Sync for Apm {}

impl Apm {
    pub(crate) fn new(peer: &Peer) -> Result<Apm> {
        // SAFETY: sysconf has no preconditions.
        let len = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if len < 0 {
            rpma_log!(
                Level::Error,
                "rpma_flush_apm_new",
                "sysconf(_SC_PAGESIZE) failed: {}",
                Errno(errno())
            );
            return Err(Error::Provider);
        }
        let len = len as usize;
        // Shared, so that the page stays mapped in a child after fork()
        // when the program uses ibv_fork_init().
        // SAFETY: an anonymous mapping of fresh memory.
        let page = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if page == libc::MAP_FAILED {
            rpma_log!(
                Level::Error,
                "rpma_flush_apm_new",
                "mmap() failed: {}",
                Errno(errno())
            );
            return Err(Error::NoMem);
        }
        let page = NonNull::new(page).expect("mmap returned NULL");
        let mut apm = Apm {
            mr: None,
            page,
            len,
        };
        // SAFETY: the page stays mapped until after the MR is deregistered
        // (release order in delete/drop).
        apm.mr = Some(unsafe { MrLocal::reg(peer, page.as_ptr(), READ_LEN, usage::READ_DST) }?);
        Ok(apm)
    }

    /// The registered part of the page, where flush reads land.
    pub(crate) fn mr(&self) -> &MrLocal {
        self.mr.as_ref().expect("registered until deleted")
    }

    /// Deregisters and unmaps; a failed unmap is `RPMA_E_INVAL`, as in the
    /// C library.
    pub(crate) fn delete(mut self) -> Result<()> {
        let r = self.mr.take().map_or(Ok(()), MrLocal::dereg);
        let (page, len) = (self.page.as_ptr(), self.len);
        std::mem::forget(self);
        // SAFETY: our own mapping, no longer registered.
        let r2 = if unsafe { libc::munmap(page, len) } != 0 {
            Err(Error::Inval)
        } else {
            Ok(())
        };
        r.and(r2)
    }
}

impl Drop for Apm {
    fn drop(&mut self) {
        drop(self.mr.take());
        // SAFETY: as in delete.
        unsafe { libc::munmap(self.page.as_ptr(), self.len) };
    }
}
