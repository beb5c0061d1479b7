//! The objects on rxe0 as Rust programs use them: moved into threads
//! that are not scoped, operations on checked ranges, and the arguments
//! the handles refuse before anything is posted.

use std::net::{IpAddr, SocketAddr};
use std::thread;
use std::time::{Duration, Instant};

use rpma::conn::ConnEvent;
use rpma::cq::{Cq, WcOpcode, WcStatus, WorkCompletion};
use rpma::mr::{MrRemote, Usage};
use rpma::{Activity, FlushType};
use rpma::{Conn, ConnCfg, ConnReq, Ep, Opts, Peer, Region, Srq};

use super::{invalid, ip, port, WAIT};

/// A peer on the test address and a listener there, on this process's
/// port number `k`.
pub(super) fn listening(k: u32) -> (Peer, SocketAddr, Ep) {
    let ip: IpAddr = ip().parse().expect("RPMA_TESTING_IP is an IP address");
    let at = SocketAddr::new(ip, port(k).parse().unwrap());
    let peer = Peer::local(ip).expect("peer");
    let listener = Ep::listen(&peer, at).expect("listen");
    (peer, at, listener)
}

fn expect_event(conn: &Conn, want: ConnEvent) {
    let got = conn.next_event_timeout(WAIT).expect("next_event_timeout");
    assert_eq!(got, Some(want), "within {WAIT:?}");
}

fn next_wc(cq: &Cq) -> WorkCompletion {
    let wc = cq.next_wc_timeout(WAIT).expect("next_wc_timeout");
    wc.unwrap_or_else(|| panic!("a completion within {WAIT:?}"))
}

