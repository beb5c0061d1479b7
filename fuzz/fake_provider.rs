//! A stand-in for librdmacm and libibverbs, so that the library's own code
//! for connection events runs without a device and on events the fuzzer
//! writes.
//!
//! Each function below has the name and C signature of the rdma-core
//! function the library calls. A definition in the executable takes
//! precedence over the shared libraries at link time, so the library
//! (linked as an rlib, unchanged) calls these. They hand out zeroed objects
//! of the rdma-core types on the heap and count them; `rdma_get_cm_event`
//! delivers the events queued with [`push_event`], their private data in a
//! heap buffer of exactly `private_data_len` bytes that `rdma_ack_cm_event`
//! frees. So AddressSanitizer reports any read past the length rdma_cm
//! gave, and any use of the event's data after the library acked it. An
//! address or route resolution of an id with a channel puts its RESOLVED
//! event first in line, as rdma_cm delivers it on the id's channel.
//!
//! A call the library makes in a way rdma-core forbids (destroying an id
//! that still has a QP, acking an event twice, a second QP on an id)
//! aborts: that is a finding.
//!
//! Only the functions the targets' paths reach are here. Should the library
//! start calling another rdma-core function on these paths, the real one
//! would get these stand-in objects and crash: add its stand-in first.
//! Inline verbs go through the context's ops (req_notify_cq, post_send are
//! set; ibv_query_device_ex falls back to ibv_query_device).

#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr;
use std::sync::OnceLock;

use rpma::sys::*;

/// One connection event as rdma_cm would deliver it.
#[derive(Debug, Clone)]
pub struct Event {
    pub kind: rdma_cm_event_type,
    pub private_data: PrivateData,
}

/// The event's `param.conn.private_data` and `private_data_len`.
#[derive(Debug, Clone)]
pub enum PrivateData {
    /// A buffer of exactly these bytes (at most 255: the length is a u8).
    Bytes(Vec<u8>),
    /// A NULL pointer with this length.
    Null(u8),
}

impl PrivateData {
    /// What the library must keep of it: the bytes when there are some.
    pub fn stored(&self) -> Option<&[u8]> {
        match self {
            PrivateData::Bytes(b) if !b.is_empty() => Some(b),
            _ => None,
        }
    }
}

/// A work request as the library posted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    pub wr_id: u64,
    pub opcode: ibv_wr_opcode,
    pub send_flags: c_uint,
    pub remote_addr: u64,
    pub rkey: u32,
    /// Network byte order, as in the work request.
    pub imm_data: u32,
    /// (addr, length, lkey) of each entry.
    pub sges: Vec<(u64, u32, u32)>,
    /// The bytes of an inline request.
    pub inline_data: Option<Vec<u8>>,
}

#[derive(Default)]
struct State {
    events: VecDeque<Event>,
    /// Events handed out and not yet acked, with their private data.
    unacked: Vec<(*mut rdma_cm_event, Option<Box<[u8]>>)>,
    /// Objects handed out and not yet released.
    live: isize,
    /// The id whose events a channel reports (created on it or migrated).
    channel_ids: Vec<(*mut rdma_event_channel, *mut rdma_cm_id)>,
    /// Ids rdma_listen was called on.
    listeners: Vec<*mut rdma_cm_id>,
    /// Private data the library sent with connect/accept.
    sent: Vec<Vec<u8>>,
    /// Work requests the library posted.
    posted: Vec<Posted>,
    next_qp_num: u32,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

/// Ends the process for a misuse of the provider API (a finding).
fn misuse(what: &str) -> ! {
    eprintln!("fake provider: {what}");
    std::process::abort()
}

fn new_obj<T: Default>(init: impl FnOnce(&mut T)) -> *mut T {
    let mut obj = Box::<T>::default();
    init(&mut obj);
    with(|s| s.live += 1);
    Box::into_raw(obj)
}

/// # Safety
/// `p` came from [`new_obj`] and is released once.
unsafe fn free_obj<T>(p: *mut T, what: &str) {
    if p.is_null() {
        misuse(&format!("{what}: NULL"));
    }
    with(|s| s.live -= 1);
    // SAFETY: caller contract (a double release is an ASan report).
    drop(unsafe { Box::from_raw(p) });
}

/// Reads `len` bytes at `p` (an over-read is an ASan report).
///
/// # Safety
/// `p` is NULL or readable for `len` bytes.
unsafe fn read_bytes(p: *const c_void, len: u8) -> Vec<u8> {
    if p.is_null() || len == 0 {
        return Vec::new();
    }
    // SAFETY: caller contract.
    unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len as usize) }.to_vec()
}

