//! The async waits (feature `tokio`) on rxe0: a wait
//! cancelled by its deadline takes nothing, so the next wait finds what
//! came meanwhile; a connection moves into a spawned task; and a whole
//! set-up (resolve, connect, accept) awaited, a cancelled one included.

use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use rpma::conn::ConnEvent;
use rpma::cq::WcStatus;
use rpma::mr::{MrRemote, Usage};
use rpma::{ConnReq, Opts, Peer, Region};
use tokio::time::timeout;

use super::owned::listening;
use super::WAIT;

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn cancelled_waits_take_nothing() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (peer, at, listener) = listening(50);
        let short = Duration::from_millis(200);

        // nothing to take yet: the wait is cancelled at its deadline
        assert!(timeout(short, listener.next_request_async(None))
            .await
            .is_err());
        let client = ConnReq::new(&peer, at, None).unwrap().connect(b"").unwrap();
        let req = timeout(WAIT, listener.next_request_async(None))
            .await
            .expect("the request, after the cancelled wait")
            .unwrap();
        let server = req.connect(b"").unwrap();
        // the client's librdmacm answers the accept while it takes its
        // event: the client's ESTABLISHED comes first
        for conn in [&client, &server] {
            let ev = timeout(WAIT, conn.next_event_async())
                .await
                .expect("in time");
            assert_eq!(ev, Ok(ConnEvent::Established));
        }

        // completions: a cancelled wait, then the completion of a write
        let usage = Usage::WRITE_DST;
        let dst = Region::reg(&peer, vec![0u8; 64], usage).unwrap();
        let remote = MrRemote::from_parts(dst.ptr() as u64, 64, dst.rkey(), usage).unwrap();
        let src = Region::reg(&peer, b"12345678".to_vec(), Usage::WRITE_SRC).unwrap();
        let cq = client.cq();
        assert!(timeout(short, cq.next_wc_async()).await.is_err());
        let (s, d) = (src.slice(..).unwrap(), remote.slice(8..16).unwrap());
        client.write(s, d, Opts::signaled().context(9)).unwrap();
        let wc = timeout(WAIT, cq.next_wc_async())
            .await
            .expect("in time")
            .unwrap();
        assert_eq!((wc.status(), wc.wr_id()), (WcStatus::Success, 9));
        let mut got = [0u8; 8];
        dst.read(8, &mut got).unwrap();
        assert_eq!(&got, b"12345678");

        // a connection moved into a task (Send + 'static), waiting there
        assert!(timeout(short, server.next_event_async()).await.is_err());
        let task = tokio::spawn(async move {
            let ev = server.next_event_async().await;
            (server, ev)
        });
        client.disconnect().unwrap();
        let (server, ev) = timeout(WAIT, task).await.expect("in time").unwrap();
        assert_eq!(ev, Ok(ConnEvent::Closed));
        // the server's disconnect answers the client's
        server.disconnect().unwrap();
        let ev = timeout(WAIT, client.next_event_async())
            .await
            .expect("in time");
        assert_eq!(ev, Ok(ConnEvent::Closed));
        server.delete().unwrap();
        client.delete().unwrap();
        listener.shutdown().unwrap();
    });
}

#[test]
#[ignore = "needs rxe0: make check runs it in the SoftRoCE guest"]
fn set_up_awaited_from_both_sides() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (_server_peer, at, listener) = listening(52);
        let peer = timeout(WAIT, Peer::remote_async(at.ip()))
            .await
            .expect("in time")
            .unwrap();
        // a request whose wait is dropped after its first poll: made on the
        // blocking pool (or, if that was quicker than the poll, made
        // already) and released, unconnected; the listener never hears of
        // it. (A zero timeout does not cancel for sure: the timer may fire
        // after the resolution has ended.)
        let mut wait = Box::pin(ConnReq::new_async(&peer, at, None));
        std::future::poll_fn(|cx| {
            let _ = wait.as_mut().poll(cx);
            Poll::Ready(())
        })
        .await;
        drop(wait);

        let server = tokio::spawn(async move {
            let req = listener.next_request_async(None).await.unwrap();
            // rdma_cm pads private data on RoCE (Conn::private_data)
            let pdata = req.private_data().unwrap_or_default();
            assert!(pdata.starts_with(b"async"), "{pdata:?}");
            let conn = req.connect(b"").unwrap();
            let ev = conn.next_event_async().await;
            (listener, conn, ev)
        });
        let req = timeout(WAIT, ConnReq::new_async(&peer, at, None))
            .await
            .expect("in time")
            .unwrap();
        let client = req.connect(b"async").unwrap();
        let ev = timeout(WAIT, client.next_event_async())
            .await
            .expect("in time");
        assert_eq!(ev, Ok(ConnEvent::Established));
        let (listener, server, ev) = timeout(WAIT, server).await.expect("in time").unwrap();
        assert_eq!(ev, Ok(ConnEvent::Established));
        // no second request: the cancelled one never connected
        assert_eq!(
            listener.try_next_request(None).map(|r| r.is_some()),
            Ok(false)
        );

        client.disconnect().unwrap();
        let ev = timeout(WAIT, server.next_event_async())
            .await
            .expect("in time");
        assert_eq!(ev, Ok(ConnEvent::Closed));
        server.disconnect().unwrap();
        server.delete().unwrap();
        client.delete().unwrap();
        listener.shutdown().unwrap();
    });
}
