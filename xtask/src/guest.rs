//! One stack's tests in one boot of its SoftRoCE guest (softroce/rxe-run,
//! `xtask inside suite` in it), reported as each ends.
//!
//! A watchdog stops a guest that has stalled: one whose test outlived its
//! limit (the guest kills every test at its limit, so only an unkillable
//! task or a frozen kernel gets there), or one that started no test in
//! `BOOT_SECS` after QEMU started. Before it stops QEMU it asks the guest's
//! kernel, by magic SysRq keys through QEMU's monitor, for its blocked
//! tasks and every CPU's backtrace: the cause, in the whole console that
//! rxe-run keeps in the exchange folder.

use crate::list::{Stack, Test};
use crate::outcome::{judge, Outcome, Paths, Report, QEMU_LOCK};
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Seconds from QEMU's start to the first test's start: a boot under TCG
/// takes well under a minute, making persistent memory another minute.
const BOOT_SECS: u64 = 600;
/// Seconds past a test's limit before its guest counts as stalled: the
/// guest's `timeout -k 5` has killed the test by then, if it could.
const GRACE_SECS: u64 = 60;

/// What the watchdog reads and the console's reader writes.
#[derive(Default)]
struct Watch {
    /// The tests the guest has started and not ended, with their start
    /// and limit.
    running: HashMap<String, (Instant, u64)>,
    started_any: bool,
    done: bool,
    /// Why the watchdog stopped the guest.
    stalled: Option<String>,
}

fn fail_all(tests: &[&Test], report: &Report, note: &str) {
    for t in tests {
        report.add(Outcome {
            test: (*t).clone(),
            passed: false,
            secs: 0.0,
            note: note.to_string(),
        });
    }
}

