//! A tokio client: several tasks, a connection each, and one wait
//! cancelled midway. The server lends a region of `TASKS` slots; each
//! client task writes its own pattern into its slot, flushes it to
//! visibility, reads it back and compares. One task first starts a wait
//! for a completion and lets a timeout cancel it (nothing was posted, so
//! nothing can come), then does the same work on the same connection: the
//! async waits of `rpma` are cancel-safe, so the dropped wait lost
//! nothing. The server is async too: it accepts the connections, follows
//! each in a task of its own, and checks every slot once all have closed.
//!
//! It needs the feature `tokio`:
//!
//! ```text
//! cargo build -p rpma --example tokio_client --features tokio
//! tokio_client server <addr> <port>     # addr: the server's own address
//! tokio_client client <addr> <port>     # addr: the server's address
//! ```
//!
//! Each side exits 0 after printing "<side>: done". Both run on a
//! single-threaded runtime, and every wait is bounded by
//! `tokio::time::timeout`.

#[allow(dead_code)]
mod common;

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use common::{fail, socket_addr, step, text, Res};
use rpma::{Conn, ConnCfg, ConnEvent, ConnReq, Ep, FlushType, MrRemote, Opts, Peer, Region, Usage};
use tokio::time::timeout;

/// The client's tasks, each with its connection and its slot.
const TASKS: usize = 4;
const SLOT: usize = 128;
/// The task whose first wait is cancelled.
const CANCELLING_TASK: usize = 0;
const CANCEL_AFTER: Duration = Duration::from_millis(50);

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);
/// The server's wait for a client's hang-up spans all of its work.
const SESSION_TIMEOUT: Duration = Duration::from_secs(40);
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

const OP_FLUSH: u64 = 0xf1a5;
const OP_READ: u64 = 0x4ead;

/// What task `i` writes: readable text, different in every slot.
fn pattern(i: usize) -> Vec<u8> {
    let text = format!("[slot {i}, written by client task {i}] ");
    text.bytes().cycle().take(SLOT).collect()
}

/// `f` given at most `limit`: a library error or the deadline becomes a
/// message that names `what`.
async fn within<T>(
    what: &str,
    limit: Duration,
    f: impl Future<Output = rpma::Result<T>>,
) -> Res<T> {
    match timeout(limit, f).await {
        Ok(got) => step(what, got),
        Err(_) => fail(format!("{what}: nothing within {limit:?}")),
    }
}

async fn expect_event(conn: &Conn, want: ConnEvent, limit: Duration) -> Res<()> {
    match within("waiting for an event", limit, conn.next_event_async()).await? {
        got if got == want => Ok(()),
        got => fail(format!("expected \"{want}\", got \"{got}\"")),
    }
}

async fn server(at: SocketAddr) -> Res<()> {
    let peer = step("opening the peer", Peer::local(at.ip()))?;
    let usage = Usage::WRITE_DST | Usage::READ_SRC | Usage::FLUSH_TYPE_VISIBILITY;
    let memory = vec![0; TASKS * SLOT];
    let region = step("registering", Region::reg(&peer, memory, usage))?;
    let ep = step("listening", Ep::listen(&peer, at))?;
    println!("server: listening on {at}, lending {TASKS} slots of {SLOT} bytes");

    let mut followers = Vec::new();
    for _ in 0..TASKS {
        let req = ep.next_request_async(None);
        let req = within("taking a request", ACCEPT_TIMEOUT, req).await?;
        let who = text(req.private_data());
        // every client learns where the region is from the accept
        let conn = step("accepting", req.connect(&region.descriptor()))?;
        println!("server: {who} accepted");
        // A boxed error cannot leave a task (it is not Send): text can.
        followers.push(tokio::spawn(async move {
            follow(conn).await.map(|()| who).map_err(|e| e.to_string())
        }));
    }
    step("shutting the endpoint down", ep.shutdown())?;

    // Every follower's waits have deadlines, so every join ends.
    for f in followers {
        match f.await {
            Ok(Ok(who)) => println!("server: {who} closed its connection"),
            Ok(Err(e)) => return fail(e),
            Err(e) => return fail(format!("a connection's task failed: {e}")),
        }
    }
    // All clients are gone, so the memory is the server's alone again.
    let memory = step("deregistering", region.dereg())?;
    for (i, slot) in memory.chunks(SLOT).enumerate() {
        let text = String::from_utf8_lossy(slot);
        if slot != pattern(i) {
            return fail(format!("slot {i} holds {text:?}"));
        }
        println!("server: slot {i} holds {:?}...", &text[..36]);
    }
    step("deleting the peer", peer.delete())
}

/// Follows one connection until its client closes it.
async fn follow(conn: Conn) -> Res<()> {
    // The client's one-sided operations need nothing from this side. On
    // a lossy link CLOSED may even come first: the client's confirmation
    // of the connection was lost and it went ahead without it.
    // (Bound before the match: a temporary of the match would live across
    // the await below, and a boxed error would make the task not Send.)
    let first = conn.next_event_async();
    let first = within("waiting for an event", EVENT_TIMEOUT, first).await?;
    match first {
        ConnEvent::Established => expect_event(&conn, ConnEvent::Closed, SESSION_TIMEOUT).await?,
        ConnEvent::Closed => {}
        other => return fail(format!("expected ESTABLISHED, got \"{other}\"")),
    }
    step("disconnecting", conn.disconnect())?;
    step("deleting the connection", conn.delete())
}

