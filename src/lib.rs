//! librpma, the Remote Persistent Memory Access library, in Rust.
//!
//! The crate builds `librpma.so.0`, a drop-in replacement for the C library
//! (same symbols, version node, header, behaviour and wire data), and is a
//! Rust API in its own right: one module per librpma object, safe to use.
//! `capi` is the thin C face over these modules; `sys` the raw bindings to
//! libibverbs and librdmacm below them.

#[macro_use]
pub mod log;

pub mod alloc;
pub mod conn;
pub mod conn_cfg;
pub mod conn_req;
pub mod cq;
pub mod ep;
pub mod error;
#[cfg(feature = "fault-injection")]
mod fault;
mod flush;
pub mod mr;
mod native;
pub mod peer;
pub mod peer_cfg;
mod post;
pub mod srq;
pub mod srq_cfg;
mod timeouts;
pub mod utils;
mod verbs;

pub mod capi;
pub mod sys;

pub use error::{Error, Result};
pub use flush::FlushType;
pub use post::Completion;
