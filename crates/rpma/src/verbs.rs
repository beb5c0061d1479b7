//! Owned handles on the libibverbs and librdmacm objects the library
//! creates.
//!
//! Each handle releases its object when dropped, so an error half-way
//! through building a connection releases everything built so far. Where the
//! C API must report a failed release (the `*_delete` functions), the owner
//! calls the handle's `destroy`, which returns the error instead.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::os::fd::BorrowedFd;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::error::{
    check, check_errno_value, errno, provider_failed, provider_failed_in, provider_failed_with,
    Errno, Error, Result,
};
use crate::log::{Level, Op};
use crate::ready;
use crate::sys;

/// The device context rdma_cm finds for `addr`: the device that owns it
/// (`local`), or the one it routes to it through. The context belongs to
/// librdmacm's device list and is never closed by the caller. Null when
/// rdma_cm binds the address to no device (the wildcard address).
pub(crate) fn device_context(
    addr: &CStr,
    local: bool,
    timeout_ms: c_int,
) -> Result<*mut sys::ibv_context> {
    let info = AddrInfo::resolve(addr, None, local)?;
    let id = CmId::new(None)?;
    if local {
        id.bind(&info)?;
    } else {
        id.resolve_addr(&info, timeout_ms, None)?;
    }
    let ctx = id.verbs();
    id.destroy()?;
    Ok(ctx)
}

/// Sets the receiver-not-ready timer (the 5-bit code; 0: leave it) of a
/// queue pair that is ready to send (rdma_cm moves it there inside the
/// accept, or with the connect's answer, and gives it no way to set the
/// timer before). Not fatal: a queue pair that refuses keeps rdma_cm's
/// timer, as the C library's always do.
pub(crate) fn apply_min_rnr_timer(qp: *mut sys::ibv_qp, code: u8) {
    if code == 0 {
        return;
    }
    let mut attr = sys::ibv_qp_attr {
        min_rnr_timer: code,
        ..Default::default()
    };
    // SAFETY: qp is a live queue pair (the caller's connection holds it);
    // the provider reads only the attribute the mask names.
    let ret = unsafe { sys::ibv_modify_qp(qp, &mut attr, sys::IBV_QP_MIN_RNR_TIMER as c_int) };
    if ret != 0 {
        rpma_log!(
            Level::Info,
            Op::SetMinRnrTimer,
            "ibv_modify_qp(IBV_QP_MIN_RNR_TIMER) failed: the connection keeps rdma_cm's timer"
        );
    }
}

/// How many times `CmId::resolve_addr` tries an address that times out.
const RESOLVE_ATTEMPTS: u32 = 3;

/// The result list of `rdma_getaddrinfo`.
pub(crate) struct AddrInfo(NonNull<sys::rdma_addrinfo>);

impl AddrInfo {
    /// Resolves `addr`/`port` for an RC connection in the TCP port space;
    /// `passive` asks for a local (listening) address.
    pub(crate) fn resolve(addr: &CStr, port: Option<&CStr>, passive: bool) -> Result<AddrInfo> {
        let mut hints: sys::rdma_addrinfo = Default::default();
        if passive {
            hints.ai_flags = sys::RAI_PASSIVE as c_int;
        }
        hints.ai_qp_type = sys::IBV_QPT_RC as c_int;
        hints.ai_port_space = sys::RDMA_PS_TCP as c_int;
        let mut res = ptr::null_mut();
        // SAFETY: addr/port are NUL-terminated; hints and res are valid.
        let ret = unsafe {
            sys::rdma_getaddrinfo(
                addr.as_ptr(),
                port.map_or(ptr::null(), CStr::as_ptr),
                &hints,
                &mut res,
            )
        };
        match NonNull::new(res) {
            Some(list) if ret == 0 => Ok(AddrInfo(list)),
            _ => {
                let e = errno();
                rpma_log!(
                    Level::Error,
                    Op::ResolveAddrInfo,
                    "rdma_getaddrinfo(node={}, service={}, ai_flags={}, ai_qp_type=IBV_QPT_RC, ai_port_space=RDMA_PS_TCP): {}",
                    addr.to_string_lossy(),
                    port.map_or("(null)".into(), CStr::to_string_lossy),
                    if passive { "passive" } else { "active" },
                    Errno(e)
                );
                Err(Error::provider(Op::ResolveAddrInfo, "rdma_getaddrinfo", e))
            }
        }
    }

