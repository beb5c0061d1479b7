//! The data path of a connection: one-sided operations on the peer's
//! memory, messages, and waiting on a shared completion channel.
//!
//! Every operation builds one work request on the stack and posts it. The
//! operations take checked ranges ([`Local`], [`Remote`]) and [`Opts`];
//! the `*_at` forms are the C API's: regions, offsets and a length, with
//! no check against the regions (the device does that and reports a
//! violation as an error completion, as with the C library), and a length
//! past 32 bits cut to its low 32 bits, which is what a work request
//! carries. The context comes back in the completion's `wr_id` (the C API
//! passes its `void *` there as `(uintptr_t)op_context`).

use super::Conn;
use crate::cq::Cq;
use crate::error::{Error, Result};
use crate::log::{Level, Op};
use crate::mr::{MrLocal, MrRemote};
use crate::post::{self, local_end, one_sided_ends, Completion, Kind, SendWr};
use crate::range::{Local, Remote};
use crate::sys;

/// Bytes written by an atomic write, and the alignment of its target.
pub const ATOMIC_WRITE_LEN: usize = 8;

/// How an operation is posted: whether it completes with a work
/// completion always or only when it fails, the context its completion
/// carries back (`wr_id`), and immediate data for a write or a send.
///
/// ```
/// use rpma::conn::Opts;
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
    pub(crate) fn no_imm(self) -> Result<(Completion, u64)> {
        match self.imm {
            None => Ok((self.completion, self.context)),
            Some(_) => Err(Error::inval(
                "opts: immediate data, which this operation does not carry",
            )),
        }
    }
}

impl Default for Opts {
    fn default() -> Opts {
        Opts::signaled()
    }
}

/// Both ends of a one-sided operation have the same length; `differ` is
/// the reason when they do not.
#[inline]
fn same_len(a: usize, b: usize, differ: &'static str) -> Result<usize> {
    if a == b {
        Ok(a)
    } else {
        Err(Error::inval(differ))
    }
}

/// What woke a wait on the shared completion channel.
///
/// ```
/// use rpma::{Conn, Error, WorkCompletion};
///
/// /// One completion of a connection made with a shared completion channel
/// /// (`ConnCfg::set_compl_channel(true)`), from whichever queue has one.
/// fn next(conn: &Conn) -> rpma::Result<WorkCompletion> {
///     let mut wc = [WorkCompletion::default()];
///     loop {
///         for cq in [Some(conn.cq()), conn.rcq()].into_iter().flatten() {
///             match cq.poll(&mut wc) {
///                 Ok(_) => return Ok(wc[0]),
///                 Err(Error::NoCompletion) => {}
///                 Err(e) => return Err(e),
///             }
///         }
///         let wake = conn.wait()?;
///         wake.rearmed?;
///         println!("the {} CQ reported", if wake.is_rcq { "receive" } else { "main" });
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Wake<'a> {
    /// The queue that has completions.
    pub cq: &'a Cq,
    /// Whether it is the receive CQ.
    pub is_rcq: bool,
    /// Whether the queue could be armed again; if not, the channel will not
    /// report its next completions.
    pub rearmed: Result<()>,
}

