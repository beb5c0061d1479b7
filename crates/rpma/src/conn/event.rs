//! The events of a connection's life, as `rpma_conn_next_event` reports
//! them.

use std::ffi::CStr;
use std::fmt;

/// Connection events, with the values of `enum rpma_conn_event`.
///
/// ```
/// use rpma::{Conn, ConnEvent};
///
/// fn wait_until_closed(conn: &Conn) -> rpma::Result<()> {
///     loop {
///         match conn.next_event()? {
///             ConnEvent::Closed | ConnEvent::Lost => return Ok(()),
///             other => println!("{}", other.as_cstr().to_string_lossy()),
///         }
///     }
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ConnEvent {
    /// No event, or one this library does not know.
    Undefined = -1,
    /// The connection is up.
    Established = 0,
    /// The connection was closed (by either side).
    Closed = 1,
    /// The connection broke down.
    Lost = 2,
    /// The peer rejected the connection.
    Rejected = 3,
    /// The peer could not be reached.
    Unreachable = 4,
}

impl ConnEvent {
    /// The event with C value `raw`, or `None` for a value outside the enum.
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

    /// The description `rpma_utils_conn_event_2str` returns for the event.
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

/// The text `rpma_utils_conn_event_2str` gives, e.g. "Connection closed".
impl fmt::Display for ConnEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_cstr().to_string_lossy())
    }
}

raw_api! {
    /// The description of any raw event value: an event's own
    /// ([`ConnEvent::as_cstr`]), or "Unsupported connection event" for a value
    /// outside the enum, as `rpma_utils_conn_event_2str` gives it.
    fn event_str(raw: i32) -> &'static CStr {
        ConnEvent::from_raw(raw).map_or(c"Unsupported connection event", ConnEvent::as_cstr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_has_its_text() {
        assert_eq!(event_str(-1), c"Undefined connection event");
        assert_eq!(event_str(4), c"Connection unreachable");
        for bad in [-2, 5, i32::MAX, i32::MIN] {
            assert_eq!(event_str(bad), c"Unsupported connection event");
        }
        for raw in -1..=4 {
            assert_eq!(ConnEvent::from_raw(raw).unwrap() as i32, raw);
        }
    }
}
