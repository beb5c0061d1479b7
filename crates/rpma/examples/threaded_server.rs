//! A threaded server: many clients, one thread each, and a graceful
//! shutdown. The server accepts `CLIENTS` connections and moves each into
//! a thread of its own, which answers its client's messages (send/recv)
//! until the client hangs up. Once every expected client has come, the
//! server stops listening (`Ep::shutdown`) while the conversations go on,
//! then joins the threads and prints what each one did. The client opens
//! its `CLIENTS` connections at once, one thread each, and checks every
//! answer; the server checks every message.
//!
//! ```text
//! threaded_server server <addr> <port>     # addr: the server's own address
//! threaded_server client <addr> <port>     # addr: the server's address
//! ```
//!
//! Each side exits 0 after printing "<side>: done".

#[allow(dead_code)]
mod common;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use common::{fail, socket_addr, step, text, Res};
use rpma::{Conn, ConnCfg, ConnEvent, ConnReq, Ep, Opts, Peer, Region, Usage, WorkCompletion};

/// The clients the server waits for before it stops listening.
const CLIENTS: usize = 4;
/// The messages each client sends, each answered before the next.
const ROUNDS: usize = 5;
/// The room for one message.
const SLOT: usize = 64;

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// The op_contexts of round `r`'s receive and send: each completion says
/// which operation it ends.
fn op_recv(r: usize) -> u64 {
    0x7ec0_0000 + r as u64
}
fn op_send(r: usize) -> u64 {
    0x5e0d_0000 + r as u64
}

fn message(client: usize, r: usize) -> String {
    format!("client {client}, message {r}")
}

/// The server's answer: something the client can check, and that the
/// server had to read the message to produce.
fn answer(msg: &str) -> String {
    format!("ok: {}", msg.to_uppercase())
}

fn expect_event(conn: &Conn, want: ConnEvent) -> Res<()> {
    let got = conn.next_event_timeout(EVENT_TIMEOUT);
    match step("waiting for an event", got)? {
        Some(got) if got == want => Ok(()),
        Some(got) => fail(format!("expected \"{want}\", got \"{got}\"")),
        None => fail(format!("no \"{want}\" within {EVENT_TIMEOUT:?}")),
    }
}

/// Waits for the completions of all `wanted` contexts, checks that each
/// succeeded, and returns them in the order of `wanted`. They may come in
/// any order: a send's completion (the peer's acknowledgement) and the
/// peer's next message race each other.
fn complete(conn: &Conn, wanted: &[u64]) -> Res<Vec<WorkCompletion>> {
    let mut got: Vec<Option<WorkCompletion>> = vec![None; wanted.len()];
    while got.iter().any(Option::is_none) {
        let wc = conn.cq().next_wc_timeout(COMPLETION_TIMEOUT);
        let Some(wc) = step("waiting for a completion", wc)? else {
            return fail(format!("no completion within {COMPLETION_TIMEOUT:?}"));
        };
        match wanted.iter().position(|&w| w == wc.wr_id()) {
            Some(i) if got[i].is_none() && wc.status().is_success() => got[i] = Some(wc),
            _ => return fail(format!("a failed or unexpected completion: {wc:?}")),
        }
    }
    Ok(got.into_iter().flatten().collect())
}

/// A connection's message buffers, one to receive into, one to send from.
struct Buffers {
    recv: Region,
    send: Region,
}

impl Buffers {
    fn new(peer: &Peer) -> Res<Buffers> {
        let reg = |usage| step("registering", Region::reg(peer, vec![0; SLOT], usage));
        let (recv, send) = (reg(Usage::RECV)?, reg(Usage::SEND)?);
        Ok(Buffers { recv, send })
    }