    /// The canonical names rdma_cm found, as the C library prints them in
    /// its messages ("(null)" when there are none, the usual case).
    fn names(&self) -> (Name, Name) {
        // SAFETY: the list is live while self is.
        let ai = unsafe { self.0.as_ref() };
        (Name(ai.ai_src_canonname), Name(ai.ai_dst_canonname))
    }

    pub(crate) fn src_addr(&self) -> *mut sys::sockaddr {
        // SAFETY: the list is live while self is.
        unsafe { self.0.as_ref().ai_src_addr }
    }

    pub(crate) fn dst_addr(&self) -> *mut sys::sockaddr {
        // SAFETY: as above.
        unsafe { self.0.as_ref().ai_dst_addr }
    }
}

/// A C string of an rdma_addrinfo for messages; NULL prints as "(null)".
struct Name(*mut c_char);

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_null() {
            return f.write_str("(null)");
        }
        // SAFETY: a NUL-terminated string owned by a live rdma_addrinfo.
        f.write_str(&unsafe { CStr::from_ptr(self.0) }.to_string_lossy())
    }
}

impl Drop for AddrInfo {
    fn drop(&mut self) {
        // SAFETY: the list came from rdma_getaddrinfo and is freed once.
        unsafe { sys::rdma_freeaddrinfo(self.0.as_ptr()) }
    }
}

/// The address and port of `addr` as rdma_cm takes them.
pub(crate) fn host_and_port(addr: std::net::SocketAddr) -> (std::ffi::CString, std::ffi::CString) {
    let text = |s: String| std::ffi::CString::new(s).expect("an address has no NUL");
    (text(addr.ip().to_string()), text(addr.port().to_string()))
}

/// An rdma_cm event channel (its fd reports connection events).
#[derive(Debug)]
pub(crate) struct EventChannel {
    ch: *mut sys::rdma_event_channel,
    /// Whether `try_next` made the fd non-blocking; the C API's `next`
    /// leaves the fd's mode to the program.
    nonblocking: AtomicBool,
}

impl EventChannel {
    pub(crate) fn new() -> Result<EventChannel> {
        // SAFETY: no preconditions.
        let ch = unsafe { sys::rdma_create_event_channel() };
        if ch.is_null() {
            return Err(provider_failed("rdma_create_event_channel"));
        }
        Ok(EventChannel {
            ch,
            nonblocking: AtomicBool::new(false),
        })
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::rdma_event_channel {
        self.ch
    }

    pub(crate) fn fd(&self) -> c_int {
        // SAFETY: the channel is live while self is.
        unsafe { (*self.ch).fd }
    }

    /// The channel's fd, borrowed for as long as the channel lives.
    pub(crate) fn borrowed_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: a live event channel holds an open fd (not -1), which
        // librdmacm closes only in rdma_destroy_event_channel, i.e. after
        // self (and so the borrow) is gone.
        unsafe { BorrowedFd::borrow_raw(self.fd()) }
    }

    /// Takes the next event: `RPMA_E_NO_EVENT` when librdmacm says there is
    /// none (ENODATA), `RPMA_E_PROVIDER` for any other failure, logged as
    /// coming from `op`.
    #[inline]
    pub(crate) fn next(&self, op: Op) -> Result<CmEvent> {
        match self.take() {
            Ok(ev) => Ok(ev),
            Err(libc::ENODATA) => Err(Error::NoEvent),
            Err(_) => Err(provider_failed_in(op, "rdma_get_cm_event")),
        }
    }

    /// Takes the next event if one waits: `None` when there is none. The
    /// fd is made non-blocking first (once), so the take returns at once;
    /// a non-blocking channel says "none" with EAGAIN (the C library
    /// reports that as a provider failure; `next` does too).
    pub(crate) fn try_next(&self, op: Op) -> Result<Option<CmEvent>> {
        if !self.nonblocking.load(Relaxed) {
            ready::set_nonblocking(self.borrowed_fd())?;
            self.nonblocking.store(true, Relaxed);
        }
        match self.take() {
            Ok(ev) => Ok(Some(ev)),
            Err(libc::ENODATA | libc::EAGAIN) => Ok(None),
            Err(_) => Err(provider_failed_in(op, "rdma_get_cm_event")),
        }
    }

