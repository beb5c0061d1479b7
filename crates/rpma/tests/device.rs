//! The core crate against a real RDMA device: rxe0 in the SoftRoCE guest,
//! at the address in RPMA_TESTING_IP. `make check` runs this binary there
//! (`rust.device-tests` in tests-c, with `--ignored`); on a host without a
//! device every test is ignored.
//!
//! Each connected test runs its server and its client as two threads of
//! one process on one peer, each wait bounded by a deadline.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::thread;
use std::time::{Duration, Instant};

use rpma::conn::{Conn, ConnEvent};
use rpma::conn_cfg::ConnCfg;
use rpma::cq::{Cq, WcOpcode, WcStatus, WorkCompletion};
use rpma::ep::Ep;
use rpma::mr::{MrLocal, MrRemote, Usage};
use rpma::peer::{Device, Peer};
use rpma::srq::Srq;
use rpma::ConnReq;
use rpma::Region;
use rpma::{Completion, Error, FlushType};

#[cfg(feature = "tokio")]
#[path = "device/aio.rs"]
mod aio;
#[path = "device/errors.rs"]
mod errors;
#[path = "device/listener.rs"]
mod listener;
#[path = "device/owned.rs"]
mod owned;

const WAIT: Duration = Duration::from_secs(20);

fn ip() -> String {
    std::env::var("RPMA_TESTING_IP").expect("RPMA_TESTING_IP: run in the SoftRoCE guest")
}

/// A port for this process's listener number `k`, in the range the C
/// tests' `t_port()` uses: 20000-31999 (below the guest's ephemeral
/// range), or the lane's own part of it when the suite runs tests side by
/// side (`RPMA_TEST_PORT_BASE`, `RPMA_TEST_PORT_SPAN`); a port outside the
/// lane's part can meet a test of the other lane.
/// The socket address of `ip` and `port`.
fn sa(ip: &str, port: &str) -> std::net::SocketAddr {
    (
        ip.parse::<std::net::IpAddr>().expect("an IP address"),
        port.parse::<u16>().expect("a port"),
    )
        .into()
}

fn port(k: u32) -> String {
    let var = |name: &str, default: u32| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .filter(|&v| v > 0)
            .unwrap_or(default)
    };
    let base = var("RPMA_TEST_PORT_BASE", 20000);
    let span = var("RPMA_TEST_PORT_SPAN", 12000);
    (base + (std::process::id() + k) % span).to_string()
}

fn wait_readable(fd: BorrowedFd<'_>, what: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on this frame for the duration of the call.
        let ret = unsafe { libc::poll(&mut pfd, 1, left.as_millis() as i32) };
        match ret {
            1.. => return,
            0 => panic!("no {what} within {WAIT:?}"),
            _ => assert_eq!(
                std::io::Error::last_os_error().kind(),
                std::io::ErrorKind::Interrupted,
                "poll for {what}"
            ),
        }
    }
}

/// The reason of the `Error::Inval` in `e` (an operation's `.err()`), or a
/// panic naming what came instead.
#[track_caller]
fn invalid(e: Option<Error>) -> &'static str {
    match e {
        Some(Error::Inval(why)) => why.what(),
        other => panic!("Error::Inval expected, not {other:?}"),
    }
}

fn expect_event(conn: &Conn, want: ConnEvent) {
    wait_readable(conn.event_fd(), "connection event");
    assert_eq!(conn.next_event().expect("next_event"), want);
}

/// The next completion of `cq`, through the event channel.
fn next_wc(cq: &Cq) -> WorkCompletion {
    let mut wc = [WorkCompletion::default()];
    loop {
        match cq.poll(&mut wc) {
            Ok(1) => return wc[0],
            Ok(n) => panic!("poll of one entry gave {n}"),
            Err(Error::NoCompletion) => {}
            Err(e) => panic!("poll: {e}"),
        }
        wait_readable(cq.fd(), "completion");
        cq.wait().expect("cq wait");
    }
}

