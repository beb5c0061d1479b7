//! A peer: the local RDMA device a program works through, represented by a
//! protection domain on it, plus what the device can do, and the page its
//! connections' emulated flushes read into (`FlushTarget`).

use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::net::IpAddr;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock, Weak};

use crate::alloc::try_arc;
use crate::error::{
    check_errno_value, errno, provider_failed_with, set_errno, Errno, Error, Result,
};
use crate::log::{Level, Op};
use crate::native::{DeviceNative, Switch};
use crate::sys;
use crate::timeouts;
use crate::usage::Usage;
use crate::verbs::{device_context, Registration};

/// The kind of address a [`Device`] is looked up by, with the values of
/// `enum rpma_util_ibv_context_type`.
///
/// ```no_run
/// use rpma::peer::{ContextType, Device};
///
/// // the device that reaches 192.168.0.2 from here
/// let dev = Device::lookup("192.168.0.2", ContextType::Remote)?;
/// # Ok::<(), rpma::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ContextType {
    /// An address of this host (the device to listen or connect from).
    Local = 0,
    /// An address of the remote host (the device that routes to it).
    Remote = 1,
}

impl fmt::Display for ContextType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContextType::Local => "local",
            ContextType::Remote => "remote",
        })
    }
}

impl ContextType {
    /// The context type with C value `raw`, or `None` outside the enum.
    pub fn from_raw(raw: i32) -> Option<ContextType> {
        match raw {
            0 => Some(ContextType::Local),
            1 => Some(ContextType::Remote),
            _ => None,
        }
    }
}

/// An RDMA device, as rdma_cm found it for an address: the device context
/// a [`Peer`] is opened on.
///
/// A `Device` is a plain copyable handle with no lifetime. That is sound
/// because the context belongs to librdmacm, not to the program: librdmacm
/// opens a device's context itself and keeps it open until it is unloaded
/// (at process exit) or the device is unplugged, when every object on it
/// has failed anyway. Nothing in this crate or in librdmacm's API lets a
/// program close it.
///
/// ```no_run
/// use rpma::peer::{Device, Peer};
///
/// // the device that owns 192.168.0.1, by address or by host name
/// let dev = Device::local("192.168.0.1")?;
/// println!("on-demand paging: {}", dev.is_odp_capable()?);
/// let peer = Peer::new(&dev)?;
/// # Ok::<(), rpma::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Device {
    ctx: NonNull<sys::ibv_context>,
}

// SAFETY: an ibv_context is a libibverbs object usable from any thread, and
// the handle is only ever read.
unsafe impl Send for Device {}
// SAFETY: as above.
unsafe impl Sync for Device {}

impl Device {
    /// The device that owns the local address `addr` (the one to listen on
    /// or to connect from).
    ///
    /// # Errors
    /// `Error::Inval` for an address with a NUL byte, or the wildcard
    /// address (`0.0.0.0`), which names no device; `Error::Provider` for an
    /// address that is not valid or not this host's (`rdma_getaddrinfo`,
    /// `rdma_bind_addr`), or when the cm id cannot be made or destroyed.
    pub fn local(addr: &str) -> Result<Device> {
        Device::lookup(addr, ContextType::Local)
    }

    /// The device through which rdma_cm routes to the remote address
    /// `addr`.
    ///
    /// # Errors
    /// `Error::Inval` for an address with a NUL byte, or one that rdma_cm
    /// resolves to no device (it binds even the wildcard and the loopback
    /// address to one); `Error::Provider` for an address that is not valid
    /// or has no route (`rdma_getaddrinfo`, `rdma_resolve_addr`), or when
    /// the cm id cannot be made or destroyed.
    pub fn remote(addr: &str) -> Result<Device> {
        Device::lookup(addr, ContextType::Remote)
    }

    /// The device for `addr` as `kind` says.
    ///
    /// # Errors
    /// As [`Device::local`] or [`Device::remote`], as `kind` says.
    pub fn lookup(addr: &str, kind: ContextType) -> Result<Device> {
        let addr = CString::new(addr).map_err(|_| Error::inval("addr: contains a NUL byte"))?;
        Device::find(&addr, kind)?.ok_or(Error::inval("addr: resolves to no device"))
    }

