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
//! Each side exits 0 after printing "<side>: done".

#[allow(dead_code)]
mod common;

use std::process::ExitCode;
use std::time::Duration;

use common::{expect_event, next_event, step, text, wait_readable, Res};
use rpma::conn::ConnEvent;
use rpma::conn_cfg::ConnCfg;
use rpma::conn_req::ConnReq;
use rpma::ep::Ep;
use rpma::peer::{Device, Peer};

/// What the client says in its connect request (at most 56 bytes on IB
/// and RoCE).
const CLIENT_GREETING: &[u8] = b"Hello from the client!";
/// What the server answers with its accept.
const SERVER_GREETING: &[u8] = b"Welcome, client, this is the server.";

const ACCEPT_TIMEOUT: Duration = Duration::from_secs(30);
const EVENT_TIMEOUT: Duration = Duration::from_secs(20);

fn server(addr: &str, port: &str) -> Res<()> {
    let device = step("finding the device of the address", Device::local(addr))?;
    let peer = step("opening the peer", Peer::new(&device))?;
    let ep = step("listening", Ep::listen(&peer, addr, port))?;
    println!("server: listening on {addr}:{port}");

    wait_readable(ep.fd(), ACCEPT_TIMEOUT, "client")?;
    let req = step("taking the connection request", ep.next_conn_req(None))?;
    println!("server: the client sent \"{}\"", text(req.private_data()));
    let conn = step("accepting", req.connect(Some(SERVER_GREETING)))?;
    // The client hangs up when it has read the answer. On a lossy link
    // CLOSED may come first: the client's confirmation of the connection
    // was lost, and it was done before the connection manager resent it.
    match next_event(&conn, EVENT_TIMEOUT)? {
        ConnEvent::Established => {
            println!("server: connection established");
            expect_event(&conn, ConnEvent::Closed, EVENT_TIMEOUT)?;
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
    step("shutting the endpoint down", ep.shutdown())?;
    step("deleting the peer", peer.delete())
}

fn client(addr: &str, port: &str) -> Res<()> {
    let device = step(
        "finding the device that reaches the server",
        Device::remote(addr),
    )?;
    let peer = step("opening the peer", Peer::new(&device))?;
    let cfg = ConnCfg::new();
    // a slow (emulated) network may need more than the default second
    step("setting the timeout", cfg.set_timeout(5000))?;
    let req = step(
        "preparing the connection",
        ConnReq::new(&peer, addr, port, Some(&cfg)),
    )?;
    let conn = step("connecting", req.connect(Some(CLIENT_GREETING)))?;
    println!("client: connecting to {addr}:{port}");
    // The server's data comes with ESTABLISHED.
    match next_event(&conn, EVENT_TIMEOUT)? {
        ConnEvent::Established => {}
        other => {
            return common::fail(format!(
                "expected \"Connection established\", got \"{}\"",
                other.as_cstr().to_string_lossy()
            ))
        }
    }
    println!("client: connection established");
    let answer = text(conn.private_data());
    println!("client: the server sent \"{answer}\"");
    if answer.as_bytes() != SERVER_GREETING {
        return common::fail("the server's answer is not the expected one");
    }

    step("disconnecting", conn.disconnect())?;
    expect_event(&conn, ConnEvent::Closed, EVENT_TIMEOUT)?;
    println!("client: connection closed");
    step("deleting the connection", conn.delete())?;
    step("deleting the peer", peer.delete())
}

fn main() -> ExitCode {
    common::run(server, client)
}
