//! What the examples share: the command line, bounded waits on the
//! library's file descriptors, connection events and completions.
//!
//! Apart from this module's `poll(2)` call (libc), the examples use only
//! the safe API of `rpma`.
//!
//! Every wait has a deadline, so a peer that never comes (or a lost
//! message) ends the example with a message instead of hanging it.

use std::error::Error;
use std::ffi::c_int;
use std::fmt;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rpma::conn::{Conn, ConnEvent};
use rpma::cq::{Cq, WcStatus, WorkCompletion};

/// The result of every step: a message says what failed.
pub type Res<T> = Result<T, Box<dyn Error>>;

/// Which side of the example this process plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Server,
    Client,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Server => "server",
            Role::Client => "client",
        })
    }
}

/// `<server|client> <addr> <port>`, or the usage line and exit status 2.
pub fn args() -> (Role, String, String) {
    let argv: Vec<String> = std::env::args().collect();
    let role = match argv.get(1).map(String::as_str) {
        Some("server") => Some(Role::Server),
        Some("client") => Some(Role::Client),
        _ => None,
    };
    match (role, argv.len()) {
        (Some(role), 4) => (role, argv[2].clone(), argv[3].clone()),
        _ => {
            let me = argv.first().map_or("example", String::as_str);
            eprintln!("usage: {me} <server|client> <addr> <port>");
            std::process::exit(2);
        }
    }
}

/// Runs the side the command line names, prints "<side>: done" or what
/// failed, and gives the exit status.
pub fn run(server: fn(&str, &str) -> Res<()>, client: fn(&str, &str) -> Res<()>) -> ExitCode {
    let (role, addr, port) = args();
    let result = match role {
        Role::Server => server(&addr, &port),
        Role::Client => client(&addr, &port),
    };
    match result {
        Ok(()) => {
            println!("{role}: done");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{role}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A failure described in words.
/// The socket address of `addr` (an IP address) and `port`, as the
/// command line gives them.
pub fn socket_addr(addr: &str, port: &str) -> Res<std::net::SocketAddr> {
    match (addr.parse::<std::net::IpAddr>(), port.parse::<u16>()) {
        (Ok(ip), Ok(port)) => Ok((ip, port).into()),
        _ => fail(format!("not an IP address and a port: {addr} {port}")),
    }
}

pub fn fail<T>(msg: impl Into<String>) -> Res<T> {
    Err(msg.into().into())
}

/// Adds what was being done to a library error.
pub fn step<T>(what: &str, r: rpma::Result<T>) -> Res<T> {
    r.map_err(|e| format!("{what}: {e}").into())
}

/// Waits at most `timeout` for `fd` to become readable; `what` names the
/// awaited thing in the message when it does not.
pub fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration, what: &str) -> Res<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = c_int::try_from(left.as_millis()).unwrap_or(c_int::MAX);
        // SAFETY: one pollfd, which lives on this frame for the call.
        let ret = unsafe { libc::poll(&mut pfd, 1, ms) };
        match ret {
            1.. => return Ok(()),
            0 => return fail(format!("no {what} within {} s", timeout.as_secs())),
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return fail(format!("poll: {}", std::io::Error::last_os_error())),
        }
    }
}

/// The next event of `conn`, taken within `timeout`.
pub fn next_event(conn: &Conn, timeout: Duration) -> Res<ConnEvent> {
    wait_readable(conn.event_fd(), timeout, "connection event")?;
    step("next connection event", conn.next_event())
}

/// Takes the next event of `conn` and checks it is `want`.
pub fn expect_event(conn: &Conn, want: ConnEvent, timeout: Duration) -> Res<()> {
    match next_event(conn, timeout)? {
        got if got == want => Ok(()),
        got => fail(format!(
            "expected \"{}\", got \"{}\"",
            want.as_cstr().to_string_lossy(),
            got.as_cstr().to_string_lossy()
        )),
    }
}

/// One completion of `cq`, waiting at most `timeout` for it.
pub fn next_wc(cq: &Cq, timeout: Duration) -> Res<WorkCompletion> {
    let deadline = Instant::now() + timeout;
    loop {
        let mut wc = [WorkCompletion::default()];
        match cq.poll(&mut wc) {
            Ok(_) => return Ok(wc[0]),
            Err(rpma::Error::NoCompletion) => {}
            Err(e) => return fail(format!("getting a completion: {e}")),
        }
        let left = deadline.saturating_duration_since(Instant::now());
        wait_readable(cq.fd(), left, "completion")?;
        // readable, so this does not block; it also arms the CQ again
        step("waiting for the CQ", cq.wait())?;
    }
}

/// Checks that `wc` succeeded and belongs to `op_context`.
pub fn check_wc(wc: &WorkCompletion, op_context: u64, what: &str) -> Res<()> {
    if wc.status() != WcStatus::Success {
        return fail(format!("{what} completed with status {:?}", wc.status()));
    }
    if wc.wr_id() != op_context {
        return fail(format!(
            "{what}: the completion carries wr_id {:#x}, not {op_context:#x}",
            wc.wr_id()
        ));
    }
    Ok(())
}

/// Private data as text: RoCE and IB pad it with zeros to the transport's
/// size, which are cut off here.
pub fn text(data: Option<&[u8]>) -> String {
    let data = data.unwrap_or_default();
    let end = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    String::from_utf8_lossy(&data[..end]).into_owned()
}
