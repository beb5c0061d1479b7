//! Waiting until a channel's fd is readable, within a deadline: how the
//! Rust API bounds its waits on connection events, requests and
//! completions without threads or signals.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use crate::error::{errno, Error, Result};
use crate::log::Op;

/// The most fds one wait watches: a connection's event channel, its CQ's
/// and its receive CQ's.
const MAX_FDS: usize = 3;

/// Whether one of `fds` (at most `MAX_FDS`) became readable within
/// `timeout` (forever: `None`). Interrupted waits go on until the
/// deadline.
pub(crate) fn readable(fds: &[BorrowedFd<'_>], timeout: Option<Duration>) -> Result<bool> {
    debug_assert!(fds.len() <= MAX_FDS, "at most {MAX_FDS} fds");
    let unused = libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    };
    let mut pfds = [unused; MAX_FDS];
    for (p, fd) in pfds.iter_mut().zip(fds) {
        p.fd = fd.as_raw_fd();
        p.events = libc::POLLIN;
    }
    let n = fds.len().min(MAX_FDS);
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let ms = match deadline {
            None => -1,
            // rounded up, so a wait never ends before its deadline
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                let ms = left.as_nanos().div_ceil(1_000_000);
                i32::try_from(ms).unwrap_or(i32::MAX)
            }
        };
        // SAFETY: `n` pollfds, on this frame, for the length of the call.
        match unsafe { libc::poll(pfds.as_mut_ptr(), n as libc::nfds_t, ms) } {
            0 if deadline.is_some_and(|d| Instant::now() >= d) => return Ok(false),
            0 => continue,
            1.. => return Ok(true),
            _ if errno() == libc::EINTR => continue,
            _ => return Err(Error::provider(Op::Wait, "poll", errno())),
        }
    }
}

/// Takes with `try_take` until it gives something, waiting for one of
/// `fds` to be readable between tries: `None` when `timeout` (forever:
/// `None`) passed first. The fds must be non-blocking, so that a try that
/// finds a channel emptied by another thread returns instead of blocking.
pub(crate) fn take_within<T>(
    fds: &[BorrowedFd<'_>],
    timeout: Option<Duration>,
    mut try_take: impl FnMut() -> Result<Option<T>>,
) -> Result<Option<T>> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        if let Some(got) = try_take()? {
            return Ok(Some(got));
        }
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) || !readable(fds, left)? {
            return Ok(None);
        }
    }
}

/// Makes `fd` non-blocking, so that a take from its channel returns when
/// there is nothing to take.
pub(crate) fn set_nonblocking(fd: BorrowedFd<'_>) -> Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on an fd the caller keeps open; no pointers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(Error::provider(Op::Wait, "fcntl", errno()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsFd, FromRawFd, OwnedFd};

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: fds has room for the two fds pipe writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both fds are new and owned by nothing else.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn a_wait_ends_at_its_deadline_or_when_data_comes() {
        let (r, w) = pipe();
        let start = Instant::now();
        assert_eq!(
            readable(&[r.as_fd()], Some(Duration::from_millis(30))),
            Ok(false)
        );
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert_eq!(readable(&[r.as_fd()], Some(Duration::ZERO)), Ok(false));
        // SAFETY: one byte from a live buffer to an open pipe.
        assert_eq!(
            unsafe { libc::write(w.as_raw_fd(), b"x".as_ptr().cast(), 1) },
            1
        );
        assert_eq!(readable(&[r.as_fd()], Some(Duration::ZERO)), Ok(true));
        assert_eq!(readable(&[r.as_fd()], None), Ok(true));
        set_nonblocking(r.as_fd()).unwrap();
        // SAFETY: F_GETFL on an open fd.
        assert_ne!(
            unsafe { libc::fcntl(r.as_raw_fd(), libc::F_GETFL) } & libc::O_NONBLOCK,
            0
        );
    }
}
