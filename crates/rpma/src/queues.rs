//! The queues of a connection (its CQs, shared completion channel and QP)
//! and the cm id they sit on: built with its request, handed on to the
//! connection, and released by whichever owns them last. Both `conn_req` and `conn` use this module, so
//! neither needs the other for it.

use crate::conn_cfg::ConnSettings;
use crate::cq::Cq;
use crate::error::{provider_failed_with, Error, FirstError, Result};
use crate::log::{Level, Op};
use crate::native::QpNative;
use crate::peer::Peer;
use crate::srq::Srq;
use crate::sys;
use crate::verbs::{CmId, CompChannel, EventChannel};

/// The queues of one connection: the main CQ, the optional receive CQ, the
/// optional shared completion channel, and the QP on the cm id.
#[derive(Debug)]
pub(crate) struct Queues {
    pub(crate) cq: Cq,
    pub(crate) rcq: Option<Cq>,
    pub(crate) shared: Option<CompChannel>,
    /// The native operations the QP has.
    pub(crate) native: QpNative,
}

impl Queues {
    /// Builds the CQs and the QP of `id` from a configuration snapshot.
    #[inline]
    pub(crate) fn build(peer: &Peer, id: &CmId, s: &ConnSettings) -> Result<Queues> {
        let srq = s.srq.as_ref();
        let srq_rcq = srq.and_then(|q| q.rcq());
        if s.shared_compl_channel && srq_rcq.is_some() {
            rpma_log!(
                Level::Error,
                Op::BuildQueues,
                "connection shared completion channel cannot be used when the shared RQ has its own RCQ"
            );
            return Err(Error::inval(
                "cfg: a shared completion channel with a shared RQ that has its own RCQ",
            ));
        }
        let ctx = id.verbs();
        let shared = match s.shared_compl_channel {
            true => Some(CompChannel::new(ctx)?),
            false => None,
        };
        let cq = Cq::new(ctx, s.cq_size, shared.as_ref())?;
        let rcq = match srq_rcq.is_none() && s.rcq_size > 0 {
            true => Some(Cq::new(ctx, s.rcq_size, shared.as_ref())?),
            false => None,
        };
        let recv_cq = srq_rcq.or(rcq.as_ref()).unwrap_or(&cq);
        let mut attr = sys::ibv_qp_init_attr_ex {
            qp_type: sys::IBV_QPT_RC,
            send_cq: cq.as_ptr(),
            recv_cq: recv_cq.as_ptr(),
            srq: srq.map_or(std::ptr::null_mut(), |q| q.as_ptr()),
            cap: sys::ibv_qp_cap {
                max_send_wr: s.sq_size,
                max_recv_wr: s.rq_size,
                max_send_sge: 1,
                max_recv_sge: 1,
                // An emulated atomic write is an 8-byte inline write.
                max_inline_data: 8,
            },
            sq_sig_all: 0,
            comp_mask: sys::IBV_QP_INIT_ATTR_PD,
            pd: peer.pd(),
            ..Default::default()
        };
        let native = create_qp(peer, id, &mut attr)?;
        Ok(Queues {
            cq,
            rcq,
            shared,
            native,
        })
    }
}

/// Creates the QP, asking for the native operations the peer's device has
/// (as the C library does). A provider older than the kernel does not know
/// them and refuses the QP; it is then made again without them, and the
/// connection emulates (the C library fails the connection instead).
fn create_qp(peer: &Peer, id: &CmId, attr: &mut sys::ibv_qp_init_attr_ex) -> Result<QpNative> {
    let asked = peer.native();
    let ops = asked.send_ops_flags();
    if ops == 0 {
        id.create_qp(attr)?;
        return Ok(QpNative::default());
    }
    attr.comp_mask |= sys::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    attr.send_ops_flags = ops;
    match id.try_create_qp(attr) {
        // SAFETY: the QP was just created with exactly these send_ops_flags.
        Ok(()) => Ok(unsafe { QpNative::of(id.qp(), asked) }),
        Err(libc::EOPNOTSUPP | libc::EINVAL) => {
            rpma_log!(
                Level::Info,
                Op::CreateQp,
                "The provider does not support native flush or atomic write - the emulations will be used for this connection."
            );
            attr.comp_mask &= !sys::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
            attr.send_ops_flags = 0;
            id.create_qp(attr)?;
            Ok(QpNative::default())
        }
        Err(e) => Err(provider_failed_with("rdma_create_qp_ex", e)),
    }
}

/// A cm id with the queues built on it, the event channel it reports to,
/// the shared receive queue its queue pair may receive through and the
/// peer whose domain holds the queue pair: what a request hands on to its
/// connection, and what the last of the two releases.
#[derive(Debug)]
pub(crate) struct Parts {
    pub(crate) id: CmId,
    pub(crate) queues: Queues,
    pub(crate) peer: Peer,
    pub(crate) srq: Option<Srq>,
    /// The id's own channel. An incoming request's id moves here from its
    /// endpoint's as soon as the request is taken: it must not depend on
    /// the endpoint (whose shutdown destroys its channel, and every id
    /// still on it) nor hand its events to the endpoint's waiter.
    pub(crate) evch: EventChannel,
}

impl Parts {
    /// Releases everything in the C library's order: the QP, the CQs, a
    /// reject when `reject`, the id, the shared channel the CQs reported
    /// to, the id's event channel, the shared receive queue and last the
    /// peer (each released here when the program deleted it first). Every
    /// step is attempted; the first error is returned.
    pub(crate) fn release(self, reject: bool) -> Result<()> {
        let Parts {
            id,
            queues,
            evch,
            peer,
            srq,
        } = self;
        let mut errors = FirstError::default();
        id.destroy_qp();
        if let Some(rcq) = queues.rcq {
            errors.note(rcq.destroy());
        }
        errors.note(queues.cq.destroy());
        if reject {
            errors.note(id.reject());
        }
        errors.note(id.destroy());
        if let Some(ch) = queues.shared {
            errors.note(ch.destroy());
        }
        drop(evch);
        if let Some(srq) = srq {
            errors.note(srq.release());
        }
        errors.note(peer.release());
        errors.result()
    }
}