impl Conn {
    /// Reads `src` of the peer's region into `dst`.
    ///
    /// # Errors
    /// `Error::Inval` when the lengths differ or `opts` has immediate data;
    /// `Error::Provider` when the send queue is full or the provider
    /// refuses the post. A closed connection refuses no post: the
    /// operation completes with `WcStatus::WrFlush`.
    #[inline]
    pub fn read(&self, src: Remote<'_>, dst: Local<'_>, opts: Opts) -> Result<()> {
        let len = same_len(src.len, dst.len, "dst: not as long as src")?;
        let (completion, context) = opts.no_imm()?;
        self.read_at(
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
    #[inline]
    pub fn write(&self, src: Local<'_>, dst: Remote<'_>, opts: Opts) -> Result<()> {
        let len = same_len(src.len, dst.len, "dst: not as long as src")?;
        self.write_at(
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
    #[inline]
    pub fn atomic_write(
        &self,
        value: &[u8; ATOMIC_WRITE_LEN],
        dst: Remote<'_>,
        opts: Opts,
    ) -> Result<()> {
        same_len(dst.len, ATOMIC_WRITE_LEN, "dst: not 8 bytes long")?;
        let (completion, context) = opts.no_imm()?;
        self.atomic_write_at(dst.mr, dst.offset, value, completion, context)
    }

    /// Sends `src` as a message, which consumes a receive at the peer.
    ///
    /// # Errors
    /// `Error::Provider` when the send queue is full or the post fails. A
    /// closed connection refuses no post, as for [`Conn::read`].
    #[inline]
    pub fn send(&self, src: Local<'_>, opts: Opts) -> Result<()> {
        self.send_at(
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
    #[inline]
    pub fn recv(&self, dst: Local<'_>, context: u64) -> Result<()> {
        self.recv_at(Some(dst.mr), dst.offset, dst.len, context)
    }

    raw_api! {
        /// Reads `len` bytes at `src_offset` of the remote region into
        /// `dst_offset` of a local one. Without both regions it is the 0-byte
        /// read (offsets and length 0), which orders like any other read; on
        /// iWARP it is posted with one empty scatter/gather entry, since siw
        /// would otherwise reuse the last request's.
        ///
        /// # Errors
        /// `Error::Inval` when only one region is given, or neither with a
        /// non-zero offset or length; `Error::Provider` when `ibv_post_send`
        /// fails (the send queue is full, or the provider refuses the post).
        #[allow(clippy::too_many_arguments)]
        #[inline]
        fn read_at(
            &self,
            dst: Option<&MrLocal>,
            dst_offset: usize,
            src: Option<&MrRemote>,
            src_offset: usize,
            len: usize,
            completion: Completion,
            op_context: u64,
        ) -> Result<()> {
            let (sge, remote) = one_sided_ends(dst, dst_offset, src, src_offset, len)?;
            SendWr::new(sys::IBV_WR_RDMA_READ, completion, op_context)
                .sge(post::entry_for(sge, self.iwarp))
                .remote(remote)
                .post(self.qp, Kind::Read)
        }
    }

    raw_api! {
        /// Writes `len` bytes at `src_offset` of a local region to `dst_offset`
        /// of the remote one; `imm` makes it a write with immediate data, which
        /// consumes a receive at the peer.
        ///
        /// # Errors
        /// As [`Conn::read_at`].
        #[allow(clippy::too_many_arguments)]
        #[inline]
        fn write_at(
            &self,
            dst: Option<&MrRemote>,
            dst_offset: usize,
            src: Option<&MrLocal>,
            src_offset: usize,
            len: usize,
            completion: Completion,
            imm: Option<u32>,
            op_context: u64,
        ) -> Result<()> {
            let (sge, remote) = one_sided_ends(src, src_offset, dst, dst_offset, len)?;
            let wr = match imm {
                None => SendWr::new(sys::IBV_WR_RDMA_WRITE, completion, op_context),
                Some(imm) => {
                    SendWr::new(sys::IBV_WR_RDMA_WRITE_WITH_IMM, completion, op_context).imm(imm)
                }
            };
            wr.sge(sge).remote(remote).post(self.qp, Kind::Write)
        }
    }

    raw_api! {
        /// Writes 8 bytes to an 8-byte aligned offset of the remote region in
        /// one piece: a native RDMA ATOMIC WRITE where the QP has it; otherwise
        /// an inline RDMA write (so `src` needs no registration) fenced behind
        /// earlier reads, which keeps it after the flushes posted before it.
        ///
        /// # Errors
        /// `Error::Inval` when `dst_offset` is not a multiple of 8;
        /// `Error::Provider` when the post fails (`ibv_wr_complete` natively,
        /// else `ibv_post_send`).
        #[inline]
        fn atomic_write_at(
            &self,
            dst: &MrRemote,
            dst_offset: usize,
            src: &[u8; ATOMIC_WRITE_LEN],
            completion: Completion,
            op_context: u64,
        ) -> Result<()> {
            if dst_offset % ATOMIC_WRITE_LEN != 0 {
                return Err(Error::inval("dst_offset: not a multiple of 8"));
            }
            let remote = post::Remote::at(dst, dst_offset);
            if self.native.atomic_write {
                return self
                    .native
                    .atomic_write(remote, src, completion, op_context);
            }
            let sge = sys::ibv_sge {
                addr: src.as_ptr() as u64,
                length: ATOMIC_WRITE_LEN as u32,
                lkey: 0,
            };
            SendWr::new(sys::IBV_WR_RDMA_WRITE, completion, op_context)
                .extra_flags(sys::IBV_SEND_INLINE | sys::IBV_SEND_FENCE)
                .sge(Some(sge))
                .remote(remote)
                .post(self.qp, Kind::AtomicWrite)
        }
    }

    raw_api! {
        /// Sends `len` bytes at `offset` of `src` (nothing: a 0-byte message),
        /// with immediate data when `imm` is given.
        ///
        /// # Errors
        /// `Error::Inval` when `src` is `None` but `offset` or `len` is not 0;
        /// `Error::Provider` when `ibv_post_send` fails (the send queue is full,
        /// or the provider refuses the post).
        #[inline]
        fn send_at(
            &self,
            src: Option<&MrLocal>,
            offset: usize,
            len: usize,
            completion: Completion,
            imm: Option<u32>,
            op_context: u64,
        ) -> Result<()> {
            let sge = local_end(src, offset, len, "src: none, but offset or len is not 0")?;
            let wr = match imm {
                None => SendWr::new(sys::IBV_WR_SEND, completion, op_context),
                Some(imm) => SendWr::new(sys::IBV_WR_SEND_WITH_IMM, completion, op_context).imm(imm),
            };
            wr.sge(sge).post(self.qp, Kind::Send)
        }
    }

    raw_api! {
        /// Posts a buffer for the next message of the peer (nothing: a 0-byte
        /// buffer, which on iWARP is one empty scatter/gather entry, since
        /// libsiw refuses a receive without one).
        ///
        /// # Errors
        /// `Error::Inval` when `dst` is `None` but `offset` or `len` is not 0;
        /// `Error::Provider` when `ibv_post_recv` fails (the receive queue is
        /// full), or when the connection uses an SRQ and so has no receive
        /// queue of its own: the library refuses that post itself, as rxe
        /// would (`EINVAL`), since libsiw crashes on it.
        #[inline]
        fn recv_at(
            &self,
            dst: Option<&MrLocal>,
            offset: usize,
            len: usize,
            op_context: u64,
        ) -> Result<()> {
            let queue = post::RecvQueue::Qp(self.qp);
            post::recv_into(queue, dst, offset, len, self.iwarp, op_context)
        }
    }

    /// Blocks until a queue of the connection reports to the shared
    /// completion channel, acknowledges that one event and arms the queue
    /// again.
    ///
    /// # Errors
    /// `Error::NotSharedChnl` when the connection has no shared channel;
    /// `Error::NoCompletion` when `ibv_get_cq_event` fails (nothing came on
    /// a non-blocking fd, or the channel failed); `Error::Unknown` when the
    /// event names a CQ that is not the connection's. A failed re-arm is
    /// no error here: [`Wake::rearmed`] holds it.
    pub fn wait(&self) -> Result<Wake<'_>> {
        let channel = self.queues().shared.as_ref().ok_or(Error::NotSharedChnl)?;
        let woken = channel.next_cq_event().ok_or(Error::NoCompletion)?;
        let (cq, is_rcq) = if woken == self.cq().as_ptr() {
            (self.cq(), false)
        } else if let Some(rcq) = self.rcq().filter(|r| r.as_ptr() == woken) {
            (rcq, true)
        } else {
            rpma_log!(
                Level::Error,
                Op::ConnWait,
                "ibv_get_cq_event() returned unknown CQ"
            );
            return Err(Error::Unknown);
        };
        cq.took_event();
        Ok(Wake {
            cq,
            is_rcq,
            rearmed: cq.arm(),
        })
    }
}