    raw_api! {
        /// The device rdma_cm finds for `addr`: the one that owns it (`Local`)
        /// or the one it routes to it through (`Remote`). `None` when rdma_cm
        /// binds the address to no device (the wildcard address), which
        /// `rpma_utils_get_ibv_context` reports as a NULL context.
        ///
        /// # Errors
        /// `Error::Provider` when the address cannot be resolved
        /// (`rdma_getaddrinfo`), bound (`Local`: `rdma_bind_addr`) or routed
        /// (`Remote`: `rdma_resolve_addr`), or the cm id cannot be made or
        /// destroyed.
        fn find(addr: &CStr, kind: ContextType) -> Result<Option<Device>> {
            let local = kind == ContextType::Local;
            let ctx = device_context(addr, local, timeouts::DEFAULT_TIMEOUT_MS)?;
            Ok(NonNull::new(ctx).map(|ctx| Device { ctx }))
        }
    }

    raw_api! {
        /// A device handle for a context the C API was given
        /// (`rpma_utils_ibv_context_is_odp_capable` takes any context of the
        /// caller's). Rust code finds its device with [`Device::local`] or
        /// [`Device::remote`].
        ///
        /// # Safety
        /// `ctx` is a live `ibv_context` for as long as the handle, or anything
        /// opened through it, is used.
        unsafe fn from_raw_context(ctx: NonNull<sys::ibv_context>) -> Device {
            Device { ctx }
        }
    }

    raw_api! {
        /// The libibverbs context, for callers that drive libibverbs directly.
        fn as_ptr(&self) -> *mut sys::ibv_context {
            self.ctx.as_ptr()
        }
    }

