//! A remote memory region's descriptor as the peer sent it: any bytes, any
//! length, through the core's decoder and every accessor.
//!
//! Invariants: success exactly when there are at least 21 bytes and the
//! usage byte (byte 20) is not 0; then the region holds the little-endian
//! address (bytes 0..8), size (8..16) and rkey (16..20), the usage byte, and
//! the flush type is usage & (VISIBILITY | PERSISTENT). A failure is
//! RPMA_E_INVAL. (That the C entry point leaves its output untouched on
//! failure is the C face's business: tests-c checks it.)
//! Bytes past the 21st are never read: the descriptor is handed over in a
//! buffer of exactly its length, so any over-read is an ASan report.

#![no_main]

#[path = "../common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use rpma::mr::{MrRemote, Usage};
use rpma::Error;

const DESCRIPTOR_SIZE: usize = 21;

fn u64_at(d: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(d[i..i + 8].try_into().unwrap())
}

fuzz_target!(|data: &[u8]| {
    common::init();
    let valid = data.len() >= DESCRIPTOR_SIZE && data[20] != 0;
    let mr = match MrRemote::from_descriptor(data) {
        Err(e) => {
            assert!(!valid, "rejected {data:?}");
            assert!(matches!(e, Error::Inval(_)), "len {}: {e}", data.len());
            return;
        }
        Ok(mr) => mr,
    };
    assert!(valid, "accepted {data:?}");
    assert_eq!(mr.raddr(), u64_at(data, 0));
    assert_eq!(mr.size(), u64_at(data, 8));
    assert_eq!(
        mr.rkey(),
        u32::from_le_bytes(data[16..20].try_into().unwrap())
    );
    assert_eq!(mr.usage().bits(), u32::from(data[20]));
    assert_eq!(
        mr.flush_type().bits(),
        u32::from(data[20]) & Usage::FLUSH_TYPES.bits()
    );
});
