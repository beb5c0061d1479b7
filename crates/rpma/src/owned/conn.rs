//! The owned connection and its operations on ranges.

use std::os::fd::BorrowedFd;
use std::time::Duration;

use super::{Local, Remote};
use crate::conn::{self, ConnEvent, Wake, ATOMIC_WRITE_LEN};
use crate::cq::Cq;
use crate::error::{Error, Result};
use crate::flush::FlushType;
use crate::peer_cfg::PeerCfg;
use crate::post::Completion;
use crate::ready;

/// How an operation is posted: whether it completes with a work
/// completion always or only when it fails, the context its completion
/// carries back (`wr_id`), and immediate data for a write or a send.
///
/// ```
/// use rpma::owned::Opts;
/// let opts = Opts::signaled().context(7).imm(0xfeed);
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opts {
    completion: Completion,
    context: u64,
    imm: Option<u32>,
}

impl Opts {
    /// A completion for every outcome, context 0 (also the default).
    pub const fn signaled() -> Opts {
        Opts {
            completion: Completion::Always,
            context: 0,
            imm: None,
        }
    }

    /// A completion only when the operation fails. Operations on one
    /// connection complete in order, so a later signaled one says the
    /// earlier ones are done.
    pub const fn unsignaled() -> Opts {
        Opts {
            completion: Completion::OnError,
            ..Opts::signaled()
        }
    }

    /// The context the completion carries back (`WorkCompletion::wr_id`).
    pub const fn context(self, context: u64) -> Opts {
        Opts { context, ..self }
    }

    /// Immediate data, for a write or a send: it reaches the peer in the
    /// completion of the receive the operation consumes there.
    pub const fn imm(self, imm: u32) -> Opts {
        Opts {
            imm: Some(imm),
            ..self
        }
    }

    /// The options without immediate data: what a read, an atomic write
    /// and a flush take.
    fn no_imm(self) -> Result<(Completion, u64)> {
        match self.imm {
            None => Ok((self.completion, self.context)),
            Some(_) => Err(Error::Inval),
        }
    }
}

impl Default for Opts {
    fn default() -> Opts {
        Opts::signaled()
    }
}

/// Both ends of a one-sided operation have the same length.
fn same_len(a: usize, b: usize) -> Result<usize> {
    if a == b {
        Ok(a)
    } else {
        Err(Error::Inval)
    }
}

/// A connection, owned: it keeps its queues, its event channel and a clone
/// of its peer. Dropping it releases it without a disconnect; call
/// [`Conn::disconnect`] first and wait for [`ConnEvent::Closed`] to close
/// it in order.
///
/// The operations take their ranges source first and post one work
/// request each; the ranges were checked when they were made, the lengths
/// of the two ends here. Only what the device reports comes later, in a
/// completion on [`Conn::cq`].
#[derive(Debug)]
pub struct Conn {
    conn: Box<conn::Conn>,
}

impl Conn {
    /// Takes over a connection; its event fd becomes non-blocking, so that
    /// the waits here are bounded by their deadlines.
    pub(crate) fn new(conn: Box<conn::Conn>) -> Result<Conn> {
        ready::set_nonblocking(conn.event_fd())?;
        Ok(Conn { conn })
    }

    /// Reads `src` of the peer's region into `dst`.
    ///
    /// # Errors
    /// `Error::Inval` when the lengths differ or `opts` has immediate data;
    /// `Error::Provider` when the send queue is full or the provider
    /// refuses the post. A closed connection refuses no post: the
    /// operation completes with `WcStatus::WrFlush`.
    pub fn read(&self, src: Remote<'_>, dst: Local<'_>, opts: Opts) -> Result<()> {
        let len = same_len(src.len, dst.len)?;
        let (completion, context) = opts.no_imm()?;
        self.conn.read(
            Some(dst.mr),
            dst.offset,
            Some(src.mr),
            src.offset,
            len,
            completion,
            context,
        )
    }

    /// Writes `src` to `dst` of the peer's region; with immediate data in
    /// `opts`, the write consumes a receive at the peer.
    ///
    /// # Errors
    /// `Error::Inval` when the lengths differ; `Error::Provider` when the
    /// send queue is full or the provider refuses the post. A closed
    /// connection refuses no post, as for [`Conn::read`].
    pub fn write(&self, src: Local<'_>, dst: Remote<'_>, opts: Opts) -> Result<()> {
        let len = same_len(src.len, dst.len)?;
        self.conn.write(
            Some(dst.mr),
            dst.offset,
            Some(src.mr),
            src.offset,
            len,
            opts.completion,
            opts.imm,
            opts.context,
        )
    }

    /// Writes the 8 bytes of `value` to `dst`, 8 bytes at an 8-byte
    /// aligned offset of the peer's region, in one piece.
    ///
    /// # Errors
    /// `Error::Inval` when `dst` is not 8 bytes at an aligned offset or
    /// `opts` has immediate data; `Error::Provider` when the post fails.
    pub fn atomic_write(
        &self,
        value: &[u8; ATOMIC_WRITE_LEN],
        dst: Remote<'_>,
        opts: Opts,
    ) -> Result<()> {
        same_len(dst.len, ATOMIC_WRITE_LEN)?;
        let (completion, context) = opts.no_imm()?;
        self.conn
            .atomic_write(dst.mr, dst.offset, value, completion, context)
    }