    /// Whether the device supports on-demand paging for RC reads and
    /// writes.
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_query_device_ex` fails.
    pub fn is_odp_capable(&self) -> Result<bool> {
        query_caps(self.ctx.as_ptr()).map(|c| c.odp)
    }
}

/// A protection domain on an RDMA device, with the device's capabilities.
///
/// A `Peer` is shared by reference counting: cloning is cheap, every
/// region, queue pair and shared receive queue made on it holds a clone,
/// and the domain is released when the last of them is gone.
// For rustdoc only: cbindgen copies doc comments into librpma.h.
#[cfg_attr(
    doc,
    doc = r#"
```
use std::net::IpAddr;
use rpma::{Peer, Region, Usage};

fn open(ip: IpAddr) -> rpma::Result<(Peer, Region)> {
    let peer = Peer::local(ip)?;
    // the region holds a clone: the domain stays until both are gone
    let region = Region::reg(&peer, vec![0u8; 4096], Usage::READ_SRC)?;
    Ok((peer, region))
}
```"#
)]
#[derive(Debug, Clone)]
pub struct Peer {
    domain: Arc<Domain>,
}

/// A peer that does not keep the domain alive: an endpoint's, since an
/// endpoint puts nothing on the domain itself (see [`Peer::delete`]).
#[derive(Debug)]
pub(crate) struct WeakPeer(Weak<Domain>);

impl WeakPeer {
    /// The peer, while anything else holds it.
    pub(crate) fn upgrade(&self) -> Option<Peer> {
        self.0.upgrade().map(|domain| Peer { domain })
    }
}

/// What a [`Peer`] shares: the protection domain and what the device can do.
#[derive(Debug)]
struct Domain {
    pd: NonNull<sys::ibv_pd>,
    odp_capable: bool,
    native: DeviceNative,
    /// The local ACK timeout exponent of its connections (0: not set).
    ack_timeout: u8,
    /// The receiver-not-ready timer code of its connections (0: rdma_cm's,
    /// and always on iWARP, which has no such timer).
    min_rnr_timer: u8,
    iwarp: bool,
    /// Where the emulated flushes of all the peer's connections read to:
    /// made by the first connection that needs it (see `flush_target`).
    /// The peer holds one reference and each such connection one; the last
    /// to let go releases it.
    flush_target: OnceLock<Arc<FlushTarget>>,
}

// SAFETY: a PD is a libibverbs object usable from any thread; the domain
// is not mutated after creation except through the flush target's atomics.
unsafe impl Send for Domain {}
// SAFETY: as above.
unsafe impl Sync for Domain {}

impl Peer {
    /// A peer on the device that owns the local address `ip` (the side
    /// that listens there).
    ///
    /// ```no_run
    /// use rpma::peer::Peer;
    ///
    /// let peer = Peer::local("192.168.0.1".parse().unwrap())?;
    /// let same = peer.clone(); // the same protection domain
    /// assert_eq!(peer.is_iwarp(), same.is_iwarp());
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Inval` for the wildcard address (`0.0.0.0` or `::`), which
    /// names no device; `Error::Provider` for an address that is not this
    /// host's (`rdma_bind_addr` fails with `EADDRNOTAVAIL`); as
    /// [`Peer::new`] when the device cannot be queried or refuses a
    /// protection domain.
    pub fn local(ip: IpAddr) -> Result<Peer> {
        Peer::new(&Device::local(&ip.to_string())?)
    }

    /// A peer on the device through which `ip`, a remote address, is
    /// reached (the side that connects to it).
    ///
    /// # Errors
    /// `Error::Provider` for an address with no route
    /// (`rdma_resolve_addr`: `ETIMEDOUT` when nothing answers for it on
    /// the link); `Error::Inval` should rdma_cm resolve the address to no
    /// device (it binds even the wildcard and the loopback address to
    /// one); as [`Peer::new`] when the device cannot be queried or refuses
    /// a protection domain.
    pub fn remote(ip: IpAddr) -> Result<Peer> {
        Peer::new(&Device::remote(&ip.to_string())?)
    }

    /// Opens a peer on `device`.
    ///
    /// ```no_run
    /// use rpma::peer::{Device, Peer};
    ///
    /// let device = Device::local("192.168.0.1")?;
    /// let peer = Peer::new(&device)?;
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Provider` when `ibv_query_device_ex` or `ibv_alloc_pd`
    /// fails; `Error::NoMem` when `ibv_alloc_pd` fails with ENOMEM;
    /// `Error::Unknown` when it fails without an errno.
    pub fn new(device: &Device) -> Result<Peer> {
        // SAFETY: a Device's context stays open for the rest of the process
        // (see Device), so it outlives the peer.
        unsafe { Peer::from_raw_context(device.ctx) }
    }

    raw_api! {
        /// Opens a peer on the device context `ctx`, any open context (one that
        /// `rpma_utils_get_ibv_context` or `ibv_open_device` returned): the
        /// constructor of the C API's `rpma_peer_new`. Rust code uses
        /// [`Peer::new`] with a [`Device`].
        ///
        /// # Safety
        /// `ctx` is a live `ibv_context` that stays open until the peer and
        /// everything made from it are gone.
        ///
        /// # Errors
        /// As [`Peer::new`].
        unsafe fn from_raw_context(ctx: NonNull<sys::ibv_context>) -> Result<Peer> {
            let ctx = ctx.as_ptr();
            let caps = query_caps(ctx)?;
            // The switch is the process's choice, read once per peer.
            let native = caps.native.allowed_by(Switch::from_env());
            if !native.atomic_write {
                rpma_log!(
                    Level::Info,
                    Op::PeerNew,
                    "Native atomic write is not supported - ordinary RDMA write will be used instead."
                );
            }
            if !native.flush {
                rpma_log!(
                    Level::Info,
                    Op::PeerNew,
                    "Native flush is not supported - ordinary RDMA read will be used instead."
                );
            }
            // ibv_alloc_pd reports its reason only through errno, and not always.
            set_errno(0);
            // SAFETY: ctx is live (caller contract).
            let pd = unsafe { sys::ibv_alloc_pd(ctx) };
            let Some(pd) = NonNull::new(pd) else {
                return Err(match errno() {
                    libc::ENOMEM => Error::NoMem,
                    // The C library logs nothing here either.
                    0 => Error::Unknown,
                    e => provider_failed_with("ibv_alloc_pd", e),
                });
            };
            // SAFETY: ctx is live; device is set by libibverbs for every context.
            let iwarp = unsafe { (*(*ctx).device).transport_type } == sys::IBV_TRANSPORT_IWARP;
            let domain = Domain {
                pd,
                odp_capable: caps.odp,
                native,
                ack_timeout: timeouts::ack_timeout_from_env(),
                min_rnr_timer: if iwarp { 0 } else { timeouts::min_rnr_timer_from_env() },
                iwarp,
                flush_target: OnceLock::new(),
            };
            // Should the Arc fail, Domain's Drop releases the domain.
            Ok(Peer { domain: try_arc(domain)? })
        }
    }

    /// The peer without keeping it alive.
    pub(crate) fn downgrade(&self) -> WeakPeer {
        WeakPeer(Arc::downgrade(&self.domain))
    }

    /// A reference to the flush read target, made by the first call.
    /// Connections of one peer may be set up on several threads at once:
    /// each that finds no target makes one, the first to store its own
    /// wins, and the others' are released.
    pub(crate) fn flush_target(&self) -> Result<Arc<FlushTarget>> {
        let cell = &self.domain.flush_target;
        // valgrind's race detectors do not see the order OnceLock's atomics
        // give: its slot is left unchecked, and the target's set-up is
        // ordered before its use by the two annotations below.
        let at = std::ptr::from_ref(cell).cast();
        // SAFETY: annotations only, on the cell's own bytes.
        unsafe { sys::librpma_rs_ignore_races(at, std::mem::size_of_val(cell)) };
        let target = match cell.get() {
            Some(target) => target,
            None => {
                let d = &self.domain;
                let made = try_arc(FlushTarget::new(self.pd(), d.iwarp, d.odp_capable)?)?;
                // SAFETY: annotations only.
                unsafe { sys::librpma_rs_happens_before(at) };
                cell.get_or_init(|| made)
            }
        };
        // SAFETY: annotations only, the pair of the one above (the target
        // found may be another thread's).
        unsafe { sys::librpma_rs_happens_after(at) };
        Ok(Arc::clone(target))
    }

    raw_api! {
        /// The protection domain every registration and queue of the peer uses.
        fn pd(&self) -> *mut sys::ibv_pd {
            self.domain.pd.as_ptr()
        }
    }

    raw_api! {
        /// The device context the peer lives on.
        fn context(&self) -> *mut sys::ibv_context {
            // SAFETY: the PD is live; libibverbs sets its context.
            unsafe { self.domain.pd.as_ref().context }
        }
    }

    /// Whether the device supports on-demand paging (used when memory cannot
    /// be pinned).
    pub fn is_odp_capable(&self) -> bool {
        self.domain.odp_capable
    }

    /// Whether the device has a native atomic write (otherwise it is
    /// emulated with an inline write).
    pub fn has_native_atomic_write(&self) -> bool {
        self.domain.native.atomic_write
    }

    /// Whether the device has a native flush (otherwise it is emulated with
    /// a read).
    pub fn has_native_flush(&self) -> bool {
        self.domain.native.flush
    }

    /// The local ACK timeout exponent its connections set (0: none).
    pub(crate) fn ack_timeout(&self) -> u8 {
        self.domain.ack_timeout
    }

    /// The receiver-not-ready timer code its connections set (0: none).
    pub(crate) fn min_rnr_timer(&self) -> u8 {
        self.domain.min_rnr_timer
    }

    /// The native operations its QPs ask the provider for.
    pub(crate) fn native(&self) -> DeviceNative {
        self.domain.native
    }

    /// Whether the device is iWARP, whose RDMA read needs remote write
    /// access on the reader's buffer.
    pub fn is_iwarp(&self) -> bool {
        self.domain.iwarp
    }

    /// Lets go of the peer and, when nothing else holds it, releases the
    /// protection domain. The handle is gone even when this fails, as in
    /// the C library.
    ///
    /// While a region, a queue pair (a request's or a connection's) or a
    /// shared receive queue made on the peer lives, or another clone of
    /// it, the domain stays for them and this reports what the C library's
    /// `ibv_dealloc_pd` would: `Error::Provider`, with the log of a failure
    /// with `EBUSY`. An endpoint of the C API's (`rpma_ep_listen`) does
    /// not hold the domain: once the peer is gone it can take no more
    /// requests.
    ///
    /// The peer's reference to the shared flush target goes first; while
    /// connections remain, the last of them deregisters it.
    ///
    /// ```no_run
    /// use rpma::{ConnReq, peer::{Device, Peer}, Error};
    ///
    /// let peer = Peer::new(&Device::remote("192.168.0.1")?)?;
    /// let conn = ConnReq::new(&peer, "192.168.0.1:7204".parse().unwrap(), None)?.connect(b"")?;
    /// // the connection's queue pair is on the domain: EBUSY, as in C
    /// assert!(matches!(peer.delete(), Err(Error::Provider(_))));
    /// // the connection works on, and takes the domain with it
    /// conn.delete()?;
    /// # Ok::<(), rpma::Error>(())
    /// ```
    ///
    /// # Errors
    /// `Error::Provider` while anything else holds the domain (above), or
    /// when `ibv_dealloc_pd` fails. When the peer held the last reference
    /// to the flush target, its release may fail first: `Error::Provider`
    /// (`ibv_dereg_mr`), or `Error::Inval` when its page cannot be
    /// unmapped.
    pub fn delete(self) -> Result<()> {
        match Arc::into_inner(self.domain) {
            Some(domain) => domain.release(),
            None => check_errno_value("ibv_dealloc_pd", libc::EBUSY),
        }
    }