    /// The message a receive completion says landed in `recv`.
    fn received(&self, wc: &WorkCompletion) -> Res<String> {
        let mut buf = vec![0; (wc.byte_len() as usize).min(SLOT)];
        step("reading a message", self.recv.read(0, &mut buf))?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Sends `msg` from `send`. The caller waits for the send's completion
    /// before it calls again, which overwrites the buffer.
    fn send(&mut self, conn: &Conn, msg: &str, ctx: u64) -> Res<()> {
        step("filling a message", self.send.write(0, msg.as_bytes()))?;
        let src = self.send.slice(..msg.len())?;
        step("sending", conn.send(src, Opts::signaled().context(ctx)))
    }

    fn dereg(self) -> Res<()> {
        step("deregistering", self.recv.dereg())?;
        step("deregistering", self.send.dereg()).map(drop)
    }
}

/// Prints what each thread did (a summary, or what failed: a panic too);
/// fails if any thread failed.
fn report(side: &str, outcomes: Vec<thread::Result<Result<String, String>>>) -> Res<()> {
    let mut failed = 0;
    for outcome in outcomes {
        match outcome.unwrap_or_else(|_| Err("a thread panicked".into())) {
            Ok(summary) => println!("{side}: {summary}"),
            Err(e) => {
                eprintln!("{side}: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        return fail(format!("{failed} of {CLIENTS} conversations failed"));
    }
    Ok(())
}

fn server(addr: &str, port: &str) -> Res<()> {
    let at = socket_addr(addr, port)?;
    let peer = step("opening the peer", Peer::local(at.ip()))?;
    let ep = step("listening", Ep::listen(&peer, at))?;
    println!("server: listening on {addr}:{port} for {CLIENTS} clients");

    let mut threads = Vec::new();
    while threads.len() < CLIENTS {
        let req = ep.next_request_timeout(None, ACCEPT_TIMEOUT);
        let Some(req) = step("taking a request", req)? else {
            return fail(format!("only {} of {CLIENTS} clients came", threads.len()));
        };
        let hello = text(req.private_data());
        let Some(client) = hello.strip_prefix("client ").and_then(|n| n.parse().ok()) else {
            return fail(format!("a request says \"{hello}\", not \"client N\""));
        };
        // Every connection has buffers of its own, which its thread owns.
        let bufs = Buffers::new(&peer)?;
        // The client sends as soon as it is connected, so the receive for
        // its first message goes on the request, before the accept.
        let dst = bufs.recv.slice(..)?;
        step("posting a receive", req.recv(dst, op_recv(0)))?;
        let conn = step("accepting", req.connect(&[]))?;
        println!("server: client {client} accepted, a thread of its own serves it");
        // A thread's error becomes text: a boxed error cannot cross threads.
        threads.push(thread::spawn(move || {
            serve(client, conn, bufs).map_err(|e| format!("client {client}: {e}"))
        }));
    }
    // Nobody else is expected. Connections made through the endpoint live
    // on without it, so the threads go on talking.
    step("shutting the endpoint down", ep.shutdown())?;
    println!("server: no longer listening, waiting for the {CLIENTS} conversations to end");

    // Each thread's waits have deadlines, so every join ends.
    report("server", threads.into_iter().map(|t| t.join()).collect())?;
    step("deleting the peer", peer.delete())
}

/// One client's conversation, on its own thread: every message checked
/// and answered, then the client's hang-up awaited.
fn serve(client: usize, conn: Conn, mut bufs: Buffers) -> Res<String> {
    expect_event(&conn, ConnEvent::Established)?;
    let mut wc = complete(&conn, &[op_recv(0)])?[0];
    let mut bytes = 0;
    for r in 0..ROUNDS {
        let got = bufs.received(&wc)?;
        if got != message(client, r) {
            return fail(format!("message {r} is \"{got}\""));
        }
        bytes += got.len();
        // The client sends its next message as soon as it has the answer,
        // so the receive for it is posted first (the message was copied
        // out, so its buffer is free).
        let last = r + 1 == ROUNDS;
        if !last {
            let dst = bufs.recv.slice(..)?;
            step("posting a receive", conn.recv(dst, op_recv(r + 1)))?;
        }
        bufs.send(&conn, &answer(&got), op_send(r))?;
        if last {
            complete(&conn, &[op_send(r)])?;
        } else {
            wc = complete(&conn, &[op_send(r), op_recv(r + 1)])?[1];
        }
    }
    expect_event(&conn, ConnEvent::Closed)?;
    let qp = conn.qp_num();
    step("disconnecting", conn.disconnect())?;
    step("deleting the connection", conn.delete())?;
    bufs.dereg()?;
    Ok(format!(
        "client {client} (QP {qp}): {ROUNDS} messages, {bytes} bytes, answered; closed"
    ))
}

fn client(addr: &str, port: &str) -> Res<()> {
    let at = socket_addr(addr, port)?;
    // One peer (protection domain) for every connection; it is Sync, so
    // the scoped threads share it by reference.
    let peer = step("opening the peer", Peer::remote(at.ip()))?;
    let outcomes = thread::scope(|s| {
        let threads: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let peer = &peer;
                s.spawn(move || converse(c, peer, at).map_err(|e| format!("connection {c}: {e}")))
            })
            .collect();
        // each thread's waits have deadlines, so every join ends
        threads.into_iter().map(|t| t.join()).collect()
    });
    report("client", outcomes)?;
    step("deleting the peer", peer.delete())
}

/// One connection's side of the conversation, on its own thread.
fn converse(c: usize, peer: &Peer, at: SocketAddr) -> Res<String> {
    let mut bufs = Buffers::new(peer)?;
    let cfg = ConnCfg::new();
    // a slow (emulated) network may need more than the default second
    step("setting the timeout", cfg.set_timeout(5000))?;
    let req = step("resolving", ConnReq::new(peer, at, Some(&cfg)))?;
    let hello = format!("client {c}");
    let conn = step("connecting", req.connect(hello.as_bytes()))?;
    expect_event(&conn, ConnEvent::Established)?;
    println!("client: connection {c} established");

    for r in 0..ROUNDS {
        // the answer's buffer is posted before the message that asks for it
        let dst = bufs.recv.slice(..)?;
        step("posting a receive", conn.recv(dst, op_recv(r)))?;
        let msg = message(c, r);
        bufs.send(&conn, &msg, op_send(r))?;
        let wc = complete(&conn, &[op_send(r), op_recv(r)])?[1];
        let got = bufs.received(&wc)?;
        if got != answer(&msg) {
            return fail(format!("the answer to \"{msg}\" is \"{got}\""));
        }
    }

    step("disconnecting", conn.disconnect())?;
    expect_event(&conn, ConnEvent::Closed)?;
    step("deleting the connection", conn.delete())?;
    bufs.dereg()?;
    Ok(format!("connection {c}: {ROUNDS} answers checked; closed"))
}

fn main() -> ExitCode {
    common::run(server, client)
}
