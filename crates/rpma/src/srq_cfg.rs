//! Shared-receive-queue configuration: the queue's size and the size of its
//! own receive completion queue (0: none).

use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

/// Default size of the SRQ and of its receive CQ. The C library documents
/// 100 but creates 20; programs observe 20, so 20 it is.
pub const DEFAULT_SRQ_SIZE: u32 = 20;

// The doc is for rustdoc only: a doc comment would also reach
// include/librpma.h through cbindgen, which must stay as it is.
#[cfg_attr(
    doc,
    doc = "The sizes an SRQ is created with: its receive queue and its own \
           receive completion queue (0: none)."
)]
#[cfg_attr(
    doc,
    doc = r#"
```
use rpma::srq_cfg::SrqCfg;

let cfg = SrqCfg::new();
cfg.set_rq_size(64);
// no receive CQ of its own: each connection's CQ reports its receives
cfg.set_rcq_size(0);
assert_eq!((cfg.rq_size(), cfg.rcq_size()), (64, 0));
```"#
)]
#[allow(missing_docs)]
#[derive(Debug)]
pub struct SrqCfg {
    rq_size: AtomicU32,
    rcq_size: AtomicU32,
}

impl Default for SrqCfg {
    fn default() -> Self {
        SrqCfg {
            rq_size: AtomicU32::new(DEFAULT_SRQ_SIZE),
            rcq_size: AtomicU32::new(DEFAULT_SRQ_SIZE),
        }
    }
}

impl SrqCfg {
    /// A configuration with the default sizes.
    pub fn new() -> SrqCfg {
        SrqCfg::default()
    }

    /// Sets the number of receives the SRQ holds.
    pub fn set_rq_size(&self, size: u32) {
        self.rq_size.store(size, SeqCst);
    }

    /// The number of receives the SRQ holds.
    pub fn rq_size(&self) -> u32 {
        self.rq_size.load(SeqCst)
    }

    /// Sets the size of the SRQ's own receive CQ (0: none).
    pub fn set_rcq_size(&self, size: u32) {
        self.rcq_size.store(size, SeqCst);
    }

    /// The size of the SRQ's own receive CQ (0: none).
    pub fn rcq_size(&self) -> u32 {
        self.rcq_size.load(SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_changes() {
        let cfg = SrqCfg::new();
        assert_eq!((cfg.rq_size(), cfg.rcq_size()), (20, 20));
        cfg.set_rq_size(0);
        cfg.set_rcq_size(u32::MAX);
        assert_eq!((cfg.rq_size(), cfg.rcq_size()), (0, u32::MAX));
    }
}
