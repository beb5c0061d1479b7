//! The Rust API's side of the benchmark: the client of `bench/rpma-bench.c`
//! written with the owned handles, so that `cargo xtask bench limit` can
//! measure each operation through the Rust API beside the C face and raw
//! verbs, on the same rows and against the same server (rpma-bench's, on
//! our librpma.so.0).
//!
//! ```text
//! rpma_bench client ADDR PORT CASE SIZE QD (-t SECONDS | -n OPS)
//! ```
//!
//! CASE is read, write, atomic_write (SIZE 8), flush (an unsignaled write
//! and a signaled flush), send (one way; the server keeps receives posted)
//! or pingpong (a receive and a send; the server answers each message).
//! The connect private data, the server's answer, the warm-up, the loop
//! (QD operations in flight, each completion posts the next) and the
//! RESULT line are rpma-bench.c's, as are the variables BENCH_WARMUP,
//! BENCH_WARMUP_MS, BENCH_TIMEOUT, BENCH_MAX_OPS and RPMA_BENCH_FLUSH.
//! Any error: a message on stderr and exit status 1.

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::time::Instant;

use rpma::conn::ConnEvent;
use rpma::cq::{WcOpcode, WorkCompletion};
use rpma::mr::{MrRemote, Usage};
use rpma::peer_cfg::PeerCfg;
use rpma::{Conn, ConnCfg, Opts, Peer, Region};
use rpma::{Error, FlushType};

/// rpma-bench.c's sizes: QD slots of at most 1 MiB on each side.
const SLOTS: usize = 16;
const SLOT_MAX: usize = 1 << 20;
const REGION_SIZE: usize = SLOTS * SLOT_MAX;
const MAX_WC: usize = 2 * SLOTS;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    Read,
    Write,
    Atomic,
    Flush,
    Send,
    PingPong,
}

impl Case {
    fn parse(name: &str) -> Option<Case> {
        Some(match name {
            "read" => Case::Read,
            "write" => Case::Write,
            "atomic_write" => Case::Atomic,
            "flush" => Case::Flush,
            "send" => Case::Send,
            "pingpong" => Case::PingPong,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Case::Read => "read",
            Case::Write => "write",
            Case::Atomic => "atomic_write",
            Case::Flush => "flush",
            Case::Send => "send",
            Case::PingPong => "pingpong",
        }
    }

    /// rpma-bench.c's number for the case in the connect private data.
    fn wire(self) -> u32 {
        match self {
            Case::Read => 1,
            Case::Write => 2,
            Case::Atomic => 3,
            Case::Flush => 4,
            Case::PingPong => 5,
            Case::Send => 12,
        }
    }
}

fn die(msg: impl std::fmt::Display) -> ! {
    eprintln!("rpma_bench: {msg}");
    std::process::exit(1);
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .ok()
            .filter(|&x| x > 0)
            .unwrap_or_else(|| die(format!("bad {name}={v}"))),
        _ => default,
    }
}

trait OrDie<T> {
    fn or_die(self, what: &str) -> T;
}

impl<T> OrDie<T> for rpma::Result<T> {
    fn or_die(self, what: &str) -> T {
        self.unwrap_or_else(|e| die(format!("{what}: {e}")))
    }
}

/// The client's connection and what the server's answer gave it.
struct Client {
    conn: Conn,
    local: Region<Box<[u8]>>,
    remote: MrRemote,
    case: Case,
    size: usize,
    qd: usize,
    flush: FlushType,
    polls: u64,
    empty_polls: u64,
}

/// One measured (or warm-up) run: an exact count, or a duration.
#[derive(Default)]
struct Run {
    nops: u64,
    secs_ns: u64,
    warmup_ns: u64,
    cap: u64,
    lat: Vec<u64>,
    done: u64,
    t_start: u64,
    t_end: u64,
}

