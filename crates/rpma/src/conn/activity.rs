//! One wait for everything a connection reports: its events and the
//! completions of its queues, for a synchronous program that would
//! otherwise need a thread per channel or a poll(2) of its own.

use std::fmt;
use std::time::Duration;

use super::{Conn, ConnEvent};
use crate::cq::WorkCompletion;
use crate::error::{Error, Result};
use crate::ready;

/// What a connection reported, from [`Conn::next_activity`].
///
/// ```no_run
/// use rpma::{Activity, Conn, ConnEvent};
///
/// fn serve(conn: &Conn) -> rpma::Result<()> {
///     loop {
///         match conn.next_activity()? {
///             Activity::Completion(wc) => println!("{} ended: {}", wc.opcode(), wc.status()),
///             Activity::Event(ConnEvent::Closed) => return Ok(()),
///             Activity::Event(other) => println!("{other}"),
///         }
///     }
/// }
/// ```
#[derive(Clone, Copy)]
pub enum Activity {
    /// A connection event.
    Event(ConnEvent),
    /// A completion of the connection's CQ or receive CQ.
    Completion(WorkCompletion),
}

impl fmt::Debug for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activity::Event(ev) => f.debug_tuple("Event").field(ev).finish(),
            Activity::Completion(wc) => f.debug_tuple("Completion").field(wc).finish(),
        }
    }
}

impl fmt::Display for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activity::Event(ev) => write!(f, "event: {ev}"),
            Activity::Completion(wc) => write!(
                f,
                "completion of a {} (wr_id {}): {}",
                wc.opcode(),
                wc.wr_id(),
                wc.status()
            ),
        }
    }
}

impl Conn {
    /// The connection's next completion or event, whichever comes first;
    /// blocks until one does. Completions come before an event that is
    /// ready at the same time, so a program sees the outcome of its
    /// operations before it learns that the connection closed.
    ///
    /// # Errors
    /// `Error::SharedChannel` when the connection's CQs report to a shared
    /// completion channel (wait with `Conn::wait` there); otherwise as
    /// [`Conn::next_event`] and [`Cq::next_wc`](crate::Cq::next_wc).
    pub fn next_activity(&self) -> Result<Activity> {
        self.activity_within(None)?.ok_or(Error::NoEvent)
    }

    /// [`Conn::next_activity`] waiting at most `timeout`: `None` when
    /// nothing came in time.
    ///
    /// # Errors
    /// As [`Conn::next_activity`].
    pub fn next_activity_timeout(&self, timeout: Duration) -> Result<Option<Activity>> {
        self.activity_within(Some(timeout))
    }

    fn activity_within(&self, timeout: Option<Duration>) -> Result<Option<Activity>> {
        let (cq, rcq) = (self.cq(), self.rcq());
        if cq.channel_is_shared() {
            return Err(Error::SharedChannel);
        }
        let fds = [self.event_fd(), cq.fd(), rcq.map_or(cq.fd(), |r| r.fd())];
        // without a receive CQ the last slot only repeats the CQ's fd
        let fds = if rcq.is_some() { &fds[..] } else { &fds[..2] };
        ready::take_within(fds, timeout, || {
            if let Some(wc) = cq.try_next_wc()? {
                return Ok(Some(Activity::Completion(wc)));
            }
            if let Some(wc) = rcq.map(|r| r.try_next_wc()).transpose()?.flatten() {
                return Ok(Some(Activity::Completion(wc)));
            }
            Ok(self.try_next_event()?.map(Activity::Event))
        })
    }
}
