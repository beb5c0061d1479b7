//! Checked ranges of a local and of a remote region, as the operations of
//! a [`Conn`](super::Conn) take them.

use std::ops::{Bound, RangeBounds};

use crate::error::{Error, Result};
use crate::mr::{MrLocal, MrRemote, Usage, DESCRIPTOR_SIZE};

/// A checked range of a region: of a local one ([`Local`]) or of a peer's
/// ([`Remote`]).
#[derive(Debug)]
pub struct Range<'r, M> {
    pub(crate) mr: &'r M,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

/// A range of a local region: inside the region, and at most 4 GiB - 1
/// long (the most one work request carries).
pub type Local<'r> = Range<'r, MrLocal<'static>>;

/// A range of a peer's region: inside the region as its owner described
/// it, and at most 4 GiB - 1 long. The remote device checks the access
/// again against its key.
pub type Remote<'r> = Range<'r, MrRemote>;

// By hand: derived, they would ask the region type for Clone and Copy too.
impl<M> Clone for Range<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for Range<'_, M> {}

impl<M> Range<'_, M> {
    /// The range's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the range starts in its region.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl<'r> Local<'r> {
    pub(crate) fn of(mr: &'r MrLocal<'static>, range: impl RangeBounds<usize>) -> Result<Self> {
        let (offset, len) = bounds(range, mr.size() as u64)?;
        Ok(Local { mr, offset, len })
    }
}

impl MrRemote {
    /// A remote region from its parts, as the peer that registered it
    /// would describe it: its address, length and key there, and the
    /// usages it was registered with.
    ///
    /// # Errors
    /// `Error::Inval` for an empty `usage` (a descriptor cannot carry it)
    /// or one with bits past the descriptor's byte.
    pub fn from_parts(raddr: u64, size: u64, rkey: u32, usage: Usage) -> Result<MrRemote> {
        let usage = u8::try_from(usage.bits()).map_err(|_| Error::Inval)?;
        if usage == 0 {
            return Err(Error::Inval);
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

    /// The range `range` of the region.
    ///
    /// # Errors
    /// `Error::Inval` for a range that ends past the region, starts after
    /// it ends, or is longer than 4 GiB - 1.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<Remote<'_>> {
        let (offset, len) = bounds(range, self.size)?;
        Ok(Remote {
            mr: self,
            offset,
            len,
        })
    }
}

/// The offset and length of `range` in something of `size` bytes.
fn bounds(range: impl RangeBounds<usize>, size: u64) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => usize::try_from(size).ok(),
    };
    match (start, end) {
        (Some(start), Some(end))
            if start <= end && end as u64 <= size && end - start <= u32::MAX as usize =>
        {
            Ok((start, end - start))
        }
        _ => Err(Error::Inval),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(size: u64) -> MrRemote {
        MrRemote::from_parts(0x1000, size, 7, Usage::WRITE_DST).unwrap()
    }

    #[test]
    fn ranges_inside_the_region_are_taken() {
        let mr = remote(100);
        let s = mr.slice(..).unwrap();
        assert_eq!((s.offset(), s.len()), (0, 100));
        let s = mr.slice(10..20).unwrap();
        assert_eq!((s.offset(), s.len()), (10, 10));
        let s = mr.slice(90..=99).unwrap();
        assert_eq!((s.offset(), s.len()), (90, 10));
        let s = mr.slice(100..).unwrap();
        assert!(s.is_empty());
    }

    #[test]
    fn ranges_outside_the_region_are_refused() {
        let mr = remote(100);
        assert_eq!(mr.slice(..101).err(), Some(Error::Inval));
        assert_eq!(mr.slice(101..).err(), Some(Error::Inval));
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 20..10;
        assert_eq!(mr.slice(backwards).err(), Some(Error::Inval));
        assert_eq!(mr.slice(..=usize::MAX).err(), Some(Error::Inval));
        let huge = remote(1 << 40);
        assert!(huge.slice(..u32::MAX as usize).is_ok());
        assert_eq!(huge.slice(..1 << 32).err(), Some(Error::Inval));
    }

    #[test]
    fn parts_and_descriptor_agree() {
        let mr =
            MrRemote::from_parts(0x1122_3344_5566_7788, 4096, 0xabcd, Usage::READ_SRC).unwrap();
        let back = MrRemote::from_descriptor(&mr.to_descriptor()).unwrap();
        assert_eq!(*back, mr);
        assert_eq!(
            MrRemote::from_parts(0, 1, 1, Usage::empty()).err(),
            Some(Error::Inval)
        );
    }
}