    /// An object's clone let go at the object's end: when it was the last
    /// (the program deleted its peer while the object lived), the domain
    /// is released here, with any failure of the release reported.
    pub(crate) fn release(self) -> Result<()> {
        Arc::into_inner(self.domain).map_or(Ok(()), Domain::release)
    }
}

impl Domain {
    /// Releases the flush target (the domain's reference) and then the
    /// protection domain, reporting the first failure.
    fn release(mut self) -> Result<()> {
        let flush = FlushTarget::release(self.flush_target.take());
        let pd = self.pd.as_ptr();
        std::mem::forget(self);
        // SAFETY: the PD is ours and released once.
        let r = check_errno_value("ibv_dealloc_pd", unsafe { sys::ibv_dealloc_pd(pd) });
        flush.and(r)
    }
}

impl Drop for Domain {
    fn drop(&mut self) {
        drop(self.flush_target.take());
        // SAFETY: as in delete.
        unsafe { sys::ibv_dealloc_pd(self.pd.as_ptr()) };
    }
}

/// What a device can do, as far as librpma cares.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Caps {
    pub odp: bool,
    pub native: DeviceNative,
}

/// Queries the device once for all capabilities. The native operations are
/// read from the kernel's `device_cap_flags_ex`, whatever rdma-core this
/// was built with; whether the provider has them too is known only when a
/// QP is made (see `native`).
pub(crate) fn query_caps(ctx: *mut sys::ibv_context) -> Result<Caps> {
    let mut attr: sys::ibv_device_attr_ex = Default::default();
    // SAFETY: ctx is a live context; attr is writable; no input struct.
    let ret = unsafe { sys::ibv_query_device_ex(ctx, std::ptr::null(), &mut attr) };
    if ret != 0 {
        return Err(provider_failed_with("ibv_query_device_ex", ret));
    }
    let general = attr.odp_caps.general_caps & sys::IBV_ODP_SUPPORT as u64 != 0;
    let rc = attr.odp_caps.per_transport_caps.rc_odp_caps;
    let rw = sys::IBV_ODP_SUPPORT_WRITE | sys::IBV_ODP_SUPPORT_READ;
    Ok(Caps {
        odp: general && rc & rw == rw,
        native: DeviceNative::from_cap_flags(attr.device_cap_flags_ex),
    })
}

