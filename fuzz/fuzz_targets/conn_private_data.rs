//! The events of a connection and the private data they carry: a sequence
//! of rdma_cm events of any type, each with private data of any length
//! 0..=255 and content (or a NULL pointer), through Conn::next_event (under
//! rpma_conn_next_event), with Conn::private_data read after each.
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
//! Invariants: each event maps to the ConnEvent librpma gives it
//! (ESTABLISHED; CONNECT_ERROR/DEVICE_REMOVAL lost; DISCONNECTED/
//! TIMEWAIT_EXIT closed; REJECTED; UNREACHABLE), any other type is
//! Error::Unknown; no event is Error::NoEvent. The connection's data is
//! the request's (passive) or else that of the first ESTABLISHED event
//! with a non-NULL pointer and a non-zero length; once set it never
//! changes and stays readable at the same address until the connection is
//! deleted. Everything is released and every event acked.

#![no_main]

#[path = "../common.rs"]
mod common;
#[path = "../fake_provider.rs"]
mod fake_provider;

use std::ptr::NonNull;

use fake_provider::{Event, PrivateData};
use libfuzzer_sys::fuzz_target;
use rpma::conn::{Conn, ConnEvent};
use rpma::ep::Ep;
use rpma::peer::Peer;
use rpma::sys::*;
use rpma::ConnReq;
use rpma::Error;

/// What Conn::next_event returns for an event type.
fn expected_event(kind: rdma_cm_event_type) -> Result<ConnEvent, Error> {
    Ok(match kind {
        RDMA_CM_EVENT_ESTABLISHED => ConnEvent::Established,
        RDMA_CM_EVENT_CONNECT_ERROR | RDMA_CM_EVENT_DEVICE_REMOVAL => ConnEvent::Lost,
        RDMA_CM_EVENT_DISCONNECTED | RDMA_CM_EVENT_TIMEWAIT_EXIT => ConnEvent::Closed,
        RDMA_CM_EVENT_REJECTED => ConnEvent::Rejected,
        RDMA_CM_EVENT_UNREACHABLE => ConnEvent::Unreachable,
        _ => return Err(Error::Unknown),
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

/// The connection's private data: where it is and a copy (a freed or short
/// buffer is an ASan report).
fn view(conn: &Conn) -> Option<(*const u8, Vec<u8>)> {
    let data = conn.private_data()?;
    assert!(!data.is_empty(), "an empty buffer handed out");
    Some((data.as_ptr(), data.to_vec()))
}

fn bytes_of(v: &Option<(*const u8, Vec<u8>)>) -> Option<Vec<u8>> {
    v.as_ref().map(|(_, b)| b.clone())
}

/// A new connection on either side; returns it, the endpoint (passive) and
/// the private data it starts with.
fn connect(
    peer: &Peer,
    flags: u8,
    first: Option<&Event>,
) -> (Box<Conn>, Option<Ep>, Option<Vec<u8>>) {
    let first_bytes = match first.map(|e| &e.private_data) {
        Some(PrivateData::Bytes(b)) if !b.is_empty() => Some(b.clone()),
        _ => None,
    };
    if flags & 1 == 0 {
        let req = ConnReq::new_cstr(peer, c"192.0.2.1", c"7204", None).unwrap();
        let ours = first_bytes.filter(|_| flags & 2 != 0);
        let conn = req.connect_boxed(ours.as_deref()).unwrap();
        // rdma_connect got exactly our bytes.
        assert_eq!(fake_provider::take_sent(), [ours.unwrap_or_default()]);
        return (conn, None, None);
    }
    let ep = Ep::listen_cstr(peer, c"192.0.2.1", c"7204").unwrap();
    let req_data = first_bytes.filter(|_| flags & 4 != 0);
    fake_provider::push_event(Event {
        kind: RDMA_CM_EVENT_CONNECT_REQUEST,
        private_data: PrivateData::Bytes(req_data.clone().unwrap_or_default()),
    });
    let req = ep.next_conn_req(None).unwrap();
    let conn = req.connect_boxed(None).unwrap();
    fake_provider::take_sent();
    (conn, Some(ep), req_data)
}

fuzz_target!(|data: &[u8]| {
    common::init();
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let events = events(rest);

    let ctx = NonNull::new(fake_provider::context()).unwrap();
    // SAFETY: the stand-in's context outlives the peer.
    let peer = unsafe { Peer::from_raw_context(ctx) }.unwrap();
    let (conn, ep, mut stored) = connect(&peer, flags, events.first());
    assert_eq!(bytes_of(&view(&conn)), stored);
    // Where the data was first seen once it is set: it must stay there.
    let mut pinned: Option<*const u8> = view(&conn).map(|(p, _)| p);

    for ev in events {
        let kind = ev.kind;
        if kind == RDMA_CM_EVENT_ESTABLISHED && stored.is_none() {
            stored = ev.private_data.stored().map(<[u8]>::to_vec);
        }
        fake_provider::push_event(ev);
        assert_eq!(conn.next_event_raw(), expected_event(kind), "event {kind}");
        let v = view(&conn);
        assert_eq!(bytes_of(&v), stored, "after event {kind}");
        match (pinned, &v) {
            (Some(p), Some((at, _))) => assert_eq!(p, *at, "the data moved"),
            (Some(_), None) => panic!("the data went away"),
            (None, Some((at, _))) => pinned = Some(*at),
            (None, None) => {}
        }
    }
    assert_eq!(conn.next_event_raw(), Err(Error::NoEvent));

    conn.delete().unwrap();
    if let Some(ep) = ep {
        ep.shutdown().unwrap();
    }
    peer.delete().unwrap();
    fake_provider::clear_events();
    fake_provider::take_sent();
    fake_provider::assert_all_released();
});