    /// rdma_get_cm_event: the event, or the errno of its failure (left set
    /// for the log).
    fn take(&self) -> std::result::Result<CmEvent, c_int> {
        let mut ev = ptr::null_mut();
        // SAFETY: the channel is live; ev receives the event.
        if unsafe { sys::rdma_get_cm_event(self.ch, &mut ev) } != 0 || ev.is_null() {
            return Err(errno());
        }
        Ok(CmEvent(ev))
    }
}

impl EventChannel {
    /// Waits for the event that ends the step an id on this channel started
    /// (an address or a route resolution) and returns what a synchronous id
    /// sets errno to: 0 when the step succeeded, else the event's status as
    /// a positive errno, or the errno of a failed wait. Only an id that has
    /// not connected yet is on the channel, so the event is that step's.
    fn outcome(&self) -> c_int {
        let mut ev = ptr::null_mut();
        // SAFETY: the channel is live; ev receives the event.
        if unsafe { sys::rdma_get_cm_event(self.ch, &mut ev) } != 0 || ev.is_null() {
            return match errno() {
                0 => libc::EIO,
                e => e,
            };
        }
        // SAFETY: the event is live until acked below.
        let status = unsafe { (*ev).status };
        // SAFETY: acked once; nothing reads the event afterwards.
        unsafe { sys::rdma_ack_cm_event(ev) };
        status.wrapping_abs()
    }
}

impl Drop for EventChannel {
    fn drop(&mut self) {
        // SAFETY: the channel was created by us; every id on it is gone
        // (owners drop their ids first).
        unsafe { sys::rdma_destroy_event_channel(self.ch) }
    }
}

/// An event taken from a channel; acked when dropped unless [`CmEvent::ack`]
/// already did (rdma_cm cannot destroy an id with unacked events).
pub(crate) struct CmEvent(*mut sys::rdma_cm_event);

impl CmEvent {
    pub(crate) fn get(&self) -> &sys::rdma_cm_event {
        // SAFETY: the event is live until acked, and acking consumes self.
        unsafe { &*self.0 }
    }

    /// The private data that came with the event (empty when none).
    pub(crate) fn private_data(&self) -> &[u8] {
        let ev = self.get();
        // SAFETY: for connection events `param.conn` is the active member.
        let conn = unsafe { ev.param.conn };
        if conn.private_data.is_null() || conn.private_data_len == 0 {
            return &[];
        }
        // SAFETY: rdma_cm gives private_data_len readable bytes at
        // private_data, alive until the event is acked.
        unsafe {
            std::slice::from_raw_parts(conn.private_data.cast(), conn.private_data_len as usize)
        }
    }

    pub(crate) fn ack(self) -> Result<()> {
        let ev = self.0;
        std::mem::forget(self);
        // SAFETY: the event came from rdma_get_cm_event and is acked once.
        check("rdma_ack_cm_event", unsafe { sys::rdma_ack_cm_event(ev) })
    }
}

impl Drop for CmEvent {
    fn drop(&mut self) {
        // SAFETY: as in ack; reached only when ack was not called.
        unsafe { sys::rdma_ack_cm_event(self.0) };
    }
}

/// A completion channel (its fd reports completions of armed CQs).
#[derive(Debug)]
pub(crate) struct CompChannel(NonNull<sys::ibv_comp_channel>);

impl CompChannel {
    pub(crate) fn new(ctx: *mut sys::ibv_context) -> Result<CompChannel> {
        // SAFETY: ctx is the live device context of the id or PD at hand.
        let ch = unsafe { sys::ibv_create_comp_channel(ctx) };
        NonNull::new(ch)
            .map(CompChannel)
            .ok_or_else(|| provider_failed("ibv_create_comp_channel"))
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::ibv_comp_channel {
        self.0.as_ptr()
    }

    pub(crate) fn fd(&self) -> c_int {
        // SAFETY: live while self is.
        unsafe { self.0.as_ref().fd }
    }

    /// The channel's fd, borrowed for as long as the channel lives.
    pub(crate) fn borrowed_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: a live completion channel holds an open fd (not -1),
        // which libibverbs closes only in ibv_destroy_comp_channel, i.e.
        // after self (and so the borrow) is gone.
        unsafe { BorrowedFd::borrow_raw(self.fd()) }
    }

    /// Blocks (unless the fd is non-blocking) for the next event; see
    /// [`next_cq_event`].
    pub(crate) fn next_cq_event(&self) -> Option<*mut sys::ibv_cq> {
        next_cq_event(self.0)
    }

