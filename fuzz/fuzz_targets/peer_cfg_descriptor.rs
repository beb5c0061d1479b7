//! A peer configuration's descriptor as the peer sent it: any bytes, any
//! length, through the core's decoder, the getter and the descriptor round
//! trip.
//!
//! Invariants: success exactly when there is at least one byte; direct
//! write to PMem is then "byte 0 != 0"; the configuration's own descriptor
//! is that flag as one byte (0 or 1), and reading that back gives the same
//! flag. A failure is RPMA_E_INVAL (that the C entry point then leaves its
//! output untouched, tests-c checks). Only byte 0 is ever read
//! (exactly-sized buffer: an over-read is an ASan report).

#![no_main]

#[path = "../common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use rpma::peer_cfg::PeerCfg;
use rpma::Error;

fuzz_target!(|data: &[u8]| {
    common::init();
    let cfg = match PeerCfg::from_descriptor(data) {
        Err(e) => {
            assert!(data.is_empty(), "rejected {data:?}");
            assert!(matches!(e, Error::Inval(_)), "{e}");
            return;
        }
        Ok(cfg) => cfg,
    };
    assert!(!data.is_empty());
    let expected = data[0] != 0;
    assert_eq!(cfg.direct_write_to_pmem(), expected);

    // The descriptor this side would send back, and the round trip.
    let desc = cfg.descriptor();
    assert_eq!(desc, [u8::from(expected)]);
    let again = PeerCfg::from_descriptor(&desc).expect("own descriptor accepted");
    assert_eq!(again.direct_write_to_pmem(), expected);
});