// ---------------------------------------------------------------------
// Where emulated flushes read to. Without native RDMA flush, a flush is
// an 8-byte RDMA read from the remote region, which completes only after
// the writes before it reached the remote memory (the "appliance
// persistency method"). What the read brings back is never looked at,
// so all connections of a peer share one target page.
//
// One target per peer rather than one per connection, as the C library
// has it: registering a page for every connection put an `ibv_reg_mr` on
// the path of every connection set-up, before the connect message goes
// out. Concurrent flushes landing in the same eight bytes do no harm, as
// nothing reads them. The peer makes its target when its first
// connection that emulates flush asks for it (`Peer::flush_target`), not
// when the peer is made, so that a peer alone takes one verbs object (its
// protection domain), as the C library's does: a process under an RDMA
// cgroup limit runs out of objects where the C library's would.

/// Bytes one emulated flush reads.
pub(crate) const READ_LEN: usize = 8;

/// A page whose first [`READ_LEN`] bytes are registered as an RDMA read
/// destination.
#[derive(Debug)]
pub(crate) struct FlushTarget {
    // Field order is release order: the registration before the page.
    reg: Registration,
    page: Page,
    /// The entry one flush's read lands in, read by every emulated flush.
    sge: sys::ibv_sge,
}

impl FlushTarget {
    /// Maps a page and registers its start on `pd`, with the access of a
    /// read destination on the peer's transport (`iwarp`).
    pub(crate) fn new(pd: *mut sys::ibv_pd, iwarp: bool, odp_capable: bool) -> Result<FlushTarget> {
        let page = Page::new()?;
        let access = Usage::READ_DST.access(iwarp, false);
        // SAFETY: the page stays mapped until the registration is gone
        // (field order, and `delete`).
        let reg =
            unsafe { Registration::new(pd, page.ptr.as_ptr(), READ_LEN, access, odp_capable) }?;
        let sge = sys::ibv_sge {
            addr: reg.raw().addr as u64,
            length: READ_LEN as u32,
            lkey: reg.raw().lkey,
        };
        Ok(FlushTarget { reg, page, sge })
    }