fn connect(peer: &Peer, addr: SocketAddr, case: Case, size: usize, qd: usize) -> Client {
    let timeout_ms = env_u64("BENCH_TIMEOUT", 30) * 1000;
    let cfg = ConnCfg::new();
    cfg.set_cq_size(64);
    cfg.set_sq_size(64);
    cfg.set_rq_size(32);
    cfg.set_timeout(i32::try_from(timeout_ms).unwrap_or(i32::MAX))
        .or_die("ConnCfg::set_timeout");
    let usage = Usage::READ_DST | Usage::WRITE_SRC | Usage::SEND | Usage::RECV;
    let buf = vec![0u8; 2 * REGION_SIZE].into_boxed_slice();
    let local = Region::reg(peer, buf, usage).or_die("Region::reg");

    // rpma-bench.c's struct req_pd: magic, case, size, QD (host order)
    let mut req = Vec::with_capacity(16);
    req.extend_from_slice(b"RPB1");
    for v in [case.wire(), size as u32, qd as u32] {
        req.extend_from_slice(&v.to_ne_bytes());
    }
    let conn = rpma::ConnReq::new(peer, addr, Some(&cfg))
        .or_die("ConnReq::new")
        .connect(&req)
        .or_die("ConnReq::connect");
    match conn.next_event().or_die("Conn::next_event") {
        ConnEvent::Established => {}
        e => die(format!("expected ESTABLISHED, got {e:?}")),
    }
    // struct rep_pd: magic, the two descriptor sizes, the descriptors
    let rep = conn.private_data().unwrap_or_default();
    if rep.len() < 30 || &rep[..4] != b"RPB2" {
        die("the server's private data is not rpma-bench's");
    }
    let (mr_len, pcfg_len) = (rep[4] as usize, rep[5] as usize);
    let desc = &rep[6..30];
    if mr_len + pcfg_len > desc.len() {
        die("the server's descriptors do not fit its private data");
    }
    let remote = MrRemote::from_descriptor(&desc[..mr_len]).or_die("MrRemote::from_descriptor");
    let pcfg = PeerCfg::from_descriptor(&desc[mr_len..mr_len + pcfg_len])
        .or_die("PeerCfg::from_descriptor");
    conn.apply_remote_peer_cfg(&pcfg);
    if (remote.size() as usize) < REGION_SIZE {
        die(format!(
            "the server's region is too small ({})",
            remote.size()
        ));
    }
    let flush = match std::env::var("RPMA_BENCH_FLUSH").as_deref() {
        Ok("visibility") => FlushType::Visibility,
        _ => FlushType::Persistent,
    };
    Client {
        conn,
        local,
        remote,
        case,
        size,
        qd,
        flush,
        polls: 0,
        empty_polls: 0,
    }
}

impl Client {
    /// Posts operation `slot`, as rpma-bench.c's cli_post does.
    #[inline(always)]
    fn post(&self, slot: usize) -> rpma::Result<()> {
        let (off, len) = (slot * self.size, self.size);
        let local = self.local.slice(off..off + len)?;
        let remote = self.remote.slice(off..off + len)?;
        let done = Opts::signaled().context(slot as u64);
        match self.case {
            Case::Read => self.conn.read(remote, local, done),
            Case::Write => self.conn.write(local, remote, done),
            Case::Atomic => self.conn.atomic_write(&[0u8; 8], remote, done),
            Case::Flush => {
                self.conn.write(local, remote, Opts::unsignaled())?;
                self.conn.flush(remote, self.flush, done)
            }
            Case::Send => self.conn.send(local, done),
            Case::PingPong => {
                let back = self
                    .local
                    .slice(REGION_SIZE + off..REGION_SIZE + off + len)?;
                self.conn.recv(back, slot as u64)?;
                self.conn.send(local, done)
            }
        }
    }

    /// rpma-bench.c's cli_loop: QD operations in flight, each completion
    /// posts the next one, until the run's count or time is reached.
    fn run(&mut self, r: &mut Run, clock: &Instant) {
        let now = || clock.elapsed().as_nanos() as u64;
        let two = self.case == Case::PingPong;
        let nwc = if two { 2 * self.qd } else { self.qd };
        let limit = if r.nops > 0 { r.nops } else { r.cap };
        let deadline_ns = env_u64("BENCH_TIMEOUT", 30) * 1_000_000_000;
        let mut tpost = [0u64; SLOTS];
        let mut wc = [WorkCompletion::default(); MAX_WC];
        let (mut posted, mut done, mut spin) = (0u64, 0u64, 0u32);
        let mut t = now();
        r.t_start = t;
        let end_ns = t + r.secs_ns;
        let stop_ns = if r.warmup_ns > 0 {
            t + r.warmup_ns
        } else {
            u64::MAX
        };
        let mut last = t;
        for (s, tp) in tpost.iter_mut().enumerate().take(self.qd) {
            if posted >= limit {
                break;
            }
            *tp = now();
            self.post(s)
                .unwrap_or_else(|e| die(format!("posting {}: {e}", self.case.name())));
            posted += 1;
        }
        while done < posted {
            self.polls += 1;
            let n = match self.conn.cq().poll(&mut wc[..nwc]) {
                Ok(n) => n,
                Err(Error::NoCompletion) => {
                    self.empty_polls += 1;
                    spin = spin.wrapping_add(1);
                    if spin % 65536 == 0 && now() - last > deadline_ns {
                        die(format!(
                            "{}: no completion within the deadline",
                            self.case.name()
                        ));
                    }
                    continue;
                }
                Err(e) => die(format!("Cq::poll: {e}")),
            };
            for c in &wc[..n] {
                if !c.status().is_success() {
                    die(format!(
                        "{}: completion error {:?}",
                        self.case.name(),
                        c.status()
                    ));
                }
                if two && c.opcode() == WcOpcode::Send {
                    continue;
                }
                let s = c.wr_id() as usize;
                t = now();
                if !r.lat.is_empty() {
                    r.lat[done as usize] = t - tpost[s];
                }
                done += 1;
                let more = if r.nops > 0 { t < stop_ns } else { t < end_ns };
                if posted < limit && more {
                    tpost[s] = t;
                    self.post(s)
                        .unwrap_or_else(|e| die(format!("posting {}: {e}", self.case.name())));
                    posted += 1;
                }
            }
            last = t;
        }
        r.t_end = t;
        r.done = done;
    }
}

