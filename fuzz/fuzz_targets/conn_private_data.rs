//! The events of a connection and the private data they carry: a sequence
//! of rdma_cm events of any type, each with private data of any length
//! 0..=255 and content (or a NULL pointer), through rpma_conn_next_event,
//! with rpma_conn_get_private_data read after each.
//!
//! On the active side the peer's data comes with the ESTABLISHED event
//! (its accept); the passive side already has the request's data, or none.
//! The provider is the stand-in of fake_provider.rs (the event's data in a
//! buffer of exactly its length, freed by the ack: over-reads and uses
//! after the ack are ASan reports).
//!
//! Input: byte 0: flags; then events, each a type byte, a length byte and
//! up to that many data bytes (fewer when the input ends).
//!   flags bit 0: passive side (an accepted request, see bit 2), else active
//!   flags bit 1: active side: connect with our own private data, the
//!                 bytes of the first event (checked as what rdma_connect got)
//!   flags bit 2: passive side: the request carried private data (the bytes
//!                 of the first event), else none
//!   type byte: bits 0-3 the rdma_cm event type, bit 5 adds 16 (types that
//!              do not exist), bit 4 a NULL data pointer
//!
//! Invariants: each event maps to the rpma_conn_event librpma gives it
//! (ESTABLISHED; CONNECT_ERROR/DEVICE_REMOVAL lost; DISCONNECTED/
//! TIMEWAIT_EXIT closed; REJECTED; UNREACHABLE), any other type is
//! RPMA_E_UNKNOWN; no event is RPMA_E_NO_EVENT. The connection's data is
//! the request's (passive) or else that of the first ESTABLISHED event
//! with a non-NULL pointer and a non-zero length; once set it never
//! changes and stays readable at the same address until the connection is
//! deleted. Everything is released and every event acked.

#![no_main]
#![feature(c_variadic)]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ffi::{c_int, c_void};
use std::ptr;

use fake_provider::{Event, PrivateData};
use libfuzzer_sys::fuzz_target;
use rpma::capi::types::{rpma_conn_private_data, ConnEventArg};
use rpma::capi::{conn::*, conn_req::*, ep::*, peer::*};
use rpma::conn::Conn;
use rpma::peer::Peer;
use rpma::sys::*;

const RPMA_CONN_ESTABLISHED: c_int = 0;
const RPMA_CONN_CLOSED: c_int = 1;
const RPMA_CONN_LOST: c_int = 2;
const RPMA_CONN_REJECTED: c_int = 3;
const RPMA_CONN_UNREACHABLE: c_int = 4;

/// What rpma_conn_next_event returns for an event type: the event, or the
/// error code.
fn expected_event(kind: rdma_cm_event_type) -> Result<c_int, c_int> {
    Ok(match kind {
        RDMA_CM_EVENT_ESTABLISHED => RPMA_CONN_ESTABLISHED,
        RDMA_CM_EVENT_CONNECT_ERROR | RDMA_CM_EVENT_DEVICE_REMOVAL => RPMA_CONN_LOST,
        RDMA_CM_EVENT_DISCONNECTED | RDMA_CM_EVENT_TIMEWAIT_EXIT => RPMA_CONN_CLOSED,
        RDMA_CM_EVENT_REJECTED => RPMA_CONN_REJECTED,
        RDMA_CM_EVENT_UNREACHABLE => RPMA_CONN_UNREACHABLE,
        _ => return Err(common::RPMA_E_UNKNOWN),
    })
}

/// Splits the input into at most 16 events.
fn events(mut input: &[u8]) -> Vec<Event> {
    let mut out = Vec::new();
    while let [ty, len, rest @ ..] = input {
        let take = (*len as usize).min(rest.len());
        let (bytes, tail) = rest.split_at(take);
        input = tail;
        let kind = u32::from(ty & 0x0F) + if ty & 0x20 != 0 { 16 } else { 0 };
        let private_data = match ty & 0x10 {
            0 => PrivateData::Bytes(bytes.to_vec()),
            _ => PrivateData::Null(*len),
        };
        out.push(Event { kind, private_data });
        if out.len() == 16 {
            break;
        }
    }
    out
}

/// The connection's private data as the C API hands it out.
fn view(conn: *mut Conn) -> rpma_conn_private_data {
    let mut v = rpma_conn_private_data {
        ptr: ptr::dangling_mut(),
        len: 0xEE,
    };
    // SAFETY: a live connection; v is writable.
    assert_eq!(unsafe { rpma_conn_get_private_data(conn, &mut v) }, 0);
    v
}

/// The bytes of a view (NULL/0 is None).
fn bytes_of(v: &rpma_conn_private_data) -> Option<Vec<u8>> {
    if v.ptr.is_null() {
        assert_eq!(v.len, 0);
        return None;
    }
    assert_ne!(v.len, 0, "an empty buffer handed out");
    // SAFETY: the library hands out len readable bytes at ptr (a freed or
    // short buffer is an ASan report).
    Some(unsafe { std::slice::from_raw_parts(v.ptr.cast::<u8>(), v.len.into()) }.to_vec())
}

