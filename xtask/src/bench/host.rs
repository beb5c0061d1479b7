//! The host side: one boot of the SoftRoCE guest (softroce/rxe-run) that
//! runs this binary's `bench guest ...`, its output shown and logged, and
//! the lines the reports read kept in the raw file.

use super::build::Tree;
use super::proc::code;
use crate::list::sh_quote;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Boots the guest to run `xtask bench guest ARGS...`, shows and logs its
/// output in LOG, and returns rxe-run's exit status. The guest sees the
/// host's files (Debian 13's stack: the tree overlaid at its host path),
/// so a copy of this binary in the tree's build folder runs there.
pub fn boot(
    t: &Tree,
    args: &[String],
    log: &Path,
    timeout: u32,
    env: &[(&str, String)],
) -> Result<i32, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this binary: {e}"))?;
    let copy = t.build.join("xtask");
    // a rebuilt binary replaces a running one's file only by a rename
    let tmp = t.build.join("xtask.new");
    fs::copy(&exe, &tmp)
        .and_then(|_| fs::rename(&tmp, &copy))
        .map_err(|e| format!("{}: {e}", copy.display()))?;
    let mut words = vec![
        copy.to_string_lossy().into_owned(),
        "bench".into(),
        "guest".into(),
    ];
    words.extend(args.iter().cloned());
    let line: Vec<String> = words.iter().map(|w| sh_quote(w)).collect();
    // one QEMU guest at a time on this machine: the lock `cargo xtask test`
    // and `make autopkgtest` take too, unless the caller holds it already
    let rxe_run = t.root.join("softroce/rxe-run");
    let locked = std::env::var_os("RPMA_QEMU_LOCKED").is_some_and(|v| !v.is_empty());
    let mut cmd = if locked {
        Command::new(rxe_run)
    } else {
        let mut c = Command::new("flock");
        c.arg(crate::outcome::QEMU_LOCK).arg(rxe_run);
        c
    };
    cmd.arg(line.join(" "))
        .current_dir(&t.root)
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    if std::env::var_os("RXE_TIMEOUT").is_none() {
        cmd.env("RXE_TIMEOUT", timeout.to_string());
    }
    let mut child = cmd.spawn().map_err(|e| format!("softroce/rxe-run: {e}"))?;
    let mut file = fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut stdout = std::io::stdout();
    for line in BufReader::new(child.stdout.take().unwrap()).split(b'\n') {
        let Ok(mut line) = line else { break };
        line.push(b'\n');
        let _ = stdout.write_all(&line);
        let _ = stdout.flush();
        let _ = file.write_all(&line);
    }
    let status = child.wait().map_err(|e| format!("softroce/rxe-run: {e}"))?;
    Ok(code(status))
}

/// Copies the lines of LOG that start with one of the words (and a space)
/// to OUT; returns them.
pub fn extract(log: &Path, words: &[&str], out: &Path) -> Result<Vec<String>, String> {
    let text = super::proc::read(log);
    let kept: Vec<String> = text
        .lines()
        .filter(|l| words.iter().any(|w| l.starts_with(&format!("{w} "))))
        .map(String::from)
        .collect();
    let body: String = kept.iter().map(|l| format!("{l}\n")).collect();
    fs::write(out, body).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(kept)
}

/// `python3 bench/SCRIPT ARGS...`: the reports; its exit status.
pub fn report(t: &Tree, script: &str, args: &[&str]) -> i32 {
    Command::new("python3")
        .arg(t.root.join("bench").join(script))
        .args(args)
        .status()
        .map(code)
        .unwrap_or(127)
}

/// scripts/setup.sh TASK: what the benchmark needs on the host.
pub fn setup(t: &Tree, task: &str) -> Result<(), String> {
    let ok = Command::new(t.root.join("scripts/setup.sh"))
        .arg(task)
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        Err(format!("scripts/setup.sh {task} failed"))
    }
}

/// Seconds since START, whole as bash's $SECONDS.
pub fn secs_since(start: std::time::Instant) -> u64 {
    start.elapsed().as_secs()
}