    pub(crate) fn destroy(self) -> Result<()> {
        let ch = self.0.as_ptr();
        std::mem::forget(self);
        // SAFETY: created by us; its CQs were destroyed before (owner order).
        check_errno_value("ibv_destroy_comp_channel", unsafe {
            sys::ibv_destroy_comp_channel(ch)
        })
    }
}

impl Drop for CompChannel {
    fn drop(&mut self) {
        // SAFETY: as in destroy.
        unsafe { sys::ibv_destroy_comp_channel(self.0.as_ptr()) };
    }
}

/// Takes the next event of a completion channel: the CQ that has new
/// completions, or None when `ibv_get_cq_event` fails (including EAGAIN on
/// a non-blocking fd). The caller acknowledges the event on that CQ.
#[inline]
pub(crate) fn next_cq_event(channel: NonNull<sys::ibv_comp_channel>) -> Option<*mut sys::ibv_cq> {
    let mut cq = ptr::null_mut();
    let mut ctx = ptr::null_mut();
    // SAFETY: the channel is live (borrowed from its owner); both outputs
    // are valid for writing.
    let ret = unsafe { sys::ibv_get_cq_event(channel.as_ptr(), &mut cq, &mut ctx) };
    (ret == 0).then_some(cq)
}

/// An rdma_cm identifier (one end of a connection, or a listener).
#[derive(Debug)]
pub(crate) struct CmId(NonNull<sys::rdma_cm_id>);

impl CmId {
    /// A new id in the TCP port space; without a channel it works
    /// synchronously (each call returns when its step completed).
    #[inline]
    pub(crate) fn new(channel: Option<&EventChannel>) -> Result<CmId> {
        let mut id = ptr::null_mut();
        let ch = channel.map_or(ptr::null_mut(), EventChannel::as_ptr);
        // SAFETY: ch is NULL or a live channel; id receives the new id.
        let ret = unsafe { sys::rdma_create_id(ch, &mut id, ptr::null_mut(), sys::RDMA_PS_TCP) };
        match NonNull::new(id) {
            Some(id) if ret == 0 => Ok(CmId(id)),
            _ => Err(provider_failed("rdma_create_id")),
        }
    }

