//! The owned region: registered memory that the region owns.

use std::ops::{Deref, RangeBounds};

use super::{Buffer, Local, Peer};
use crate::error::Result;
use crate::mr::{MrLocal, Usage};

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
/// use rpma::owned::{Peer, Region};
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
    mr: Option<MrLocal<'static>>,
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

    fn mr(&self) -> &MrLocal<'static> {
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
    type Target = MrLocal<'static>;
    fn deref(&self) -> &MrLocal<'static> {
        self.mr()
    }
}

impl<B: Buffer> Drop for Region<B> {
    fn drop(&mut self) {
        let _ = self.release();
    }
}
