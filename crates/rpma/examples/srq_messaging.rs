//! Messages through a shared receive queue: one server, three connections
//! (the client opens them all, each with its index as private data). The
//! server's connections have no receive queue of their own: every message
//! lands in one SRQ, whose own receive CQ tells by the QP number which
//! connection it came on. The server answers each message on the
//! connection it came on; the client checks every answer and hangs up.
//!
//! ```text
//! srq_messaging server <addr> <port>     # addr: the server's own address
//! srq_messaging client <addr> <port>     # addr: the server's address
//! ```
//!
//! Each side exits 0 after printing "<side>: done".

#[allow(dead_code)]
mod common;

use std::process::ExitCode;
use std::time::Duration;

use common::{check_wc, expect_event, fail, next_wc, socket_addr, step, text, Res};
use rpma::conn::{Conn, ConnEvent, Opts};
use rpma::conn_cfg::ConnCfg;
use rpma::cq::WcOpcode;
use rpma::ep::Ep;
use rpma::mr::Usage;
use rpma::peer::{Device, Peer};
use rpma::srq::Srq;
use rpma::ConnReq;
use rpma::Region;

/// The connections (clients) the server serves.
const CLIENTS: usize = 3;
/// The room for one message.
const SLOT: usize = 64;

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// The op_context of a send on connection `i`; receives use the index of
/// the slot they fill.
fn op_send(i: usize) -> u64 {
    0x5e7d_0000 + i as u64
}

fn message(i: usize) -> String {
    format!("message from client {i}")
}

/// The server's answer to `who` (the private data of its connection) that
/// sent `got`.
fn answer(who: &str, got: &str) -> String {
    format!("server to {who}: got \"{got}\"")
}

fn server(addr: &str, port: &str) -> Res<()> {
    let device = step("finding the device of the address", Device::local(addr))?;
    let peer = step("opening the peer", Peer::new(&device))?;
    // the default SRQ: 20 receives, and a receive CQ of its own
    let srq = step("creating the SRQ", Srq::new(&peer, None))?;
    let Some(rcq) = srq.rcq() else {
        return fail("the SRQ has no receive CQ");
    };
    let recv_buf = vec![0u8; CLIENTS * SLOT].into_boxed_slice();
    let recv_mr = step("registering", Region::reg(&peer, recv_buf, Usage::RECV))?;
    let send_buf = vec![0u8; CLIENTS * SLOT].into_boxed_slice();
    let mut send_mr = step("registering", Region::reg(&peer, send_buf, Usage::SEND))?;
    // one receive per client, posted before anyone can send
    for slot in 0..CLIENTS {
        step(
            "posting a receive",
            srq.recv(recv_mr.slice(slot * SLOT..(slot + 1) * SLOT)?, slot as u64),
        )?;
    }

    let mut cfg = ConnCfg::new();
    cfg.set_srq(&srq);
    let ep = step("listening", Ep::listen(&peer, socket_addr(addr, port)?))?;
    println!("server: listening on {addr}:{port}, {CLIENTS} clients will share one receive queue");

    let mut conns: Vec<Conn> = Vec::new();
    let mut hellos = Vec::new();
    for _ in 0..CLIENTS {
        let Some(req) = step(
            "taking a connection request",
            ep.next_request_timeout(Some(&cfg), ACCEPT_TIMEOUT),
        )?
        else {
            return fail("no client came in time");
        };
        let hello = text(req.private_data());
        let conn = step("accepting", req.connect(&[]))?;
        expect_event(&conn, ConnEvent::Established, EVENT_TIMEOUT)?;
        println!("server: \"{hello}\" connected (QP {})", conn.qp_num());
        conns.push(conn);
        hellos.push(hello);
    }
    // The configuration is not needed any more; the connections made with
    // it hold the SRQ until they are deleted.
    drop(cfg);

    for _ in 0..CLIENTS {
        let wc = next_wc(rcq, COMPLETION_TIMEOUT)?;
        if !wc.status().is_success() || wc.opcode() != WcOpcode::Recv {
            return fail(format!(
                "a receive completed with status {:?}, opcode {:?}",
                wc.status(),
                wc.opcode()
            ));
        }
        let Some(i) = conns.iter().position(|c| c.qp_num() == wc.qp_num()) else {
            return fail(format!(
                "a message came on QP {}, which is none of ours",
                wc.qp_num()
            ));
        };
        let slot = wc.wr_id() as usize;
        let len = (wc.byte_len() as usize).min(SLOT);
        let mut got = vec![0u8; len];
        step("reading the message", recv_mr.read(slot * SLOT, &mut got))?;
        let got = String::from_utf8_lossy(&got).into_owned();
        println!("server: connection {i} (QP {}) sent \"{got}\"", wc.qp_num());

        let reply = answer(&hellos[i], &got);
        step(
            "filling the answer",
            send_mr.write(i * SLOT, reply.as_bytes()),
        )?;
        let conn = &conns[i];
        step(
            "sending",
            conn.send(
                send_mr.slice(i * SLOT..i * SLOT + reply.len())?,
                Opts::signaled().context(op_send(i)),
            ),
        )?;
        let wc = next_wc(conn.cq(), COMPLETION_TIMEOUT)?;
        check_wc(&wc, op_send(i), "the answer")?;
    }

    // the client hangs up every connection once it has its answers
    for (i, conn) in conns.into_iter().enumerate() {
        expect_event(&conn, ConnEvent::Closed, EVENT_TIMEOUT)?;
        step("disconnecting", conn.disconnect())?;
        step("deleting a connection", conn.delete())?;
        println!("server: connection {i} closed");
    }
    step("shutting the endpoint down", ep.shutdown())?;
    // no connection uses the SRQ any more, so it goes now
    step("deleting the SRQ", srq.delete())?;
    step("deregistering", recv_mr.dereg())?;
    step("deregistering", send_mr.dereg())?;
    step("deleting the peer", peer.delete())
}

