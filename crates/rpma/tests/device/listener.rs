//! The listener and its requests on rxe0, as a threaded server uses them:
//! requests accepted on threads of their own while the listener keeps
//! waiting, a request that outlives the listener's shutdown, and the
//! errors `Peer::local` documents.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rpma::conn::ConnEvent;
use rpma::mr::Usage;
use rpma::Error;
use rpma::{Conn, ConnReq, Ep, Opts, Peer, Region};

use super::owned::listening;
use super::{invalid, WAIT};

fn expect_event(conn: &Conn, want: ConnEvent, who: &str) {
    let got = conn.next_event_timeout(WAIT).expect("next_event_timeout");
    assert_eq!(got, Some(want), "{who}: within {WAIT:?}");
}

/// A client that connects, waits for ESTABLISHED, and waits for the
/// server to hang up. The server hangs up first, after its own ESTABLISHED:
/// a disconnect request sent right behind the RTU that establishes the
/// server's side is now and then handled first by the guest's kernel,
/// which then drops the RTU (rpma_ep_next_conn_req_threads.c in tests-c).
fn client(peer: Peer, at: SocketAddr, k: u8) {
    let conn = ConnReq::new(&peer, at, None)
        .expect("request")
        .connect(&[k])
        .expect("connect");
    expect_event(&conn, ConnEvent::Established, "client");
    // the accept's private data, zero-padded by rdma_cm on RoCE
    let pdata = conn.private_data().expect("the accept's private data");
    assert_eq!((pdata.len(), &pdata[..2]), (196, &b"ok"[..]));
    assert!(pdata[2..].iter().all(|&b| b == 0));
    expect_event(&conn, ConnEvent::Closed, "client");
    conn.disconnect().unwrap();
    conn.delete().unwrap();
}

/// One round: `n` clients; the listener's thread takes each request and
/// hands it to a thread of its own, which accepts it, while the listener
/// keeps waiting in short waits until every accepting thread is done.
/// Every event the listener's waiter sees must be a request: before each
/// request moved to an event channel of its own as it was taken, the
/// waiter could take a new connection's ESTABLISHED (an `Inval`), and the
/// connection then saw only its CLOSED.
fn accept_round(peer: &Peer, at: SocketAddr, listener: &Ep, n: u8) {
    let clients: Vec<_> = (0..n)
        .map(|k| {
            let peer = peer.clone();
            thread::spawn(move || client(peer, at, k))
        })
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    let mut servers = Vec::new();
    while servers.len() < usize::from(n) {
        let req = listener
            .next_request_timeout(None, WAIT)
            .expect("the listener's waiter gets requests only")
            .expect("a request within the wait");
        // the request's private data, zero-padded by rdma_cm on RoCE
        let pdata = req.private_data().expect("the request's private data");
        assert_eq!(pdata.len(), 56);
        assert!(pdata[1..].iter().all(|&b| b == 0));
        servers.push(thread::spawn(move || {
            let conn = req.connect(b"ok").expect("accept");
            expect_event(&conn, ConnEvent::Established, "server");
            conn.disconnect().unwrap();
            expect_event(&conn, ConnEvent::Closed, "server");
            conn.delete().unwrap();
        }));
    }
    // the accepting threads run while the listener waits for more
    let watcher = {
        let done = done.clone();
        thread::spawn(move || {
            for s in servers {
                s.join().expect("server thread");
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    while !done.load(Ordering::SeqCst) {
        let got = listener.next_request_timeout(None, Duration::from_millis(5));
        assert!(matches!(got, Ok(None)), "no request and no error: {got:?}");
    }
    watcher.join().unwrap();
    for c in clients {
        c.join().expect("client thread");
    }
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn requests_accepted_on_their_own_threads_get_their_own_events() {
    let (peer, at, listener) = listening(50);
    for _ in 0..100 {
        accept_round(&peer, at, &listener, 4);
    }
    listener.shutdown().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn a_taken_request_survives_the_listeners_shutdown() {
    let (peer, at, listener) = listening(51);
    let text = b"after the shutdown";
    let client = {
        let peer = peer.clone();
        thread::spawn(move || {
            let src = Region::reg(&peer, text.to_vec(), Usage::SEND).unwrap();
            let conn = ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap();
            expect_event(&conn, ConnEvent::Established, "client");
            conn.send(src.slice(..).unwrap(), Opts::default().context(1))
                .unwrap();
            expect_event(&conn, ConnEvent::Closed, "client");
            conn.delete().unwrap();
        })
    };
    let req = listener
        .next_request_timeout(None, WAIT)
        .unwrap()
        .expect("a request");
    let inbox = Region::reg(&peer, vec![0u8; text.len()], Usage::RECV).unwrap();
    req.recv(inbox.slice(..).unwrap(), 7).unwrap();
    // the listener goes before the request it handed out is accepted
    listener.shutdown().unwrap();
    let conn = req.connect(b"").expect("accept after the shutdown");
    expect_event(&conn, ConnEvent::Established, "server");
    let mut wc = [rpma::WorkCompletion::default()];
    loop {
        match conn.cq().poll(&mut wc) {
            Ok(_) => break,
            Err(Error::NoCompletion) => assert!(conn.cq().wait_timeout(WAIT).unwrap()),
            Err(e) => panic!("poll: {e}"),
        }
    }
    assert_eq!(wc[0].wr_id(), 7);
    let mut got = vec![0u8; text.len()];
    inbox.read(0, &mut got).unwrap();
    assert_eq!(&got, text);
    conn.disconnect().unwrap();
    expect_event(&conn, ConnEvent::Closed, "server");
    conn.delete().unwrap();
    client.join().expect("client thread");
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn peer_local_errors_are_the_documented_ones() {
    // the wildcard address names no device
    invalid(Peer::local(IpAddr::V4(Ipv4Addr::UNSPECIFIED)).err());
    // an address of the guest's subnet that is not the guest's own: the
    // bind fails (EADDRNOTAVAIL)
    let ip: Ipv4Addr = super::ip().parse().unwrap();
    let [a, b, c, d] = ip.octets();
    let other = Ipv4Addr::new(a, b, c, if d == 200 { 201 } else { 200 });
    match Peer::local(IpAddr::V4(other)) {
        Err(Error::Provider(e)) => {
            assert_eq!(
                (e.call(), e.errno()),
                ("rdma_bind_addr", libc::EADDRNOTAVAIL)
            )
        }
        other => panic!("a bind failure, not {other:?}"),
    }
}
