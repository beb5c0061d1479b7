//! Peer configuration: what the remote side declares about itself. Today
//! that is one property, whether data written directly to its persistent
//! memory is persistent once the RDMA write completes.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::alloc::try_box;
use crate::error::{Error, Result};
use crate::log::{Level, Op};

/// Size in bytes of a peer-configuration descriptor.
pub const DESCRIPTOR_SIZE: usize = 1;

/// A peer configuration. Shared freely between threads: the flag is atomic.
// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"
```
use rpma::peer_cfg::PeerCfg;

// the server declares that the memory it exposes is persistent...
let cfg = PeerCfg::new();
cfg.set_direct_write_to_pmem(true);
let sent = cfg.descriptor();
// ...and the client applies what it received to its connection
// (Conn::apply_remote_peer_cfg), which allows a persistent flush
let got = PeerCfg::from_descriptor(&sent)?;
assert!(got.direct_write_to_pmem());
# Ok::<(), rpma::Error>(())
```"#
)]
#[derive(Debug, Default)]
pub struct PeerCfg {
    direct_write_to_pmem: AtomicBool,
}

impl PeerCfg {
    /// A configuration that declares no direct write to PMem.
    pub fn new() -> PeerCfg {
        PeerCfg::default()
    }

    /// Declares whether this peer's RDMA writes reach persistent memory
    /// directly.
    pub fn set_direct_write_to_pmem(&self, supported: bool) {
        self.direct_write_to_pmem.store(supported, Ordering::SeqCst);
    }

    /// Whether direct write to persistent memory is declared.
    pub fn direct_write_to_pmem(&self) -> bool {
        self.direct_write_to_pmem.load(Ordering::SeqCst)
    }

    /// The wire form: one byte, 1 when direct write is supported, else 0.
    pub fn descriptor(&self) -> [u8; DESCRIPTOR_SIZE] {
        [u8::from(self.direct_write_to_pmem())]
    }

    /// Rebuilds a configuration from a descriptor received from the peer.
    /// Only the first byte is read; any non-zero value means "supported",
    /// as the C library reads it.
    ///
    /// # Errors
    /// `Error::Inval` for an empty descriptor.
    pub fn from_descriptor(desc: &[u8]) -> Result<PeerCfg> {
        let cfg = PeerCfg::new();
        cfg.set_direct_write_to_pmem(decode(desc)?);
        log_decoded(&cfg);
        Ok(cfg)
    }

    raw_api! {
        /// [`PeerCfg::from_descriptor`] into a new heap object (the C
        /// API's), allocated before the result is logged: out of memory
        /// logs nothing, as in the C library.
        ///
        /// # Errors
        /// As [`PeerCfg::from_descriptor`]; `Error::NoMem` when the
        /// configuration cannot be allocated.
        fn from_descriptor_boxed(desc: &[u8]) -> Result<Box<PeerCfg>> {
            let supported = decode(desc)?;
            let cfg = try_box(PeerCfg::new())?;
            cfg.set_direct_write_to_pmem(supported);
            log_decoded(&cfg);
            Ok(cfg)
        }
    }
}

/// The descriptor's one fact: whether direct write to pmem is supported.
fn decode(desc: &[u8]) -> Result<bool> {
    let Some(&byte) = desc.first() else {
        rpma_log!(
            Level::Error,
            Op::PeerCfgFromDescriptor,
            "incorrect size of the descriptor: {} bytes (should be at least {} bytes)",
            desc.len(),
            DESCRIPTOR_SIZE
        );
        return Err(Error::inval("desc: empty"));
    };
    Ok(byte != 0)
}

fn log_decoded(cfg: &PeerCfg) {
    rpma_log!(
        Level::Info,
        Op::PeerCfgFromDescriptor,
        "INFO: Direct Write To PMem is {}",
        if cfg.direct_write_to_pmem() {
            "supported"
        } else {
            "unsupported"
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_unsupported() {
        let cfg = PeerCfg::new();
        assert!(!cfg.direct_write_to_pmem());
        assert_eq!(cfg.descriptor(), [0]);
    }

    #[test]
    fn descriptor_round_trip() {
        let cfg = PeerCfg::new();
        cfg.set_direct_write_to_pmem(true);
        assert_eq!(cfg.descriptor(), [1]);
        assert!(PeerCfg::from_descriptor(&cfg.descriptor())
            .unwrap()
            .direct_write_to_pmem());
    }

    #[test]
    fn any_nonzero_byte_means_supported_and_trailing_bytes_are_ignored() {
        assert!(PeerCfg::from_descriptor(&[0x80, 0])
            .unwrap()
            .direct_write_to_pmem());
        assert!(!PeerCfg::from_descriptor(&[0, 1, 1])
            .unwrap()
            .direct_write_to_pmem());
    }

    #[test]
    fn empty_descriptor_is_invalid() {
        assert_eq!(
            PeerCfg::from_descriptor(&[]).unwrap_err(),
            Error::inval("desc: empty")
        );
    }
}
