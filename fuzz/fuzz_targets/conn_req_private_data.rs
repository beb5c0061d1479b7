//! The private data of an incoming connection request: any length 0..=255
//! (the event's length is a u8) and any content, taken by the library's
//! own code from the rdma_cm event (rpma_ep_next_conn_req), copied before
//! the event is acked, and handed out by rpma_conn_req_get_private_data and,
//! once accepted, rpma_conn_get_private_data.
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
//! event's bytes (NULL/0 when there are none or the pointer is NULL); any
//! other event is RPMA_E_INVAL and no request; the accepted connection
//! hands out the same bytes; every provider object is released and every
//! event acked.

#![no_main]
#![feature(c_variadic)]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ptr;

use fake_provider::{Event, PrivateData};
use libfuzzer_sys::fuzz_target;
use rpma::capi::types::rpma_conn_private_data;
use rpma::capi::{conn::*, conn_req::*, ep::*, peer::*};
use rpma::sys::RDMA_CM_EVENT_CONNECT_REQUEST;

/// Checks a private-data view against what the library must hand out.
fn check_view(view: &rpma_conn_private_data, expected: Option<&[u8]>) {
    match expected {
        None => {
            assert!(view.ptr.is_null(), "data where there is none");
            assert_eq!(view.len, 0);
        }
        Some(bytes) => {
            assert!(!view.ptr.is_null());
            assert_eq!(view.len as usize, bytes.len());
            // SAFETY: the library hands out len readable bytes at ptr (an
            // over-read or a freed buffer is an ASan report).
            let got = unsafe { std::slice::from_raw_parts(view.ptr.cast::<u8>(), view.len.into()) };
            assert_eq!(got, bytes);
        }
    }
}

fn empty_view() -> rpma_conn_private_data {
    rpma_conn_private_data {
        ptr: ptr::dangling_mut(),
        len: 0xEE,
    }
}

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

    let mut peer = ptr::null_mut();
    // SAFETY: the stand-in's context; peer is writable.
    assert_eq!(
        unsafe { rpma_peer_new(fake_provider::context(), &mut peer) },
        0
    );
    let mut ep = ptr::null_mut();
    // SAFETY: a live peer, NUL-terminated strings, ep writable.
    assert_eq!(
        unsafe { rpma_ep_listen(peer, c"192.0.2.1".as_ptr(), c"7204".as_ptr(), &mut ep) },
        0
    );

    fake_provider::push_event(Event { kind, private_data });
    let mut req = ptr::null_mut();
    // SAFETY: a live endpoint; req is writable.
    let ret = unsafe { rpma_ep_next_conn_req(ep, ptr::null(), &mut req) };
    if kind != RDMA_CM_EVENT_CONNECT_REQUEST {
        assert_eq!(ret, common::RPMA_E_INVAL, "event {kind}");
        assert!(req.is_null());
    } else {
        assert_eq!(ret, 0);
        let mut view = empty_view();
        // SAFETY: a live request; view is writable.
        assert_eq!(unsafe { rpma_conn_req_get_private_data(req, &mut view) }, 0);
        check_view(&view, expected.as_deref());
        if accept {
            let mut conn = ptr::null_mut();
            // SAFETY: a live request, consumed; conn is writable.
            assert_eq!(
                unsafe { rpma_conn_req_connect(&mut req, ptr::null(), &mut conn) },
                0
            );
            assert!(req.is_null() && !conn.is_null());
            // The accept carried no private data of ours.
            assert_eq!(fake_provider::take_sent(), [Vec::<u8>::new()]);
            let mut cview = empty_view();
            // SAFETY: a live connection; cview is writable.
            assert_eq!(unsafe { rpma_conn_get_private_data(conn, &mut cview) }, 0);
            check_view(&cview, expected.as_deref());
            // SAFETY: a live connection; delete clears the handle.
            assert_eq!(unsafe { rpma_conn_delete(&mut conn) }, 0);
            assert!(conn.is_null());
        } else {
            // SAFETY: a live request; delete clears the handle.
            assert_eq!(unsafe { rpma_conn_req_delete(&mut req) }, 0);
            assert!(req.is_null());
        }
    }
    // SAFETY: live objects; each delete clears its handle.
    unsafe {
        assert_eq!(rpma_ep_shutdown(&mut ep), 0);
        assert_eq!(rpma_peer_delete(&mut peer), 0);
    }
    fake_provider::clear_events();
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
