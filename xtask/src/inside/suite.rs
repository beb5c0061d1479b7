//! A guest's share of `cargo xtask test` (xtask/src/guest.rs starts it
//! through softroce/rxe-run). The manifest has a test a line: NAME, LIMIT
//! (seconds), FLAGS ("slow", "ram", both comma-separated, or -) and a shell
//! command, tab-separated. Each test's output is printed in one block
//! between "@@test begin NAME" and "@@test end NAME STATUS" as soon as it
//! ends, after a line "@@test start NAME LIMIT" as it starts; the runner
//! reads them from the console.
//!
//! Two lanes share the guest's two CPUs and one queue. The slow tests
//! (valgrind, fault sweeps: each waits a fixed time for a peer started
//! under valgrind) run one at a time, first, in the second lane. Each
//! lane's servers listen in a port range of its own (t_port() in
//! tests-c/common/rpma_live.c). With persistent memory (RXE_PMEM_NODE) a
//! test runs with all its memory there, as on a host with pmem, unless
//! flagged "ram".

use crate::check::TempDir;
use crate::pkg::code as status_code;
use crate::procfs::split_stat;
use std::collections::VecDeque;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

struct Entry {
    name: String,
    limit: String,
    flags: Vec<String>,
    cmd: String,
}

impl Entry {
    fn parse(line: &str) -> Option<Entry> {
        let mut f = line.splitn(4, '\t');
        let (name, limit, flags, cmd) = (f.next()?, f.next()?, f.next()?, f.next()?);
        Some(Entry {
            name: name.into(),
            limit: limit.into(),
            flags: flags.split(',').map(str::to_string).collect(),
            cmd: cmd.into(),
        })
    }

    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// Runs one test, its output in `scratch`; the block the runner reads.
fn run_test(e: &Entry, port_base: &str, scratch: &Path) -> String {
    let out_path = scratch.join(format!("{}.out", e.name));
    let start = Instant::now();
    let pmem = std::env::var("RXE_PMEM_NODE")
        .ok()
        .filter(|n| !n.is_empty() && !e.has("ram"));
    let membind = pmem.map(|n| format!("--membind={n}"));
    let mut argv: Vec<&str> = vec!["timeout", "-k", "5", &e.limit];
    if let Some(m) = &membind {
        argv.extend(["numactl", m]);
    }
    argv.extend(["bash", "-c", &e.cmd]);
    let (pgid, rc) = fs::File::create(&out_path)
        .and_then(|f| Ok((f.try_clone()?, f)))
        .and_then(|(out, err)| {
            let mut child = Command::new(argv[0])
                .args(&argv[1..])
                .env("RPMA_TEST_PORT_BASE", port_base)
                .env("RPMA_TEST_PORT_SPAN", "5900")
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()?;
            Ok((child.id(), child.wait()?))
        })
        .map_or_else(
            |e| {
                let _ = fs::write(&out_path, format!("could not start: {e}\n"));
                (0, 127)
            },
            |(pid, status)| (pid, status_code(status)),
        );
    let mut body = fs::read(&out_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let _ = fs::remove_file(&out_path);
    if rc == 124 {
        body += &format!("timed out after {} s\n", e.limit);
    }
    if pgid != 0 {
        body += &leftovers(pgid);
    }
    format!(
        "@@test begin {name}\n{body}({name} took {:.1} s in the guest)\n@@test end {name} {rc}\n",
        start.elapsed().as_secs_f64(),
        name = e.name
    )
}

/// The processes of a test that outlived it (timeout(1) leads the test's
/// process group, and kills it whole at the limit): where each sleeps in
/// the kernel, and the kernel's last words. After a kill, only a task in
/// an uninterruptible sleep is left, in the device's or the connection
/// manager's code, and what it waits for is lost once the guest stops.
fn leftovers(pgid: u32) -> String {
    let left = || group_members(pgid);
    // the KILLed need a moment to be gone
    for _ in 0..20 {
        if left().is_empty() {
            return String::new();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let mut report = String::new();
    for (pid, stat) in left() {
        let proc_file =
            |f: &str| fs::read_to_string(format!("/proc/{pid}/{f}")).unwrap_or_default();
        report += &format!(
            "suite: pid {pid} of the test's group outlived the test: {stat}\nwchan {}\n{}",
            proc_file("wchan"),
            proc_file("stack")
        );
    }
    if let Ok(out) = Command::new("dmesg").output() {
        let log = String::from_utf8_lossy(&out.stdout);
        report += "suite: the kernel's last 40 lines:\n";
        for l in crate::text::last_lines(&log, 40) {
            report += l;
            report.push('\n');
        }
    }
    report
}

/// Each process of a process group: its pid and the start of its stat
/// line (name and state).
fn group_members(pgid: u32) -> Vec<(u32, String)> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|d| d.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // STATE PPID PGRP ...
            let (comm, fields) = split_stat(&stat)?;
            let pgrp: u32 = fields.get(2)?.parse().ok()?;
            (pgrp == pgid).then(|| (pid, format!("{pid} ({comm}) {}", fields[0])))
        })
        .collect()
}

pub fn run(manifest: &str) -> u8 {
    let text = match fs::read_to_string(manifest) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{manifest}: {e}");
            return 2;
        }
    };
    let entries: Vec<Entry> = text.lines().filter_map(Entry::parse).collect();
    let (slow, rest): (Vec<&Entry>, Vec<&Entry>) = entries.iter().partition(|e| e.has("slow"));
    let slow = Mutex::new(VecDeque::from(slow));
    let rest = Mutex::new(VecDeque::from(rest));
    let scratch = match TempDir::new("suite") {
        Ok(t) => t,
        Err(e) => {
            eprintln!("a scratch folder: {e}");
            return 2;
        }
    };
    let lane = |queues: &[&Mutex<VecDeque<&Entry>>], port_base: &str| {
        for q in queues {
            loop {
                // the queue's lock is let go before the test runs (a
                // `while let` on the lock would hold it through the body)
                let next = q.lock().unwrap().pop_front();
                let Some(e) = next else { break };
                // the runner's watchdog learns what runs, and for how long
                // it may (xtask/src/guest.rs)
                {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "@@test start {} {}", e.name, e.limit);
                    let _ = out.flush();
                }
                let block = run_test(e, port_base, scratch.path());
                // one write under the lock: the blocks of two lanes never mix
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(block.as_bytes());
                let _ = out.flush();
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| lane(&[&slow, &rest], "26000"));
        lane(&[&rest], "20000");
    });
    0
}

#[cfg(test)]
mod tests {
    use super::group_members;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    #[test]
    fn a_group_is_found_by_its_leader() {
        let mut child = Command::new("sleep")
            .arg("5")
            .process_group(0)
            .spawn()
            .unwrap();
        let found = group_members(child.id());
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, child.id());
        assert!(found[0].1.contains("(sleep) "), "{found:?}");
        assert!(group_members(child.id()).is_empty());
    }
}