/// User and system CPU time of this process so far, in microseconds.
fn cpu_us() -> (f64, f64) {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
    // SAFETY: zeroed above and filled by getrusage.
    let ru = unsafe { ru.assume_init() };
    let us = |tv: libc::timeval| tv.tv_sec as f64 * 1e6 + tv.tv_usec as f64;
    (us(ru.ru_utime), us(ru.ru_stime))
}

/// The nearest-rank percentile `p` of sorted latencies, in microseconds
/// (bench-time.h's pct_us).
fn pct_us(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64 + 0.999999) as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1e3
}

fn main() -> ExitCode {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 9 || a[1] != "client" {
        eprintln!("usage: rpma_bench client ADDR PORT CASE SIZE QD (-t SECONDS | -n OPS)");
        return ExitCode::from(2);
    }
    let ip: IpAddr = a[2]
        .parse()
        .unwrap_or_else(|_| die(format!("bad address {}", a[2])));
    let port: u16 = a[3]
        .parse()
        .unwrap_or_else(|_| die(format!("bad port {}", a[3])));
    let case = Case::parse(&a[4]).unwrap_or_else(|| die(format!("unknown case {}", a[4])));
    let size: usize = a[5].parse().unwrap_or(0);
    let qd: usize = a[6].parse().unwrap_or(0);
    if size == 0 || size > SLOT_MAX || qd == 0 || qd > SLOTS {
        die(format!("SIZE must be 1..{SLOT_MAX} and QD 1..{SLOTS}"));
    }
    if case == Case::Atomic && size != 8 {
        die("atomic_write needs SIZE 8");
    }
    let count: u64 = a[8].parse().unwrap_or_else(|_| die("bad count"));
    let mut r = Run::default();
    match a[7].as_str() {
        "-t" => {
            r.secs_ns = count * 1_000_000_000;
            r.cap = env_u64("BENCH_MAX_OPS", 4_194_304);
        }
        "-n" => {
            r.nops = count;
            r.cap = count;
        }
        _ => die("expected -t SECONDS or -n OPS"),
    }

    let peer = Peer::remote(ip).or_die("Peer::remote");
    let mut k = connect(&peer, SocketAddr::new(ip, port), case, size, qd);
    let clock = Instant::now();

    let mut w = Run {
        nops: env_u64("BENCH_WARMUP", 100),
        warmup_ns: env_u64("BENCH_WARMUP_MS", 0) * 1_000_000,
        ..Run::default()
    };
    w.cap = w.nops;
    k.run(&mut w, &clock);
    if w.done != w.nops && (w.warmup_ns == 0 || w.done < qd as u64) {
        die(format!("warm-up did {} ops", w.done));
    }
    if r.secs_ns > 0 {
        // room for 10 x the warm-up rate (at least 10000 ops)
        let rate = w.done as f64 * 1e9 / (w.t_end - w.t_start + 1) as f64;
        let want = (10.0 * rate * r.secs_ns as f64 / 1e9).max(10_000.0);
        r.cap = r.cap.min(want as u64);
    }
    // every slot touched now, not in the measured loop
    r.lat = vec![0u64; r.cap as usize];
    let (u0, s0) = cpu_us();
    k.run(&mut r, &clock);
    let (u1, s1) = cpu_us();
    let (cpu, sys) = (u1 - u0 + s1 - s0, s1 - s0);

    k.conn.disconnect().or_die("Conn::disconnect");
    match k.conn.next_event().or_die("Conn::next_event") {
        ConnEvent::Closed => {}
        e => die(format!("expected CLOSED, got {e:?}")),
    }
    k.conn.delete().or_die("Conn::delete");
    k.local.dereg().or_die("Region::dereg");

    if r.nops > 0 && r.done != r.nops {
        die(format!("did {} ops instead of {}", r.done, r.nops));
    }
    let secs = (r.t_end - r.t_start) as f64 / 1e9;
    let lat = &mut r.lat[..r.done as usize];
    lat.sort_unstable();
    let per = |x: f64| if r.done > 0 { x / r.done as f64 } else { 0.0 };
    println!(
        "RESULT case={} size={size} qd={qd} ops={} secs={secs:.6} ops_s={:.1} p50_us={:.2} \
         p99_us={:.2} cpu_us_op={:.3} sys_us_op={:.3}",
        case.name(),
        r.done,
        if secs > 0.0 {
            r.done as f64 / secs
        } else {
            0.0
        },
        pct_us(lat, 0.50),
        pct_us(lat, 0.99),
        per(cpu),
        per(sys),
    );
    eprintln!(
        "STATS empty_polls={} polls={} waits=0",
        k.empty_polls, k.polls
    );
    ExitCode::SUCCESS
}
