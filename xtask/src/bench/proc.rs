//! Processes and files of the guest side: commands behind `timeout` and
//! `taskset`, the programs' output lines, their CPU time.

use crate::procfs::split_stat;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::thread::sleep;
use std::time::Duration;

/// The command PREFIX... PROG: `timeout` and `taskset` are prefixes, so
/// that a run is limited and pinned as the former scripts did it.
pub fn command<S: AsRef<str>>(prefix: &[S], prog: &str) -> Command {
    match prefix.split_first() {
        None => Command::new(prog),
        Some((first, rest)) => {
            let mut c = Command::new(first.as_ref());
            c.args(rest.iter().map(|s| s.as_ref())).arg(prog);
            c
        }
    }
}

/// bash's `$?` of a process: its exit code, or 128 + the signal that ended it.
pub fn code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(-1)
}

/// Waits up to `tries` tenths of a second for a line starting "listening"
/// in the server's output file.
pub fn wait_listening(path: &Path, tries: u32) -> bool {
    for _ in 0..tries {
        if listening(path) {
            return true;
        }
        sleep(Duration::from_millis(100));
    }
    listening(path)
}

fn listening(path: &Path) -> bool {
    read(path).lines().any(|l| l.starts_with("listening"))
}

/// A file's text, empty when it cannot be read (a program that wrote nothing).
pub fn read(path: &Path) -> String {
    fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The value of `KEY=` in a line of `KEY=VALUE` words (the last one, as
/// the former scripts' sed took it).
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .filter_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .next_back()
}

/// The last line of TEXT that starts with PREFIX.
pub fn last_line<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines().rfind(|l| l.starts_with(prefix))
}

/// The last N lines of a file.
pub fn tail(path: &Path, n: usize) -> Vec<String> {
    let text = read(path);
    crate::text::last_lines(&text, n)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Prints the last lines of each file as `tail -n N FILE... | sed 's/^/  | /'`
/// did: a header per file when there are several.
pub fn print_tail(paths: &[&Path], n: usize) {
    for (i, p) in paths.iter().enumerate() {
        if paths.len() > 1 {
            if i > 0 {
                println!("  | ");
            }
            println!("  | ==> {} <==", p.display());
        }
        for l in tail(p, n) {
            println!("  | {l}");
        }
    }
}

/// Waits for a child and returns its status with its CPU time (user and
/// system, in microseconds, its own children included), as bash's `times`
/// gave it. The child is read in /proc once it has exited and before it is
/// reaped: a zombie's stat still holds its times. /proc counts in clock
/// ticks (10 ms), `times` counted in milliseconds.
pub fn wait_cpu(child: &mut Child, hz: f64) -> (ExitStatus, Option<f64>) {
    let stat = format!("/proc/{}/stat", child.id());
    let mut cpu = None;
    loop {
        let text = read(Path::new(&stat));
        let rest = split_stat(&text).map(|(_, f)| f).unwrap_or_default();
        if rest.is_empty() {
            break;
        }
        if rest[0] == "Z" {
            // utime stime cutime cstime: fields 14 to 17, the state being 3
            let ticks: f64 = rest[11..15]
                .iter()
                .filter_map(|v| v.parse::<f64>().ok())
                .sum();
            cpu = Some(ticks * 1e6 / hz);
            break;
        }
        sleep(Duration::from_millis(5));
    }
    let status = child.wait().expect("wait for a child");
    (status, cpu)
}

/// Clock ticks per second, for /proc's times.
pub fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// `timeout -k 5 SECS`, or without `-k` when `kill_after` is false.
pub fn timeout(secs: u64, kill_after: bool) -> Vec<String> {
    let mut v = vec!["timeout".to_string()];
    if kill_after {
        v.extend(["-k".to_string(), "5".to_string()]);
    }
    v.push(secs.to_string());
    v
}

/// Waits up to `secs` for a child to end; true when it did.
pub fn wait_for(child: &mut Child, secs: u64) -> bool {
    for _ in 0..secs * 10 {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return true;
        }
        sleep(Duration::from_millis(100));
    }
    matches!(child.try_wait(), Ok(Some(_)))
}

/// A file to take a program's output (stdout and stderr alike).
pub fn out_file(path: &Path) -> (fs::File, fs::File) {
    let f = fs::File::create(path).expect("an output file in the guest's temporary folder");
    let g = f.try_clone().expect("a second handle of the output file");
    (f, g)
}