/// The device context every id resolves to; lives for the process.
pub fn context() -> *mut ibv_context {
    static CTX: OnceLock<usize> = OnceLock::new();
    *CTX.get_or_init(|| {
        let device = Box::leak(Box::<ibv_device>::default());
        device.transport_type = IBV_TRANSPORT_IB;
        let ctx = Box::leak(Box::<ibv_context>::default());
        ctx.device = device;
        ctx.ops.req_notify_cq = Some(req_notify_cq);
        ctx.ops.post_send = Some(post_send);
        // libibverbs never leaves an op NULL (the library calls the
        // data-path ops unchecked, as verbs.h does): the rest get its
        // dummies' answer
        ctx.ops.post_recv = Some(post_recv);
        ctx.ops.post_srq_recv = Some(post_srq_recv);
        ctx.ops.poll_cq = Some(poll_cq);
        // abi_compat stays NULL: not an extended context, so the inline
        // ibv_query_device_ex falls back to ibv_query_device below.
        ctx as *mut ibv_context as usize
    }) as *mut ibv_context
}

/// Queues an event for the next rdma_get_cm_event.
pub fn push_event(ev: Event) {
    if let PrivateData::Bytes(b) = &ev.private_data {
        assert!(b.len() <= 255, "private_data_len is a u8");
    }
    with(|s| s.events.push_back(ev));
}

/// The private data the library sent, oldest first, since the last call.
pub fn take_sent() -> Vec<Vec<u8>> {
    with(|s| std::mem::take(&mut s.sent))
}

/// The work requests posted since the last call.
pub fn take_posted() -> Vec<Posted> {
    with(|s| std::mem::take(&mut s.posted))
}

/// Forgets queued events (the library may legitimately not take them all).
pub fn clear_events() {
    with(|s| s.events.clear());
}

/// Asserts that everything handed out was released and every event acked.
pub fn assert_all_released() {
    with(|s| {
        assert!(
            s.unacked.is_empty(),
            "{} event(s) never acked",
            s.unacked.len()
        );
        assert_eq!(s.live, 0, "provider objects never released");
        assert!(s.channel_ids.is_empty(), "event channels never destroyed");
    });
}

fn id_of_channel(ch: *mut rdma_event_channel) -> *mut rdma_cm_id {
    with(|s| {
        s.channel_ids
            .iter()
            .rev()
            .find(|(c, _)| *c == ch)
            .map_or(ptr::null_mut(), |(_, id)| *id)
    })
}

fn set_channel_id(ch: *mut rdma_event_channel, id: *mut rdma_cm_id) {
    with(|s| {
        s.channel_ids.retain(|(_, i)| *i != id);
        if !ch.is_null() {
            s.channel_ids.push((ch, id));
        }
    });
}

// ---- libibverbs -----------------------------------------------------------

unsafe extern "C" fn req_notify_cq(_cq: *mut ibv_cq, _solicited_only: c_int) -> c_int {
    0
}

unsafe extern "C" fn post_recv(
    _qp: *mut ibv_qp,
    _wr: *mut ibv_recv_wr,
    _bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    EOPNOTSUPP
}

unsafe extern "C" fn post_srq_recv(
    _srq: *mut ibv_srq,
    _wr: *mut ibv_recv_wr,
    _bad_wr: *mut *mut ibv_recv_wr,
) -> c_int {
    EOPNOTSUPP
}

unsafe extern "C" fn poll_cq(_cq: *mut ibv_cq, _n: c_int, _wc: *mut ibv_wc) -> c_int {
    -EOPNOTSUPP
}

/// EOPNOTSUPP on Linux, what libibverbs's dummy ops answer.
const EOPNOTSUPP: c_int = 95;

