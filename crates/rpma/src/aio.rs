//! Waits on tokio's reactor (feature `tokio`): connection events,
//! incoming requests and completions, awaited instead of blocked on; and
//! the set-up steps that resolve an address, run on tokio's blocking pool.
//!
//! Every wait here is cancel-safe. It takes what it waits for (an event,
//! a request, a completion) only inside the poll that returns it, and
//! never across an `.await`: a wait dropped before it finished (by
//! `tokio::time::timeout`, `select!`, or dropping its task) has taken
//! nothing, and the next wait finds whatever came meanwhile. The fd of the
//! channel is registered with the reactor for the length of one wait.
//!
//! Like tokio's own I/O types, these waits need a tokio runtime with I/O
//! enabled: awaited outside one, they panic.

use std::net::{IpAddr, SocketAddr};
use std::os::fd::BorrowedFd;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use crate::conn::req::ConnReq;
use crate::conn::{Conn, ConnEvent};
use crate::conn_cfg::ConnCfg;
use crate::cq::{Cq, WorkCompletion};
use crate::ep::Ep;
use crate::error::{Error, Result};
use crate::log::Op;
use crate::peer::Peer;

/// What `try_take` gives once the fd is readable; tries first without
/// waiting. The fd must be non-blocking.
async fn take_when_ready<T>(
    fd: BorrowedFd<'_>,
    mut try_take: impl FnMut() -> Result<Option<T>>,
) -> Result<T> {
    if let Some(got) = try_take()? {
        return Ok(got);
    }
    // `with_interest` is the one spelling tokio 1.24 (Debian 12's) and the
    // later releases share; they deprecate it for an unsafe one, since a
    // raw fd could be closed under the registration. The registration
    // holds the fd's borrow here, so the fd outlives it.
    #[allow(deprecated)]
    let registered = AsyncFd::with_interest(fd, Interest::READABLE)
        .map_err(|e| Error::provider(Op::Wait, "epoll_ctl", e.raw_os_error().unwrap_or(0)))?;
    loop {
        let mut guard = registered
            .readable()
            .await
            .map_err(|e| Error::provider(Op::Wait, "epoll_wait", e.raw_os_error().unwrap_or(0)))?;
        match try_take()? {
            Some(got) => return Ok(got),
            None => guard.clear_ready(),
        }
    }
}

impl Conn {
    /// [`Conn::next_event`], awaited.
    ///
    /// Cancel-safe: a wait dropped before it finished has taken no event.
    ///
    /// # Errors
    /// As [`Conn::next_event`]; `Error::Provider` (`epoll_ctl`) when the
    /// fd cannot be registered with the reactor: `EEXIST` while another
    /// wait on the same connection is pending on the same runtime.
    pub async fn next_event_async(&self) -> Result<ConnEvent> {
        take_when_ready(self.event_fd(), || self.try_next_event()).await
    }
}

impl Ep {
    /// [`Ep::next_request`], awaited.
    ///
    /// Cancel-safe: a wait dropped before it finished has taken no
    /// request; the next wait gets it.
    ///
    /// # Errors
    /// As [`Ep::next_request`]; `Error::Provider` (`epoll_ctl`) when
    /// the fd cannot be registered with the reactor: `EEXIST` while
    /// another wait on the same listener is pending on the same runtime.
    pub async fn next_request_async(&self, cfg: Option<&ConnCfg>) -> Result<ConnReq> {
        take_when_ready(self.fd(), || self.try_next_request(cfg)).await
    }
}

impl Cq {
    /// The next completion, awaited: polls the CQ and, while it is empty,
    /// waits for its channel. The first wait makes the channel's fd
    /// non-blocking, so a blocking [`Cq::wait`] on the same CQ afterwards
    /// returns at once when nothing came.
    ///
    /// Cancel-safe: a wait dropped before it finished has taken no
    /// completion, and the CQ stays armed.
    ///
    /// # Errors
    /// `Error::SharedChannel` when the CQ reports to its connection's
    /// shared channel; `Error::Provider` when the poll or the channel
    /// fails, or the channel's fd cannot be registered with the reactor
    /// (`epoll_ctl`: `EEXIST` while another wait on the same CQ is pending
    /// on the same runtime).
    pub async fn next_wc_async(&self) -> Result<WorkCompletion> {
        take_when_ready(self.fd(), || self.try_next_wc()).await
    }
}

/// Runs a set-up step that blocks while an address or route resolves on
/// tokio's blocking pool, as tokio's own `lookup_host` does with name
/// resolution: librdmacm offers no resolution that a reactor could await
/// without taking over the id's event channel.
async fn off_the_reactor<T: Send + 'static>(
    step: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    // a panic in the step (a bug) or a runtime shutting down: no result
    tokio::task::spawn_blocking(step)
        .await
        .unwrap_or(Err(Error::Unknown))
}

impl Peer {
    /// [`Peer::remote`] without blocking the task while the address
    /// resolves to a device.
    ///
    /// Cancel-safe: the resolution finishes on tokio's blocking pool, and
    /// a peer made after the wait was dropped is released at once.
    ///
    /// # Errors
    /// As [`Peer::remote`]; `Error::Unknown` when the runtime shuts down
    /// before the resolution ends.
    pub async fn remote_async(ip: IpAddr) -> Result<Peer> {
        off_the_reactor(move || Peer::remote(ip)).await
    }
}

impl ConnReq {
    /// [`ConnReq::new`] without blocking the task while the address and
    /// the route resolve. Then [`ConnReq::connect`] (which does not block)
    /// and [`Conn::next_event_async`] for `Established` complete the
    /// set-up; a server awaits [`Ep::next_request_async`] and connects
    /// the same way.
    ///
    /// ```no_run
    /// use rpma::{ConnEvent, ConnReq, Peer};
    ///
    /// async fn connect(server: std::net::SocketAddr) -> rpma::Result<rpma::Conn> {
    ///     let peer = Peer::remote_async(server.ip()).await?;
    ///     let conn = ConnReq::new_async(&peer, server, None).await?.connect(b"")?;
    ///     match conn.next_event_async().await? {
    ///         ConnEvent::Established => Ok(conn),
    ///         _ => Err(rpma::Error::NoEvent),
    ///     }
    /// }
    /// ```
    ///
    /// Cancel-safe: the resolution finishes on tokio's blocking pool, and
    /// a request made after the wait was dropped is released at once,
    /// without connecting.
    ///
    /// # Errors
    /// As [`ConnReq::new`]; `Error::Unknown` when the runtime shuts down
    /// before the resolution ends.
    pub async fn new_async(
        peer: &Peer,
        addr: SocketAddr,
        cfg: Option<&ConnCfg>,
    ) -> Result<ConnReq> {
        let (peer, cfg) = (peer.clone(), cfg.cloned());
        off_the_reactor(move || ConnReq::new(&peer, addr, cfg.as_ref())).await
    }
}
