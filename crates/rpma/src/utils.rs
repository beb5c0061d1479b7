//! Helpers that belong to no object.

use std::ffi::CStr;
use std::ptr::NonNull;

use crate::error::Result;
use crate::native::DeviceNative;
use crate::sys;
use crate::verbs::{provider_failed_with, AddrInfo, CmId};

/// Connection events, with the values of `enum rpma_conn_event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ConnEvent {
    Undefined = -1,
    Established = 0,
    Closed = 1,
    Lost = 2,
    Rejected = 3,
    Unreachable = 4,
}

impl ConnEvent {
    pub fn from_raw(raw: i32) -> Option<ConnEvent> {
        Some(match raw {
            -1 => ConnEvent::Undefined,
            0 => ConnEvent::Established,
            1 => ConnEvent::Closed,
            2 => ConnEvent::Lost,
            3 => ConnEvent::Rejected,
            4 => ConnEvent::Unreachable,
            _ => return None,
        })
    }

    pub const fn as_cstr(self) -> &'static CStr {
        match self {
            ConnEvent::Undefined => c"Undefined connection event",
            ConnEvent::Established => c"Connection established",
            ConnEvent::Closed => c"Connection closed",
            ConnEvent::Lost => c"Connection lost",
            ConnEvent::Rejected => c"Connection rejected",
            ConnEvent::Unreachable => c"Connection unreachable",
        }
    }
}

/// Text for any raw event value, as `rpma_utils_conn_event_2str` gives it.
pub fn conn_event_str(raw: i32) -> &'static CStr {
    ConnEvent::from_raw(raw).map_or(c"Unsupported connection event", ConnEvent::as_cstr)
}

/// The kind of address [`get_ibv_context`] resolves, with the values of
/// `enum rpma_util_ibv_context_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ContextType {
    /// An address of this host (the device to listen or connect from).
    Local = 0,
    /// An address of the remote host (the device that routes to it).
    Remote = 1,
}

impl ContextType {
    pub fn from_raw(raw: i32) -> Option<ContextType> {
        match raw {
            0 => Some(ContextType::Local),
            1 => Some(ContextType::Remote),
            _ => None,
        }
    }
}

/// Finds the RDMA device context that serves `addr`: the device owning it
/// (`Local`) or the one rdma_cm routes to it through (`Remote`). The context
/// belongs to librdmacm's device list and is never closed by the caller.
/// `None` when rdma_cm binds the address to no device (the wildcard address).
pub fn get_ibv_context(
    addr: &CStr,
    kind: ContextType,
) -> Result<Option<NonNull<sys::ibv_context>>> {
    let info = AddrInfo::resolve(addr, None, kind == ContextType::Local)?;
    let id = CmId::new(None)?;
    match kind {
        ContextType::Local => id.bind(&info)?,
        ContextType::Remote => id.resolve_addr(&info, crate::conn_cfg::DEFAULT_TIMEOUT_MS)?,
    }
    let ctx = NonNull::new(id.verbs());
    id.destroy()?;
    Ok(ctx)
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

/// Whether the device supports on-demand paging for RC reads and writes.
///
/// # Safety
/// `ctx` is a live `ibv_context`.
pub unsafe fn ibv_context_is_odp_capable(ctx: NonNull<sys::ibv_context>) -> Result<bool> {
    query_caps(ctx.as_ptr()).map(|c| c.odp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_has_its_text() {
        assert_eq!(conn_event_str(-1), c"Undefined connection event");
        assert_eq!(conn_event_str(4), c"Connection unreachable");
        for bad in [-2, 5, i32::MAX, i32::MIN] {
            assert_eq!(conn_event_str(bad), c"Unsupported connection event");
        }
        for raw in -1..=4 {
            assert_eq!(ConnEvent::from_raw(raw).unwrap() as i32, raw);
        }
    }
}