    /// Takes ownership of an id rdma_cm created for an incoming request.
    ///
    /// # Safety
    /// `id` is live and nothing else destroys it.
    pub(crate) unsafe fn from_raw(id: NonNull<sys::rdma_cm_id>) -> CmId {
        CmId(id)
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::rdma_cm_id {
        self.0.as_ptr()
    }

    pub(crate) fn verbs(&self) -> *mut sys::ibv_context {
        // SAFETY: the id is live while self is.
        unsafe { self.0.as_ref().verbs }
    }

    pub(crate) fn qp(&self) -> *mut sys::ibv_qp {
        // SAFETY: as above.
        unsafe { self.0.as_ref().qp }
    }

    /// Binds to the source address of `info`.
    pub(crate) fn bind(&self, info: &AddrInfo) -> Result<()> {
        // SAFETY: the id is live; the address belongs to the live `info`.
        if unsafe { sys::rdma_bind_addr(self.as_ptr(), info.src_addr()) } == 0 {
            return Ok(());
        }
        let e = errno();
        let (src, _) = info.names();
        rpma_log!(
            Level::Error,
            Op::BindAddr,
            "rdma_bind_addr(addr={}) failed: {}",
            src,
            Errno(e)
        );
        Err(Error::provider(Op::BindAddr, "rdma_bind_addr", e))
    }

    /// Resolves the route-able addresses of `info` to a device.
    ///
    /// A resolution that times out is tried again, up to
    /// `RESOLVE_ATTEMPTS` in all: the timeout (1 s by default) is one ARP
    /// retransmission interval, so a single lost ARP request or reply
    /// would otherwise fail a connection on a lossy network, where the C
    /// library fails it. A healthy network resolves on the first attempt.
    ///
    /// `channel` is the id's own channel, on which the outcome arrives;
    /// without one the id is synchronous and the call itself waits.
    #[inline]
    pub(crate) fn resolve_addr(
        &self,
        info: &AddrInfo,
        timeout_ms: c_int,
        channel: Option<&EventChannel>,
    ) -> Result<()> {
        let mut e = libc::ETIMEDOUT;
        for _ in 0..RESOLVE_ATTEMPTS {
            e = Self::outcome(self.post_resolve_addr(info, timeout_ms), channel);
            if e != libc::ETIMEDOUT {
                break;
            }
        }
        if e == 0 {
            return Ok(());
        }
        let (src, dst) = info.names();
        rpma_log!(
            Level::Error,
            Op::ResolveAddr,
            "rdma_resolve_addr(src_addr={}, dst_addr={}, timeout_ms={}) failed: {}",
            src,
            dst,
            timeout_ms,
            Errno(e)
        );
        Err(Error::provider(Op::ResolveAddr, "rdma_resolve_addr", e))
    }

    /// Starts (on an id with a channel) or makes (a synchronous id) one
    /// address resolution; rdma_resolve_addr's return value.
    #[inline]
    fn post_resolve_addr(&self, info: &AddrInfo, timeout_ms: c_int) -> c_int {
        // SAFETY: as in bind; after a failed resolution the id is bound
        // again, from where it may resolve anew.
        unsafe {
            sys::rdma_resolve_addr(self.as_ptr(), info.src_addr(), info.dst_addr(), timeout_ms)
        }
    }

    /// Resolves the route to the resolved address; `channel` as in
    /// [`CmId::resolve_addr`].
    #[inline]
    pub(crate) fn resolve_route(
        &self,
        timeout_ms: c_int,
        channel: Option<&EventChannel>,
    ) -> Result<()> {
        // SAFETY: the id is live.
        let ret = unsafe { sys::rdma_resolve_route(self.as_ptr(), timeout_ms) };
        let e = Self::outcome(ret, channel);
        if e == 0 {
            return Ok(());
        }
        rpma_log!(
            Level::Error,
            Op::ResolveRoute,
            "rdma_resolve_route(timeout_ms={}) failed: {}",
            timeout_ms,
            Errno(e)
        );
        Err(Error::provider(Op::ResolveRoute, "rdma_resolve_route", e))
    }

    /// The errno of a resolution step whose call returned `ret`: a failed
    /// call's own; when the call started the step on the id's `channel`,
    /// that of the event ending it; 0 when the step succeeded.
    #[inline]
    fn outcome(ret: c_int, channel: Option<&EventChannel>) -> c_int {
        match (ret, channel) {
            (0, None) => 0,
            (0, Some(ch)) => ch.outcome(),
            _ => errno(),
        }
    }

    pub(crate) fn listen(&self) -> Result<()> {
        // SAFETY: the id is live and bound.
        check("rdma_listen", unsafe { sys::rdma_listen(self.as_ptr(), 0) })
    }

    /// Moves the id's events to `channel`.
    pub(crate) fn migrate(&self, channel: &EventChannel) -> Result<()> {
        // SAFETY: both are live; the id has no unacked events here.
        check("rdma_migrate_id", unsafe {
            sys::rdma_migrate_id(self.as_ptr(), channel.as_ptr())
        })
    }

    pub(crate) fn create_qp(&self, attr: &mut sys::ibv_qp_init_attr_ex) -> Result<()> {
        self.try_create_qp(attr)
            .map_err(|e| provider_failed_with("rdma_create_qp_ex", e))
    }

    /// `create_qp` that logs nothing: the errno of a failure.
    pub(crate) fn try_create_qp(
        &self,
        attr: &mut sys::ibv_qp_init_attr_ex,
    ) -> std::result::Result<(), c_int> {
        // SAFETY: the id is live; attr names live CQs/PD/SRQ of its device.
        match unsafe { sys::rdma_create_qp_ex(self.as_ptr(), attr) } {
            0 => Ok(()),
            _ => Err(errno()),
        }
    }

    pub(crate) fn destroy_qp(&self) {
        // SAFETY: the id is live; a missing QP is tolerated by librdmacm.
        unsafe { sys::rdma_destroy_qp(self.as_ptr()) }
    }

    pub(crate) fn connect(&self, param: &mut sys::rdma_conn_param) -> Result<()> {
        // SAFETY: the id is live; param and its private data outlive the call.
        check("rdma_connect", unsafe {
            sys::rdma_connect(self.as_ptr(), param)
        })
    }

    /// Sets the local ACK timeout exponent (0: leave it) of the id's queue
    /// pair; it takes effect when the connection is made, so it comes
    /// before connect/accept. Not fatal: a kernel that refuses the option
    /// keeps its own timeout, as the C library's connections always do.
    pub(crate) fn apply_ack_timeout(&self, exponent: u8) {
        if exponent == 0 {
            return;
        }
        let mut value = exponent;
        // SAFETY: the id is live; librdmacm reads one byte from value.
        let ret = unsafe {
            sys::rdma_set_option(
                self.as_ptr(),
                sys::RDMA_OPTION_ID as c_int,
                sys::RDMA_OPTION_ID_ACK_TIMEOUT as c_int,
                (&mut value as *mut u8).cast(),
                1,
            )
        };
        if ret != 0 {
            rpma_log!(
                Level::Info,
                Op::SetAckTimeout,
                "rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT) failed: the connection keeps the kernel's timeout"
            );
        }
    }

    pub(crate) fn accept(&self, param: &mut sys::rdma_conn_param) -> Result<()> {
        // SAFETY: as in connect.
        check("rdma_accept", unsafe {
            sys::rdma_accept(self.as_ptr(), param)
        })
    }

    pub(crate) fn reject(&self) -> Result<()> {
        // SAFETY: the id is live; no private data.
        check("rdma_reject", unsafe {
            sys::rdma_reject(self.as_ptr(), ptr::null(), 0)
        })
    }

    pub(crate) fn disconnect(&self) -> Result<()> {
        // SAFETY: the id is live.
        check("rdma_disconnect", unsafe {
            sys::rdma_disconnect(self.as_ptr())
        })
    }

    pub(crate) fn destroy(self) -> Result<()> {
        let id = self.0.as_ptr();
        std::mem::forget(self);
        // SAFETY: the id is ours, its events are acked and its QP is gone.
        check("rdma_destroy_id", unsafe { sys::rdma_destroy_id(id) })
    }
}

impl Drop for CmId {
    fn drop(&mut self) {
        // SAFETY: as in destroy.
        unsafe { sys::rdma_destroy_id(self.0.as_ptr()) };
    }
}

/// A memory registration (an `ibv_mr`), deregistered when dropped.
#[derive(Debug)]
pub(crate) struct Registration(NonNull<sys::ibv_mr>);

// SAFETY: an ibv_mr is a libibverbs object usable from any thread, and the
// handle is only read after registration.
unsafe impl Send for Registration {}
// SAFETY: as above.
unsafe impl Sync for Registration {}

impl Registration {
    /// Registers `len` bytes at `addr` on `pd` with `access`. When the
    /// provider refuses, two fallbacks are tried before the failure is
    /// reported (`RPMA_E_PROVIDER`, logged): without native persistent
    /// flush, which a device grants only on persistent memory (rxe refuses
    /// it with EINVAL elsewhere, where the C library fails; the region is
    /// still flushable the emulated way, and natively to visibility), and,
    /// on an `odp_capable` device, for on-demand paging, for memory the
    /// kernel cannot pin (file-backed DAX). A fallback that succeeds logs
    /// nothing, as a registration that succeeds logs nothing in C.
    ///
    /// # Safety
    /// `pd` is live, and the memory stays allocated until the registration
    /// is gone: the device reads and writes it as `access` allows.
    pub(crate) unsafe fn new(
        pd: *mut sys::ibv_pd,
        addr: *mut c_void,
        len: usize,
        mut access: c_int,
        odp_capable: bool,
    ) -> Result<Registration> {
        // SAFETY: the caller's contract, for this call and each below.
        let reg = |access| NonNull::new(unsafe { sys::ibv_reg_mr(pd, addr, len, access) });
        let mut mr = reg(access);
        let persistent = sys::IBV_ACCESS_FLUSH_PERSISTENT as c_int;
        if mr.is_none() && errno() == libc::EINVAL && access & persistent != 0 {
            access &= !persistent;
            mr = reg(access);
        }
        if mr.is_none() && errno() == libc::EOPNOTSUPP && odp_capable {
            mr = reg(access | sys::IBV_ACCESS_ON_DEMAND as c_int);
        }
        mr.map(Registration)
            .ok_or_else(|| provider_failed("ibv_reg_mr"))
    }

    pub(crate) fn raw(&self) -> &sys::ibv_mr {
        // SAFETY: the MR is live while self is.
        unsafe { self.0.as_ref() }
    }

    /// Deregisters, reporting a failure (`RPMA_E_PROVIDER`, logged).
    pub(crate) fn destroy(self) -> Result<()> {
        let mr = self.0.as_ptr();
        std::mem::forget(self);
        // SAFETY: the MR is ours and deregistered once.
        check_errno_value("ibv_dereg_mr", unsafe { sys::ibv_dereg_mr(mr) })
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: as in destroy.
        unsafe { sys::ibv_dereg_mr(self.0.as_ptr()) };
    }
}
