//! The `# Errors` sections of the objects (and of what they hand
//! out: the completion queues, the regions' `MrLocal`) checked on rxe0:
//! each documented variant that a healthy device can be made to give, by
//! bad arguments, sizes, usages, a full queue or a wrong channel, is
//! reached and asserted exactly; provider errors by call and errno.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

use rpma::conn::ConnEvent;
use rpma::cq::WorkCompletion;
use rpma::error::ProviderError;
use rpma::mr::{Advice, AdviseFlags, MrLocal, MrRemote, Usage};
use rpma::srq_cfg::SrqCfg;
use rpma::{Conn, ConnCfg, ConnReq, Ep, Opts, Peer, Region, Srq};
use rpma::{Error, FlushType};

use super::owned::listening;
use super::{invalid, WAIT};

/// The `Error::Inval` in `e` (an operation's `.err()`) names the argument
/// `arg`: its reason is `arg`, a colon and why.
#[track_caller]
fn invalid_arg(e: Option<Error>, arg: &str) {
    let what = invalid(e);
    assert!(
        what.strip_prefix(arg)
            .is_some_and(|why| why.starts_with(':')),
        "Error::Inval for `{arg}` expected, not for: {what}"
    );
}

/// The provider error in `r`, or a panic naming what came instead.
#[track_caller]
fn provider<T: std::fmt::Debug>(r: rpma::Result<T>) -> ProviderError {
    match r {
        Err(Error::Provider(e)) => e,
        other => panic!("a provider error, not {other:?}"),
    }
}

/// Asserts that `r` is the failure of `call` with `errno`.
#[track_caller]
fn assert_provider<T: std::fmt::Debug>(r: rpma::Result<T>, call: &str, errno: i32) {
    let e = provider(r);
    assert_eq!((e.call(), e.errno()), (call, errno), "{e}");
}

fn expect_event(conn: &Conn, want: ConnEvent, who: &str) {
    let got = conn.next_event_timeout(WAIT).expect("next_event_timeout");
    assert_eq!(got, Some(want), "{who}: within {WAIT:?}");
}

/// An address of the guest's subnet that is no host's: ARP finds nothing
/// there.
fn nobodys_address() -> Ipv4Addr {
    let ip: Ipv4Addr = super::ip().parse().unwrap();
    let [a, b, c, d] = ip.octets();
    Ipv4Addr::new(a, b, c, if d == 200 { 201 } else { 200 })
}

/// Makes `fd` non-blocking, as a program that polls it does.
fn set_nonblocking(fd: BorrowedFd<'_>) {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on an fd its owner keeps open; no pointers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    assert!(flags >= 0);
    // SAFETY: as above.
    assert_eq!(
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) },
        0
    );
}

/// A client connected to `listener`'s next request: the client built
/// with `client_cfg`, the server's side with `server_cfg`, both
/// established.
fn connected(
    peer: &Peer,
    at: SocketAddr,
    listener: &Ep,
    client_cfg: Option<&ConnCfg>,
    server_cfg: Option<&ConnCfg>,
) -> (Conn, Conn) {
    let client = ConnReq::new(peer, at, client_cfg)
        .expect("request")
        .connect(b"")
        .expect("connect");
    let server = listener
        .next_request_timeout(server_cfg, WAIT)
        .expect("next_request")
        .expect("a request within the wait")
        .connect(b"")
        .expect("accept");
    // the client's librdmacm answers the accept while it takes its event:
    // the client's ESTABLISHED comes first
    expect_event(&client, ConnEvent::Established, "client");
    expect_event(&server, ConnEvent::Established, "server");
    (client, server)
}

/// Closes both ends in order: the server's disconnect answers the
/// client's, then the client closes.
fn close(client: Conn, server: Conn) {
    client.disconnect().unwrap();
    expect_event(&server, ConnEvent::Closed, "server");
    server.disconnect().unwrap();
    expect_event(&client, ConnEvent::Closed, "client");
    client.delete().unwrap();
    server.delete().unwrap();
}

