//! The private data of an incoming connection request: any length 0..=255
//! (the event's length is a u8) and any content, taken by the library's
//! own code from the rdma_cm event (Ep::next_conn_req, under
//! rpma_ep_next_conn_req), copied before the event is acked, and handed out
//! by ConnReq::private_data and, once accepted, Conn::private_data.
//!
//! The provider is the stand-in of fake_provider.rs: the event's data lives
//! in a buffer of exactly its length that the ack frees, so AddressSanitizer
//! reports an over-read and any use after the ack.
//!
//! Input: byte 0 is a set of flags, the rest (at most 255 bytes) the data.
//!   bit 0: the event is not a connect request; its type is byte 0 >> 3
//!          (all rdma_cm types and some unknown ones)
//!   bit 1: the event has a NULL data pointer (with the data's length)
//!   bit 2: accept the request and check the connection's data too
//!
//! Invariants: a connect request gives a request whose data is exactly the
//! event's bytes (none when there are none or the pointer is NULL); any
//! other event is Error::Inval and no request; the accepted connection
//! hands out the same bytes; every provider object is released and every
//! event acked.

#![no_main]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ptr::NonNull;

use fake_provider::{Event, PrivateData};
use libfuzzer_sys::fuzz_target;
use rpma::ep::Ep;
use rpma::peer::Peer;
use rpma::sys::RDMA_CM_EVENT_CONNECT_REQUEST;
use rpma::Error;

fuzz_target!(|data: &[u8]| {
    common::init();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let bytes = &rest[..rest.len().min(255)];
    let kind = match flags & 1 {
        0 => RDMA_CM_EVENT_CONNECT_REQUEST,
        _ => u32::from(flags >> 3),
    };
    let private_data = match flags & 2 {
        0 => PrivateData::Bytes(bytes.to_vec()),
        _ => PrivateData::Null(bytes.len() as u8),
    };
    let expected = private_data.stored().map(<[u8]>::to_vec);
    let accept = flags & 4 != 0;

    let ctx = NonNull::new(fake_provider::context()).unwrap();
    // SAFETY: the stand-in's context outlives the peer.
    let peer = unsafe { Peer::from_raw_context(ctx) }.unwrap();
    let ep = Ep::listen_cstr(&peer, c"192.0.2.1", c"7204").unwrap();

    fake_provider::push_event(Event { kind, private_data });
    let got = ep.next_conn_req(None);
    if kind != RDMA_CM_EVENT_CONNECT_REQUEST {
        let e = got.err();
        assert!(matches!(e, Some(Error::Inval(_))), "event {kind}: {e:?}");
    } else {
        let req = got.unwrap();
        // (an over-read or a freed buffer is an ASan report)
        assert_eq!(req.private_data(), expected.as_deref());
        if accept {
            let conn = req.connect_boxed(None).unwrap();
            // The accept carried no private data of ours.
            assert_eq!(fake_provider::take_sent(), [Vec::<u8>::new()]);
            assert_eq!(conn.private_data(), expected.as_deref());
            conn.delete().unwrap();
        } else {
            req.delete().unwrap();
        }
    }
    ep.shutdown().unwrap();
    peer.delete().unwrap();
    fake_provider::clear_events();
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