    /// The scatter/gather entry of one flush's read.
    #[inline]
    pub(crate) fn sge(&self) -> sys::ibv_sge {
        self.sge
    }

    /// Lets go of one reference: the last one deletes the target and
    /// reports how that went (the peer holds one, and each connection that
    /// emulates flush one).
    pub(crate) fn release(target: Option<Arc<FlushTarget>>) -> Result<()> {
        target
            .and_then(Arc::into_inner)
            .map_or(Ok(()), FlushTarget::delete)
    }

    /// Deregisters and unmaps, reporting the first failure: a failed
    /// deregistration as `RPMA_E_PROVIDER`, a failed unmap as
    /// `RPMA_E_INVAL`, as the C library reports them.
    pub(crate) fn delete(self) -> Result<()> {
        let FlushTarget { reg, page, .. } = self;
        let r = reg.destroy();
        r.and(page.unmap())
    }
}

/// One anonymous page, unmapped when dropped.
#[derive(Debug)]
struct Page {
    ptr: NonNull<c_void>,
    len: usize,
}

// SAFETY: the page is written only by the device and read by nobody; the
// handle is a plain address and length.
unsafe impl Send for Page {}
// SAFETY: as above.
unsafe impl Sync for Page {}

impl Page {
    fn new() -> Result<Page> {
        // SAFETY: sysconf has no preconditions.
        let len = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if len < 0 {
            rpma_log!(
                Level::Error,
                Op::FlushTargetNew,
                "sysconf(_SC_PAGESIZE) failed: {}",
                Errno(errno())
            );
            return Err(Error::provider(Op::FlushTargetNew, "sysconf", errno()));
        }
        let len = len as usize;
        // Shared, so that the page stays mapped in a child after fork()
        // when the program uses ibv_fork_init().
        // SAFETY: an anonymous mapping of fresh memory.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            rpma_log!(
                Level::Error,
                Op::FlushTargetNew,
                "mmap() failed: {}",
                Errno(errno())
            );
            return Err(Error::NoMem);
        }
        let ptr = NonNull::new(ptr).expect("mmap returned NULL");
        Ok(Page { ptr, len })
    }

    fn unmap(self) -> Result<()> {
        let (ptr, len) = (self.ptr.as_ptr(), self.len);
        std::mem::forget(self);
        // SAFETY: our own mapping, no longer registered.
        match unsafe { libc::munmap(ptr, len) } {
            0 => Ok(()),
            _ => Err(Error::inval("flush target: munmap() of its page failed")),
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // SAFETY: as in unmap.
        unsafe { libc::munmap(self.ptr.as_ptr(), self.len) };
    }
}
