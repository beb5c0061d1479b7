//! Owned handles: the Rust API most programs want.
//!
//! Every handle here is `'static` and `Send` (and `Sync` where sharing
//! makes sense), so it can be moved into a thread or a task, or kept in a
//! struct beside the peer it came from. Each holds a clone of its
//! [`Peer`], an `Arc`, which keeps the protection domain alive until the
//! last region, request or connection made on it is gone.
//!
//! - [`Peer`]: a protection domain on the device that owns an address;
//! - [`Region`]: memory the device may read and write, owned by the region
//!   until [`Region::dereg`] gives it back ([`Buffer`] says which memory
//!   can be registered this way);
//! - [`Ep`] and [`ConnReq`]: the passive and the active way to a
//!   [`Conn`], a connection ([`ConnCfg`] sizes its queues and may name a
//!   shared receive queue, [`Srq`]);
//! - [`Local`] and [`Remote`]: checked ranges of a local region and of a
//!   peer's region ([`MrRemote`]), which the operations take, source
//!   first, with [`Opts`] for the completion, the context and immediate
//!   data.
//!
//! These are the crate's objects themselves, gathered here; a [`Region`]
//! is an [`MrLocal`](crate::mr::MrLocal) with the memory it owns. The C
//! face builds on the same objects.
//!
//! ```no_run
//! use std::net::SocketAddr;
//! use rpma::owned::{Conn, ConnReq, Opts, Peer, Region};
//! use rpma::mr::{MrRemote, Usage};
//! use rpma::conn::ConnEvent;
//! use rpma::{Error, FlushType, WorkCompletion};
//!
//! fn client(server: SocketAddr) -> rpma::Result<Conn> {
//!     let peer = Peer::remote(server.ip())?;
//!     let mut src = Region::reg(&peer, vec![0u8; 64], Usage::WRITE_SRC)?;
//!     src.write(0, b"hello")?;
//!     let conn = ConnReq::new(&peer, server, None)?.connect(b"")?;
//!     assert_eq!(conn.next_event()?, ConnEvent::Established);
//!     let dst = MrRemote::from_descriptor(conn.private_data().unwrap_or_default())?;
//!     // 64 bytes to the start of the server's region, then a flush
//!     // whose completion says they arrived
//!     conn.write(src.slice(..)?, dst.slice(..64)?, Opts::unsignaled())?;
//!     conn.flush(dst.slice(..64)?, FlushType::Visibility, Opts::signaled().context(1))?;
//!     // the connection owns what it needs: it can go to another thread
//!     let conn = std::thread::spawn(move || {
//!         let mut wc = [WorkCompletion::default()];
//!         loop {
//!             match conn.cq().poll(&mut wc) {
//!                 Ok(_) => break,
//!                 // sleeps until the queue reports, then arms it again
//!                 Err(Error::NoCompletion) => conn.cq().wait()?,
//!                 Err(e) => return Err(e),
//!             }
//!         }
//!         assert_eq!(wc[0].wr_id(), 1);
//!         Ok(conn)
//!     })
//!     .join()
//!     .expect("no panic")?;
//!     Ok(conn)
//! }
//! ```

// The C header is generated from the crate's types by name, and these
// share names with the C library's objects: cbindgen must not see them.
/// cbindgen:ignore
#[cfg(feature = "tokio")]
mod aio;
/// cbindgen:ignore
#[cfg(feature = "serde")]
mod remote_serde;

pub use crate::conn::{Conn, Opts};
pub use crate::conn_cfg::ConnCfg;
pub use crate::conn_req::ConnReq;
pub use crate::ep::Ep;
pub use crate::range::{Local, Range, Remote};
pub use crate::region::{Buffer, Region};
pub use crate::srq::Srq;

pub use crate::mr::MrRemote;
pub use crate::peer::Peer;

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
