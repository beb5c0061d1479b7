//! Checked ranges of a local and of a remote region, as the operations
//! take them.

use std::ops::{Bound, RangeBounds};

use crate::error::{Error, Result};
use crate::mr::{MrLocal, MrRemote};

/// A checked range of a region: of a local one ([`Local`]) or of a peer's
/// ([`Remote`]).
///
/// ```
/// use rpma::{MrRemote, Usage};
///
/// let mr = MrRemote::from_parts(0x1000, 4096, 7, Usage::READ_SRC)?;
/// let r = mr.slice(100..200)?;
/// assert_eq!((r.offset(), r.len()), (100, 100));
/// // ranges past the region are refused when they are made
/// assert!(mr.slice(4000..5000).is_err());
/// # Ok::<(), rpma::Error>(())
/// ```
#[derive(Debug)]
pub struct Range<'r, M> {
    pub(crate) mr: &'r M,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

/// A range of a local region: inside the region, and at most 4 GiB - 1
/// long (the most one work request carries).
///
/// ```
/// use rpma::{Peer, Region, Usage};
///
/// fn halves(peer: &Peer) -> rpma::Result<()> {
///     let region = Region::reg(peer, vec![0u8; 4096], Usage::SEND)?;
///     let (head, tail) = (region.slice(..2048)?, region.slice(2048..)?);
///     assert_eq!(head.len() + tail.len(), region.size());
///     Ok(())
/// }
/// ```
pub type Local<'r> = Range<'r, MrLocal>;

/// A range of a peer's region: inside the region as its owner described
/// it, and at most 4 GiB - 1 long. The remote device checks the access
/// again against its key.
///
/// ```
/// use rpma::{MrRemote, Usage};
///
/// let mr = MrRemote::from_parts(0x1000, 64, 7, Usage::WRITE_DST)?;
/// // the 8 bytes an atomic write takes
/// let word = mr.slice(8..16)?;
/// assert_eq!(word.len(), rpma::conn::ATOMIC_WRITE_LEN);
/// # Ok::<(), rpma::Error>(())
/// ```
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
    pub(crate) fn of(mr: &'r MrLocal, range: impl RangeBounds<usize>) -> Result<Self> {
        let (offset, len) = bounds(range, mr.size() as u64)?;
        Ok(Local { mr, offset, len })
    }
}

impl MrRemote {
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
        (Some(start), Some(end)) if start <= end && end as u64 <= size => match end - start {
            len if len <= u32::MAX as usize => Ok((start, len)),
            _ => Err(Error::inval("range: longer than 4 GiB - 1")),
        },
        // refused: say which bound is wrong
        (Some(start), _) if start as u64 <= size => match end {
            Some(end) if end as u64 <= size => Err(Error::inval("range: starts after its end")),
            _ => Err(Error::inval("range: ends past the region")),
        },
        _ => Err(Error::inval("range: starts past the region")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mr::Usage;

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
        let why = |r: Result<Remote<'_>>| match r {
            Err(Error::Inval(i)) => i.what(),
            r => panic!("not refused as invalid: {r:?}"),
        };
        let mr = remote(100);
        assert_eq!(why(mr.slice(..101)), "range: ends past the region");
        assert_eq!(why(mr.slice(101..)), "range: starts past the region");
        assert_eq!(why(mr.slice(101..102)), "range: starts past the region");
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 20..10;
        assert_eq!(why(mr.slice(backwards)), "range: starts after its end");
        assert_eq!(why(mr.slice(..=usize::MAX)), "range: ends past the region");
        let past_everything = (Bound::Excluded(usize::MAX), Bound::Excluded(5));
        assert_eq!(
            why(mr.slice(past_everything)),
            "range: starts past the region"
        );
        let huge = remote(1 << 40);
        assert!(huge.slice(..u32::MAX as usize).is_ok());
        assert_eq!(why(huge.slice(..1 << 32)), "range: longer than 4 GiB - 1");
    }
}
