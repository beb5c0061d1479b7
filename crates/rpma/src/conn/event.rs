//! The events of a connection's life, as `rpma_conn_next_event` reports
//! them.

use std::ffi::CStr;

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
