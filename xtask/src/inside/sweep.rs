//! The guest side of the fault-injection sweep: an example pair run once
//! per injection point with RPMA_FAULT_INJECTION=N on one side only, that
//! side served by the fault-injection build of the library and the other
//! by the plain one.
//!
//! Each point must end in a clean success (exit 0) or a clean failure: a
//! non-zero exit below 128 with an error message of the example's own on
//! stderr. A signal, a hang (FAULT_TIMEOUT seconds), or library heap
//! blocks still live at exit (the fault build counts them) fails the
//! point. Under valgrind (the first point tried and every
//! FAULT_VALGRIND_EVERY-th one after it) any memcheck error, or a definite
//! or indirect leak whose allocation passed through librpma.so.0, fails it
//! too. The sweep ends at the first point the run completes without
//! reaching (exit 0, no injection), or after FAULT_MAX_POINTS. A run that
//! fails without having made call N is run again; failing so twice fails
//! the point.
//!
//! ARGs go to both sides, except those after an ARG "--client", which go
//! to the client only.
//!
//! Environment: FAULT_LIB, PLAIN_LIB (librpma.so.0 paths), BIN_DIR (holds
//! example_PAIR_{server,client}), RPMA_TESTING_IP, FAULT_POINTS (a list,
//! separated by spaces or commas, to try instead of 1, 2, ...),
//! FAULT_MAX_POINTS (default 2000), FAULT_VALGRIND_EVERY (0: never, the
//! default), FAULT_TIMEOUT (default 60), FAULT_SUPP (valgrind suppressions
//! file), RPMA_TEST_PORT_BASE and RPMA_TEST_PORT_SPAN (the port range of
//! the lane; see t_port() in tests-c/common/rpma_live.c).

use super::env;
use crate::check::TempDir;
use crate::pkg::code as status_code;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn env_or(name: &str, default: &str) -> String {
    env(name).unwrap_or_else(|| default.to_string())
}

fn dir_of(lib: &str) -> String {
    Path::new(lib)
        .parent()
        .map_or_else(|| ".".into(), |d| d.display().to_string())
}

struct Sweep {
    pair: String,
    side: &'static str,
    args: Vec<String>,
    client_args: Vec<String>,
    ip: String,
    limit: u64,
    fault_lib: String,
    plain_lib: String,
    bin_dir: String,
    supp: Option<String>,
    port_base: u64,
    port_span: u64,
    work: TempDir,
}

/// How one run at one point ended.
enum Outcome {
    Fail(String),
    Unreached,
    Early(String),
    Success,
    Error,
}

impl Sweep {
    fn out(&self, who: &str, ext: &str) -> PathBuf {
        self.work.path().join(format!("{who}.{ext}"))
    }

