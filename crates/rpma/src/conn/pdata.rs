//! The connection's copy of the peer's private data: set at most once
//! (at creation on the passive side, at the first ESTABLISHED event on the
//! active side), read from any thread afterwards.
//!
//! A `OnceLock` would do, but its first `set` goes through the general
//! `Once` machinery (about 80 instructions per connection); nothing here
//! ever waits for a setter, so one compare-and-swap is enough.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};

const EMPTY: u8 = 0;
const WRITING: u8 = 1;
const READY: u8 = 2;

#[derive(Debug, Default)]
pub(super) struct PrivateData {
    state: AtomicU8,
    data: UnsafeCell<Option<Box<[u8]>>>,
}

// SAFETY: `data` is written once, by the one thread that moved `state` from
// EMPTY to WRITING, and read only after `state` is seen READY (Acquire,
// pairing with the writer's Release); after that it never changes until
// the owner drops it. Box<[u8]> itself is Send and Sync.
unsafe impl Sync for PrivateData {}

impl PrivateData {
    /// Stores `data` unless something is stored (or being stored) already;
    /// then `data` is dropped.
    pub(super) fn set(&self, data: Box<[u8]>) {
        if self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            // SAFETY: winning the exchange makes this thread the only
            // writer, and no reader looks before READY (see Sync above).
            unsafe { *self.data.get() = Some(data) };
            self.state.store(READY, Ordering::Release);
        }
    }

    /// Whether nothing is stored or being stored.
    pub(super) fn is_unset(&self) -> bool {
        self.state.load(Ordering::Relaxed) == EMPTY
    }

    pub(super) fn get(&self) -> Option<&[u8]> {
        if self.state.load(Ordering::Acquire) != READY {
            return None;
        }
        // SAFETY: READY was published after the one write, and the data
        // stays until `self` is dropped, which outlives the borrow.
        unsafe { (*self.data.get()).as_deref() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_set_wins() {
        let p = PrivateData::default();
        assert!(p.is_unset() && p.get().is_none());
        p.set(Box::new([1, 2, 3]));
        p.set(Box::new([4]));
        assert!(!p.is_unset());
        assert_eq!(p.get(), Some(&[1u8, 2, 3][..]));
    }

    #[test]
    fn racing_setters_leave_one_value() {
        let p = PrivateData::default();
        std::thread::scope(|s| {
            for i in 0..8u8 {
                let p = &p;
                s.spawn(move || p.set(vec![i; 4].into_boxed_slice()));
            }
        });
        let got = p.get().expect("set");
        assert!(got.iter().all(|&b| b == got[0]) && got.len() == 4);
    }
}
