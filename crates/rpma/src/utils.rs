//! Helpers that belong to no object.

use std::ffi::CStr;
use std::ptr::NonNull;

use crate::conn::ConnEvent;
use crate::error::Result;
use crate::sys;
use crate::verbs::{AddrInfo, CmId};

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
    /// The context type with C value `raw`, or `None` outside the enum.
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
        ContextType::Remote => id.resolve_addr(&info, crate::conn_cfg::DEFAULT_TIMEOUT_MS, None)?,
    }
    let ctx = NonNull::new(id.verbs());
    id.destroy()?;
    Ok(ctx)
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