/// A new connection on either side; returns it, the endpoint (passive) and
/// the private data it starts with.
fn connect(
    peer: *mut Peer,
    flags: u8,
    first: Option<&Event>,
) -> (*mut Conn, *mut rpma::ep::Ep, Option<Vec<u8>>) {
    let first_bytes = match first.map(|e| &e.private_data) {
        Some(PrivateData::Bytes(b)) if !b.is_empty() => Some(b.clone()),
        _ => None,
    };
    let mut req = ptr::null_mut();
    let mut conn = ptr::null_mut();
    if flags & 1 == 0 {
        // SAFETY: a live peer, NUL-terminated strings, req writable.
        let ret = unsafe {
            rpma_conn_req_new(
                peer,
                c"192.0.2.1".as_ptr(),
                c"7204".as_ptr(),
                ptr::null(),
                &mut req,
            )
        };
        assert_eq!(ret, 0);
        let ours = first_bytes.filter(|_| flags & 2 != 0);
        let pdata = ours.as_ref().map(|b| rpma_conn_private_data {
            ptr: b.as_ptr().cast_mut().cast::<c_void>(),
            len: b.len() as u8,
        });
        let pdata_ptr = pdata.as_ref().map_or(ptr::null(), |p| p as *const _);
        // SAFETY: a live request, consumed; pdata NULL or valid; conn writable.
        assert_eq!(
            unsafe { rpma_conn_req_connect(&mut req, pdata_ptr, &mut conn) },
            0
        );
        // rdma_connect got exactly our bytes.
        assert_eq!(fake_provider::take_sent(), [ours.unwrap_or_default()]);
        return (conn, ptr::null_mut(), None);
    }
    let mut ep = ptr::null_mut();
    // SAFETY: a live peer, NUL-terminated strings, ep writable.
    assert_eq!(
        unsafe { rpma_ep_listen(peer, c"192.0.2.1".as_ptr(), c"7204".as_ptr(), &mut ep) },
        0
    );
    let req_data = first_bytes.filter(|_| flags & 4 != 0);
    fake_provider::push_event(Event {
        kind: RDMA_CM_EVENT_CONNECT_REQUEST,
        private_data: PrivateData::Bytes(req_data.clone().unwrap_or_default()),
    });
    // SAFETY: a live endpoint; req writable.
    assert_eq!(
        unsafe { rpma_ep_next_conn_req(ep, ptr::null(), &mut req) },
        0
    );
    // SAFETY: a live request, consumed; conn writable.
    assert_eq!(
        unsafe { rpma_conn_req_connect(&mut req, ptr::null(), &mut conn) },
        0
    );
    fake_provider::take_sent();
    (conn, ep, req_data)
}

fuzz_target!(|data: &[u8]| {
    common::init();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let events = events(rest);

    let mut peer = ptr::null_mut();
    // SAFETY: the stand-in's context; peer is writable.
    assert_eq!(
        unsafe { rpma_peer_new(fake_provider::context(), &mut peer) },
        0
    );
    let (mut conn, mut ep, mut stored) = connect(peer, flags, events.first());
    assert!(!conn.is_null());
    assert_eq!(bytes_of(&view(conn)), stored);
    // The first view of data once it is set: it must stay valid.
    let mut pinned: Option<rpma_conn_private_data> = stored.as_ref().map(|_| view(conn));

    for ev in events {
        let kind = ev.kind;
        if kind == RDMA_CM_EVENT_ESTABLISHED && stored.is_none() {
            stored = ev.private_data.stored().map(<[u8]>::to_vec);
        }
        fake_provider::push_event(ev);
        let mut got = ConnEventArg(-7);
        // SAFETY: a live connection; got is writable.
        let ret = unsafe { rpma_conn_next_event(conn, &mut got) };
        match expected_event(kind) {
            Ok(e) => {
                assert_eq!(ret, 0, "event {kind}");
                assert_eq!(got.0, e, "event {kind}");
            }
            Err(code) => assert_eq!(ret, code, "event {kind}"),
        }
        let v = view(conn);
        assert_eq!(bytes_of(&v), stored, "after event {kind}");
        match &pinned {
            Some(p) => {
                assert_eq!((p.ptr, p.len), (v.ptr, v.len), "the data moved");
                assert_eq!(bytes_of(p), stored);
            }
            None if stored.is_some() => pinned = Some(v),
            None => {}
        }
    }
    let mut got = ConnEventArg(-7);
    // SAFETY: as above.
    assert_eq!(
        unsafe { rpma_conn_next_event(conn, &mut got) },
        common::RPMA_E_NO_EVENT
    );

    // SAFETY: live objects; each delete clears its handle.
    unsafe {
        assert_eq!(rpma_conn_delete(&mut conn), 0);
        if !ep.is_null() {
            assert_eq!(rpma_ep_shutdown(&mut ep), 0);
        }
        assert_eq!(rpma_peer_delete(&mut peer), 0);
    }
    assert!(conn.is_null() && ep.is_null() && peer.is_null());
    fake_provider::clear_events();
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
