//! Shared receive queue.
//!
//! Only the type exists so far: connection configurations already record
//! which SRQ a connection should use. Creating, posting to and deleting an
//! SRQ come with the data path; until then nothing creates a `Srq`.

/// A shared receive queue (opaque).
#[derive(Debug)]
pub struct Srq {
    _private: (),
}
