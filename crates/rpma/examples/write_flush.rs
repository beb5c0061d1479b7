//! Writing to a server's memory and flushing it to persistence, in Rust,
//! speaking the wire protocol of the C example `write-flush-persistent`
//! (examples/write-flush-persistent/common.h): either side of this program
//! works with either side of that one.
//!
//! 1. The server registers a 4 KiB region (filled with 0xee) for remote
//!    writes and both flush types, declares direct write to persistent
//!    memory in its peer configuration, and accepts the client with a
//!    32-byte WELCOME in the private data: magic "WFP1", version 1, the
//!    sizes of the two descriptors, then the region's descriptor and the
//!    peer configuration's descriptor.
//! 2. The client shows that a flush to persistence is refused until the
//!    server's peer configuration is applied to the connection, applies
//!    it, and stores six 512-byte records, each written in three pieces
//!    (no completion unless they fail) and flushed to persistence (one
//!    completion per record, which says the record is durable).
//! 3. The client hangs up; the server checks its whole region and prints
//!    what it got.
//!
//! ```text
//! write_flush server <addr> <port>     # addr: the server's own address
//! write_flush client <addr> <port>     # addr: the server's address
//! ```
//!
//! Each side exits 0 after printing "<side>: done". This machine's memory
//! is not persistent: see common.h of the C example for what the
//! declaration means on a server that has persistent memory.

#[allow(dead_code)]
mod common;

use std::process::ExitCode;
use std::time::Duration;

use common::Res;
use common::{check_wc, expect_event, fail, next_event, next_wc, socket_addr, step};
use rpma::conn::{ConnEvent, Opts};
use rpma::conn_cfg::ConnCfg;
use rpma::cq::{WcOpcode, WorkCompletion};
use rpma::ep::Ep;
use rpma::mr::{MrRemote, Usage};
use rpma::peer::{Device, Peer};
use rpma::peer_cfg::PeerCfg;
use rpma::ConnReq;
use rpma::FlushType;
use rpma::Region;

// The protocol, as common.h of the C example has it.
const WELCOME_MAGIC: u32 = 0x5746_5031; // "WFP1"
const PROTO_VERSION: u16 = 1;
const WELCOME_LEN: usize = 32;
const DESCRIPTORS_AT: usize = 8;
const SERVER_BUF_SIZE: usize = 4096;
const INITIAL_BYTE: u8 = 0xee;
const RECORDS: usize = 6;
const RECORD_SIZE: usize = 512;
const RECORD_MAGIC: u32 = 0x5245_4331; // "REC1"
const HEADER_LEN: usize = 16;
const PAYLOAD_LEN: usize = RECORD_SIZE - HEADER_LEN;
/// The client's records sit this far into its region, so that no write
/// has the same local and remote offset.
const LOCAL_GAP: usize = 64;

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const SESSION_TIMEOUT: Duration = Duration::from_secs(40);
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// The op_contexts: plain tags that come back as the completions' wr_id.
fn op_write(r: usize, p: usize) -> u64 {
    0x3717_e000 + (r * 16 + p) as u64
}
fn op_flush(r: usize) -> u64 {
    0xf1a5_0000 + r as u64
}

