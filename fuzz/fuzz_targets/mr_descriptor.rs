//! A remote memory region's descriptor as the peer sent it: any bytes, any
//! length, through the C entry point, every getter and delete.
//!
//! Invariants: success exactly when there are at least 21 bytes and the
//! usage byte (byte 20) is not 0; then the region holds the little-endian
//! address (bytes 0..8), size (8..16) and rkey (16..20), the usage byte, and
//! the flush type is usage & (VISIBILITY | PERSISTENT); the Rust API decodes
//! the same. A failure is RPMA_E_INVAL and leaves the output untouched.
//! Bytes past the 21st are never read: the descriptor is handed over in a
//! buffer of exactly its length, so any over-read is an ASan report.

#![no_main]
#![feature(c_variadic)]

#[path = "../common.rs"]
mod common;

use std::ffi::c_int;
use std::ptr;

use libfuzzer_sys::fuzz_target;
use rpma::capi::mr::*;
use rpma::mr::MrRemote;

const DESCRIPTOR_SIZE: usize = 21;
const FLUSH_TYPES: c_int = 0x30;

fn u64_at(d: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(d[i..i + 8].try_into().unwrap())
}

fuzz_target!(|data: &[u8]| {
    common::init();
    let valid = data.len() >= DESCRIPTOR_SIZE && data[20] != 0;
    // A sentinel the library must not overwrite on failure.
    let sentinel = ptr::dangling_mut::<MrRemote>();
    let mut mr = sentinel;
    // SAFETY: data is readable for data.len() bytes; mr is writable.
    let ret = unsafe { rpma_mr_remote_from_descriptor(data.as_ptr().cast(), data.len(), &mut mr) };

    // The Rust API decodes the same bytes the same way.
    let rust = MrRemote::from_descriptor(data);
    assert_eq!(rust.is_ok(), valid);

    if !valid {
        assert_eq!(ret, common::RPMA_E_INVAL, "len {}", data.len());
        assert_eq!(mr, sentinel, "output written on failure");
        return;
    }
    assert_eq!(ret, 0);
    assert!(!mr.is_null() && mr != sentinel);
    let expected = MrRemote {
        raddr: u64_at(data, 0),
        size: u64_at(data, 8),
        rkey: u32::from_le_bytes(data[16..20].try_into().unwrap()),
        usage: data[20],
    };
    // SAFETY: a live region from the call above.
    assert_eq!(unsafe { *mr }, expected);
    assert_eq!(*rust.unwrap(), expected);

    let mut size = 0usize;
    // SAFETY: a live region; size is writable.
    assert_eq!(unsafe { rpma_mr_remote_get_size(mr, &mut size) }, 0);
    assert_eq!(size as u64, expected.size);

    let mut flush_type: c_int = -1;
    // SAFETY: as above.
    assert_eq!(
        unsafe { rpma_mr_remote_get_flush_type(mr, &mut flush_type) },
        0
    );
    assert_eq!(flush_type, c_int::from(data[20]) & FLUSH_TYPES);

    // SAFETY: mr is a live region; delete clears the handle.
    assert_eq!(unsafe { rpma_mr_remote_delete(&mut mr) }, 0);
    assert!(mr.is_null());
    // SAFETY: a NULL handle is a no-op.
    assert_eq!(unsafe { rpma_mr_remote_delete(&mut mr) }, 0);
});
