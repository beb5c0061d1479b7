//! librpma, the Remote Persistent Memory Access library, in Rust:
//! connections over RDMA (rdma_cm) with private data, one-sided reads,
//! writes and atomic writes to a peer's memory, flushes to its
//! visibility or persistence, and messages.
//!
//! The objects are at the root: a [`Peer`] (a protection domain on an
//! RDMA device), [`Region`]s of memory registered on it, an [`Ep`] that
//! listens for [`ConnReq`]uests, the [`Conn`]ection a request becomes,
//! and its completion queue ([`Cq`]). Each owns what it needs (a clone of
//! its peer, its memory, the shared receive queue it uses), so it moves
//! into a thread or a task. Operations take checked ranges
//! ([`Local`], [`Remote`]) and [`Opts`]; waits come blocking, with a
//! deadline, without waiting, and (feature `tokio`) cancel-safe async.
//! `librpma.so.0`, the drop-in replacement for the C library (crate
//! `librpma`), is built on the same objects.
//!
//! # Quick start
//!
//! The README's quick start, `crates/rpma/examples/quick_start.rs`: run
//! its server side on one host and its client side on another (or both on
//! one host, on the address of its RDMA device).
//!
//! ```no_run
#![doc = include_str!("../examples/quick_start.rs")]
//! ```
//!
//! `crates/rpma/examples` has more complete programs, with every check and
//! a deadline on every wait: `threaded_server` (a thread per client, and a
//! graceful shutdown), `tokio_client` (feature `tokio`: tasks with a
//! connection each, and a cancelled wait), `private_data`, `write_flush`
//! (wire-compatible with the C example `write-flush-persistent`) and
//! `srq_messaging`.
//!
//! # Errors
//!
//! Every failure is an [`Error`], one kind per `RPMA_E_*` code of the C
//! library. A failed libibverbs or librdmacm call is
//! [`Error::Provider`], whose [`ProviderError`](error::ProviderError) (the
//! error's `source`) names the call, the operation it served and its
//! errno; [`Error::is_queue_full`] tells a full queue from the rest.
//! [`Error::Inval`]'s [`Invalid`] names the argument and the reason.
//! `Error` converts into `std::io::Error` (a provider error with an errno
//! into that OS error).
//!
//! # Objects
//!
//! Everything starts from a [`Peer`] (a protection domain on
//! the RDMA device of an address, shared by reference counting).
//! Everything made on the peer holds a clone of it, so the domain goes
//! with the last of them, whatever the order: a local region
//! ([`Region`], which owns its memory, or an [`MrLocal`] lent a buffer by
//! [`MrLocal::reg_scoped`]), an [`Ep`] endpoint, the [`ConnReq`]
//! requests it or [`ConnReq::new`] hands out, the [`Conn`] connection a
//! request becomes, and a [`Srq`] shared receive queue, which the requests and
//! connections made with it hold in turn. Dropping an object releases
//! it; the `delete`/`dereg`/`shutdown` methods do the same and report how
//! it went.
//!
//! The objects also have the forms the C face calls (`*_at`, `*_raw`,
//! `*_cstr`, `MrLocal::reg_raw`, ..., with the feature `raw`): regions,
//! offsets and lengths unchecked against each other, C strings, heap
//! handles, and memory registered on the word of a C caller.
//!
//! # Layers
//!
//! A module imports only from its own layer or the ones below, and the
//! import graph has no cycle (`cargo xtask check module-deps` checks it):
//!
//! ```text
//! handles        aio (async waits)   region (Region: MrLocal + memory)
//! connections    ep -> conn (mod.rs: events; req.rs: requests; ops.rs,
//!                        flush.rs: the data path) -> queues -> srq, cq
//!                conn_cfg, peer_cfg, srq_cfg
//! posting        post (every work request)
//! regions, peer  mr -> peer (with its flush target)   range
//! verbs handles  verbs (cm ids, channels, events, registrations, QP
//!                attributes)   native (native operations)   timeouts
//! base           error  log  alloc  usage (region uses, access rights)
//! ------------------------------------------------------------------
//! rpma-sys       the libibverbs/librdmacm bindings and inline verbs
//! ```
//!
//! Log messages name the core's operations ([`log::Op`]); the C face gives
//! them the C library's function names.