    /// Makes what was written before to `dst` visible at the peer, or
    /// persistent there (`kind`); its completion says it is.
    ///
    /// # Errors
    /// `Error::NoSupp` when the peer's region or the remote peer does not
    /// allow `kind`; `Error::Inval` when `opts` has immediate data;
    /// `Error::Provider` when the post fails.
    pub fn flush(&self, dst: Remote<'_>, kind: FlushType, opts: Opts) -> Result<()> {
        let (completion, context) = opts.no_imm()?;
        self.conn
            .flush(dst.mr, dst.offset, dst.len, kind, completion, context)
    }

    /// Sends `src` as a message, which consumes a receive at the peer.
    ///
    /// # Errors
    /// `Error::Provider` when the send queue is full or the post fails. A
    /// closed connection refuses no post, as for [`Conn::read`].
    pub fn send(&self, src: Local<'_>, opts: Opts) -> Result<()> {
        self.conn.send(
            Some(src.mr),
            src.offset,
            src.len,
            opts.completion,
            opts.imm,
            opts.context,
        )
    }

    /// Posts `dst` for the next message of the peer; `context` comes back
    /// in the receive's completion.
    ///
    /// # Errors
    /// `Error::Provider` when the receive queue is full, or the connection
    /// receives through a shared receive queue.
    pub fn recv(&self, dst: Local<'_>, context: u64) -> Result<()> {
        self.conn.recv(Some(dst.mr), dst.offset, dst.len, context)
    }

    /// Takes the next connection event; blocks until one comes.
    ///
    /// # Errors
    /// `Error::Unknown` for an event that means nothing to a connection
    /// (consumed); `Error::Provider` when the event channel fails;
    /// `Error::NoMem` when the peer's private data cannot be copied.
    pub fn next_event(&self) -> Result<ConnEvent> {
        let got = ready::take_within(self.event_fd(), None, || self.try_next_event())?;
        Ok(got.expect("a wait without a deadline ends with an event"))
    }

    /// The next connection event if one waits, without waiting.
    ///
    /// # Errors
    /// As [`Conn::next_event`].
    pub fn try_next_event(&self) -> Result<Option<ConnEvent>> {
        self.conn.try_next_event()
    }

    /// The next connection event, waiting at most `timeout` for it: `None`
    /// when none came in time.
    ///
    /// # Errors
    /// As [`Conn::next_event`]; `Error::Provider` (`poll`) when the wait
    /// fails.
    pub fn next_event_timeout(&self, timeout: Duration) -> Result<Option<ConnEvent>> {
        ready::take_within(self.event_fd(), Some(timeout), || self.try_next_event())
    }

    /// The fd that is readable when a connection event waits.
    pub fn event_fd(&self) -> BorrowedFd<'_> {
        self.conn.event_fd()
    }

    /// Starts the disconnection (or, after [`ConnEvent::Closed`],
    /// completes it).
    ///
    /// # Errors
    /// `Error::Provider` when rdma_cm refuses.
    pub fn disconnect(&self) -> Result<()> {
        self.conn.disconnect()
    }

    /// What the peer sent with its request (incoming connections) or its
    /// accept (outgoing ones, known once the connection is established).
    ///
    /// rdma_cm does not carry the length the peer sent: on RoCE and IB
    /// the data comes zero-padded to the transport's full size (56 bytes
    /// with a request, 196 with an accept), so a protocol that sends data
    /// of varying length carries its length itself. On iWARP it is exactly
    /// what was sent.
    pub fn private_data(&self) -> Option<&[u8]> {
        self.conn.private_data()
    }

    /// Takes over the remote peer's declaration of direct write to
    /// persistent memory, which a persistent flush needs.
    pub fn apply_remote_peer_cfg(&self, cfg: &PeerCfg) {
        self.conn.apply_remote_peer_cfg(cfg);
    }

    /// The number of the connection's queue pair, which its completions
    /// carry (`WorkCompletion::qp_num`): what tells connections apart on
    /// a shared receive queue's completion queue.
    pub fn qp_num(&self) -> u32 {
        self.conn.qp_num()
    }

    /// The completion queue of the operations (and of the receives, unless
    /// the connection has a receive queue of its own: [`Conn::rcq`]).
    pub fn cq(&self) -> &Cq {
        self.conn.cq()
    }

    /// The connection's own receive completion queue, if it has one.
    pub fn rcq(&self) -> Option<&Cq> {
        self.conn.rcq()
    }

    /// Waits on the shared completion channel, when the connection has one.
    ///
    /// # Errors
    /// `Error::NotSharedChnl` without a shared channel;
    /// `Error::NoCompletion` when no queue reported (nothing came while
    /// the channel's fd, [`Cq::fd`] of either queue, is non-blocking) or
    /// the channel failed; `Error::Unknown` when the channel names a CQ
    /// that is not the connection's.
    pub fn wait(&self) -> Result<Wake<'_>> {
        self.conn.wait()
    }

    /// Releases the connection and reports the first failure (dropping it
    /// does the same and ignores failures).
    ///
    /// # Errors
    /// `Error::Provider` when a part cannot be released.
    pub fn delete(self) -> Result<()> {
        self.conn.delete()
    }
}
