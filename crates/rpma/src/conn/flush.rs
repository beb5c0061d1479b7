//! Flush: makes the data written to a remote region before it visible (or
//! persistent) at the peer. A connection whose queue pair has native RDMA
//! FLUSH posts one; any other reads 8 bytes of the region into
//! its peer's flush target (`flush_target`), a read that completes only
//! after the writes before it reached the remote memory. A submodule of
//! `conn`, so the data path reads the connection's fields itself.

use std::fmt;
use std::sync::atomic::Ordering::SeqCst;

use super::{Conn, Opts};
use crate::error::{Error, Result};
use crate::log::{Level, Op};
use crate::mr::{MrRemote, Usage};
use crate::post::{self, Completion, Kind, SendWr};
use crate::range::Remote;
use crate::sys;

/// How far a flush pushes the data written before it.
///
/// ```
/// use rpma::{Conn, FlushType, Opts, Remote};
///
/// /// Completes once what was written to `dst` before is persistent there.
/// fn persist(conn: &Conn, dst: Remote<'_>) -> rpma::Result<()> {
///     conn.flush(dst, FlushType::Persistent, Opts::signaled().context(9))
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushType {
    /// Into persistent memory (`RPMA_FLUSH_TYPE_PERSISTENT`).
    Persistent,
    /// To where every reader of the remote memory sees it
    /// (`RPMA_FLUSH_TYPE_VISIBILITY`).
    Visibility,
    /// Any other value of the C enum: the C library does not refuse it and
    /// flushes as for the other two; so do we.
    Other,
}

impl FlushType {
    /// The placement of a native flush: the C library passes 0 for a type
    /// it does not know.
    fn placement(self) -> u8 {
        match self {
            FlushType::Persistent => sys::IBV_FLUSH_PERSISTENT as u8,
            FlushType::Visibility => sys::IBV_FLUSH_GLOBAL as u8,
            FlushType::Other => 0,
        }
    }
}

impl fmt::Display for FlushType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FlushType::Persistent => "to persistence",
            FlushType::Visibility => "to global visibility",
            FlushType::Other => "of an unknown type",
        })
    }
}

/// Whether a flush of `kind` to `dst` is possible on a connection whose
/// peer does (or does not) write directly to persistent memory.
fn check(kind: FlushType, direct_write_to_pmem: bool, dst: &MrRemote) -> Result<()> {
    // the usage byte as sent, against constants: no call out for them
    const PERSISTENT: u8 = Usage::FLUSH_TYPE_PERSISTENT.bits() as u8;
    const VISIBILITY: u8 = Usage::FLUSH_TYPE_VISIBILITY.bits() as u8;
    // The messages are the C library's: programs may look for them.
    let refusal = match kind {
        FlushType::Persistent if !direct_write_to_pmem => {
            "Connection does not support flush to persistency. Check if the remote node supports direct write to persistent memory."
        }
        FlushType::Persistent if dst.usage & PERSISTENT == 0 => {
            "The remote memory region does not support flushing to persistency"
        }
        FlushType::Visibility if dst.usage & VISIBILITY == 0 => {
            "The remote memory region does not support flushing to global visibility"
        }
        _ => return Ok(()),
    };
    rpma_log!(Level::Error, Op::Flush, "{}", refusal);
    Err(Error::NoSupp)
}

impl Conn {
    /// Makes what was written before to `dst` visible at the peer, or
    /// persistent there (`kind`); its completion says it is.
    ///
    /// # Errors
    /// `Error::NoSupp` when the peer's region or the remote peer does not
    /// allow `kind`; `Error::Inval` when `opts` has immediate data;
    /// `Error::Provider` when the post fails.
    #[inline]
    pub fn flush(&self, dst: Remote<'_>, kind: FlushType, opts: Opts) -> Result<()> {
        let (completion, context) = opts.no_imm()?;
        self.flush_at(dst.mr, dst.offset, dst.len, kind, completion, context)
    }

    raw_api! {
        /// Makes the data written before it to `dst` visible (or persistent)
        /// at the peer, as far as the connection and the region allow. An
        /// emulated flush reads a fixed 8 bytes at `dst_offset`, whatever
        /// `len`.
        ///
        /// # Errors
        /// `Error::NoSupp` when `dst`'s usage does not allow `kind`, or `kind`
        /// is persistent and the remote peer did not declare direct write to
        /// persistent memory; `Error::Provider` when the post fails
        /// (`ibv_wr_complete` natively, else `ibv_post_send`).
        #[inline]
        fn flush_at(
            &self,
            dst: &MrRemote,
            dst_offset: usize,
            len: usize,
            kind: FlushType,
            completion: Completion,
            op_context: u64,
        ) -> Result<()> {
            check(kind, self.direct_write_to_pmem.load(SeqCst), dst)?;
            let remote = post::Remote::at(dst, dst_offset);
            // A connection reads into a flush target exactly when its queue
            // pair has no native flush.
            match self.flush.as_deref() {
                None => self
                    .native
                    .flush(remote, len, kind.placement(), completion, op_context),
                Some(target) => SendWr::new(sys::IBV_WR_RDMA_READ, completion, op_context)
                    .sge(Some(target.sge()))
                    .remote(remote)
                    .post(self.qp, Kind::Read),
            }
        }
    }
}
