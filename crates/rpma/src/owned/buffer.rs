//! Memory a region can own.

/// Memory that stays where it is for as long as its owner lives, however
/// the owner is moved: what [`Region`](super::Region) registers and owns.
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
/// use rpma::owned::Buffer;
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