/// Posts with `post` until it fails, at most `limit` times; the error.
fn fill(limit: usize, mut post: impl FnMut(usize) -> rpma::Result<()>) -> (usize, Error) {
    for i in 0..limit {
        if let Err(e) = post(i) {
            return (i, e);
        }
    }
    panic!("{limit} posts and the queue is not full");
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn peer_remote_errors_are_the_documented_ones() {
    // an address of the subnet where nobody answers ARP: no route to it
    assert_provider(
        Peer::remote(IpAddr::V4(nobodys_address())),
        "rdma_resolve_addr",
        libc::ETIMEDOUT,
    );
    // the wildcard and the loopback address name a device: rdma_cm binds
    // both to one (the `Error::Inval` of an address that names none is
    // not reached this way)
    for ip in [Ipv4Addr::UNSPECIFIED, Ipv4Addr::LOCALHOST] {
        let got = Peer::remote(IpAddr::V4(ip));
        assert!(got.is_ok(), "{ip}: {:?}", got.err());
    }
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn region_errors_are_the_documented_ones() {
    let ip: IpAddr = super::ip().parse().unwrap();
    let peer = Peer::local(ip).unwrap();
    // Region::reg: an empty buffer, an empty usage
    invalid(Region::reg(&peer, Vec::new(), Usage::SEND).err());
    invalid_arg(
        Region::reg(&peer, vec![0u8; 8], Usage::empty()).err(),
        "usage",
    );
    // the device refuses memory it cannot pin: Region::reg's path
    // (MrLocal::reg_raw) on a mapping with no access
    let len = 4096;
    // SAFETY: a new anonymous mapping, unmapped below.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(map, libc::MAP_FAILED);
    // SAFETY: the mapping stays until after the registration failed (or
    // was deregistered).
    let got = unsafe { MrLocal::reg_raw(&peer, map, len, Usage::WRITE_DST) };
    assert_provider(got.map(|mr| mr.dereg()), "ibv_reg_mr", libc::EFAULT);
    // SAFETY: unmapped once; nothing is registered on it.
    assert_eq!(unsafe { libc::munmap(map, len) }, 0);

    let mut region = Region::reg(&peer, vec![0u8; 64], Usage::READ_SRC).unwrap();
    // Region::slice: past the end, starting after its end
    invalid(region.slice(..65).err());
    invalid(region.slice(65..).err());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = 9..8;
    invalid_arg(region.slice(backwards).err(), "range");
    // Region::write and MrLocal::read: outside the region
    invalid_arg(region.write(63, b"ab").err(), "offset");
    invalid(region.write(usize::MAX, b"a").err());
    invalid(region.read(60, &mut [0u8; 5]).err());
    // MrLocal::advise: a valid advice over the region is carried out or,
    // on a device without advice (Debian 12's and 13's rxe), refused as
    // unsupported; never Inval or Provider
    // (a device with On-Demand Paging gets no advice: the rxe of Linux 7.2
    // can oops on advice for a region without it, tests-c/flakes/
    // 2026-12-05-sid-advise-oops.log)
    if !peer.is_odp_capable() {
        let advised = region.advise(0, 64, Advice::Prefetch, AdviseFlags::empty());
        assert!(
            matches!(advised, Ok(()) | Err(Error::NoSupp)),
            "{advised:?}"
        );
    }
    assert_eq!(region.dereg().unwrap().len(), 64);
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn remote_region_and_config_errors_are_the_documented_ones() {
    // MrRemote::from_descriptor: too short, no usage
    let good = MrRemote::from_parts(0x1000, 64, 7, Usage::READ_SRC).unwrap();
    let desc = good.to_descriptor();
    invalid_arg(MrRemote::from_descriptor(&desc[..20]).err(), "desc");
    let mut no_usage = desc;
    no_usage[20] = 0;
    invalid(MrRemote::from_descriptor(&no_usage).err());
    // MrRemote::from_parts: no usage
    invalid(MrRemote::from_parts(0x1000, 64, 7, Usage::empty()).err());
    // MrRemote::slice: past the end, after its end, longer than 4 GiB - 1
    invalid(good.slice(..65).err());
    invalid(good.slice(65..).err());
    let huge = MrRemote::from_parts(0, 1 << 33, 7, Usage::READ_SRC).unwrap();
    invalid(huge.slice(..1 << 32).err());
    // ConnCfg::set_timeout (through Deref): negative
    let cfg = ConnCfg::new();
    invalid_arg(cfg.set_timeout(-1).err(), "timeout_ms");
    assert_eq!(cfg.set_timeout(0), Ok(()));
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn srq_errors_are_the_documented_ones() {
    let ip: IpAddr = super::ip().parse().unwrap();
    let peer = Peer::local(ip).unwrap();
    // Srq::new: the device refuses the queue, then its CQ
    let cfg = SrqCfg::new();
    cfg.set_rq_size(u32::MAX);
    assert_provider(Srq::new(&peer, Some(&cfg)), "ibv_create_srq", libc::EINVAL);
    cfg.set_rq_size(4);
    cfg.set_rcq_size(u32::MAX);
    assert_provider(Srq::new(&peer, Some(&cfg)), "ibv_create_cq", libc::EINVAL);
    // Srq::recv: the queue is full
    cfg.set_rcq_size(0);
    let srq = Srq::new(&peer, Some(&cfg)).unwrap();
    let inbox = Region::reg(&peer, vec![0u8; 64], Usage::RECV).unwrap();
    let (n, e) = fill(10_000, |i| srq.recv(inbox.slice(..).unwrap(), i as u64));
    assert!(n >= 4, "{n} receives fit");
    assert_provider(Err::<(), _>(e), "ibv_post_srq_recv", libc::ENOMEM);
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn listener_and_request_errors_are_the_documented_ones() {
    let (peer, at, listener) = listening(60);
    // Listener::bind: an address that is not the guest's, a port in use
    let elsewhere = SocketAddr::new(IpAddr::V4(nobodys_address()), at.port());
    assert_provider(
        Ep::listen(&peer, elsewhere),
        "rdma_bind_addr",
        libc::EADDRNOTAVAIL,
    );
    assert_provider(Ep::listen(&peer, at), "rdma_bind_addr", libc::EADDRINUSE);

    // Request::new: no route to the address (each of the library's three
    // tries bounded by the configured timeout)
    let quick = ConnCfg::new();
    quick.set_timeout(100).unwrap();
    let nowhere = SocketAddr::new(IpAddr::V4(nobodys_address()), at.port());
    assert_provider(
        ConnReq::new(&peer, nowhere, Some(&quick)),
        "rdma_resolve_addr",
        libc::ETIMEDOUT,
    );
    // Request::new: the queues cannot be built
    let huge_cq = ConnCfg::new();
    huge_cq.set_cq_size(u32::MAX);
    assert_provider(
        ConnReq::new(&peer, at, Some(&huge_cq)),
        "ibv_create_cq",
        libc::EINVAL,
    );
    let huge_sq = ConnCfg::new();
    huge_sq.set_sq_size(u32::MAX);
    assert_provider(
        ConnReq::new(&peer, at, Some(&huge_sq)),
        "rdma_create_qp_ex",
        libc::EINVAL,
    );
    // Request::new: a shared completion channel with an SRQ that has a
    // receive CQ of its own
    let srq = Srq::new(&peer, None).unwrap();
    assert!(srq.rcq().is_some());
    let mut shared_srq = ConnCfg::new();
    shared_srq.set_srq(&srq);
    shared_srq.set_compl_channel(true);
    invalid(ConnReq::new(&peer, at, Some(&shared_srq)).err());
    // none of these reached the listener
    assert!(listener.try_next_request(None).unwrap().is_none());

    // Listener::next_request: the queues cannot be built, or the
    // configuration is refused; either way the request is rejected
    for (cfg, invalid) in [(&huge_cq, None), (&shared_srq, Some("cfg"))] {
        let client = ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap();
        let got = listener.next_request_timeout(Some(cfg), WAIT);
        match invalid {
            Some(arg) => invalid_arg(got.err(), arg),
            None => assert_provider(got, "ibv_create_cq", libc::EINVAL),
        }
        expect_event(&client, ConnEvent::Rejected, "client");
        client.delete().unwrap();
    }

    // Request::connect: more private data than a connect carries on RoCE
    // (56 bytes): rdma_connect refuses it, the request is released
    let req = ConnReq::new(&peer, at, None).unwrap();
    assert_provider(req.connect(&[7u8; 57]), "rdma_connect", libc::EINVAL);
    assert!(listener
        .next_request_timeout(None, Duration::from_millis(200))
        .unwrap()
        .is_none());
    // ... or than an accept carries (196 bytes): rdma_accept refuses it,
    // the request is rejected
    let client = ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap();
    let req = listener.next_request_timeout(None, WAIT).unwrap().unwrap();
    assert_provider(req.connect(&[7u8; 197]), "rdma_accept", libc::EINVAL);
    expect_event(&client, ConnEvent::Rejected, "client");
    client.delete().unwrap();

    // Request::recv: the receive queue is full, or the request receives
    // through an SRQ
    let small_rq = ConnCfg::new();
    small_rq.set_rq_size(4);
    let req = ConnReq::new(&peer, at, Some(&small_rq)).unwrap();
    let inbox = Region::reg(&peer, vec![0u8; 64], Usage::RECV).unwrap();
    let (n, e) = fill(10_000, |i| req.recv(inbox.slice(..).unwrap(), i as u64));
    assert!(n >= 4, "{n} receives fit");
    assert_provider(Err::<(), _>(e), "ibv_post_recv", libc::ENOMEM);
    drop(req);
    let mut with_srq = ConnCfg::new();
    with_srq.set_srq(&srq);
    let req = ConnReq::new(&peer, at, Some(&with_srq)).unwrap();
    assert_provider(
        req.recv(inbox.slice(..).unwrap(), 1),
        "ibv_post_recv",
        libc::EINVAL,
    );
    drop(req);
    drop((shared_srq, with_srq, srq));
    listener.shutdown().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn connection_errors_are_the_documented_ones() {
    let (peer, at, listener) = listening(61);
    let client_cfg = ConnCfg::new();
    client_cfg.set_sq_size(4);
    client_cfg.set_rq_size(4);
    client_cfg.set_cq_size(256);
    let (client, server) = connected(&peer, at, &listener, Some(&client_cfg), None);
    let src = Region::reg(&peer, vec![1u8; 64], Usage::WRITE_SRC | Usage::SEND).unwrap();
    let dst = Region::reg(&peer, vec![0u8; 64], Usage::READ_DST | Usage::RECV).unwrap();
    let plain = MrRemote::from_parts(0x1000, 64, 7, Usage::READ_SRC | Usage::WRITE_DST).unwrap();
    let flushable = MrRemote::from_parts(
        0x1000,
        64,
        7,
        Usage::WRITE_DST | Usage::FLUSH_TYPE_VISIBILITY | Usage::FLUSH_TYPE_PERSISTENT,
    )
    .unwrap();
    let imm = Opts::default().imm(1);

    // read and write: lengths differ; a read with immediate data
    let (s, d) = (src.slice(..8).unwrap(), plain.slice(..9).unwrap());
    invalid(client.write(s, d, Opts::default()).err());
    let (s, d) = (plain.slice(..9).unwrap(), dst.slice(..8).unwrap());
    invalid(client.read(s, d, Opts::default()).err());
    let (s, d) = (plain.slice(..8).unwrap(), dst.slice(..8).unwrap());
    invalid_arg(client.read(s, d, imm).err(), "opts");
    // atomic_write: not 8 bytes, not at an aligned offset, immediate data
    let value = [0u8; 8];
    let d = plain.slice(..16).unwrap();
    invalid_arg(client.atomic_write(&value, d, Opts::default()).err(), "dst");
    let d = plain.slice(4..12).unwrap();
    invalid_arg(
        client.atomic_write(&value, d, Opts::default()).err(),
        "dst_offset",
    );
    let d = plain.slice(8..16).unwrap();
    invalid(client.atomic_write(&value, d, imm).err());
    // flush: the region does not allow the kind; persistent without the
    // peer's direct write to pmem; immediate data
    let d = plain.slice(..8).unwrap();
    assert_eq!(
        client.flush(d, FlushType::Visibility, Opts::default()),
        Err(Error::NoSupp)
    );
    let d = flushable.slice(..8).unwrap();
    assert_eq!(
        client.flush(d, FlushType::Persistent, Opts::default()),
        Err(Error::NoSupp)
    );
    invalid(client.flush(d, FlushType::Visibility, imm).err());
    // wait: the connection has no shared completion channel
    assert_eq!(client.wait().err(), Some(Error::NotSharedChnl));
    // Cq::poll: no room for a completion, then no completion
    assert_eq!(client.cq().poll(&mut []), Err(Error::NoCompletion));
    let mut wc = [WorkCompletion::default()];
    assert_eq!(client.cq().poll(&mut wc), Err(Error::NoCompletion));
    // Cq::wait: nothing came on a non-blocking channel
    set_nonblocking(client.cq().fd());
    assert_eq!(client.cq().wait(), Err(Error::NoCompletion));
    assert_eq!(client.cq().try_wait(), Ok(false));
    // nothing was posted: nothing completes
    assert_eq!(client.cq().poll(&mut wc), Err(Error::NoCompletion));

    // recv: the receive queue is full
    let (n, e) = fill(10_000, |i| client.recv(dst.slice(..8).unwrap(), i as u64));
    assert!(n >= 4, "{n} receives fit");
    assert_provider(Err::<(), _>(e), "ibv_post_recv", libc::ENOMEM);

    // send: the send queue is full. The server posts no receive, so each
    // send waits at the head of the queue for one (receiver not ready,
    // retried forever)
    let (n, e) = fill(10_000, |i| {
        client.send(
            src.slice(..8).unwrap(),
            Opts::unsignaled().context(i as u64),
        )
    });
    assert!(n >= 4, "{n} sends fit");
    assert!(e.is_queue_full(), "{e:?}");
    assert_provider(Err::<(), _>(e), "ibv_post_send", libc::ENOMEM);
    // ... and so is every operation that posts to it
    let (s, d) = (plain.slice(..8).unwrap(), dst.slice(..8).unwrap());
    assert_provider(
        client.read(s, d, Opts::default()),
        "ibv_post_send",
        libc::ENOMEM,
    );
    let (s, d) = (src.slice(..8).unwrap(), plain.slice(..8).unwrap());
    assert_provider(
        client.write(s, d, Opts::default()),
        "ibv_post_send",
        libc::ENOMEM,
    );
    // Natively (a kernel and a provider that have the operation: Debian
    // 13's) an atomic write and a flush are posted by ibv_wr_complete,
    // which librxe fails with ENOSPC on a full queue, not ENOMEM; either
    // way `Error::is_queue_full` says the queue is full.
    let d = plain.slice(..8).unwrap();
    let atomic = client.atomic_write(&value, d, Opts::default());
    let d = flushable.slice(..8).unwrap();
    let flush = client.flush(d, FlushType::Visibility, Opts::default());
    for got in [atomic, flush] {
        let e = provider(got);
        match e.call() {
            "ibv_post_send" => {
                assert_eq!(e.errno(), libc::ENOMEM, "{e}");
                assert!(Error::Provider(e).is_queue_full());
            }
            "ibv_wr_complete" => {
                assert_eq!(e.errno(), libc::ENOSPC, "{e}");
                assert!(Error::Provider(e).is_queue_full());
            }
            _ => panic!("a failed post, not {e}"),
        }
    }

    // what a closed connection does with an operation
    close(client, server);
    listener.shutdown().unwrap();
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn shared_channel_and_srq_errors_are_the_documented_ones() {
    let (peer, at, listener) = listening(62);
    let shared = ConnCfg::new();
    shared.set_compl_channel(true);
    let srq = Srq::new(&peer, None).unwrap();
    let mut with_srq = ConnCfg::new();
    with_srq.set_srq(&srq);
    let (client, server) = connected(&peer, at, &listener, Some(&shared), Some(&with_srq));
    // the CQ's own waits: it reports to the connection's shared channel
    let cq = client.cq();
    assert!(cq.channel_is_shared());
    assert_eq!(cq.wait(), Err(Error::SharedChannel));
    assert_eq!(cq.try_wait(), Err(Error::SharedChannel));
    assert_eq!(
        cq.wait_timeout(Duration::from_millis(10)),
        Err(Error::SharedChannel)
    );
    // Conn::wait: nothing came on the (non-blocking) shared channel
    set_nonblocking(cq.fd());
    assert_eq!(client.wait().err(), Some(Error::NoCompletion));
    // the server receives through the SRQ: a receive of its own is refused
    let inbox = Region::reg(&peer, vec![0u8; 8], Usage::RECV).unwrap();
    assert_provider(
        server.recv(inbox.slice(..).unwrap(), 1),
        "ibv_post_recv",
        libc::EINVAL,
    );
    close(client, server);
    drop(with_srq);
    listener.shutdown().unwrap();
}

/// A second wait on a handle's fd, while a first one on the same runtime
/// is pending, cannot register the fd with the reactor again.
#[cfg(feature = "tokio")]
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn async_waits_errors_are_the_documented_ones() {
    use std::future::Future;
    use std::task::Poll;

    /// Polls `f` once: pending, so it holds its registration.
    async fn pending_once<F: Future>(f: std::pin::Pin<&mut F>) {
        let mut f = f;
        let first = std::future::poll_fn(|cx| Poll::Ready(f.as_mut().poll(cx).is_pending())).await;
        assert!(first, "the first wait is pending");
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (peer, at, listener) = listening(63);
        let mut first = Box::pin(listener.next_request_async(None));
        pending_once(first.as_mut()).await;
        let second = listener.next_request_async(None).await;
        let e = provider(second.map(|_| ()));
        assert_eq!((e.call(), e.errno()), ("epoll_ctl", libc::EEXIST), "{e}");

        let shared = ConnCfg::new();
        shared.set_compl_channel(true);
        let client = ConnReq::new(&peer, at, Some(&shared))
            .unwrap()
            .connect(b"")
            .unwrap();
        let req = tokio::time::timeout(WAIT, first)
            .await
            .expect("the request, to the first wait")
            .unwrap();
        let server = req.connect(b"").unwrap();
        for conn in [&client, &server] {
            let ev = tokio::time::timeout(WAIT, conn.next_event_async()).await;
            assert_eq!(ev.expect("in time"), Ok(ConnEvent::Established));
        }
        // Conn::next_event_async: a second wait
        let mut first = Box::pin(server.next_event_async());
        pending_once(first.as_mut()).await;
        let e = provider(server.next_event_async().await);
        assert_eq!((e.call(), e.errno()), ("epoll_ctl", libc::EEXIST), "{e}");
        // Cq::next_wc_async: the CQ reports to a shared channel; a second
        // wait on the server's own
        assert_eq!(
            client.cq().next_wc_async().await.err(),
            Some(Error::SharedChannel)
        );
        {
            let mut wc_first = Box::pin(server.cq().next_wc_async());
            pending_once(wc_first.as_mut()).await;
            let e = provider(server.cq().next_wc_async().await);
            assert_eq!((e.call(), e.errno()), ("epoll_ctl", libc::EEXIST), "{e}");
        }

        client.disconnect().unwrap();
        let ev = tokio::time::timeout(WAIT, first).await.expect("in time");
        assert_eq!(ev, Ok(ConnEvent::Closed));
        server.disconnect().unwrap();
        let ev = tokio::time::timeout(WAIT, client.next_event_async()).await;
        assert_eq!(ev.expect("in time"), Ok(ConnEvent::Closed));
        client.delete().unwrap();
        server.delete().unwrap();
        listener.shutdown().unwrap();
    });
}

/// The `# Errors` the Rust forms do not reach: the C forms' missing
/// regions and non-blocking channels, a domain still in use.
#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn core_errors_are_the_documented_ones() {
    use rpma::conn_cfg::ConnCfg as CoreCfg;
    use rpma::peer::{ContextType, Device, Peer as CorePeer};
    use rpma::peer_cfg::PeerCfg;
    use rpma::srq::Srq as CoreSrq;
    use rpma::Completion;

    let ip = super::ip();
    let nobody = nobodys_address().to_string();
    // Device::local / remote / lookup / find
    invalid_arg(Device::local("10.0\0.2.15").err(), "addr");
    invalid(Device::remote("10.0\0.2.15").err());
    invalid(Device::local("0.0.0.0").err());
    invalid(Device::lookup("0.0.0.0", ContextType::Local).err());
    assert_eq!(Device::find(c"0.0.0.0", ContextType::Local), Ok(None));
    // rdma_getaddrinfo reports getaddrinfo's own code, not an errno: the
    // errno is whatever it was (0 here), as in the C library
    let e = provider(Device::local("not an address"));
    assert_eq!(e.call(), "rdma_getaddrinfo");
    let e = provider(Device::remote("not an address"));
    assert_eq!(e.call(), "rdma_getaddrinfo");
    assert_provider(
        Device::local(&nobody),
        "rdma_bind_addr",
        libc::EADDRNOTAVAIL,
    );
    assert_provider(
        Device::remote(&nobody),
        "rdma_resolve_addr",
        libc::ETIMEDOUT,
    );
    // PeerCfg::from_descriptor
    invalid(PeerCfg::from_descriptor(&[]).err());

    let device = Device::local(&ip).unwrap();
    let peer = CorePeer::new(&device).unwrap();
    // Region::reg (an empty boxed slice) / MrLocal::reg_scoped / reg_raw
    let empty: Box<[u8]> = Box::new([]);
    invalid(Region::reg(&peer, empty, Usage::SEND).err());
    let mut buf = [0u8; 8];
    let ran = MrLocal::reg_scoped(&peer, &mut buf, Usage::empty(), |_| {
        panic!("f runs only after a registration")
    });
    invalid(ran.err());
    // SAFETY: nothing is registered: each call is refused first.
    unsafe {
        let p = buf.as_mut_ptr().cast();
        invalid(MrLocal::reg_raw(&peer, std::ptr::null_mut(), 8, Usage::SEND).err());
        invalid(MrLocal::reg_raw(&peer, p, 0, Usage::SEND).err());
        invalid(MrLocal::reg_raw(&peer, p, 8, Usage::empty()).err());
    }
    let mut owned = Region::reg(&peer, vec![0u8; 8], Usage::SEND).unwrap();
    invalid(owned.write(7, b"ab").err());
    owned.dereg().unwrap();

    // Ep::listen: an address not the guest's; Ep::listen_cstr (the C
    // API's): not an address
    let port = super::port(64);
    let at = super::sa(&ip, &port);
    assert_provider(
        Ep::listen(&peer, SocketAddr::new(nobodys_address().into(), at.port())),
        "rdma_bind_addr",
        libc::EADDRNOTAVAIL,
    );
    let cport = std::ffi::CString::new(port.clone()).unwrap();
    let e = provider(Ep::listen_cstr(&peer, c"not an address", &cport));
    assert_eq!(e.call(), "rdma_getaddrinfo");
    let ep = Ep::listen_cstr(&peer, &std::ffi::CString::new(ip.clone()).unwrap(), &cport).unwrap();
    // Ep::next_conn_req (the C API's) on a non-blocking channel with
    // nothing in it
    set_nonblocking(ep.fd());
    assert_provider(ep.next_conn_req(None), "rdma_get_cm_event", libc::EAGAIN);
    assert!(ep.try_next_request(None).unwrap().is_none());

    // ConnReq::new: a shared channel with an SRQ's own CQ
    let srq = CoreSrq::new(&peer, None).unwrap();
    {
        let mut cfg = CoreCfg::new();
        cfg.set_srq(&srq);
        cfg.set_compl_channel(true);
        invalid(ConnReq::new(&peer, at, Some(&cfg)).err());
    }
    // ConnReq::connect: private data longer than 255 bytes
    let req = ConnReq::new(&peer, at, None).unwrap();
    invalid_arg(req.connect(&[0u8; 256]).err(), "pdata");

    // a connection, for the data path's argument checks
    let req = ConnReq::new(&peer, at, None).unwrap();
    let client = req.connect(&[]).unwrap();
    super::wait_readable(ep.fd(), "connection request");
    let server = ep.next_conn_req(None).unwrap().connect(&[]).unwrap();
    super::expect_event(&client, ConnEvent::Established);
    super::expect_event(&server, ConnEvent::Established);
    // Conn::next_event_raw (the C API's) on a non-blocking channel with
    // nothing in it
    set_nonblocking(client.event_fd());
    assert_provider(client.next_event_raw(), "rdma_get_cm_event", libc::EAGAIN);
    assert_eq!(client.try_next_event(), Ok(None));

    let local = Region::reg(&peer, vec![0u8; 8], Usage::READ_DST).unwrap();
    let remote = MrRemote::from_parts(0x1000, 8, 7, Usage::READ_SRC).unwrap();
    let (c, x) = (Completion::Always, 1);
    // read / write: one region only, or neither with an offset or length
    invalid_arg(
        client.read_at(Some(&local), 0, None, 0, 8, c, x).err(),
        "src, dst",
    );
    invalid(client.read_at(None, 0, Some(&remote), 0, 8, c, x).err());
    invalid(client.read_at(None, 0, None, 8, 0, c, x).err());
    invalid(client.read_at(None, 0, None, 0, 8, c, x).err());
    invalid(
        client
            .write_at(Some(&remote), 0, None, 0, 8, c, None, x)
            .err(),
    );
    invalid(client.write_at(None, 8, None, 0, 0, c, None, x).err());
    // atomic_write: an unaligned offset
    invalid(client.atomic_write_at(&remote, 4, &[0; 8], c, x).err());
    // send / recv: no region with an offset or a length
    invalid(client.send_at(None, 1, 0, c, None, x).err());
    invalid(client.send_at(None, 0, 1, c, None, x).err());
    invalid(client.recv_at(None, 1, 0, x).err());
    invalid(client.recv_at(None, 0, 1, x).err());
    // Srq::recv_at: the same
    invalid(srq.recv_at(None, 0, 1, x).err());
    // Conn::wait: no shared channel
    assert_eq!(client.wait().err(), Some(Error::NotSharedChnl));
    // nothing was posted
    let mut wc = [WorkCompletion::default()];
    assert_eq!(client.cq().poll(&mut wc), Err(Error::NoCompletion));

    // a closed connection refuses no post: the operations complete,
    // flushed, and a second disconnect is no error either
    client.disconnect().unwrap();
    super::expect_event(&server, ConnEvent::Closed);
    server.disconnect().unwrap();
    super::expect_event(&client, ConnEvent::Closed);
    let src = Region::reg(&peer, vec![0u8; 8], Usage::SEND).unwrap();
    client
        .send_at(Some(&src), 0, 8, c, None, 9)
        .expect("send when closed");
    client
        .read_at(Some(&local), 0, Some(&remote), 0, 8, c, 10)
        .expect("read when closed");
    client
        .write_at(Some(&remote), 0, Some(&src), 0, 8, c, None, 11)
        .expect("write when closed");
    for id in 9..=11 {
        let wc = super::next_wc(client.cq());
        assert_eq!((wc.status(), wc.wr_id()), (rpma::WcStatus::WrFlush, id));
    }
    assert_eq!(client.disconnect(), Ok(()));
    client.delete().unwrap();
    server.delete().unwrap();
    src.dereg().unwrap();
    local.dereg().unwrap();
    srq.delete().unwrap();
    ep.shutdown().unwrap();

    // Peer::delete: a region still uses the domain
    let mut page = vec![0u8; 64];
    // SAFETY: `page` outlives the registration, deregistered below.
    let mr = unsafe { MrLocal::reg_raw(&peer, page.as_mut_ptr().cast(), 64, Usage::SEND) }.unwrap();
    assert_provider(peer.delete(), "ibv_dealloc_pd", libc::EBUSY);
    mr.dereg().unwrap();
}
