//! What the library does with the peer's descriptors: a remote region and a
//! peer configuration decoded from bytes the peer sent, applied to a
//! connection, then used by one operation (read, write, write with
//! immediate data, atomic write, flush) at any offset and length.
//!
//! The provider is the stand-in of fake_provider.rs, which records each
//! work request the library posts.
//!
//! Input (zero-padded to 40 bytes):
//!   0..21  the remote region's descriptor
//!   21     the peer configuration's descriptor (one byte)
//!   22     the operation (low 3 bits, modulo 5) and flags byte source
//!   23     the C flags argument (0 is invalid; bit 1: completion always)
//!   24..28 the flush type (i32 LE: 0 persistent, 1 visibility, any other)
//!   28..36 the remote offset (u64 LE)
//!   36..40 the length (u32 LE; the upper half comes from byte 22 bit 7)
//!
//! Invariants: every operation posts exactly one work request, to the
//! region's address plus the offset (wrapping, as in C) with the region's
//! rkey, or fails with nothing posted: RPMA_E_INVAL for flags 0 or an
//! atomic write off 8-byte alignment, RPMA_E_NOSUPP for a flush the region
//! or the peer does not allow (persistent: the peer writes directly to
//! PMem and the region has the persistent flush bit; visibility: the
//! region has the visibility bit; any other type is allowed). No panic
//! (RPMA_E_UNKNOWN) for any value.

#![no_main]
#![feature(c_variadic)]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ffi::{c_int, c_void};
use std::ptr;

use fake_provider::Posted;
use libfuzzer_sys::fuzz_target;
use rpma::capi::types::FlushTypeArg;
use rpma::capi::{conn::*, conn_req::*, mr::*, peer::*, peer_cfg::*};
use rpma::sys::*;

const RPMA_E_NOSUPP: c_int = -100001;
const USAGE_READ_DST: c_int = 1 << 1;
const USAGE_WRITE_SRC: c_int = 1 << 2;
const FLUSH_VISIBILITY: u8 = 1 << 4;
const FLUSH_PERSISTENT: u8 = 1 << 5;
const SIGNALED: c_int = 1 << 1;
const LOCAL_LEN: usize = 4096;
const OP_CONTEXT: usize = 0x5EED_0000_CAFE;
const IMM: u32 = 0x0102_0304;