/// ibv_post_send (inline, through the context's ops): records each work
/// request of the list, reading its entries (and inline bytes) exactly.
unsafe extern "C" fn post_send(
    _qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    _bad_wr: *mut *mut ibv_send_wr,
) -> c_int {
    let mut next = wr;
    while !next.is_null() {
        // SAFETY: the caller's list of readable work requests.
        let w = unsafe { &*next };
        let sges: Vec<_> = (0..w.num_sge.max(0) as usize)
            // SAFETY: num_sge readable entries at sg_list.
            .map(|i| unsafe { *w.sg_list.add(i) })
            .map(|s| (s.addr, s.length, s.lkey))
            .collect();
        let inline_data = (w.send_flags & IBV_SEND_INLINE != 0).then(|| {
            sges.iter()
                .flat_map(|&(addr, len, _)| {
                    // SAFETY: inline data is read from the caller's memory
                    // during the call.
                    unsafe { std::slice::from_raw_parts(addr as usize as *const u8, len as usize) }
                        .to_vec()
                })
                .collect()
        });
        // SAFETY: plain integer fields of the unions.
        let (rdma, imm) = unsafe { (w.wr.rdma, w.__bindgen_anon_1.imm_data) };
        let posted = Posted {
            wr_id: w.wr_id,
            opcode: w.opcode,
            send_flags: w.send_flags,
            remote_addr: rdma.remote_addr,
            rkey: rdma.rkey,
            imm_data: imm,
            sges,
            inline_data,
        };
        with(|s| s.posted.push(posted));
        next = w.next;
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_query_device(
    _context: *mut ibv_context,
    device_attr: *mut ibv_device_attr,
) -> c_int {
    // SAFETY: the caller passes a writable attribute struct.
    unsafe { device_attr.write(ibv_device_attr::default()) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    new_obj(|pd: &mut ibv_pd| pd.context = context)
}

#[no_mangle]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    // SAFETY: a PD from ibv_alloc_pd.
    unsafe { free_obj(pd, "ibv_dealloc_pd") };
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    _access: c_int,
) -> *mut ibv_mr {
    new_obj(|mr: &mut ibv_mr| {
        // SAFETY: a live PD.
        mr.context = unsafe { (*pd).context };
        mr.pd = pd;
        mr.addr = addr;
        mr.length = length;
        mr.lkey = 0x1111;
        mr.rkey = 0x2222;
    })
}

#[no_mangle]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    // SAFETY: an MR from ibv_reg_mr.
    unsafe { free_obj(mr, "ibv_dereg_mr") };
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_create_comp_channel(
    context: *mut ibv_context,
) -> *mut ibv_comp_channel {
    new_obj(|ch: &mut ibv_comp_channel| {
        ch.context = context;
        ch.fd = -1;
    })
}

#[no_mangle]
pub unsafe extern "C" fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int {
    // SAFETY: a channel from ibv_create_comp_channel.
    unsafe { free_obj(channel, "ibv_destroy_comp_channel") };
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    _comp_vector: c_int,
) -> *mut ibv_cq {
    new_obj(|cq: &mut ibv_cq| {
        cq.context = context;
        cq.channel = channel;
        cq.cq_context = cq_context;
        cq.cqe = cqe;
    })
}

#[no_mangle]
pub unsafe extern "C" fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int {
    // SAFETY: a CQ from ibv_create_cq.
    unsafe { free_obj(cq, "ibv_destroy_cq") };
    0
}

#[no_mangle]
pub unsafe extern "C" fn ibv_get_cq_event(
    _channel: *mut ibv_comp_channel,
    _cq: *mut *mut ibv_cq,
    _cq_context: *mut *mut c_void,
) -> c_int {
    // SAFETY: errno of the calling thread.
    unsafe { *libc::__errno_location() = libc::EAGAIN };
    -1
}

#[no_mangle]
pub unsafe extern "C" fn ibv_ack_cq_events(_cq: *mut ibv_cq, _nevents: c_uint) {}

// ---- librdmacm ------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn rdma_create_event_channel() -> *mut rdma_event_channel {
    let ch = new_obj(|ch: &mut rdma_event_channel| ch.fd = -1);
    with(|s| s.channel_ids.push((ch, ptr::null_mut())));
    ch
}

#[no_mangle]
pub unsafe extern "C" fn rdma_destroy_event_channel(channel: *mut rdma_event_channel) {
    with(|s| {
        if s.channel_ids
            .iter()
            .any(|(c, id)| *c == channel && !id.is_null())
        {
            misuse("rdma_destroy_event_channel: an id still uses the channel");
        }
        s.channel_ids.retain(|(c, _)| *c != channel);
    });
    // SAFETY: a channel from rdma_create_event_channel.
    unsafe { free_obj(channel, "rdma_destroy_event_channel") };
}

#[no_mangle]
pub unsafe extern "C" fn rdma_create_id(
    channel: *mut rdma_event_channel,
    id: *mut *mut rdma_cm_id,
    context: *mut c_void,
    ps: rdma_port_space,
) -> c_int {
    let new = new_obj(|i: &mut rdma_cm_id| {
        i.channel = channel;
        i.context = context;
        i.ps = ps;
    });
    set_channel_id(channel, new);
    // SAFETY: the caller passes a writable pointer.
    unsafe { id.write(new) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_destroy_id(id: *mut rdma_cm_id) -> c_int {
    // SAFETY: a live id.
    if !unsafe { (*id).qp }.is_null() {
        misuse("rdma_destroy_id: the id still has a QP");
    }
    set_channel_id(ptr::null_mut(), id);
    with(|s| s.listeners.retain(|l| *l != id));
    // SAFETY: an id from rdma_create_id or a connect-request event.
    unsafe { free_obj(id, "rdma_destroy_id") };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_getaddrinfo(
    node: *const c_char,
    service: *const c_char,
    _hints: *const rdma_addrinfo,
    res: *mut *mut rdma_addrinfo,
) -> c_int {
    // SAFETY: NUL-terminated strings or NULL (rdma_getaddrinfo's contract).
    unsafe {
        for s in [node, service] {
            if !s.is_null() {
                std::hint::black_box(CStr::from_ptr(s).to_bytes().len());
            }
        }
    }
    let addr = || new_obj(|_: &mut sockaddr| {});
    let ai = new_obj(|ai: &mut rdma_addrinfo| {
        ai.ai_src_addr = addr();
        ai.ai_dst_addr = addr();
    });
    // SAFETY: the caller passes a writable pointer.
    unsafe { res.write(ai) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_freeaddrinfo(res: *mut rdma_addrinfo) {
    // SAFETY: a list from rdma_getaddrinfo, released once.
    unsafe {
        free_obj((*res).ai_src_addr, "rdma_freeaddrinfo src");
        free_obj((*res).ai_dst_addr, "rdma_freeaddrinfo dst");
        free_obj(res, "rdma_freeaddrinfo");
    }
}

#[no_mangle]
pub unsafe extern "C" fn rdma_bind_addr(id: *mut rdma_cm_id, _addr: *mut sockaddr) -> c_int {
    // SAFETY: a live id.
    unsafe { (*id).verbs = context() };
    0
}

/// A resolution step of `id` has succeeded: an id on a channel learns it
/// from the channel, as from rdma_cm, before any event queued for the
/// target (a synchronous id, without a channel here, has waited already).
fn resolved(id: *mut rdma_cm_id, kind: rdma_cm_event_type) {
    // SAFETY: a live id.
    if !unsafe { (*id).channel }.is_null() {
        let private_data = PrivateData::Null(0);
        with(|s| s.events.push_front(Event { kind, private_data }));
    }
}

#[no_mangle]
pub unsafe extern "C" fn rdma_resolve_addr(
    id: *mut rdma_cm_id,
    _src_addr: *mut sockaddr,
    _dst_addr: *mut sockaddr,
    _timeout_ms: c_int,
) -> c_int {
    // SAFETY: a live id.
    unsafe { (*id).verbs = context() };
    resolved(id, RDMA_CM_EVENT_ADDR_RESOLVED);
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_resolve_route(id: *mut rdma_cm_id, _timeout_ms: c_int) -> c_int {
    resolved(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_listen(id: *mut rdma_cm_id, _backlog: c_int) -> c_int {
    with(|s| s.listeners.push(id));
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_create_qp_ex(
    id: *mut rdma_cm_id,
    attr: *mut ibv_qp_init_attr_ex,
) -> c_int {
    // SAFETY: a live id and a readable attribute struct.
    let (id, attr) = unsafe { (&mut *id, &*attr) };
    if !id.qp.is_null() {
        misuse("rdma_create_qp_ex: the id already has a QP");
    }
    let num = with(|s| {
        s.next_qp_num += 1;
        s.next_qp_num
    });
    id.qp = new_obj(|qp: &mut ibv_qp| {
        qp.context = id.verbs;
        qp.pd = attr.pd;
        qp.send_cq = attr.send_cq;
        qp.recv_cq = attr.recv_cq;
        qp.srq = attr.srq;
        qp.qp_num = num;
        qp.qp_type = attr.qp_type;
    });
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_destroy_qp(id: *mut rdma_cm_id) {
    // SAFETY: a live id.
    let id = unsafe { &mut *id };
    if !id.qp.is_null() {
        // SAFETY: the QP from rdma_create_qp_ex.
        unsafe { free_obj(id.qp, "rdma_destroy_qp") };
        id.qp = ptr::null_mut();
    }
}

/// Records the private data the library sends (reading exactly the bytes
/// it declared).
///
/// # Safety
/// `param` is NULL or a readable rdma_conn_param whose data is readable.
unsafe fn record_sent(param: *const rdma_conn_param) {
    // SAFETY: caller contract.
    if let Some(p) = unsafe { param.as_ref() } {
        // SAFETY: caller contract.
        let bytes = unsafe { read_bytes(p.private_data, p.private_data_len) };
        with(|s| s.sent.push(bytes));
    }
}

#[no_mangle]
pub unsafe extern "C" fn rdma_connect(_id: *mut rdma_cm_id, param: *mut rdma_conn_param) -> c_int {
    // SAFETY: librdmacm's contract, which the library must keep.
    unsafe { record_sent(param) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_accept(_id: *mut rdma_cm_id, param: *mut rdma_conn_param) -> c_int {
    // SAFETY: as above.
    unsafe { record_sent(param) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_reject(
    _id: *mut rdma_cm_id,
    private_data: *const c_void,
    private_data_len: u8,
) -> c_int {
    // SAFETY: as above.
    std::hint::black_box(unsafe { read_bytes(private_data, private_data_len) });
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_disconnect(_id: *mut rdma_cm_id) -> c_int {
    0
}

/// The ACK timeout a connection sets: nothing to do for a fake queue pair.
#[no_mangle]
pub unsafe extern "C" fn rdma_set_option(
    _id: *mut rdma_cm_id,
    _level: c_int,
    _optname: c_int,
    _optval: *mut c_void,
    _optlen: usize,
) -> c_int {
    0
}

/// The receiver-not-ready timer a connection sets once its queue pair is
/// ready: it must name a QP this stand-in made, and only that attribute.
#[no_mangle]
pub unsafe extern "C" fn ibv_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
) -> c_int {
    if qp.is_null() || attr.is_null() {
        misuse("ibv_modify_qp: no QP or no attributes");
    }
    if attr_mask != IBV_QP_MIN_RNR_TIMER as c_int {
        misuse("ibv_modify_qp: an attribute other than the RNR timer");
    }
    // SAFETY: checked non-NULL; the library passes a live QP and a
    // readable attribute struct.
    let (qp, timer) = unsafe { (&*qp, (*attr).min_rnr_timer) };
    std::hint::black_box((qp.qp_num, timer));
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_migrate_id(
    id: *mut rdma_cm_id,
    channel: *mut rdma_event_channel,
) -> c_int {
    // SAFETY: a live id.
    unsafe { (*id).channel = channel };
    set_channel_id(channel, id);
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_get_cm_event(
    channel: *mut rdma_event_channel,
    event: *mut *mut rdma_cm_event,
) -> c_int {
    let Some(ev) = with(|s| s.events.pop_front()) else {
        // SAFETY: errno of the calling thread.
        unsafe { *libc::__errno_location() = libc::ENODATA };
        return -1;
    };
    let owner = id_of_channel(channel);
    let listening = with(|s| s.listeners.contains(&owner));
    let (id, listen_id) = if ev.kind == RDMA_CM_EVENT_CONNECT_REQUEST && listening {
        // rdma_cm makes a new id for the request, on the listener's channel
        // (a connect request reaches only a listening id).
        let new = new_obj(|i: &mut rdma_cm_id| {
            i.verbs = context();
            i.channel = channel;
            i.ps = RDMA_PS_TCP;
        });
        (new, owner)
    } else {
        (owner, ptr::null_mut())
    };
    let mut buf = match &ev.private_data {
        PrivateData::Bytes(b) => Some(b.clone().into_boxed_slice()),
        PrivateData::Null(_) => None,
    };
    let (data, len) = match (&mut buf, &ev.private_data) {
        (Some(b), _) => (b.as_mut_ptr().cast::<c_void>().cast_const(), b.len() as u8),
        (None, PrivateData::Null(len)) => (ptr::null(), *len),
        (None, PrivateData::Bytes(_)) => unreachable!(),
    };
    let mut raw = rdma_cm_event {
        id,
        listen_id,
        event: ev.kind,
        status: 0,
        ..Default::default()
    };
    raw.param.conn = rdma_conn_param {
        private_data: data,
        private_data_len: len,
        ..Default::default()
    };
    let raw = Box::into_raw(Box::new(raw));
    with(|s| s.unacked.push((raw, buf)));
    // SAFETY: the caller passes a writable pointer.
    unsafe { event.write(raw) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int {
    let found = with(|s| {
        let i = s.unacked.iter().position(|(e, _)| *e == event)?;
        Some(s.unacked.swap_remove(i))
    });
    let Some((_, buf)) = found else {
        misuse("rdma_ack_cm_event: not an unacked event");
    };
    // The private data goes first: any later read of it is a
    // use-after-free.
    drop(buf);
    // SAFETY: the event from rdma_get_cm_event, acked once.
    drop(unsafe { Box::from_raw(event) });
    0
}