pub fn run(stack: Stack, tests: &[Test], paths: &Paths, report: &Report) {
    let dir = paths.out.join(stack.name());
    // Debian 12's C library in Debian 13's guests: the old generation of
    // the generations.* tests, and on siw the reference, since 1.3.0
    // connects to nothing there (librpma(7), GENERATIONS)
    let c12 = if stack == Stack::TrixieSiw || tests.iter().any(|t| t.cmd.contains("{c12}")) {
        match c12_lib(&paths.root.join("build/tests-c/generations/c12")) {
            Ok(dir) => Some(dir),
            Err(e) => {
                fail_all(&tests.iter().collect::<Vec<_>>(), report, &e);
                return;
            }
        }
    } else {
        None
    };
    let mut manifest = String::new();
    for t in tests {
        let flags: Vec<&str> = [(t.slow, "slow"), (t.ram, "ram")]
            .iter()
            .filter(|f| f.0)
            .map(|f| f.1)
            .collect();
        let flags = if flags.is_empty() {
            "-".to_string()
        } else {
            flags.join(",")
        };
        manifest += &format!(
            "{}\t{}\t{flags}\t{}\n",
            t.name,
            t.timeout,
            paths.expand(&t.cmd, stack, c12.as_deref())
        );
    }
    let manifest_path = dir.join("manifest");
    fs::write(&manifest_path, manifest).expect("the guest's manifest");
    // the exchange folder at a known place: the watchdog reaches QEMU's
    // monitor there, and the whole console stays for whoever reads a failure
    let xchg = dir.join("xchg");
    let _ = fs::remove_dir_all(&xchg);
    fs::create_dir_all(&xchg).expect("the guest's exchange folder");
    // this very executable runs the guest's side: the guest sees the
    // host's paths (Debian 13's root has the tree overlaid at its own)
    let exe = std::env::current_exe().unwrap_or_else(|_| "xtask".into());
    let mut cmd = Command::new("flock");
    cmd.arg(QEMU_LOCK)
        .args([
            "bash",
            "-c",
            "exec softroce/rxe-run \"$0\" inside suite \"$1\" 2>&1",
        ])
        .arg(&exe)
        .arg(&manifest_path)
        .current_dir(&paths.root)
        .env("RXE_STACK", stack.release())
        .env("RXE_TIMEOUT", guest_limit(stack, tests).to_string())
        .env("RXE_XCHG", &xchg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    if stack.is_siw() {
        cmd.env("RXE_DEVICE", "siw");
    }
    if stack.release() == "trixie" {
        cmd.env("RXE_PMEM_MB", "2048");
    }
    let mut pending: HashMap<&str, &Test> = tests.iter().map(|t| (t.name.as_str(), t)).collect();
    let console_path = dir.join("console.log");
    let mut console = fs::File::create(&console_path).expect("the guest's console log");
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            fail_all(
                &pending.into_values().collect::<Vec<_>>(),
                report,
                &format!("softroce/rxe-run: {e}"),
            );
            return;
        }
    };
    // the reader wakes the watchdog as the console ends
    let watch = (Mutex::new(Watch::default()), Condvar::new());
    let mut current: Option<(String, String)> = None;
    let started = Instant::now();
    let mut last = started;
    thread::scope(|s| {
        s.spawn(|| watchdog(&xchg, &watch));
        for line in BufReader::new(child.stdout.take().unwrap())
            .split(b'\n')
            .map_while(Result::ok)
        {
            let line = String::from_utf8_lossy(&line).into_owned();
            // the host's clock beside each line: where a guest's time goes
            let _ = writeln!(console, "{:7.1} {line}", started.elapsed().as_secs_f64());
            if let Some(rest) = line.strip_prefix("@@test start ") {
                let mut it = rest.split_whitespace();
                if let (Some(name), Some(limit)) =
                    (it.next(), it.next().and_then(|l| l.parse().ok()))
                {
                    let mut w = watch.0.lock().unwrap();
                    w.started_any = true;
                    w.running.insert(name.to_string(), (Instant::now(), limit));
                }
            } else if let Some(name) = line.strip_prefix("@@test begin ") {
                current = Some((name.trim().to_string(), String::new()));
            } else if let Some(rest) = line.strip_prefix("@@test end ") {
                let mut it = rest.split_whitespace();
                let (name, rc) = (
                    it.next().unwrap_or(""),
                    it.next().and_then(|r| r.parse().ok()).unwrap_or(-1),
                );
                watch.0.lock().unwrap().running.remove(name);
                let body = current.take().map(|c| c.1).unwrap_or_default();
                if let Some(t) = pending.remove(name) {
                    let _ = fs::write(paths.log(t), &body);
                    let secs = body
                        .lines()
                        .rev()
                        .find_map(|l| {
                            l.strip_prefix(&format!("({name} took "))
                                .and_then(|r| r.split(' ').next()?.parse().ok())
                        })
                        .unwrap_or_else(|| last.elapsed().as_secs_f64());
                    let (passed, note) = judge(t, rc);
                    report.add(Outcome {
                        test: t.clone(),
                        passed,
                        secs,
                        note,
                    });
                }
                last = Instant::now();
            } else if let Some((_, body)) = current.as_mut() {
                body.push_str(&line);
                body.push('\n');
            }
        }
        watch.0.lock().unwrap().done = true;
        watch.1.notify_all();
    });
    let status = child.wait().map(|s| s.code().unwrap_or(128)).unwrap_or(-1);
    println!(
        "xtask: the {stack} guest ran {} tests in {:.0} s, boot, power-off and any wait for the QEMU lock included",
        tests.len(),
        started.elapsed().as_secs_f64()
    );
    if !pending.is_empty() {
        let tail: Vec<String> = fs::read_to_string(&console_path)
            .unwrap_or_default()
            .lines()
            .rev()
            .take(30)
            .map(str::to_string)
            .collect();
        let tail: Vec<String> = tail.into_iter().rev().collect();
        let note = match watch.0.into_inner().unwrap().stalled {
            Some(why) => format!(
                "did not run: the {stack} guest stalled ({why}) and was stopped; its kernel's blocked tasks and backtraces are in {}",
                xchg.join("console").display()
            ),
            None => format!(
                "did not run: the {stack} guest ended with status {status} (console: {}, whole: {})",
                console_path.display(),
                xchg.join("console").display()
            ),
        };
        let mut left: Vec<&Test> = pending.into_values().collect();
        left.sort_by(|a, b| a.name.cmp(&b.name));
        for t in &left {
            let _ = fs::write(
                paths.log(t),
                format!("{note}; it ends with:\n{}\n", tail.join("\n")),
            );
        }
        fail_all(&left, report, &note);
    }
}