fn fnv1a(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5u32, |sum, &b| {
        (sum ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Record `r`, exactly as it must land: a little-endian header (magic,
/// index, payload length, FNV-1a of the payload) and the payload.
fn build_record(r: usize) -> [u8; RECORD_SIZE] {
    let mut out = [0u8; RECORD_SIZE];
    for (i, b) in out[HEADER_LEN..].iter_mut().enumerate() {
        let x = (i as u32 + 1).wrapping_mul(2_654_435_761) >> 24;
        *b = (x ^ (r as u32 * 0x35 + 1)) as u8;
    }
    let sum = fnv1a(&out[HEADER_LEN..]);
    for (k, v) in [RECORD_MAGIC, r as u32, PAYLOAD_LEN as u32, sum]
        .into_iter()
        .enumerate()
    {
        out[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// Where piece `p` (0..3) of record `r` starts within the record, and its
/// length: the payload in two parts split differently for every record,
/// then the header last, as a commit mark.
fn piece(r: usize, p: usize) -> (usize, usize) {
    let split = HEADER_LEN + 40 + 67 * r;
    match p {
        0 => (HEADER_LEN, split - HEADER_LEN),
        1 => (split, RECORD_SIZE - split),
        _ => (0, HEADER_LEN),
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn server(addr: &str, port: &str) -> Res<()> {
    let device = step("finding the device of the address", Device::local(addr))?;
    let peer = step("opening the peer", Peer::new(&device))?;

    // stands in for a mapping of persistent memory
    let buf = vec![INITIAL_BYTE; SERVER_BUF_SIZE].into_boxed_slice();
    let usage = Usage::WRITE_DST | Usage::FLUSH_TYPE_PERSISTENT | Usage::FLUSH_TYPE_VISIBILITY;
    let mr = step("registering", Region::reg(&peer, buf, usage))?;

    // the server's word that writes reach its (persistent) memory directly
    let pcfg = PeerCfg::new();
    pcfg.set_direct_write_to_pmem(true);
    let mr_desc = mr.descriptor();
    let pcfg_desc = pcfg.descriptor();
    let mut welcome = [0u8; WELCOME_LEN];
    welcome[0..4].copy_from_slice(&WELCOME_MAGIC.to_le_bytes());
    welcome[4..6].copy_from_slice(&PROTO_VERSION.to_le_bytes());
    welcome[6] = mr_desc.len() as u8;
    welcome[7] = pcfg_desc.len() as u8;
    let pcfg_at = DESCRIPTORS_AT + mr_desc.len();
    welcome[DESCRIPTORS_AT..pcfg_at].copy_from_slice(&mr_desc);
    welcome[pcfg_at..pcfg_at + pcfg_desc.len()].copy_from_slice(&pcfg_desc);

    let ep = step("listening", Ep::listen(&peer, socket_addr(addr, port)?))?;
    println!(
        "server: listening on {addr}:{port}, {SERVER_BUF_SIZE} byte region registered for writes and flushes to persistence"
    );
    let Some(req) = step(
        "taking the connection request",
        ep.next_request_timeout(None, ACCEPT_TIMEOUT),
    )?
    else {
        return fail("no client came in time");
    };
    println!("server: a connection request arrived");
    let conn = step("accepting", req.connect(&welcome))?;
    // The client writes and flushes on its own and hangs up when done. On
    // a lossy link CLOSED may come first: the client's confirmation of the
    // connection was lost and it went ahead without it.
    match next_event(&conn, SESSION_TIMEOUT)? {
        ConnEvent::Closed => {
            println!("server: the client was done before its connection was confirmed here")
        }
        ConnEvent::Established => {
            println!("server: connection established, WELCOME of {WELCOME_LEN} bytes sent with the accept");
            expect_event(&conn, ConnEvent::Closed, SESSION_TIMEOUT)?;
        }
        other => {
            return fail(format!(
                "expected ESTABLISHED, got \"{}\"",
                other.as_cstr().to_string_lossy()
            ))
        }
    }
    println!("server: the client closed the connection");
    step("disconnecting", conn.disconnect())?;
    step("deleting the connection", conn.delete())?;
    step("shutting the endpoint down", ep.shutdown())?;

    // the client's flushes completed before it hung up: all must be here
    let got = step("deregistering", mr.dereg())?;
    for r in 0..RECORDS {
        let rec = &got[r * RECORD_SIZE..(r + 1) * RECORD_SIZE];
        let want = build_record(r);
        if let Some(i) = (0..RECORD_SIZE).find(|&i| rec[i] != want[i]) {
            return fail(format!(
                "record {r}: byte {i} is {:#04x}, expected {:#04x}",
                rec[i], want[i]
            ));
        }
        println!(
            "server: record {} intact: {} payload bytes, checksum {:#010x}, payload begins {:02x?}",
            u32_at(rec, 4),
            u32_at(rec, 8),
            u32_at(rec, 12),
            &rec[HEADER_LEN..HEADER_LEN + 8]
        );
    }
    if let Some(i) = (RECORDS * RECORD_SIZE..SERVER_BUF_SIZE).find(|&i| got[i] != INITIAL_BYTE) {
        return fail(format!(
            "byte {i} past the records was changed to {:#04x}",
            got[i]
        ));
    }
    println!(
        "server: the {} bytes past the records are untouched",
        SERVER_BUF_SIZE - RECORDS * RECORD_SIZE
    );
    step("deleting the peer", peer.delete())
}

/// The server's region and peer configuration, from its WELCOME.
fn read_welcome(pdata: Option<&[u8]>) -> Res<(MrRemote, PeerCfg)> {
    // IB and RoCE hand over the whole private data area, zero padded
    let msg = match pdata {
        Some(d) if d.len() >= WELCOME_LEN => &d[..WELCOME_LEN],
        d => {
            return fail(format!(
                "bad WELCOME: {} bytes of private data",
                d.map_or(0, <[u8]>::len)
            ))
        }
    };
    if u32_at(msg, 0) != WELCOME_MAGIC || u16::from_le_bytes([msg[4], msg[5]]) != PROTO_VERSION {
        return fail("bad WELCOME: wrong magic number or version");
    }
    let (mr_size, pcfg_size) = (usize::from(msg[6]), usize::from(msg[7]));
    if mr_size == 0 || pcfg_size == 0 || mr_size + pcfg_size > WELCOME_LEN - DESCRIPTORS_AT {
        return fail(format!(
            "bad WELCOME: descriptor sizes {mr_size} and {pcfg_size}"
        ));
    }
    let descs = &msg[DESCRIPTORS_AT..];
    let mr = step(
        "decoding the region's descriptor",
        MrRemote::from_descriptor(&descs[..mr_size]),
    )?;
    if mr.size() != SERVER_BUF_SIZE as u64 {
        return fail(format!(
            "the server's region has {} bytes, the protocol says {SERVER_BUF_SIZE}",
            mr.size()
        ));
    }
    if !mr.flush_type().contains(Usage::FLUSH_TYPE_PERSISTENT) {
        return fail("the server's region does not allow a flush to persistence");
    }
    let pcfg = step(
        "decoding the peer configuration",
        PeerCfg::from_descriptor(&descs[mr_size..mr_size + pcfg_size]),
    )?;
    if !pcfg.direct_write_to_pmem() {
        return fail("the server does not declare direct write to PMem");
    }
    println!(
        "client: WELCOME: server region of {} bytes, flush types {:#x}, direct write to PMem on",
        mr.size(),
        mr.flush_type().bits()
    );
    Ok((mr, pcfg))
}

fn client(addr: &str, port: &str) -> Res<()> {
    let device = step(
        "finding the device that reaches the server",
        Device::remote(addr),
    )?;
    let peer = step("opening the peer", Peer::new(&device))?;
    let mut mem = vec![0u8; LOCAL_GAP + RECORDS * RECORD_SIZE];
    for r in 0..RECORDS {
        let at = LOCAL_GAP + r * RECORD_SIZE;
        mem[at..at + RECORD_SIZE].copy_from_slice(&build_record(r));
    }
    let mr = step("registering", Region::reg(&peer, mem, Usage::WRITE_SRC))?;

    let cfg = ConnCfg::new();
    step("setting the timeout", cfg.set_timeout(5000))?;
    let req = step(
        "preparing the connection",
        ConnReq::new(&peer, socket_addr(addr, port)?, Some(&cfg)),
    )?;
    // the client has nothing to tell the server in its request
    let conn = step("connecting", req.connect(&[]))?;
    println!("client: connecting to {addr}:{port}");
    expect_event(&conn, ConnEvent::Established, SESSION_TIMEOUT)?;
    println!("client: connection established");

    let (server_mr, server_cfg) = read_welcome(conn.private_data())?;
    let first = step("the server's region", server_mr.slice(..RECORD_SIZE))?;
    match conn.flush(
        first,
        FlushType::Persistent,
        Opts::signaled().context(op_flush(0)),
    ) {
        Err(rpma::Error::NoSupp) => {}
        other => {
            return fail(format!(
            "a flush to persistence before the peer cfg is applied: {other:?}, expected a refusal"
        ))
        }
    }
    println!("client: rpma_flush to persistence refused before the server's peer cfg is applied");
    conn.apply_remote_peer_cfg(&server_cfg);
    println!("client: server's peer cfg applied to the connection");

    let cq = conn.cq();
    for r in 0..RECORDS {
        let (local, remote) = (LOCAL_GAP + r * RECORD_SIZE, r * RECORD_SIZE);
        for p in 0..3 {
            let (start, len) = piece(r, p);
            step(
                "writing",
                conn.write(
                    mr.slice(local + start..local + start + len)?,
                    server_mr.slice(remote + start..remote + start + len)?,
                    Opts::unsignaled().context(op_write(r, p)),
                ),
            )?;
        }
        step(
            "flushing",
            conn.flush(
                server_mr.slice(remote..remote + RECORD_SIZE)?,
                FlushType::Persistent,
                Opts::signaled().context(op_flush(r)),
            ),
        )?;
        // the one completion of this record: the flush's
        let wc = next_wc(cq, COMPLETION_TIMEOUT)?;
        check_wc(&wc, op_flush(r), "the flush")?;
        // a native flush completes as one; an emulated one as a read
        if !matches!(wc.opcode(), WcOpcode::Flush | WcOpcode::Read) {
            return fail(format!("the flush completed with opcode {:?}", wc.opcode()));
        }
        let (start, len) = piece(r, 0);
        println!(
            "client: record {r} at offset {remote}: written as {len} + {} + {HEADER_LEN} bytes, flushed to persistence",
            RECORD_SIZE - start - len
        );
    }
    // the writes, all unsignalled and successful, left nothing behind
    let mut spare = [WorkCompletion::default()];
    match cq.poll(&mut spare) {
        Err(rpma::Error::NoCompletion) => {}
        other => {
            return fail(format!(
                "a stray completion or an error is left in the CQ: {:?}",
                other.map(|_| ())
            ))
        }
    }
    println!("client: {RECORDS} records stored with {RECORDS} completions, CQ empty");

    step("disconnecting", conn.disconnect())?;
    expect_event(&conn, ConnEvent::Closed, SESSION_TIMEOUT)?;
    println!("client: connection closed");
    step("deleting the connection", conn.delete())?;
    step("deregistering", mr.dereg())?;
    step("deleting the peer", peer.delete())
}

fn main() -> ExitCode {
    common::run(server, client)
}
