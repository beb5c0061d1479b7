//! Fallible heap allocation: the C API reports an exhausted heap as
//! `RPMA_E_NOMEM` instead of aborting the host program.

use std::alloc::{alloc, Layout};
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::error::{Error, Result};

/// `Box::new` that reports a failed allocation instead of aborting.
///
/// # Errors
/// `Error::NoMem` when the allocator fails (or fault injection says so).
pub fn try_box<T>(value: T) -> Result<Box<T>> {
    injected()?;
    let layout = Layout::new::<T>();
    if layout.size() == 0 {
        return Ok(Box::new(value));
    }
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc(layout) }.cast::<T>();
    if p.is_null() {
        return Err(Error::NoMem);
    }
    // SAFETY: p is fresh, aligned and sized for T, allocated by the global
    // allocator with T's layout, which is what Box expects to free.
    unsafe {
        p.write(value);
        Ok(Box::from_raw(p))
    }
}

/// `Arc::new` that reports an exhausted heap instead of aborting, for the
/// shared objects the C API makes (a peer's domain, its flush target, a
/// shared receive queue).
///
/// std has no fallible `Arc` constructor on stable Rust. A block of the
/// size `Arc::new` asks for (the value beside its two counts) is taken and
/// given back first: a heap that refuses it is `Error::NoMem`. Only a heap
/// exhausted in between, by another thread, still aborts. (`black_box`
/// keeps the compiler from dropping the unused block, which it otherwise
/// does; rpma_peer_new.c's RPMA_E_NOMEM checks would catch that.)
///
/// # Errors
/// `Error::NoMem` when the allocator refuses (or fault injection says so).
pub(crate) fn try_arc<T>(value: T) -> Result<Arc<T>> {
    let probe = try_box(MaybeUninit::<(usize, usize, T)>::uninit())?;
    drop(std::hint::black_box(probe));
    Ok(Arc::new(value))
}

/// Copies bytes to the heap, `RPMA_E_NOMEM` when that fails.
pub(crate) fn try_copy(data: &[u8]) -> Result<Box<[u8]>> {
    injected()?;
    if data.is_empty() {
        return Ok(Box::default());
    }
    let layout = Layout::for_value(data);
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc(layout) };
    if p.is_null() {
        return Err(Error::NoMem);
    }
    // SAFETY: p is fresh and holds data.len() bytes; the slice's layout is
    // the one allocated, which is what Box expects to free.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len());
        Ok(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            p,
            data.len(),
        )))
    }
}

/// An allocation made to fail by fault injection (see `rpma_sys::fault`).
#[inline(always)]
fn injected() -> Result<()> {
    #[cfg(feature = "fault-injection")]
    if crate::sys::fault::hit("malloc") {
        return Err(Error::NoMem);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_copy_copies_every_byte() {
        let data: Vec<u8> = (0..=255).collect();
        assert_eq!(&*try_copy(&data).unwrap(), &data[..]);
        assert!(try_copy(&[]).unwrap().is_empty());
    }
}
