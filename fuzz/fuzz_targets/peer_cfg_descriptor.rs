//! A peer configuration's descriptor as the peer sent it: any bytes, any
//! length, through the C entry point, the getter, the descriptor round
//! trip and delete.
//!
//! Invariants: success exactly when there is at least one byte; direct
//! write to PMem is then "byte 0 != 0"; the configuration's own descriptor
//! is that flag as one byte (0 or 1), and reading that back gives the same
//! flag; the Rust API agrees. A failure is RPMA_E_INVAL and leaves the
//! output untouched. Only byte 0 is ever read (exactly-sized buffer: an
//! over-read is an ASan report).

#![no_main]
#![feature(c_variadic)]

#[path = "../common.rs"]
mod common;

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use rpma::capi::peer_cfg::*;
use rpma::peer_cfg::PeerCfg;

/// Decodes `desc` through the C API; returns the handle.
fn from_descriptor(desc: &[u8]) -> Result<*mut PeerCfg, c_int> {
    let sentinel = ptr::dangling_mut::<PeerCfg>();
    let mut cfg = sentinel;
    // SAFETY: desc is readable for its length; cfg is writable.
    let ret = unsafe { rpma_peer_cfg_from_descriptor(desc.as_ptr().cast(), desc.len(), &mut cfg) };
    if ret != 0 {
        assert_eq!(cfg, sentinel, "output written on failure");
        return Err(ret);
    }
    assert!(!cfg.is_null() && cfg != sentinel);
    Ok(cfg)
}

fn direct_write(cfg: *mut PeerCfg) -> bool {
    // Not a valid bool: the library must store one.
    let mut supported = false;
    // SAFETY: a live configuration; supported is writable.
    assert_eq!(
        unsafe { rpma_peer_cfg_get_direct_write_to_pmem(cfg, &mut supported) },
        0
    );
    supported
}

fn delete(mut cfg: *mut PeerCfg) {
    // SAFETY: a live configuration; delete clears the handle.
    assert_eq!(unsafe { rpma_peer_cfg_delete(&mut cfg) }, 0);
    assert!(cfg.is_null());
}

fuzz_target!(|data: &[u8]| {
    common::init();
    let rust = PeerCfg::from_descriptor(data);
    let cfg = match from_descriptor(data) {
        Err(ret) => {
            assert!(data.is_empty(), "rejected {data:?}");
            assert_eq!(ret, common::RPMA_E_INVAL);
            assert!(rust.is_err());
            return;
        }
        Ok(cfg) => cfg,
    };
    assert!(!data.is_empty());
    let expected = data[0] != 0;
    assert_eq!(direct_write(cfg), expected);
    assert_eq!(rust.unwrap().direct_write_to_pmem(), expected);

    // The descriptor this side would send back: its size, then its bytes,
    // written into a buffer of exactly that size.
    let mut size = 0usize;
    // SAFETY: a live configuration; size is writable.
    assert_eq!(
        unsafe { rpma_peer_cfg_get_descriptor_size(cfg, &mut size) },
        0
    );
    assert_eq!(size, 1);
    let mut desc = vec![0xA5u8; size];
    // SAFETY: desc is writable for the descriptor's size.
    assert_eq!(
        unsafe { rpma_peer_cfg_get_descriptor(cfg, desc.as_mut_ptr().cast()) },
        0
    );
    assert_eq!(desc, [u8::from(expected)]);

    // Round trip.
    let again = from_descriptor(&desc).expect("own descriptor accepted");
    assert_eq!(direct_write(again), expected);
    delete(again);
    delete(cfg);
});
