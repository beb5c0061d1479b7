//! What the library does with the peer's descriptors: a remote region and a
//! peer configuration decoded from bytes the peer sent, applied to a
//! connection, then used by one operation (read, write, write with
//! immediate data, atomic write, flush) at any offset and length, through
//! the core's API with the C flags read as the C face reads them.
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
//! rkey, or fails with nothing posted: Error::Inval for flags 0 or an
//! atomic write off 8-byte alignment, Error::NoSupp for a flush the region
//! or the peer does not allow (persistent: the peer writes directly to
//! PMem and the region has the persistent flush bit; visibility: the
//! region has the visibility bit; any other type is allowed). No panic for
//! any value.

#![no_main]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ffi::c_int;
use std::ptr::NonNull;

use fake_provider::Posted;
use libfuzzer_sys::fuzz_target;
use rpma::conn::Conn;
use rpma::mr::{MrLocal, MrRemote, Usage};
use rpma::peer::Peer;
use rpma::peer_cfg::PeerCfg;
use rpma::sys::*;
use rpma::ConnReq;
use rpma::{Completion, Error, FlushType, Invalid};

/// What the C face answers for flags 0.
const FLAGS_ZERO: Error = Error::Inval(Invalid::new("flags: 0"));

const FLUSH_VISIBILITY: u32 = 1 << 4;
const FLUSH_PERSISTENT: u32 = 1 << 5;
const SIGNALED: c_int = 1 << 1;
const LOCAL_LEN: usize = 4096;
const OP_CONTEXT: u64 = 0x5EED_0000_CAFE;
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
    let Ok(remote) = MrRemote::from_descriptor(desc) else {
        return;
    };
    let r = remote;

    let ctx = NonNull::new(fake_provider::context()).unwrap();
    // SAFETY: the stand-in's context outlives the peer.
    let peer = unsafe { Peer::from_raw_context(ctx) }.unwrap();
    let req: Box<ConnReq> = ConnReq::new_cstr(&peer, c"192.0.2.1", c"7204", None).unwrap();
    let conn: Box<Conn> = req.connect_boxed(None).unwrap();
    let cfg = PeerCfg::from_descriptor(&input[21..22]).unwrap();
    conn.apply_remote_peer_cfg(&cfg);
    let mut buf = vec![0x5Au8; LOCAL_LEN];
    let word: [u8; 8] = *b"8-bytes!";
    let usage = Usage::READ_DST | Usage::WRITE_SRC;
    // where the region starts, for the expected entries below
    let buf_addr = buf.as_ptr() as u64;
    // SAFETY: `buf` is neither moved nor freed until the region is
    // deregistered below.
    let local =
        unsafe { MrLocal::reg_raw(&peer, buf.as_mut_ptr().cast(), buf.len(), usage) }.unwrap();
    fake_provider::take_posted();
    let direct_write = input[21] != 0;
    let op_context = OP_CONTEXT;

    // What the call must return and post (without the SGE, checked below).
    let addr = r.raddr().wrapping_add(offset as u64);
    let signaled = if flags & SIGNALED != 0 {
        IBV_SEND_SIGNALED
    } else {
        0
    };
    let wr = |opcode, extra| Posted {
        wr_id: OP_CONTEXT,
        opcode,
        send_flags: signaled | extra,
        remote_addr: addr,
        rkey: r.rkey(),
        imm_data: 0,
        sges: Vec::new(),
        inline_data: None,
    };
    let local_sge = |length: u32| (buf_addr, length, 0x1111);
    // The C face reads its flags argument so before every operation: 0 is
    // refused, the success bit (2) asks for a completion every time.
    let completion = match flags {
        0 => Err(FLAGS_ZERO),
        f if f & 2 != 0 => Ok(Completion::Always),
        _ => Ok(Completion::OnError),
    };
    let (ret, expected) = {
        match op {
            0 => (
                completion.and_then(|c| {
                    conn.read_at(Some(&local), 0, Some(&remote), offset, len, c, op_context)
                }),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    ..wr(IBV_WR_RDMA_READ, 0)
                }),
            ),
            1 => (
                completion.and_then(|c| {
                    conn.write_at(
                        Some(&remote),
                        offset,
                        Some(&local),
                        0,
                        len,
                        c,
                        None,
                        op_context,
                    )
                }),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    ..wr(IBV_WR_RDMA_WRITE, 0)
                }),
            ),
            2 => (
                completion.and_then(|c| {
                    let imm = Some(IMM);
                    conn.write_at(
                        Some(&remote),
                        offset,
                        Some(&local),
                        0,
                        len,
                        c,
                        imm,
                        op_context,
                    )
                }),
                Ok(Posted {
                    sges: vec![local_sge(len as u32)],
                    imm_data: IMM.to_be(),
                    ..wr(IBV_WR_RDMA_WRITE_WITH_IMM, 0)
                }),
            ),
            3 => (
                completion
                    .and_then(|c| conn.atomic_write_at(&remote, offset, &word, c, op_context)),
                if offset % 8 != 0 {
                    Err(Error::Inval(Invalid::new(
                        "dst_offset: not a multiple of 8",
                    )))
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
                    0 => direct_write && r.usage().bits() & FLUSH_PERSISTENT != 0,
                    1 => r.usage().bits() & FLUSH_VISIBILITY != 0,
                    _ => true,
                };
                (
                    completion.and_then(|c| {
                        // as the C face reads `enum rpma_flush_type`
                        let kind = match flush_type {
                            0 => FlushType::Persistent,
                            1 => FlushType::Visibility,
                            _ => FlushType::Other,
                        };
                        conn.flush_at(&remote, offset, len, kind, c, op_context)
                    }),
                    if flags == 0 {
                        Err(FLAGS_ZERO)
                    } else if !allowed {
                        Err(Error::NoSupp)
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
        Err(FLAGS_ZERO)
    } else {
        expected
    };
    let posted = fake_provider::take_posted();
    match expected {
        Err(e) => {
            // the same kind of error (the reason's words are the library's)
            assert_eq!(
                ret.map_err(Error::code),
                Err(e.code()),
                "op {op}: {ret:?}, not {e}"
            );
            assert!(posted.is_empty(), "posted on failure: {posted:?}");
        }
        Ok(want) => {
            assert_eq!(ret, Ok(()), "op {op}");
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

    local.dereg().unwrap();
    conn.delete().unwrap();
    peer.delete().unwrap();
    drop(buf);
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