fn listen(peer: &Peer, port: &str) -> Ep {
    Ep::listen(peer, sa(&ip(), port)).expect("listen")
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn device_is_found_by_address_and_opens_a_peer() {
    let local = Device::local(&ip()).expect("local device");
    let remote = Device::remote(&ip()).expect("remote device");
    assert_eq!(local, remote, "one device serves both");
    let peer = Peer::new(&local).expect("peer");
    peer.delete().expect("peer delete");
    // the wildcard address names no device
    invalid(Device::local("0.0.0.0").err());
    assert!(Device::local("not an address").is_err());
}

/// A peer is shared: a region holds its domain after every handle of the
/// program's is deleted (that deletion reports the C library's EBUSY), and
/// the last object lets it go. The C API's endpoint does not hold it (an
/// `Ep::listen` one does): with its peer gone it refuses the requests it
/// takes, and the client sees REJECTED.
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn the_domain_goes_with_the_last_object_made_on_it() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let other = peer.clone();
    let port = port(3);
    let cstr = |s: &str| std::ffi::CString::new(s).unwrap();
    let ep = Ep::listen_cstr(&peer, &cstr(&ip()), &cstr(&port)).expect("listen");
    let mut mr = Region::reg(&peer, vec![0u8; 64], Usage::SEND).unwrap();
    // while anything else holds the domain, deleting a handle reports what
    // ibv_dealloc_pd would: EBUSY
    for (handle, holder) in [(other, "another handle"), (peer, "a region")] {
        let Err(Error::Provider(e)) = handle.delete() else {
            panic!("deleting a peer while {holder} holds it is EBUSY")
        };
        assert_eq!((e.call(), e.errno()), ("ibv_dealloc_pd", libc::EBUSY));
    }
    mr.write(0, b"still here").expect("the region works on");
    let buf = mr.dereg().expect("the last object releases the domain");
    assert_eq!(&buf[..10], b"still here");

    let client = Peer::new(&Device::remote(&ip()).unwrap()).unwrap();
    let req = ConnReq::new(&client, sa(&ip(), &port), None).unwrap();
    let conn = req.connect(&[]).unwrap();
    wait_readable(ep.fd(), "the request");
    invalid(ep.next_conn_req(None).err());
    expect_event(&conn, ConnEvent::Rejected);
    conn.delete().unwrap();
    ep.shutdown().unwrap();
    client.delete().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn owned_region_descriptor_describes_it() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let usage = Usage::READ_SRC | Usage::WRITE_DST;
    let mut mr = Region::reg(&peer, vec![0u8; 4096], usage).expect("Region::reg");
    let remote = MrRemote::from_descriptor(&mr.descriptor()).expect("descriptor");
    assert_eq!(remote.raddr(), mr.ptr() as u64);
    assert_eq!(remote.size(), 4096);
    assert_eq!(remote.rkey(), mr.rkey());
    assert_eq!(remote.usage(), usage);
    // copies in and out stay inside the region
    mr.write(4090, b"abcdef").expect("write in bounds");
    invalid(mr.write(4091, b"abcdef").err());
    let mut back = [0u8; 6];
    mr.read(4090, &mut back).unwrap();
    assert_eq!(&back, b"abcdef");
    let buf = mr.dereg().expect("dereg");
    assert_eq!(&buf[4090..], b"abcdef");
    // a region needs a usage
    invalid(Region::reg(&peer, vec![0u8; 8], Usage::empty()).err());
    peer.delete().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn scoped_region_lives_inside_its_closure() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let mut buf = vec![1u8; 64];
    let (ptr, lkey) = MrLocal::reg_scoped(&peer, &mut buf, Usage::WRITE_SRC, |mr| {
        (mr.ptr() as usize, mr.lkey())
    })
    .expect("reg_scoped");
    assert_eq!(ptr, buf.as_ptr() as usize);
    assert_ne!(lkey, 0);
    buf[0] = 2; // the buffer is the program's again
    peer.delete().unwrap();
}

