//! What a run's tests share: the paths tests.toml's placeholders stand
//! for, each test's outcome, and the report of them (a line per test as it
//! ends, the failures, JUnit XML and the closing counts).

use crate::junit;
use crate::list::{Expect, Stack, Test};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Held by whoever runs a QEMU guest (tests.toml's `{qemu-lock}`): the
/// machine has room for one.
pub const QEMU_LOCK: &str = "/tmp/librpma-qemu.lock";

/// The paths the placeholders of tests.toml stand for.
pub struct Paths {
    pub root: PathBuf,
    pub out: PathBuf,
}

impl Paths {
    /// `c12`: the folder of Debian 12's C library, for `{c12}` and, on
    /// Debian 13's siw, `{ref}` (guest::c12_lib).
    pub fn expand(&self, cmd: &str, stack: Stack, c12: Option<&Path>) -> String {
        let r = self.root.display().to_string();
        let build = format!("{r}/build/tests-c");
        let c12 = c12.map(|d| d.display().to_string());
        let reference = match (stack, &c12) {
            (Stack::TrixieSiw, Some(dir)) => dir.clone(),
            _ => format!("{build}/reference-lib"),
        };
        // the checks of `cargo xtask check`, run by this very executable so
        // that a test does not wait on cargo's lock
        let xtask = std::env::current_exe()
            .map_or_else(|_| "cargo xtask".to_string(), |p| p.display().to_string());
        cmd.replace("{xtask}", &xtask)
            .replace("{root}", &r)
            .replace("{build}", &build)
            .replace("{lib}", &format!("{r}/build/lib"))
            .replace("{ref}", &reference)
            .replace("{fault}", &format!("{r}/build/fault"))
            .replace("{rust}", &format!("{r}/build/rust"))
            .replace("{c12}", c12.as_deref().unwrap_or("{c12}"))
            .replace("{qemu-lock}", QEMU_LOCK)
    }

    pub fn log(&self, t: &Test) -> PathBuf {
        self.out
            .join(t.stack.name())
            .join(format!("{}.log", t.name))
    }
}

pub struct Outcome {
    pub test: Test,
    pub passed: bool,
    pub secs: f64,
    pub note: String,
}

/// What a test's exit status means, given what is expected of it.
pub fn judge(t: &Test, rc: i32) -> (bool, String) {
    let how = match rc {
        0 => "passed".to_string(),
        124 => format!("timed out after {} s", t.timeout),
        -1 => "did not run".to_string(),
        n => format!("exit {n}"),
    };
    match &t.expect {
        Expect::Pass => (rc == 0, if rc == 0 { String::new() } else { how }),
        Expect::Fails(why) | Expect::Skip(why) if rc != 0 && rc != -1 => {
            (true, format!("known not to work here ({how}): {why}"))
        }
        Expect::Fails(_) | Expect::Skip(_) if rc == 0 => (
            false,
            "passed, but is known not to work here: its entry in tests.toml is stale".into(),
        ),
        _ => (false, how),
    }
}

pub struct Report {
    total: usize,
    done: Mutex<Vec<Outcome>>,
}

impl Report {
    pub fn new(total: usize) -> Self {
        Report {
            total,
            done: Mutex::new(Vec::new()),
        }
    }

    pub fn add(&self, o: Outcome) {
        let mut done = self.done.lock().unwrap();
        let mark = if !o.passed {
            "FAIL"
        } else if matches!(o.test.expect, Expect::Pass) {
            "PASS"
        } else {
            "PASS*"
        };
        let note = if o.note.is_empty() {
            String::new()
        } else {
            format!("  {}", o.note)
        };
        println!(
            "[{:>3}/{}] {mark:<5} {:<12} {} ({:.1} s){note}",
            done.len() + 1,
            self.total,
            o.test.stack,
            o.test.name,
            o.secs
        );
        let _ = std::io::stdout().flush();
        done.push(o);
    }

    pub fn finish(self, paths: &Paths) -> bool {
        const FAILURE_TAIL: usize = 15;
        const FAILED_CHECKS: usize = 10;
        let done = self.done.into_inner().unwrap();
        let failed: Vec<&Outcome> = done.iter().filter(|o| !o.passed).collect();
        let cases: Vec<junit::Case> = done
            .iter()
            .map(|o| junit::Case {
                stack: o.test.stack,
                name: &o.test.name,
                secs: o.secs,
                failure: (!o.passed).then(|| (o.note.as_str(), log_tail(&paths.log(&o.test), 200))),
            })
            .collect();
        let _ = fs::write(paths.out.join("junit.xml"), junit::xml(&cases));
        println!();
        for o in &failed {
            println!(
                "FAIL {} {}: {} (log: {})",
                o.test.stack,
                o.test.name,
                o.note,
                paths.log(&o.test).display()
            );
        }
        if let Some(first) = failed.first() {
            // CI shows only the end of a run's output and keeps no log: the
            // first failure's failed checks and its last lines go there, so
            // that it can be read without its log
            let log = paths.log(&first.test);
            println!("\nthe failed checks in {}'s log:", first.test.name);
            for l in failed_checks(&log, FAILED_CHECKS) {
                println!("  | {l}");
            }
            println!("the end of {}'s log:", first.test.name);
            for l in log_tail(&log, FAILURE_TAIL).lines() {
                println!("  | {l}");
            }
            println!();
        }
        println!("JUnit: {}", paths.out.join("junit.xml").display());
        println!(
            "{} passed, {} failed",
            done.len() - failed.len(),
            failed.len()
        );
        failed.is_empty()
    }
}

/// The first `n` lines of a log that tell a failed check (a C test's
/// "FAIL file:line", a server's "check failed"), each once.
fn failed_checks(log: &Path, n: usize) -> Vec<String> {
    let text = fs::read_to_string(log).unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .map(str::trim)
        .filter(|l| l.contains("FAIL ") || l.contains("check failed"))
        .filter(|l| seen.insert(l.to_string()))
        .take(n)
        .map(str::to_string)
        .collect()
}

/// The last `n` lines of a log (none if it cannot be read).
fn log_tail(log: &Path, n: usize) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    crate::text::last_lines(&text, n).join("\n")
}
