//! Fault injection (cargo feature `fault-injection`, never in a release
//! build): with `RPMA_FAULT_INJECTION=N` in the environment, the N-th
//! fallible call the library makes into libibverbs/librdmacm, or the N-th of
//! its own heap allocations, fails. Every such call passes through
//! [`hit`]: the provider calls through the wrappers in `inject.rs`, the
//! allocations through the `rpma` crate's `alloc.rs`. It lives here, below
//! both, so that one count covers both.
//!
//! With `RPMA_FAULT_INJECTION_PANIC` also set, that call panics instead.
//!
//! The library also counts its own live heap blocks; when the variable is
//! set, a line on stderr at exit gives the number of counted calls, the
//! injected one and the blocks still live, so a script can tell a run that
//! leaked library objects from one that freed everything.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_int;
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

static CALLS: AtomicU64 = AtomicU64::new(0);
static INJECTED: AtomicU64 = AtomicU64::new(0);
static LIVE_BLOCKS: AtomicIsize = AtomicIsize::new(0);

/// The call number to fail, 0 when injection is off. Read once: the
/// environment does not change under a running library.
fn target() -> u64 {
    static TARGET: OnceLock<u64> = OnceLock::new();
    *TARGET.get_or_init(|| {
        // SAFETY: getenv's result is read at once, before any other call
        // could change the environment, and copied into a number.
        let raw = unsafe { libc::getenv(c"RPMA_FAULT_INJECTION".as_ptr()) };
        if raw.is_null() {
            return 0;
        }
        // SAFETY: getenv returns a NUL-terminated string.
        let text = unsafe { std::ffi::CStr::from_ptr(raw) };
        text.to_str()
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    })
}

/// `RPMA_FAULT_INJECTION_PANIC` set: the chosen call panics instead of
/// failing, which shows what the entry points' panic boundary makes of it.
fn panic_instead() -> bool {
    // SAFETY: only tested for NULL.
    !unsafe { libc::getenv(c"RPMA_FAULT_INJECTION_PANIC".as_ptr()) }.is_null()
}

/// Counts one fallible call named `call`; true when it is the one to fail.
pub fn hit(call: &str) -> bool {
    let target = target();
    if target == 0 {
        return false;
    }
    let n = CALLS.fetch_add(1, Relaxed) + 1;
    if n != target {
        return false;
    }
    INJECTED.store(n, Relaxed);
    if panic_instead() {
        panic!("librpma: fault injection: call {n} ({call}) panics");
    }
    eprintln!("librpma: fault injection: call {n} ({call}) fails");
    true
}

/// The errno an injected provider failure reports.
pub(crate) const ERRNO: c_int = libc::EIO;

/// The global allocator of a fault-injection build: the system's, counting
/// live blocks.
pub struct Counting;

// SAFETY: every method forwards to the system allocator unchanged; the
// counter is only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's contract.
        counted(unsafe { System.alloc(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BLOCKS.fetch_sub(1, Relaxed);
        // SAFETY: forwarded with the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's contract.
        counted(unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's contract; a block moved by
        // realloc is still one block.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Counts a new block, if the allocation succeeded.
fn counted(p: *mut u8) -> *mut u8 {
    if !p.is_null() {
        LIVE_BLOCKS.fetch_add(1, Relaxed);
    }
    p
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs when the library is unloaded or the process exits.
extern "C" fn report() {
    if target() == 0 {
        return;
    }
    // read before anything here allocates
    let live = LIVE_BLOCKS.load(Relaxed);
    let calls = CALLS.load(Relaxed);
    match INJECTED.load(Relaxed) {
        0 => eprintln!("librpma: fault injection: calls={calls} injected=none live-blocks={live}"),
        n => eprintln!("librpma: fault injection: calls={calls} injected={n} live-blocks={live}"),
    }
}

#[used]
#[link_section = ".fini_array"]
static REPORT: extern "C" fn() = report;