/// A connection with private data both ways; the client writes into the
/// server's region, flushes it, reads it back, then sends a message with
/// immediate data that the server receives with a typed completion.
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn connection_carries_data_both_ways() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let port = port(0);
    let ep = listen(&peer, &port);
    let text = b"written, flushed, read back";
    thread::scope(|s| {
        let server = s.spawn(|| {
            let usage = Usage::WRITE_DST | Usage::READ_SRC | Usage::FLUSH_TYPE_VISIBILITY;
            let region = Region::reg(&peer, vec![0u8; 4096], usage).unwrap();
            let inbox = Region::reg(&peer, vec![0u8; 64], Usage::RECV).unwrap();
            wait_readable(ep.fd(), "connection request");
            let req = ep.next_conn_req(None).expect("next_conn_req");
            assert!(req.is_incoming());
            assert!(req
                .private_data()
                .unwrap_or_default()
                .starts_with(b"hello server"));
            req.recv_at(&inbox, 0, 64, 0x51)
                .expect("recv before accept");
            let conn = req.connect(&region.descriptor()).expect("accept");
            expect_event(&conn, ConnEvent::Established);
            let wc = next_wc(conn.cq());
            assert_eq!(wc.status(), WcStatus::Success);
            assert_eq!(wc.opcode(), WcOpcode::Recv);
            assert_eq!(wc.wr_id(), 0x51);
            assert_eq!(wc.byte_len(), 5);
            assert_eq!(wc.imm_data(), Some(0x1234_5678));
            assert_eq!(wc.qp_num(), conn.qp_num());
            expect_event(&conn, ConnEvent::Closed);
            conn.disconnect().unwrap();
            conn.delete().unwrap();
            let got = region.dereg().unwrap();
            assert_eq!(&got[100..100 + text.len()], text);
            let msg = inbox.dereg().unwrap();
            assert_eq!(&msg[..5], b"ping!");
        });

        let src = Region::reg(&peer, text.to_vec(), Usage::WRITE_SRC | Usage::SEND).unwrap();
        let mut back = Region::reg(&peer, vec![0u8; text.len()], Usage::READ_DST).unwrap();
        let mut msg = Region::reg(&peer, vec![0u8; 8], Usage::SEND).unwrap();
        msg.write(0, b"ping!").unwrap();
        let req = ConnReq::new(&peer, sa(&ip(), &port), None).expect("conn_req new");
        assert!(!req.is_incoming());
        let conn = req.connect(b"hello server").expect("connect");
        expect_event(&conn, ConnEvent::Established);
        let dst = MrRemote::from_descriptor(conn.private_data().unwrap_or_default())
            .expect("the server's descriptor");
        assert_eq!(dst.size(), 4096);

        let n = text.len();
        conn.write_at(
            Some(&dst),
            100,
            Some(&src),
            0,
            n,
            Completion::OnError,
            None,
            1,
        )
        .expect("write");
        conn.flush_at(&dst, 100, n, FlushType::Visibility, Completion::Always, 2)
            .expect("flush");
        let wc = next_wc(conn.cq());
        assert_eq!((wc.status(), wc.wr_id()), (WcStatus::Success, 2));
        assert!(matches!(wc.opcode(), WcOpcode::Flush | WcOpcode::Read));
        conn.read_at(Some(&back), 0, Some(&dst), 100, n, Completion::Always, 3)
            .expect("read");
        let wc = next_wc(conn.cq());
        assert_eq!(
            (wc.status(), wc.wr_id(), wc.opcode()),
            (WcStatus::Success, 3, WcOpcode::Read)
        );
        let mut got = vec![0u8; n];
        back.read(0, &mut got).unwrap();
        assert_eq!(&got, text);
        back.write(0, &[0; 4]).unwrap();

        conn.send_at(Some(&msg), 0, 5, Completion::Always, Some(0x1234_5678), 4)
            .expect("send with imm");
        let wc = next_wc(conn.cq());
        assert_eq!(
            (wc.status(), wc.wr_id(), wc.opcode()),
            (WcStatus::Success, 4, WcOpcode::Send)
        );

        conn.disconnect().unwrap();
        expect_event(&conn, ConnEvent::Closed);
        conn.delete().unwrap();
        server.join().expect("server thread");
    });
    ep.shutdown().unwrap();
    peer.delete().unwrap();
}

/// Bad arguments get the documented error and post nothing; a range the
/// library cannot see is wrong (past the end of a region) is posted, as by
/// the C library, and the device fails it in the completion.
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn bad_arguments_are_refused_and_bad_ranges_fail_in_the_completion() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let port = port(1);
    let ep = listen(&peer, &port);
    thread::scope(|s| {
        let server = s.spawn(|| {
            let region = Region::reg(&peer, vec![0u8; 64], Usage::READ_SRC).unwrap();
            wait_readable(ep.fd(), "connection request");
            let conn = ep
                .next_conn_req(None)
                .unwrap()
                .connect(&region.descriptor())
                .unwrap();
            expect_event(&conn, ConnEvent::Established);
            expect_event(&conn, ConnEvent::Closed);
            conn.disconnect().unwrap();
            conn.delete().unwrap();
            region.dereg().unwrap();
        });
        let local = Region::reg(&peer, vec![0u8; 64], Usage::READ_DST).unwrap();
        let conn = ConnReq::new(&peer, sa(&ip(), &port), None)
            .unwrap()
            .connect(&[])
            .unwrap();
        expect_event(&conn, ConnEvent::Established);
        let dst = MrRemote::from_descriptor(conn.private_data().unwrap_or_default()).unwrap();
        // no flush usage on the server's region: a flush is refused
        assert_eq!(
            conn.flush_at(&dst, 0, 8, FlushType::Visibility, Completion::Always, 8),
            Err(Error::NoSupp)
        );
        // a read of 8 bytes needs a local region to land in
        invalid(
            conn.read_at(None, 0, Some(&dst), 0, 8, Completion::Always, 8)
                .err(),
        );
        // nothing was posted, so nothing completes
        let mut wc = [WorkCompletion::default()];
        assert_eq!(conn.cq().poll(&mut wc), Err(Error::NoCompletion));
        // past the local region's end: posted, failed by the device
        conn.read_at(Some(&local), 60, Some(&dst), 0, 8, Completion::Always, 9)
            .expect("posted");
        let wc = next_wc(conn.cq());
        assert_eq!(wc.wr_id(), 9);
        assert!(
            !wc.status().is_success(),
            "a read past the region completed with {:?}",
            wc.status()
        );
        conn.disconnect().unwrap();
        expect_event(&conn, ConnEvent::Closed);
        conn.delete().unwrap();
        server.join().expect("server thread");
    });
    ep.shutdown().unwrap();
    peer.delete().unwrap();
}

