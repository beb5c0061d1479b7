//! The flush of a connection. Without native RDMA flush, a flush is an
//! 8-byte RDMA read from the remote region: it completes only after the
//! writes before it reached the remote memory ("appliance persistency
//! method"). The read lands in a page that all connections of a peer
//! share: nothing ever reads what lands there.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicPtr, AtomicUsize, Ordering};

use crate::alloc::try_box;
use crate::error::{errno, Errno, Error, Result};
use crate::log::Level;
use crate::mr::{MrLocal, MrRemote, Usage};
use crate::peer::Peer;
use crate::sys;

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
    /// The placement of a native flush: the C library passes 0 for a type
    /// it does not know.
    #[inline]
    pub(crate) fn placement(self) -> u8 {
        match self {
            FlushType::Persistent => sys::IBV_FLUSH_PERSISTENT as u8,
            FlushType::Visibility => sys::IBV_FLUSH_GLOBAL as u8,
            FlushType::Other => 0,
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
        FlushType::Persistent if !allowed.contains(Usage::FLUSH_TYPE_PERSISTENT) => {
            "The remote memory region does not support flushing to persistency"
        }
        FlushType::Visibility if !allowed.contains(Usage::FLUSH_TYPE_VISIBILITY) => {
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
    mr: Option<MrLocal<'static>>,
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
        apm.mr = Some(unsafe { MrLocal::reg_raw(peer, page.as_ptr(), READ_LEN, Usage::READ_DST) }?);
        Ok(apm)
    }

    /// The registered part of the page, where flush reads land.
    pub(crate) fn mr(&self) -> &MrLocal<'static> {
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

/// A counted reference to one peer's flush read target. The peer holds one
/// and each of its connections one; the last to let go deregisters it.
///
/// One target per peer rather than per connection (as the C library has
/// it): registering and deregistering a page for every connection put an
/// `ibv_reg_mr` on the path of every connection set-up, before the connect
/// message goes out, for a page whose contents nobody reads. Concurrent
/// flushes of several connections landing in the same eight bytes do no
/// harm for the same reason. It is made by the peer's first connection that
/// emulates flush ([`LazyApm`]), not with the peer, so that a peer takes
/// one verbs object (its protection domain), as the C library's does: a
/// process under an RDMA cgroup limit runs out of objects where the C
/// library's would.
///
/// Not `Arc`: its allocation cannot fail softly, and a failure here is
/// `RPMA_E_NOMEM`.
#[derive(Debug)]
pub(crate) struct SharedApm(NonNull<Shared>);

#[derive(Debug)]
struct Shared {
    users: AtomicUsize,
    apm: Apm,
}

// SAFETY: the target is Send + Sync and the count is atomic; like Arc.
unsafe impl Send for SharedApm {}
// SAFETY: as above.
unsafe impl Sync for SharedApm {}

impl SharedApm {
    fn new(peer: &Peer) -> Result<SharedApm> {
        let apm = Apm::new(peer)?;
        let shared = try_box(Shared {
            users: AtomicUsize::new(1),
            apm,
        })?;
        Ok(SharedApm(NonNull::from(Box::leak(shared))))
    }

    fn shared(&self) -> &Shared {
        // SAFETY: the allocation lives while any reference does (this one).
        unsafe { self.0.as_ref() }
    }

    /// Another reference to the same target.
    pub(crate) fn share(&self) -> SharedApm {
        // Relaxed, as Arc::clone: the new reference comes from a live one.
        self.shared().users.fetch_add(1, Ordering::Relaxed);
        SharedApm(self.0)
    }

    pub(crate) fn mr(&self) -> &MrLocal<'static> {
        self.shared().apm.mr()
    }

    /// Lets go of this reference; the last one deregisters and unmaps the
    /// page and reports how that went.
    pub(crate) fn release(self) -> Result<()> {
        let ptr = self.0;
        std::mem::forget(self);
        // SAFETY: this reference kept the allocation alive until now.
        if unsafe { ptr.as_ref() }
            .users
            .fetch_sub(1, Ordering::Release)
            != 1
        {
            return Ok(());
        }
        // Every other reference's use happened before its decrement.
        fence(Ordering::Acquire);
        // SAFETY: the count reached zero: no other reference exists, and the
        // allocation came from Box::leak in `new`.
        let shared = unsafe { Box::from_raw(ptr.as_ptr()) };
        shared.apm.delete()
    }
}

impl Drop for SharedApm {
    fn drop(&mut self) {
        let _ = SharedApm(self.0).release();
    }
}

/// A peer's flush read target, made on first use: empty until one of the
/// peer's connections emulates a flush, then the peer's own reference.
///
/// Connections of one peer may be set up on several threads at once, and
/// the library takes no lock: each thread that finds it empty makes a
/// target, and one compare-and-swap decides which is kept; a loser lets
/// its own go and takes the winner's.
#[derive(Debug)]
pub(crate) struct LazyApm(AtomicPtr<Shared>);

impl LazyApm {
    pub(crate) const fn new() -> LazyApm {
        LazyApm(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// A reference to the peer's target, made now if it is the first.
    pub(crate) fn get(&self, peer: &Peer) -> Result<SharedApm> {
        let found = self.0.load(Ordering::Acquire);
        if let Some(found) = NonNull::new(found) {
            return Ok(Self::share_published(found));
        }
        let mine = SharedApm::new(peer)?;
        let ptr = mine.0;
        // SAFETY: annotations only: `ptr` names the object whose set-up
        // other threads read after they load the pointer.
        unsafe { sys::librpma_rs_happens_before(ptr.as_ptr().cast()) };
        match self.0.compare_exchange(
            std::ptr::null_mut(),
            ptr.as_ptr(),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => {
                // The peer keeps `mine` (its count is 1) through the
                // pointer; the connection gets a second reference.
                let conn = mine.share();
                std::mem::forget(mine);
                Ok(conn)
            }
            Err(winner) => {
                drop(mine);
                let winner = NonNull::new(winner).expect("only ever set to non-NULL");
                Ok(Self::share_published(winner))
            }
        }
    }

    /// Another reference to a target that `get` published.
    fn share_published(ptr: NonNull<Shared>) -> SharedApm {
        // SAFETY: annotations only, the pair of the one in `get`.
        unsafe { sys::librpma_rs_happens_after(ptr.as_ptr().cast()) };
        // The peer's reference, held through the pointer, keeps the target
        // alive while the peer lives, and the caller borrows the peer.
        let peers = std::mem::ManuallyDrop::new(SharedApm(ptr));
        peers.share()
    }

    /// The peer's reference, if a target was made; the pointer is empty
    /// afterwards.
    pub(crate) fn take(&mut self) -> Option<SharedApm> {
        NonNull::new(std::mem::replace(self.0.get_mut(), std::ptr::null_mut())).map(SharedApm)
    }
}
