//! librpma, the Remote Persistent Memory Access library, in Rust.
//!
//! One module per librpma object. The `librpma` crate is the thin C face
//! over these modules that builds `librpma.so.0`, a drop-in replacement for
//! the C library; `rpma-sys` (re-exported as [`sys`]) holds the raw
//! bindings to libibverbs and librdmacm below them.
//!
//! # Layers
//!
//! A module imports only from its own layer or the ones below, and the
//! import graph has no cycle (`scripts/module-deps.sh` checks it):
//!
//! ```text
//! operations     flush (Conn::flush)      conn::ops (read, write, atomic
//!                                          write, send, recv, wait)
//! objects        ep -> conn_req -> conn -> queues -> peer, cq, srq
//!                mr -> peer               conn_cfg, peer_cfg, srq_cfg
//! verbs handles  verbs (cm ids, channels, events, registrations)
//!                post (work requests)     native (extended-QP requests)
//!                flush_target (a peer's flush read page)   timeouts
//! base           error  log  alloc  usage (region uses, access rights)
//! ------------------------------------------------------------------
//! rpma-sys       the libibverbs/librdmacm bindings and inline verbs
//! ```
//!
//! Log messages name the core's operations ([`log::Op`]); the C face gives
//! them the C library's function names.
//!
//! # The object graph
//!
//! Everything starts from a [`Device`](peer::Device), the RDMA device that
//! rdma_cm finds for an address, and a [`Peer`](peer::Peer) on it (a
//! protection domain). Everything else borrows the peer, and the borrow
//! checker keeps the order in which they must go:
//!
//! - [`MrLocal<'p>`](mr::MrLocal): a registered memory region, which owns
//!   its buffer ([`MrLocal::reg_owned`](mr::MrLocal::reg_owned)) or
//!   borrows it exclusively for a scope
//!   ([`MrLocal::reg_scoped`](mr::MrLocal::reg_scoped)) for as long as the
//!   device may read or write it;
//! - [`Ep<'p>`](ep::Ep): a listening endpoint, which hands out
//!   [`ConnReq<'a>`](conn_req::ConnReq) requests, as does
//!   [`ConnReq::new`](conn_req::ConnReq::new) on the active side;
//! - [`Conn<'a>`](conn::Conn): the connection a request becomes, which
//!   borrows the peer and the [`Srq<'p>`](srq::Srq) its configuration
//!   names, if any ([`ConnCfg::set_srq`](conn_cfg::ConnCfg::set_srq)).
//!
//! Dropping an object releases it; the `delete`/`dereg`/`shutdown` methods
//! do the same and report how it went. Data operations take an
//! `op_context: u64` that comes back as the completion's `wr_id`.
//!
//! The `unsafe` constructors ([`Peer::from_raw_context`],
//! [`MrLocal::reg_raw`], [`Ep::listen_unchecked`],
//! [`ConnReq::new_unchecked`]) are the C API's: they claim `'static`
//! borrows on the word of a C caller. Rust code does not need them. A
//! region that borrows its buffer exists only inside
//! [`MrLocal::reg_scoped`]'s closure: a region that held the borrow for its
//! own life could be leaked (`mem::forget`), which would end the borrow
//! while the memory is still registered.
//!
//! [`MrLocal::reg_scoped`]: mr::MrLocal::reg_scoped
//! [`Peer::from_raw_context`]: peer::Peer::from_raw_context
//! [`MrLocal::reg_raw`]: mr::MrLocal::reg_raw
//! [`Ep::listen_unchecked`]: ep::Ep::listen_unchecked
//! [`ConnReq::new_unchecked`]: conn_req::ConnReq::new_unchecked
//!
//! # A server
//!
//! It exposes 4 KiB for the client to write and flush, sends the region's descriptor
//! as the private data of its accept, and waits for the client to hang up;
//! then it deregisters the region and reads what was written.
//!
//! ```no_run
//! use rpma::conn::ConnEvent;
//! use rpma::ep::Ep;
//! use rpma::mr::{MrLocal, Usage};
//! use rpma::peer::{Device, Peer};
//!
//! fn serve(addr: &str, port: &str) -> rpma::Result<Vec<u8>> {
//!     let peer = Peer::new(&Device::local(addr)?)?;
//!     // written by the client, which may flush it to global visibility
//!     let usage = Usage::WRITE_DST | Usage::FLUSH_TYPE_VISIBILITY;
//!     let mr = MrLocal::reg_owned(&peer, vec![0u8; 4096].into(), usage)?;
//!
//!     let ep = Ep::listen(&peer, addr, port)?;
//!     // blocks until a client comes (poll ep.fd() to wait with a deadline)
//!     let req = ep.next_conn_req(None)?;
//!     println!("the client says {:?}", req.private_data());
//!     let conn = req.connect(Some(&mr.descriptor()))?;
//!     assert_eq!(conn.next_event()?, ConnEvent::Established);
//!     // the client writes on its own; it hangs up when it is done
//!     assert_eq!(conn.next_event()?, ConnEvent::Closed);
//!     conn.disconnect()?;
//!     conn.delete()?;
//!     ep.shutdown()?;
//!
//!     // deregistered, the buffer is the program's again
//!     let buf = mr.dereg()?;
//!     peer.delete()?;
//!     Ok(buf.into())
//! }
//! ```
//!
//! # A client
//!
//! It connects, learns the server's region from the private data, writes a
//! string there, flushes it to global visibility and waits for the flush's
//! completion, which says the string is in the server's memory.
//!
//! ```no_run
//! use rpma::conn::ConnEvent;
//! use rpma::conn_req::ConnReq;
//! use rpma::mr::{MrLocal, MrRemote, Usage};
//! use rpma::peer::{Device, Peer};
//! use rpma::cq::WorkCompletion;
//! use rpma::{Completion, FlushType};
//!
//! fn write(addr: &str, port: &str) -> rpma::Result<()> {
//!     let peer = Peer::new(&Device::remote(addr)?)?;
//!     let src = b"Hello, server!".to_vec().into_boxed_slice();
//!     let mr = MrLocal::reg_owned(&peer, src, Usage::WRITE_SRC)?;
//!
//!     let req = ConnReq::new(&peer, addr, port, None)?;
//!     let conn = req.connect(Some(b"hello"))?;
//!     assert_eq!(conn.next_event()?, ConnEvent::Established);
//!     let remote = MrRemote::from_descriptor(conn.private_data().unwrap_or_default())?;
//!
//!     // no completion for the write unless it fails; one for the flush,
//!     // which comes only after the write reached the server's memory
//!     let len = mr.size();
//!     conn.write(Some(&remote), 0, Some(&mr), 0, len, Completion::OnError, None, 1)?;
//!     conn.flush(&remote, 0, len, FlushType::Visibility, Completion::Always, 2)?;
//!     let cq = conn.cq();
//!     let mut wc = [WorkCompletion::default()];
//!     loop {
//!         match cq.poll(&mut wc) {
//!             // the flush's completion: wr_id 2
//!             Ok(_) if wc[0].status().is_success() => break,
//!             Ok(_) => return Err(rpma::Error::Provider),
//!             // blocks until the CQ reports, then arms it again
//!             Err(rpma::Error::NoCompletion) => cq.wait()?,
//!             Err(e) => return Err(e),
//!         }
//!     }
//!
//!     conn.disconnect()?;
//!     assert_eq!(conn.next_event()?, ConnEvent::Closed);
//!     conn.delete()?;
//!     mr.dereg()?;
//!     peer.delete()
//! }
//! ```
//!
//! `crates/rpma/examples` has complete programs with every check and a
//! deadline on every wait: `private_data`, `write_flush` (wire-compatible
//! with the C example `write-flush-persistent`) and `srq_messaging`.

#![deny(missing_docs)]

#[macro_use]
pub mod log;

pub mod alloc;
pub mod conn;
pub mod conn_cfg;
pub mod conn_req;
pub mod cq;
pub mod ep;
pub mod error;
mod flush;
mod flush_target;
pub mod mr;
mod native;
pub mod peer;
pub mod peer_cfg;
mod post;
mod queues;
pub mod srq;
pub mod srq_cfg;
mod timeouts;
mod usage;
mod verbs;

pub use rpma_sys as sys;

pub use cq::{WcOpcode, WcStatus, WorkCompletion};
pub use error::{Error, Result};
pub use flush::FlushType;
pub use post::Completion;

/// The README's sketch, compiled as a doctest so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeSketch;