#![deny(missing_docs)]
#![warn(clippy::missing_errors_doc)]

/// Declares a function that hands out rdma-core's own objects (rpma-sys
/// types): public with the `raw` feature, which the C face turns on, and
/// visible only inside the crate without it, so that the default API names
/// no binding and rpma-sys can change without a new major version here.
macro_rules! raw_api {
    ($(#[$attr:meta])* fn $($item:tt)*) => {
        #[cfg(feature = "raw")]
        $(#[$attr])* pub fn $($item)*
        #[cfg(not(feature = "raw"))]
        #[allow(dead_code)]
        $(#[$attr])* pub(crate) fn $($item)*
    };
    ($(#[$attr:meta])* unsafe fn $($item:tt)*) => {
        #[cfg(feature = "raw")]
        $(#[$attr])* pub unsafe fn $($item)*
        #[cfg(not(feature = "raw"))]
        #[allow(dead_code)]
        $(#[$attr])* pub(crate) unsafe fn $($item)*
    };
}

#[macro_use]
pub mod log;

// Fallible allocation: public for the C face (feature `raw`), whose
// handles must report an exhausted heap rather than abort.
#[cfg(feature = "raw")]
pub mod alloc;
#[cfg(not(feature = "raw"))]
mod alloc;
pub mod conn;
pub mod conn_cfg;
pub mod cq;
mod env;
pub mod ep;
pub mod error;
pub mod mr;
mod native;
pub mod peer;
pub mod peer_cfg;
mod post;
mod queues;
mod range;
mod ready;
mod region;
pub mod srq;
pub mod srq_cfg;
mod timeouts;
mod usage;
mod verbs;

/// The libibverbs and librdmacm bindings (feature `raw`).
#[cfg(feature = "raw")]
pub use rpma_sys as sys;
#[cfg(not(feature = "raw"))]
use rpma_sys as sys;

// The objects a program uses, at the root. (aio and remote_serde add
// methods and impls to them; cbindgen must not read them, as their types
// share names with the C library's objects.)
/// cbindgen:ignore
#[cfg(feature = "tokio")]
mod aio;
/// cbindgen:ignore
#[cfg(feature = "serde")]
mod remote_serde;

pub use conn::req::ConnReq;
pub use conn::FlushType;
pub use conn::{Activity, Conn, ConnEvent, Opts};
pub use conn_cfg::ConnCfg;
pub use cq::{Cq, WcOpcode, WcStatus, WorkCompletion};
pub use ep::Ep;
pub use error::{Error, Invalid, Result};
pub use mr::{MrLocal, MrRemote, Usage};
pub use peer::Peer;
/// When an operation of the C forms completes (feature `raw`; [`Opts`] says
/// it for the Rust ones).
#[cfg(feature = "raw")]
pub use post::Completion;
pub use range::{Local, Range, Remote};
pub use region::{Buffer, Region};
pub use srq::Srq;

/// The README's sketch, compiled as a doctest so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeSketch;

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_across_threads<T: Send + Sync + 'static>() {}
    fn moved_across_threads<T: Send + 'static>() {}

    #[test]
    fn handles_can_move_into_threads_and_tasks() {
        shared_across_threads::<Peer>();
        shared_across_threads::<Region>();
        shared_across_threads::<Region<Box<[u8]>>>();
        shared_across_threads::<Ep>();
        shared_across_threads::<Conn>();
        shared_across_threads::<MrRemote>();
        shared_across_threads::<Srq>();
        shared_across_threads::<ConnCfg>();
        moved_across_threads::<ConnReq>();
    }
}