/// Two clients' messages arrive through one shared receive queue, told
/// apart by QP number; the configuration and the connections hold the SRQ.
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn shared_receive_queue_serves_two_connections() {
    let peer = Peer::new(&Device::local(&ip()).unwrap()).unwrap();
    let port = port(2);
    let ep = listen(&peer, &port);
    let srq = Srq::new(&peer, None).expect("srq");
    let mut cfg = ConnCfg::new();
    cfg.set_srq(&srq);
    let inbox = Region::reg(&peer, vec![0u8; 128], Usage::RECV).unwrap();
    for slot in 0..2u64 {
        srq.recv_at(Some(&inbox), slot as usize * 64, 64, slot)
            .expect("srq recv");
    }
    thread::scope(|s| {
        let clients = s.spawn(|| {
            let mut conns = Vec::new();
            for i in 0..2u8 {
                let mut msg = Region::reg(&peer, vec![0u8; 8], Usage::SEND).unwrap();
                msg.write(0, &[b'a' + i; 8]).unwrap();
                let conn = ConnReq::new(&peer, sa(&ip(), &port), None)
                    .unwrap()
                    .connect(&[])
                    .unwrap();
                expect_event(&conn, ConnEvent::Established);
                conn.send_at(
                    Some(&msg),
                    0,
                    8,
                    Completion::Always,
                    None,
                    100 + u64::from(i),
                )
                .unwrap();
                let wc = next_wc(conn.cq());
                assert_eq!(
                    (wc.status(), wc.wr_id()),
                    (WcStatus::Success, 100 + u64::from(i))
                );
                conns.push((conn, msg));
            }
            for (conn, msg) in conns {
                conn.disconnect().unwrap();
                expect_event(&conn, ConnEvent::Closed);
                conn.delete().unwrap();
                msg.dereg().unwrap();
            }
        });
        let mut conns = Vec::new();
        for _ in 0..2 {
            wait_readable(ep.fd(), "connection request");
            let conn = ep.next_conn_req(Some(&cfg)).unwrap().connect(&[]).unwrap();
            expect_event(&conn, ConnEvent::Established);
            conns.push(conn);
        }
        // while connections receive through it, deleting a handle reports
        // what the device would refuse first, the receive CQ (EBUSY), and
        // the queue stays for them
        let Err(Error::Provider(e)) = srq.clone().delete() else {
            panic!("deleting an SRQ that connections use is EBUSY")
        };
        assert_eq!((e.call(), e.errno()), ("ibv_destroy_cq", libc::EBUSY));
        let rcq = srq.rcq().expect("the SRQ's own receive CQ");
        let mut seen = Vec::new();
        for _ in 0..2 {
            let wc = next_wc(rcq);
            assert_eq!(
                (wc.status(), wc.opcode(), wc.byte_len()),
                (WcStatus::Success, WcOpcode::Recv, 8)
            );
            let from = conns.iter().position(|c| c.qp_num() == wc.qp_num());
            seen.push((from.expect("a QP of ours"), wc.wr_id()));
        }
        seen.sort();
        assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1]);
        for conn in conns {
            expect_event(&conn, ConnEvent::Closed);
            conn.disconnect().unwrap();
            conn.delete().unwrap();
        }
        clients.join().expect("client thread");
    });
    let got = inbox.dereg().unwrap();
    let mut firsts = [got[0], got[64]];
    firsts.sort();
    assert_eq!(firsts, [b'a', b'b']);
    // the configuration holds the queue too
    drop(cfg);
    srq.delete().unwrap();
    ep.shutdown().unwrap();
    peer.delete().unwrap();
}