fuzz_target!(|data: &[u8]| {
    common::init();
    let mut input = [0u8; 40];
    let n = data.len().min(40);
    input[..n].copy_from_slice(&data[..n]);
    let desc = &input[..21];
    let op = (input[22] & 7) % 5;
    let flags = c_int::from(input[23]);
    let flush_type = i32::from_le_bytes(input[24..28].try_into().unwrap());
    let offset = u64::from_le_bytes(input[28..36].try_into().unwrap()) as usize;
    let len = u32::from_le_bytes(input[36..40].try_into().unwrap()) as usize
        | if input[22] & 0x80 != 0 { 1 << 32 } else { 0 };

    // The remote region; a descriptor without usage is mr_descriptor's case.
    let mut remote = ptr::null_mut();
    // SAFETY: desc is readable for its length; remote is writable.
    if unsafe { rpma_mr_remote_from_descriptor(desc.as_ptr().cast(), desc.len(), &mut remote) } != 0
    {
        return;
    }
    // SAFETY: a live remote region.
    let r = unsafe { *remote };

    let mut peer = ptr::null_mut();
    let mut req = ptr::null_mut();
    let mut conn = ptr::null_mut();
    let mut cfg = ptr::null_mut();
    let mut local = ptr::null_mut();
    let mut buf = vec![0x5Au8; LOCAL_LEN];
    let word: [u8; 8] = *b"8-bytes!";
    // SAFETY: the stand-in's context, live handles from the calls before,
    // writable outputs, NUL-terminated strings, buf alive until deregistered.
    unsafe {
        assert_eq!(rpma_peer_new(fake_provider::context(), &mut peer), 0);
        assert_eq!(
            rpma_conn_req_new(
                peer,
                c"192.0.2.1".as_ptr(),
                c"7204".as_ptr(),
                ptr::null(),
                &mut req
            ),
            0
        );
        assert_eq!(rpma_conn_req_connect(&mut req, ptr::null(), &mut conn), 0);
        assert_eq!(
            rpma_peer_cfg_from_descriptor(input[21..22].as_ptr().cast(), 1, &mut cfg),
            0
        );
        assert_eq!(rpma_conn_apply_remote_peer_cfg(conn, cfg), 0);
        assert_eq!(rpma_peer_cfg_delete(&mut cfg), 0);
        let usage = USAGE_READ_DST | USAGE_WRITE_SRC;
        assert_eq!(
            rpma_mr_reg(peer, buf.as_mut_ptr().cast(), LOCAL_LEN, usage, &mut local),
            0
        );
    }
    fake_provider::take_posted();
    let direct_write = input[21] != 0;
    let op_context = OP_CONTEXT as *const c_void;

    // What the call must return and post (without the SGE, checked below).
    let addr = r.raddr.wrapping_add(offset as u64);
    let signaled = if flags & SIGNALED != 0 {
        IBV_SEND_SIGNALED
    } else {
        0
    };
    let wr = |opcode, extra| Posted {
        wr_id: OP_CONTEXT as u64,
        opcode,
        send_flags: signaled | extra,
        remote_addr: addr,
        rkey: r.rkey,
        imm_data: 0,
        sges: Vec::new(),
        inline_data: None,
    };
    let local_sge = |length: u32| (buf.as_ptr() as u64, length, 0x1111);
    // SAFETY: live handles; word is readable for 8 bytes.
    let (ret, expected) = unsafe {
        match op {
            0 => (
                rpma_read(conn, local, 0, remote, offset, len, flags, op_context),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    ..wr(IBV_WR_RDMA_READ, 0)
                }),
            ),
            1 => (
                rpma_write(conn, remote, offset, local, 0, len, flags, op_context),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    ..wr(IBV_WR_RDMA_WRITE, 0)
                }),
            ),
            2 => (
                rpma_write_with_imm(conn, remote, offset, local, 0, len, flags, IMM, op_context),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    imm_data: IMM.to_be(),
                    ..wr(IBV_WR_RDMA_WRITE_WITH_IMM, 0)
                }),
            ),
            3 => (
                rpma_atomic_write(
                    conn,
                    remote,
                    offset,
                    word.as_ptr().cast(),
                    flags,
                    op_context,
                ),
                if offset % 8 != 0 {
                    Err(common::RPMA_E_INVAL)
                } else {
                    Ok(Posted {
                        sges: vec![(word.as_ptr() as u64, 8, 0)],
                        inline_data: Some(word.to_vec()),
                        ..wr(IBV_WR_RDMA_WRITE, IBV_SEND_INLINE | IBV_SEND_FENCE)
                    })
                },
            ),
            _ => {
                let allowed = match flush_type {
                    0 => direct_write && r.usage & FLUSH_PERSISTENT != 0,
                    1 => r.usage & FLUSH_VISIBILITY != 0,
                    _ => true,
                };
                (
                    rpma_flush(
                        conn,
                        remote,
                        offset,
                        len,
                        FlushTypeArg(flush_type),
                        flags,
                        op_context,
                    ),
                    if flags == 0 {
                        Err(common::RPMA_E_INVAL)
                    } else if !allowed {
                        Err(RPMA_E_NOSUPP)
                    } else {
                        Ok(Posted {
                            // The emulation reads 8 bytes into the
                            // connection's own page (checked by length).
                            sges: Vec::new(),
                            ..wr(IBV_WR_RDMA_READ, 0)
                        })
                    },
                )
            }
        }
    };
    let expected = if flags == 0 {
        Err(common::RPMA_E_INVAL)
    } else {
        expected
    };
    let posted = fake_provider::take_posted();
    match expected {
        Err(code) => {
            assert_eq!(ret, code, "op {op}");
            assert!(posted.is_empty(), "posted on failure: {posted:?}");
        }
        Ok(want) => {
            assert_eq!(ret, 0, "op {op}");
            let [mut got] = <[Posted; 1]>::try_from(posted).expect("one work request");
            if op == 4 {
                let [(_, length, _)] = got.sges[..] else {
                    panic!("flush read: {:?}", got.sges)
                };
                assert_eq!(length, 8);
                got.sges.clear();
            }
            assert_eq!(got, want, "op {op}");
        }
    }

    // SAFETY: live handles; each delete clears its handle.
    unsafe {
        assert_eq!(rpma_mr_dereg(&mut local), 0);
        assert_eq!(rpma_mr_remote_delete(&mut remote), 0);
        assert_eq!(rpma_conn_delete(&mut conn), 0);
        assert_eq!(rpma_peer_delete(&mut peer), 0);
    }
    drop(buf);
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