/// Watches one guest until the console's reader is done; stops it if it
/// stalls (the module's comment says when).
fn watchdog(xchg: &Path, (lock, wake): &(Mutex<Watch>, Condvar)) {
    let mut booted: Option<Instant> = None;
    let mut w = lock.lock().unwrap();
    loop {
        w = wake.wait_timeout(w, Duration::from_secs(5)).unwrap().0;
        if w.done {
            return;
        }
        if booted.is_none() && xchg.join("qemu.pid").exists() {
            booted = Some(Instant::now());
        }
        let overdue = w.running.iter().find_map(|(name, (since, limit))| {
            let secs = since.elapsed().as_secs();
            (secs > limit + GRACE_SECS)
                .then(|| format!("{name} ran {secs} s, past its limit of {limit} s"))
        });
        let unstarted = booted
            .filter(|b| !w.started_any && b.elapsed().as_secs() > BOOT_SECS)
            .map(|_| format!("no test started in the {BOOT_SECS} s after QEMU started"));
        if let Some(why) = overdue.or(unstarted) {
            eprintln!("xtask: the guest stalled: {why}; asking its kernel for blocked tasks and backtraces, then stopping it");
            w.stalled = Some(why);
            drop(w);
            dump_and_quit(xchg);
            return;
        }
    }
}

/// Asks a stalled guest's kernel (through QEMU's monitor, keys on its
/// PS/2 keyboard; `sysrq_always_enabled` in rxe-run's kernel arguments)
/// to print every message (SysRq 9), its blocked tasks (w) and each CPU's
/// backtrace (l) to the console, then stops QEMU.
fn dump_and_quit(xchg: &Path) {
    let monitor = fs::OpenOptions::new()
        .write(true)
        .open(xchg.join("monitor.in"));
    let Ok(mut monitor) = monitor else {
        eprintln!("xtask: no monitor in {}", xchg.display());
        return;
    };
    for (cmd, wait) in [
        ("sendkey alt-sysrq-9", 1),
        ("sendkey alt-sysrq-w", 5),
        ("sendkey alt-sysrq-l", 10),
        ("quit", 0),
    ] {
        let _ = writeln!(monitor, "{cmd}");
        thread::sleep(Duration::from_secs(wait));
    }
}

/// Copies this Debian 12 host's own C librpma 1.2.0 into `dir`, for the
/// guests of Debian 13's stack, whose C library is 1.3.0; `dir` back.
fn c12_lib(dir: &Path) -> Result<PathBuf, String> {
    let query = |prog: &str, args: &[&str]| {
        Command::new(prog)
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let version = query("dpkg-query", &["-W", "-f=${Version}", "librpma0"]);
    if !version.starts_with("1.2.") {
        return Err(format!(
            "Debian 12's librpma0 (1.2.0) is needed as the old generation; this host has {version:?}"
        ));
    }
    let multiarch = query("gcc", &["-dumpmachine"]);
    let src = PathBuf::from(format!("/usr/lib/{multiarch}/librpma.so.0"));
    fs::create_dir_all(dir)
        .and_then(|()| fs::copy(&src, dir.join("librpma.so.0")))
        .map_err(|e| format!("copying {} to {}: {e}", src.display(), dir.display()))?;
    Ok(dir.to_path_buf())
}

/// Seconds before the guest is killed: what a usual suite needs, plus,
/// for the whole fault sweep's tests (each up to hours), half their limits
/// (two lanes).
fn guest_limit(stack: Stack, tests: &[Test]) -> u64 {
    let usual = if stack.is_siw() { 3600 } else { 2300 };
    let sweep: u64 = tests
        .iter()
        .filter(|t| t.suite == "sweep")
        .map(|t| t.timeout)
        .sum();
    usual + sweep / 2
}
