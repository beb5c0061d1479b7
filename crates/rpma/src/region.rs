//! Regions that own their memory, and the memory they can own.

use std::ops::{Deref, RangeBounds};

use crate::error::Result;
use crate::mr::{MrLocal, Usage};
use crate::peer::Peer;
use crate::range::Local;

/// A registered memory region that owns its memory (a [`Buffer`]) and a
/// clone of its peer. While it is registered the device, and the remote
/// peer as `usage` allows, may read and write the memory at any time, so
/// the program reaches it only by copies ([`MrLocal::read`] through
/// `Deref`, [`Region::write`]) and gets it back with [`Region::dereg`].
///
/// The memory cannot be freed or changed behind the region's back: the
/// region owns it.
///
/// ```compile_fail,E0505
/// use rpma::{Peer, Region};
/// use rpma::mr::Usage;
///
/// fn f(peer: &Peer) -> rpma::Result<()> {
///     let buf = vec![0u8; 4096];
///     let mr = Region::reg(peer, buf, Usage::WRITE_DST)?;
///     drop(buf); // moved into the region
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct Region<B: Buffer = Vec<u8>> {
    // Both present until `dereg` or Drop takes them: the registration
    // (which holds its peer) goes first, then the memory.
    mr: Option<MrLocal>,
    buf: Option<B>,
}

impl<B: Buffer> Region<B> {
    /// Registers `buf` on `peer` with the access rights `usage` needs.
    ///
    /// # Errors
    /// `Error::Inval` for an empty buffer or an empty `usage`;
    /// `Error::Provider` when the device refuses the registration (its
    /// `ProviderError` says why).
    pub fn reg(peer: &Peer, mut buf: B, usage: Usage) -> Result<Region<B>> {
        let (ptr, len) = (buf.as_mut_ptr(), buf.len());
        // SAFETY: by the Buffer contract the memory stays valid and in
        // place while `buf` lives, and the region keeps `buf` until the
        // registration is gone (`release`).
        let mr = unsafe { MrLocal::reg_raw(peer, ptr.cast(), len, usage) }?;
        Ok(Region {
            mr: Some(mr),
            buf: Some(buf),
        })
    }

    fn mr(&self) -> &MrLocal {
        self.mr.as_ref().expect("registered until released")
    }

    /// The range `range` of the region, for an operation.
    ///
    /// # Errors
    /// `Error::Inval` for a range that ends past the region, starts after
    /// it ends, or is longer than 4 GiB - 1.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<Local<'_>> {
        Local::of(self.mr(), range)
    }

    /// Copies `src` to `offset` of the region ([`MrLocal::write`]).
    ///
    /// # Errors
    /// `Error::Inval` for a range outside the region.
    pub fn write(&mut self, offset: usize, src: &[u8]) -> Result<()> {
        self.mr
            .as_mut()
            .expect("registered until released")
            .write(offset, src)
    }

    /// Deregisters the region and gives the memory back.
    ///
    /// # Errors
    /// `Error::Provider` when the deregistration fails: the memory may
    /// still be registered, so it is not given back but leaked.
    pub fn dereg(mut self) -> Result<B> {
        self.release()
            .map(|buf| buf.expect("registered until released"))
    }

    /// Deregisters, then hands the memory out; when the deregistration
    /// fails the memory may still be registered, so it is leaked.
    fn release(&mut self) -> Result<Option<B>> {
        let Some(mr) = self.mr.take() else {
            return Ok(None);
        };
        let buf = self.buf.take();
        match mr.dereg() {
            Ok(()) => Ok(buf),
            Err(e) => {
                std::mem::forget(buf);
                Err(e)
            }
        }
    }
}

impl<B: Buffer> Deref for Region<B> {
    type Target = MrLocal;
    fn deref(&self) -> &MrLocal {
        self.mr()
    }
}

impl<B: Buffer> Drop for Region<B> {
    fn drop(&mut self) {
        let _ = self.release();
    }
}

/// Memory that stays where it is for as long as its owner lives, however
/// the owner is moved: what a [`Region`] registers and owns.
/// `Vec<u8>` and `Box<[u8]>` are such memory; implement the trait for your
/// own type (an mmap, huge pages, a DAX mapping) to register it.
///
/// # Safety
/// For as long as the value lives, `as_mut_ptr` and `len` describe the same
/// memory, valid for reads and writes of `len` bytes, which neither moves
/// nor is freed when the value is moved, and which nothing but the value
/// reaches. The region never calls anything else on the value before it
/// drops it, after the registration is gone.
///
/// ```
/// use rpma::Buffer;
///
/// /// Page-aligned memory from the C allocator.
/// struct Pages(std::ptr::NonNull<u8>, usize);
///
/// // SAFETY: the memory is Pages' own until Drop frees it; moving a
/// // Pages moves the pointer, not the memory.
/// unsafe impl Buffer for Pages {
///     fn as_mut_ptr(&mut self) -> *mut u8 { self.0.as_ptr() }
///     fn len(&self) -> usize { self.1 }
/// }
/// // SAFETY: nothing in Pages is tied to a thread.
/// unsafe impl Send for Pages {}
/// unsafe impl Sync for Pages {}
///
/// impl Drop for Pages {
///     fn drop(&mut self) {
///         // SAFETY: allocated by posix_memalign below, freed once.
///         unsafe { libc::free(self.0.as_ptr().cast()) }
///     }
/// }
/// # let _ = |len: usize| {
/// #     let mut p = std::ptr::null_mut();
/// #     // SAFETY: p is writable.
/// #     assert_eq!(unsafe { libc::posix_memalign(&mut p, 4096, len) }, 0);
/// #     Pages(std::ptr::NonNull::new(p.cast()).unwrap(), len)
/// # };
/// ```
pub unsafe trait Buffer: Send + Sync + 'static {
    /// The start of the memory.
    fn as_mut_ptr(&mut self) -> *mut u8;
    /// Its length in bytes.
    fn len(&self) -> usize;
    /// Whether it has no bytes (a region of none cannot be registered).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// SAFETY: a Vec's elements live on the heap and stay there when the Vec is
// moved; the region never grows or shrinks it.
unsafe impl Buffer for Vec<u8> {
    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.as_mut_slice().as_mut_ptr()
    }
    fn len(&self) -> usize {
        self.as_slice().len()
    }
}

// SAFETY: as for Vec: the slice stays where the box put it.
unsafe impl Buffer for Box<[u8]> {
    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.as_mut().as_mut_ptr()
    }
    fn len(&self) -> usize {
        self.as_ref().len()
    }
}
