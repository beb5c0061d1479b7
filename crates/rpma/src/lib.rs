//! librpma, the Remote Persistent Memory Access library, in Rust.
//!
//! One module per librpma object. The `librpma` crate is the thin C face
//! over these modules that builds `librpma.so.0`, a drop-in replacement for
//! the C library; `rpma-sys` (re-exported as [`sys`]) holds the raw
//! bindings to libibverbs and librdmacm below them.

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
pub mod mr;
mod native;
pub mod peer;
pub mod peer_cfg;
mod post;
mod queues;
pub mod srq;
pub mod srq_cfg;
mod timeouts;
pub mod utils;
mod verbs;

pub use rpma_sys as sys;

pub use cq::{WcOpcode, WcStatus, WorkCompletion};
pub use error::{Error, Result};
pub use flush::FlushType;
pub use post::Completion;