fn client(addr: &str, port: &str) -> Res<()> {
    let device = step(
        "finding the device that reaches the server",
        Device::remote(addr),
    )?;
    let peer = step("opening the peer", Peer::new(&device))?;
    let mut send_mr = step(
        "registering",
        Region::reg(&peer, vec![0u8; CLIENTS * SLOT], Usage::SEND),
    )?;
    let recv_mr = step(
        "registering",
        Region::reg(&peer, vec![0u8; CLIENTS * SLOT], Usage::RECV),
    )?;
    let cfg = ConnCfg::new();
    step("setting the timeout", cfg.set_timeout(5000))?;

    let mut conns = Vec::new();
    for i in 0..CLIENTS {
        let req = step(
            "preparing a connection",
            ConnReq::new(&peer, socket_addr(addr, port)?, Some(&cfg)),
        )?;
        // the answer's buffer is there before the connection is
        step(
            "posting a receive",
            req.recv(recv_mr.slice(i * SLOT..(i + 1) * SLOT)?, i as u64),
        )?;
        let hello = format!("client {i}");
        let conn = step("connecting", req.connect(hello.as_bytes()))?;
        expect_event(&conn, ConnEvent::Established, EVENT_TIMEOUT)?;
        println!("client: connection {i} established");
        conns.push(conn);
    }

    for (i, conn) in conns.iter().enumerate() {
        let msg = message(i);
        step(
            "filling the message",
            send_mr.write(i * SLOT, msg.as_bytes()),
        )?;
        step(
            "sending",
            conn.send(
                send_mr.slice(i * SLOT..i * SLOT + msg.len())?,
                Opts::signaled().context(op_send(i)),
            ),
        )?;
        // the send's completion and the answer's, in either order
        let mut answered = None;
        let mut sent = false;
        while answered.is_none() || !sent {
            let wc = next_wc(conn.cq(), COMPLETION_TIMEOUT)?;
            if wc.wr_id() == op_send(i) {
                check_wc(&wc, op_send(i), "the message")?;
                sent = true;
            } else {
                check_wc(&wc, i as u64, "the answer")?;
                answered = Some((wc.byte_len() as usize).min(SLOT));
            }
        }
        let mut got = vec![0u8; answered.unwrap_or(0)];
        step("reading the answer", recv_mr.read(i * SLOT, &mut got))?;
        let got = String::from_utf8_lossy(&got).into_owned();
        println!("client: connection {i} got \"{got}\"");
        let want = answer(&format!("client {i}"), &msg);
        if got != want {
            return fail(format!("connection {i}: expected \"{want}\""));
        }
    }

    for (i, conn) in conns.into_iter().enumerate() {
        step("disconnecting", conn.disconnect())?;
        expect_event(&conn, ConnEvent::Closed, EVENT_TIMEOUT)?;
        step("deleting a connection", conn.delete())?;
        println!("client: connection {i} closed");
    }
    step("deregistering", send_mr.dereg())?;
    step("deregistering", recv_mr.dereg())?;
    step("deleting the peer", peer.delete())
}

fn main() -> ExitCode {
    common::run(server, client)
}