/// The server: one region the client writes, flushes and reads, its
/// descriptor in the accept; it returns what the client wrote once the
/// client hangs up.
fn serve(listener: Ep, peer: Peer) -> Vec<u8> {
    let usage = Usage::WRITE_DST | Usage::READ_SRC | Usage::FLUSH_TYPE_VISIBILITY;
    let region = Region::reg(&peer, vec![0u8; 4096], usage).unwrap();
    let inbox = Region::reg(&peer, vec![0u8; 16], Usage::RECV).unwrap();
    let req = listener
        .next_request_timeout(None, WAIT)
        .expect("next_request")
        .expect("a request within the wait");
    assert!(req.is_incoming());
    assert!(req.private_data().unwrap_or_default().starts_with(b"owned"));
    req.recv(inbox.slice(..).unwrap(), 0x51).unwrap();
    let conn = req.connect(&region.descriptor()).expect("accept");
    expect_event(&conn, ConnEvent::Established);
    // one wait for the message's completion and the client's hang-up
    let got = conn.next_activity_timeout(WAIT).expect("next_activity");
    let Some(Activity::Completion(wc)) = got else {
        panic!("the receive's completion first, not {got:?}");
    };
    assert_eq!(
        (wc.status(), wc.opcode(), wc.wr_id()),
        (WcStatus::Success, WcOpcode::Recv, 0x51)
    );
    assert_eq!((wc.byte_len(), wc.imm_data()), (4, Some(7)));
    let got = conn.next_activity_timeout(WAIT).expect("next_activity");
    assert!(
        matches!(got, Some(Activity::Event(ConnEvent::Closed))),
        "then the hang-up, not {got:?}"
    );
    conn.disconnect().unwrap();
    conn.delete().unwrap();
    listener.shutdown().unwrap();
    let mut msg = [0u8; 4];
    inbox.read(0, &mut msg).unwrap();
    assert_eq!(&msg, b"done");
    region.dereg().unwrap()
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn owned_handles_move_between_threads() {
    let (peer, at, listener) = listening(40);
    let server = {
        let peer = peer.clone();
        thread::spawn(move || serve(listener, peer))
    };

    let text = b"owned and moved";
    let src = Region::reg(&peer, text.to_vec(), Usage::WRITE_SRC | Usage::SEND).unwrap();
    let back = Region::reg(&peer, vec![0u8; text.len()], Usage::READ_DST).unwrap();
    let conn = ConnReq::new(&peer, at, None)
        .expect("request")
        .connect(b"owned client")
        .expect("connect");
    expect_event(&conn, ConnEvent::Established);
    let dst = MrRemote::from_descriptor(conn.private_data().unwrap_or_default()).unwrap();
    // The client's handles go to another thread and come back.
    let (conn, mut src, back, dst) = thread::spawn(move || {
        let n = text.len();
        conn.write(
            src.slice(..).unwrap(),
            dst.slice(100..100 + n).unwrap(),
            Opts::unsignaled(),
        )
        .expect("write");
        conn.flush(
            dst.slice(100..100 + n).unwrap(),
            FlushType::Visibility,
            Opts::signaled().context(2),
        )
        .expect("flush");
        assert_eq!(next_wc(conn.cq()).wr_id(), 2);
        conn.read(
            dst.slice(100..100 + n).unwrap(),
            back.slice(..).unwrap(),
            Opts::default().context(3),
        )
        .expect("read");
        let wc = next_wc(conn.cq());
        assert_eq!((wc.status(), wc.wr_id()), (WcStatus::Success, 3));
        (conn, src, back, dst)
    })
    .join()
    .expect("client thread");
    let mut got = vec![0u8; text.len()];
    back.read(0, &mut got).unwrap();
    assert_eq!(&got, text);

    // What the handles refuse, before anything is posted.
    let n = text.len();
    invalid(src.slice(..n + 1).err());
    invalid(dst.slice(4000..4097).err());
    let (s, d) = (src.slice(..n).unwrap(), dst.slice(..n - 1).unwrap());
    invalid(conn.write(s, d, Opts::default()).err());
    let (d, b) = (dst.slice(..n).unwrap(), back.slice(..).unwrap());
    invalid(conn.read(d, b, Opts::default().imm(1)).err());
    let d = dst.slice(..16).unwrap();
    invalid(conn.atomic_write(&[0; 8], d, Opts::default()).err());

    src.write(0, b"done").unwrap();
    conn.send(src.slice(..4).unwrap(), Opts::default().context(4).imm(7))
        .expect("send");
    let wc = next_wc(conn.cq());
    assert_eq!((wc.status(), wc.wr_id()), (WcStatus::Success, 4));
    conn.disconnect().unwrap();
    expect_event(&conn, ConnEvent::Closed);
    conn.delete().unwrap();
    let written = server.join().expect("server thread");
    assert_eq!(&written[100..100 + n], text);
    assert_eq!(src.dereg().unwrap(), b"doned and moved");
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn private_data_too_long_is_refused_not_cut() {
    let (peer, at, listener) = listening(41);
    let req = ConnReq::new(&peer, at, None).expect("request");
    invalid(req.connect(&[1u8; 256]).err());
    // The refused request was released: nothing reached the listener.
    let short = Duration::from_millis(200);
    assert!(listener.try_next_request(None).unwrap().is_none());
    let start = Instant::now();
    assert!(listener
        .next_request_timeout(None, short)
        .unwrap()
        .is_none());
    assert!(start.elapsed() >= short, "the wait lasted its deadline");
    listener.shutdown().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn waits_end_at_their_deadlines() {
    let (peer, at, listener) = listening(42);
    let client = ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap();
    let server = listener
        .next_request_timeout(None, WAIT)
        .unwrap()
        .expect("the request")
        .connect(b"")
        .unwrap();
    // the client's librdmacm answers the server's accept while it takes
    // its event: the client's ESTABLISHED comes first
    expect_event(&client, ConnEvent::Established);
    expect_event(&server, ConnEvent::Established);
    let short = Duration::from_millis(200);
    // nothing more happens on either side: each wait lasts its deadline
    for conn in [&client, &server] {
        assert_eq!(conn.try_next_event().unwrap(), None);
        let start = Instant::now();
        assert_eq!(conn.next_event_timeout(short).unwrap(), None);
        assert!(start.elapsed() >= short);
    }
    let start = Instant::now();
    assert!(!client.cq().wait_timeout(short).unwrap());
    assert!(start.elapsed() >= short);
    client.disconnect().unwrap();
    expect_event(&server, ConnEvent::Closed);
    // the server's disconnect answers the client's: then the client closes
    server.disconnect().unwrap();
    expect_event(&client, ConnEvent::Closed);
    client.delete().unwrap();
    server.delete().unwrap();
    listener.shutdown().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn shared_receive_queue_outlives_its_handle() {
    let (peer, at, listener) = listening(43);
    let srq = Srq::new(&peer, None).expect("srq");
    let inbox = Region::reg(&peer, vec![0u8; 64], Usage::RECV).unwrap();
    srq.recv(inbox.slice(0..32).unwrap(), 1).unwrap();
    srq.recv(inbox.slice(32..64).unwrap(), 2).unwrap();
    let mut cfg = ConnCfg::new();
    cfg.set_srq(&srq);
    let polled = srq.clone();
    // the first handle goes; the configuration and the connections keep
    // the queue
    drop(srq);
    let mut clients = Vec::new();
    let mut servers = Vec::new();
    for _ in 0..2 {
        clients.push(ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap());
        let req = listener.next_request_timeout(Some(&cfg), WAIT).unwrap();
        servers.push(req.expect("a request").connect(b"").unwrap());
    }
    drop(cfg);
    for conn in clients.iter().chain(&servers) {
        expect_event(conn, ConnEvent::Established);
    }
    let msg = Region::reg(&peer, b"c0c1".to_vec(), Usage::SEND).unwrap();
    for (i, client) in clients.iter().enumerate() {
        let part = msg.slice(2 * i..2 * i + 2).unwrap();
        client.send(part, Opts::unsignaled()).unwrap();
    }
    let rcq = polled.rcq().expect("the queue's own CQ");
    let mut from = Vec::new();
    for _ in 0..2 {
        let wc = next_wc(rcq);
        assert_eq!(
            (wc.status(), wc.opcode(), wc.byte_len()),
            (WcStatus::Success, WcOpcode::Recv, 2)
        );
        from.push((wc.qp_num(), wc.wr_id()));
    }
    from.sort_by_key(|&(_, id)| id);
    let mut qps: Vec<u32> = servers.iter().map(Conn::qp_num).collect();
    let mut got: Vec<u32> = from.iter().map(|&(qp, _)| qp).collect();
    qps.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, qps, "one message through the queue to each server");
    let mut text = [0u8; 2];
    inbox.read(0, &mut text).unwrap();
    assert!(&text == b"c0" || &text == b"c1");
    for client in &clients {
        client.disconnect().unwrap();
    }
    // each server's disconnect answers its client's: then the client closes
    for server in servers {
        expect_event(&server, ConnEvent::Closed);
        server.disconnect().unwrap();
        server.delete().unwrap();
    }
    for client in clients {
        expect_event(&client, ConnEvent::Closed);
        client.delete().unwrap();
    }
    drop(polled);
    listener.shutdown().unwrap();
}