    fn launch(&self, who: &str, n: u64, valgrind: bool, port: u64) -> Option<Child> {
        let mut argv: Vec<String> = Vec::new();
        if who == self.side && valgrind {
            // valgrind's start alone takes tens of seconds in the TCG
            // guest: no glibc debugging information (slim-debuginfo.sh)
            // and no inlining records shorten it
            argv.extend(
                [
                    "tests-c/scripts/slim-debuginfo.sh",
                    "valgrind",
                    "-q",
                    "--read-inline-info=no",
                    "--error-exitcode=99",
                    "--leak-check=full",
                    "--show-leak-kinds=definite,indirect",
                    "--errors-for-leak-kinds=none",
                ]
                .map(String::from),
            );
            argv.extend(self.supp.iter().map(|s| format!("--suppressions={s}")));
        }
        argv.push(format!("{}/example_{}_{who}", self.bin_dir, self.pair));
        argv.extend([self.ip.clone(), port.to_string()]);
        argv.extend(self.args.iter().cloned());
        if who == "client" {
            argv.extend(self.client_args.iter().cloned());
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        if who == self.side {
            cmd.env("LD_LIBRARY_PATH", dir_of(&self.fault_lib))
                .env("RPMA_FAULT_INJECTION", n.to_string());
        } else {
            cmd.env("LD_LIBRARY_PATH", dir_of(&self.plain_lib));
        }
        let out = fs::File::create(self.out(who, "out")).ok()?;
        let err = fs::File::create(self.out(who, "err")).ok()?;
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .ok()
    }

    /// Waits for `child` until `deadline`; its status, or None when it had
    /// to be killed.
    fn wait(child: &mut Child, deadline: Instant) -> Option<i32> {
        loop {
            if let Ok(Some(s)) = child.try_wait() {
                return Some(status_code(s));
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn read(&self, who: &str, ext: &str) -> String {
        fs::read(self.out(who, ext))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    fn run_point(&self, n: u64, valgrind: bool) -> Outcome {
        let port = self.port_base + (u64::from(std::process::id()) + n) % self.port_span;
        let limit = Duration::from_secs(if valgrind { self.limit * 3 } else { self.limit });
        for who in ["server", "client"] {
            for ext in ["out", "err"] {
                let _ = fs::remove_file(self.out(who, ext));
            }
        }
        let start = Instant::now();
        let mut server = self.launch("server", n, valgrind, port);
        let listening = loop {
            if self.read("server", "out").contains("listening") {
                break true;
            }
            let gone = server
                .as_mut()
                .is_none_or(|s| !matches!(s.try_wait(), Ok(None)));
            if gone || start.elapsed() >= limit {
                break false;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let mut client = if listening {
            self.launch("client", n, valgrind, port)
        } else {
            None
        };
        let (mine, theirs) = if self.side == "server" {
            (&mut server, &mut client)
        } else {
            (&mut client, &mut server)
        };
        let rc = mine.as_mut().map(|c| Self::wait(c, Instant::now() + limit));
        if let Some(c) = theirs.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let err = self.read(self.side, "err");
        let report = err
            .lines()
            .rfind(|l| l.starts_with("librpma: fault injection: calls="))
            .unwrap_or("");
        let field = |key: &str| {
            report
                .split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .unwrap_or("")
                .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        };
        let (injected, live) = (field("injected="), field("live-blocks="));
        let why = match rc {
            None if self.side == "server" => Some("the server could not be started".to_string()),
            None => Some("the plain server never listened".to_string()),
            Some(None) => Some(format!("hang (killed after {} s)", limit.as_secs())),
            Some(Some(rc)) if rc >= 128 => Some(format!("crash (signal {})", rc - 128)),
            Some(Some(rc)) if report.is_empty() => Some(format!("no fault report (exit {rc})")),
            Some(Some(_)) if live != "0" => {
                Some(format!("{live} library heap blocks live at exit"))
            }
            Some(Some(99)) if valgrind => Some("valgrind: memcheck error".into()),
            Some(Some(rc)) if rc != 0 && !has_own_message(&err) => {
                Some(format!("exit {rc} without an error message"))
            }
            Some(Some(_)) if valgrind && leaks_through_librpma(&err) => {
                Some("valgrind: leak through librpma.so.0".into())
            }
            Some(Some(_)) => None,
        };
        let rc = rc.flatten().unwrap_or(0);
        match why {
            Some(w) => Outcome::Fail(w),
            None if injected == "none" && rc == 0 => Outcome::Unreached,
            None if injected == "none" => {
                Outcome::Early(format!("exit {rc} before call {n} was made"))
            }
            None if rc == 0 => Outcome::Success,
            None => Outcome::Error,
        }
    }

    /// The last `n` lines of each side's files, for a reader.
    fn tails(&self, files: &[(&str, &str)], n: usize) {
        for (who, ext) in files {
            let text = self.read(who, ext);
            println!("  | ==> {who}.{ext} <==");
            for l in crate::text::last_lines(&text, n) {
                println!("  | {l}");
            }
        }
    }
}

/// A line on stderr that is neither the fault build's nor valgrind's.
fn has_own_message(err: &str) -> bool {
    err.lines().any(|l| {
        !l.is_empty()
            && !l.starts_with("librpma: fault injection")
            && after_valgrind_prefix(l).is_none()
    })
}

/// What follows the "==PID==" of one of valgrind's lines; None for
/// another line.
fn after_valgrind_prefix(l: &str) -> Option<&str> {
    let (pid, rest) = l.strip_prefix("==")?.split_once("==")?;
    pid.bytes().all(|b| b.is_ascii_digit()).then_some(rest)
}

/// A definite or indirect leak record (valgrind's records are separated
/// by blank lines) whose stack passes through librpma: through one of its
/// rpma_* entry points (the library has line tables, so valgrind names a
/// frame by its source line, not its file) or, were those gone, through
/// the file itself.
fn leaks_through_librpma(err: &str) -> bool {
    let mut record = String::new();
    let mut found = false;
    let stripped = err.lines().map(|l| match after_valgrind_prefix(l) {
        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
        None => l,
    });
    for l in stripped.chain(std::iter::once("")) {
        if !l.trim().is_empty() {
            record.push_str(l);
            record.push('\n');
            continue;
        }
        let lost = record.contains("definitely lost") || record.contains("indirectly lost");
        let ours = record.contains("librpma.so") || names_an_rpma_frame(&record);
        found |= lost && ours;
        record.clear();
    }
    found
}

/// ": rpma_NAME (" somewhere in `record`.
fn names_an_rpma_frame(record: &str) -> bool {
    record.match_indices(": rpma_").any(|(i, m)| {
        let rest = &record[i + m.len()..];
        let name_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        name_len > 0 && rest[name_len..].starts_with(" (")
    })
}

pub fn run(pair: &str, side: &str, more: &[&str]) -> u8 {
    let (side, other) = match side {
        "server" => ("server", "client"),
        "client" => ("client", "server"),
        _ => {
            eprintln!("sweep: SIDE is server or client");
            return 2;
        }
    };
    let (args, client_args) = match more.iter().position(|a| *a == "--client") {
        Some(i) => (&more[..i], &more[i + 1..]),
        None => (more, &[][..]),
    };
    let Ok(ip) = std::env::var("RPMA_TESTING_IP") else {
        eprintln!("sweep: RPMA_TESTING_IP is not set (run under softroce/rxe-run)");
        return 2;
    };
    let num = |name: &str, default: u64| {
        env_or(name, &default.to_string())
            .parse()
            .unwrap_or(default)
    };
    let work = match TempDir::new("sweep") {
        Ok(t) => t,
        Err(e) => {
            eprintln!("sweep: a scratch folder: {e}");
            return 2;
        }
    };
    let s = Sweep {
        pair: pair.into(),
        side,
        args: args.iter().map(|a| a.to_string()).collect(),
        client_args: client_args.iter().map(|a| a.to_string()).collect(),
        ip,
        limit: num("FAULT_TIMEOUT", 60),
        fault_lib: env_or("FAULT_LIB", ""),
        plain_lib: env_or("PLAIN_LIB", ""),
        bin_dir: env_or("BIN_DIR", "."),
        supp: env("FAULT_SUPP"),
        port_base: num("RPMA_TEST_PORT_BASE", 20000),
        port_span: num("RPMA_TEST_PORT_SPAN", 12000).max(1),
        work,
    };
    let every = num("FAULT_VALGRIND_EVERY", 0);
    let points: Vec<u64> = match std::env::var("FAULT_POINTS")
        .ok()
        .filter(|p| !p.trim().is_empty())
    {
        Some(p) => p
            .split([',', ' '])
            .filter_map(|w| w.trim().parse().ok())
            .collect(),
        None => (1..=num("FAULT_MAX_POINTS", 2000)).collect(),
    };
    let (mut tried, mut passed, mut failed, mut vgruns, mut last) = (0u64, 0, 0, 0, 0);
    let mut reached_end = false;
    for n in points {
        // counted in points tried, not call numbers, so that a sample with
        // a stride (FAULT_POINTS) gets its share of valgrind runs too
        let vg = every > 0 && tried % every == 0;
        let t0 = Instant::now();
        let mut outcome = s.run_point(n, vg);
        if let Outcome::Early(why) = &outcome {
            // something outside the injection (a slow guest, the other
            // side) broke the run; once may be chance, twice is a failure
            // of the point
            println!("point {n}: {why}; running it again. Last lines of both sides:");
            s.tails(&[(side, "err"), (other, "err"), (other, "out")], 5);
            outcome = match s.run_point(n, vg) {
                Outcome::Early(why) => Outcome::Fail(format!("{why}, twice")),
                o => o,
            };
        }
        let took = format!("{:.0} s", t0.elapsed().as_secs_f64());
        let vg_note = if vg { " (valgrind)" } else { "" };
        if let Outcome::Unreached = outcome {
            println!("point {n}: not reached (the run completed with fewer calls)");
            reached_end = true;
            break;
        }
        tried += 1;
        last = n;
        vgruns += u64::from(vg);
        match outcome {
            Outcome::Fail(why) => {
                failed += 1;
                println!("point {n}: FAIL: {why}{vg_note}, {took}:");
                s.tails(&[(side, "err")], 40);
            }
            o => {
                passed += 1;
                let err = s.read(side, "err");
                let call = err
                    .lines()
                    .find(|l| l.contains("fault injection: call"))
                    .and_then(|l| l.rsplit_once(") fails"))
                    .and_then(|(head, _)| head.split_once('(').map(|(_, c)| c))
                    .unwrap_or("");
                let word = if matches!(o, Outcome::Success) {
                    "success"
                } else {
                    "error"
                };
                println!("point {n}: {word}{vg_note}, {took}: {call}");
            }
        }
    }
    let mut all: Vec<&str> = args.to_vec();
    if !client_args.is_empty() {
        all.push("--client");
        all.extend(client_args);
    }
    let shown = if all.is_empty() {
        String::new()
    } else {
        format!("[{}] ", all.join(" "))
    };
    let complete = if reached_end {
        "yes".to_string()
    } else {
        format!("no (stopped at {last})")
    };
    println!(
        "SWEEP {pair} {shown}{side} tried={tried} passed={passed} failed={failed} valgrind={vgruns} complete={complete} result={}",
        if failed > 0 { "FAIL" } else { "ok" }
    );
    u8::from(failed > 0)
}
