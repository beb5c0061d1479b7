//! Connection private data, both ways: the client's connect request
//! carries a greeting, the server prints it and accepts with a greeting of
//! its own, which the client prints; then the client hangs up and both
//! sides close cleanly.
//!
//! ```text
//! private_data server <addr> <port>     # addr: the server's own address
//! private_data client <addr> <port>     # addr: the server's address
//! ```
//!
//! Each side exits 0 after printing "<side>: done". Its waits take their
//! deadlines themselves (`next_request_timeout`, `next_event_timeout`).

#[allow(dead_code)]
mod common;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use common::{step, text, Res};
use rpma::conn::ConnEvent;
use rpma::{Conn, ConnCfg, ConnReq, Ep, Peer};

/// What the client says in its connect request (at most 56 bytes on IB
/// and RoCE).
const CLIENT_GREETING: &[u8] = b"Hello from the client!";
/// What the server answers with its accept.
const SERVER_GREETING: &[u8] = b"Welcome, client, this is the server.";

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);

fn socket_addr(addr: &str, port: &str) -> Res<SocketAddr> {
    Ok(format!("{addr}:{port}").parse()?)
}

/// The next connection event, within the deadline.
fn next_event(conn: &Conn) -> Res<ConnEvent> {
    match step(
        "waiting for an event",
        conn.next_event_timeout(EVENT_TIMEOUT),
    )? {
        Some(ev) => Ok(ev),
        None => common::fail(format!("no connection event within {EVENT_TIMEOUT:?}")),
    }
}

fn expect_event(conn: &Conn, want: ConnEvent) -> Res<()> {
    match next_event(conn)? {
        got if got == want => Ok(()),
        other => common::fail(format!(
            "expected \"{}\", got \"{}\"",
            want.as_cstr().to_string_lossy(),
            other.as_cstr().to_string_lossy()
        )),
    }
}

fn server(addr: &str, port: &str) -> Res<()> {
    let at = socket_addr(addr, port)?;
    let peer = step("opening the peer", Peer::local(at.ip()))?;
    let listener = step("listening", Ep::listen(&peer, at))?;
    println!("server: listening on {addr}:{port}");

    let req = match step(
        "taking the connection request",
        listener.next_request_timeout(None, ACCEPT_TIMEOUT),
    )? {
        Some(req) => req,
        None => return common::fail(format!("no client within {ACCEPT_TIMEOUT:?}")),
    };
    println!("server: the client sent \"{}\"", text(req.private_data()));
    let conn = step("accepting", req.connect(SERVER_GREETING))?;
    // The client hangs up when it has read the answer. On a lossy link
    // CLOSED may come first: the client's confirmation of the connection
    // was lost, and it was done before the connection manager resent it.
    match next_event(&conn)? {
        ConnEvent::Established => {
            println!("server: connection established");
            expect_event(&conn, ConnEvent::Closed)?;
        }
        ConnEvent::Closed => {
            println!("server: the client was done before its connection was confirmed here")
        }
        other => {
            return common::fail(format!(
                "expected \"Connection established\", got \"{}\"",
                other.as_cstr().to_string_lossy()
            ))
        }
    }
    println!("server: the client closed the connection");
    // completes the disconnection on this side
    step("disconnecting", conn.disconnect())?;
    step("deleting the connection", conn.delete())?;
    step("shutting the listener down", listener.shutdown())
}

fn client(addr: &str, port: &str) -> Res<()> {
    let at = socket_addr(addr, port)?;
    let peer = step("opening the peer", Peer::remote(at.ip()))?;
    let cfg = ConnCfg::new();
    // a slow (emulated) network may need more than the default second
    step("setting the timeout", cfg.set_timeout(5000))?;
    let req = step(
        "preparing the connection",
        ConnReq::new(&peer, at, Some(&cfg)),
    )?;
    let conn = step("connecting", req.connect(CLIENT_GREETING))?;
    println!("client: connecting to {addr}:{port}");
    // The server's data comes with ESTABLISHED.
    expect_event(&conn, ConnEvent::Established)?;
    println!("client: connection established");
    let answer = text(conn.private_data());
    println!("client: the server sent \"{answer}\"");
    if answer.as_bytes() != SERVER_GREETING {
        return common::fail("the server's answer is not the expected one");
    }

    step("disconnecting", conn.disconnect())?;
    expect_event(&conn, ConnEvent::Closed)?;
    println!("client: connection closed");
    step("deleting the connection", conn.delete())
}

fn main() -> ExitCode {
    common::run(server, client)
}