async fn client(at: SocketAddr) -> Res<()> {
    // One peer for all tasks: each takes a clone, as its connection does.
    let peer = Peer::remote_async(at.ip());
    let peer = within("opening the peer", EVENT_TIMEOUT, peer).await?;
    let tasks: Vec<_> = (0..TASKS)
        .map(|i| {
            let peer = peer.clone();
            tokio::spawn(async move { client_task(i, peer, at).await.map_err(|e| e.to_string()) })
        })
        .collect();
    // Every task's waits have deadlines, so every join ends.
    let mut failed = 0;
    for (i, t) in tasks.into_iter().enumerate() {
        let outcome = t.await.unwrap_or_else(|e| Err(e.to_string()));
        if let Err(e) = outcome {
            eprintln!("client: task {i}: {e}");
            failed += 1;
        }
    }
    if failed > 0 {
        return fail(format!("{failed} of {TASKS} tasks failed"));
    }
    step("deleting the peer", peer.delete())
}

/// One task: its own connection, its slot written, flushed and read back.
async fn client_task(i: usize, peer: Peer, at: SocketAddr) -> Res<()> {
    // the first half is written from, the second half read back into
    let mut mem = pattern(i);
    mem.resize(2 * SLOT, 0);
    let usage = Usage::WRITE_SRC | Usage::READ_DST;
    let local = step("registering", Region::reg(&peer, mem, usage))?;
    let cfg = ConnCfg::new();
    // a slow (emulated) network may need more than the default second
    step("setting the timeout", cfg.set_timeout(5000))?;
    let req = ConnReq::new_async(&peer, at, Some(&cfg));
    let req = within("preparing the connection", EVENT_TIMEOUT, req).await?;
    let hello = format!("client task {i}");
    let conn = step("connecting", req.connect(hello.as_bytes()))?;
    expect_event(&conn, ConnEvent::Established, EVENT_TIMEOUT).await?;
    let desc = conn.private_data().unwrap_or_default();
    let server_mr = step("the server's descriptor", MrRemote::from_descriptor(desc))?;
    if server_mr.size() != (TASKS * SLOT) as u64 {
        return fail(format!("the server lends {} bytes", server_mr.size()));
    }
    let slot = step("the task's slot", server_mr.slice(i * SLOT..(i + 1) * SLOT))?;

    if i == CANCELLING_TASK {
        // Nothing is posted yet, so the timeout ends this wait by dropping
        // it: a cancellation. That is safe because a wait takes a
        // completion only in the poll that returns it, never across an
        // await: the dropped one took nothing, and the CQ stays armed, so
        // the waits below still see every completion.
        match timeout(CANCEL_AFTER, conn.cq().next_wc_async()).await {
            Err(_) => println!(
                "client: task {i}: a wait for a completion cancelled after {CANCEL_AFTER:?}; \
                 the connection goes on"
            ),
            Ok(got) => return fail(format!("a wait with nothing posted ended: {got:?}")),
        }
    }

    // No completion for the write: the flush's says both are done, since
    // a connection's operations complete in order.
    let src = local.slice(..SLOT)?;
    step("writing", conn.write(src, slot, Opts::unsignaled()))?;
    let flush = Opts::signaled().context(OP_FLUSH);
    step("flushing", conn.flush(slot, FlushType::Visibility, flush))?;
    completion(&conn, OP_FLUSH, "the flush").await?;
    let read = Opts::signaled().context(OP_READ);
    step("reading back", conn.read(slot, local.slice(SLOT..)?, read))?;
    completion(&conn, OP_READ, "the read").await?;
    let mut back = vec![0; SLOT];
    step("copying the read-back", local.read(SLOT, &mut back))?;
    if back != pattern(i) {
        let text = String::from_utf8_lossy(&back);
        return fail(format!("slot {i} reads back {text:?}"));
    }
    println!("client: task {i}: slot {i} written, flushed and read back intact");

    step("disconnecting", conn.disconnect())?;
    expect_event(&conn, ConnEvent::Closed, EVENT_TIMEOUT).await?;
    step("deleting the connection", conn.delete())?;
    step("deregistering", local.dereg().map(drop))
}

/// Awaits the next completion and checks it is `context`'s, successful.
async fn completion(conn: &Conn, context: u64, what: &str) -> Res<()> {
    let wc = conn.cq().next_wc_async();
    let wc = within("waiting for a completion", COMPLETION_TIMEOUT, wc).await?;
    if !wc.status().is_success() || wc.wr_id() != context {
        let (id, status) = (wc.wr_id(), wc.status());
        return fail(format!("{what}: completion {id:#x} with status {status:?}"));
    }
    Ok(())
}

fn runtime() -> Res<tokio::runtime::Runtime> {
    // one thread is enough: every task spends its time waiting
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

fn main() -> ExitCode {
    common::run(
        |addr, port| runtime()?.block_on(server(socket_addr(addr, port)?)),
        |addr, port| runtime()?.block_on(client(socket_addr(addr, port)?)),
    )
}
