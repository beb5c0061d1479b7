//! `cargo xtask check NAME [ARGS...]`: the host-side checks tests.toml runs
//! (elf.identity, header.abi, ...). Each prints a `FAIL: ...` line per
//! thing that differs and exits 1 when any did; the tools that know the
//! formats (readelf, abidiff, dpkg-deb, lintian, ...) do the reading.

mod arch;
mod deb;
mod deb_install;
mod docs;
mod elf;
mod functions;
mod header;
mod install;
mod module_deps;
mod package;
mod quick_start;
mod syms;

use std::fmt::Display;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

pub const USAGE: &str = "usage: cargo xtask check NAME [ARGS...]
  elf OURS.so REFERENCE.so            ELF identity, exports, abidiff
  header OURS.h REFERENCE.h OURS.so   the header against upstream's
  docs ROOT OURS.so                   a man page and a test per function
  function-table ROOT OURS.so REF.so    docs/functions.md is current
  function-table --print OURS.so REF.so   ... that table, to paste there
  quick-start ROOT                    the READMEs' quick start is examples/quick_start.rs
  install ROOT                        make install, pkg-config and CMake consumers
  module-deps [SRC_DIR...]            no import cycle among any crate's modules
  package                             rpma and rpma-sys are ready for crates.io
  deb ROOT [DEB-DIR]                  make deb's packages against Debian's
  deb-install ROOT [DEB-DIR]          ours installed over Debian's in a guest, and back
  arch ROOT RELEASE ARCH              a cross-build: ELF identity, api.* under qemu-user";

pub fn main(args: &[String]) -> ExitCode {
    let Some((name, args)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = match name.as_str() {
        "elf" => elf::run,
        "header" => header::run,
        "docs" => docs::run,
        "function-table" => functions::run,
        "quick-start" => quick_start::run,
        "install" => install::run,
        "module-deps" => module_deps::run,
        "package" => package::run,
        "deb" => deb::run,
        "deb-install" => deb_install::run,
        "arch" => arch::run,
        _ => {
            eprintln!("unknown check {name:?}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(c) if c.ok() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(Usage(msg)) => {
            eprintln!("{msg}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// A check's wrong invocation (exit 2), as against what it found (exit 1).
pub struct Usage(String);

/// Exactly `n` arguments, or a usage error naming what they are.
fn args<'a, const N: usize>(args: &[&'a str], names: &str) -> Result<[&'a str; N], Usage> {
    args.try_into()
        .map_err(|_| Usage(format!("expected {names}")))
}

/// The failures found so far.
#[derive(Default)]
pub struct Checks {
    failures: usize,
}

impl Checks {
    pub fn bad(&mut self, what: impl Display) {
        println!("FAIL: {what}");
        self.failures += 1;
    }

    pub fn ok(&self) -> bool {
        self.failures == 0
    }

    pub fn failures(&self) -> usize {
        self.failures
    }

    /// Records a failure when `cond` is false.
    pub fn expect(&mut self, cond: bool, what: impl Display) {
        if !cond {
            self.bad(what);
        }
    }
}

/// The tree this xtask was built from.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ sits in the tree")
        .to_path_buf()
}

/// A program's standard output, when it ran and exited 0; otherwise what
/// went wrong, with its standard error.
pub fn stdout_of(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", program(cmd)))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{} failed ({}): {}",
            program(cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs a program with the terminal's output: true when it exited 0.
pub fn succeeds(cmd: &mut Command) -> bool {
    match cmd.stdin(Stdio::null()).status() {
        Ok(s) => s.success(),
        Err(e) => {
            println!("{}: {e}", program(cmd));
            false
        }
    }
}

fn program(cmd: &Command) -> String {
    cmd.get_program().to_string_lossy().into_owned()
}

/// Prints `diff -u` of two texts under the labels given; true when they
/// are the same.
pub fn same_or_diff(tmp: &Path, label_a: &str, a: &str, label_b: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (pa, pb) = (tmp.join("diff.a"), tmp.join("diff.b"));
    if fs::write(&pa, a).is_ok() && fs::write(&pb, b).is_ok() {
        succeeds(
            Command::new("diff")
                .args(["-u", "--label", label_a, "--label", label_b])
                .args([&pa, &pb]),
        );
    }
    false
}

/// A scratch folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(what: &str) -> std::io::Result<Self> {
        use std::time::{SystemTime, UNIX_EPOCH};
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("xtask-{what}.{}.{nanos:x}", std::process::id()));
        fs::create_dir(&dir)?;
        Ok(TempDir(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A scratch folder for a check, or its failure to make one as a usage
/// error (nothing was checked).
fn scratch(what: &str) -> Result<TempDir, Usage> {
    TempDir::new(what).map_err(|e| Usage(format!("cannot make a scratch folder: {e}")))
}

/// The files in `dir` whose names start with `prefix` and end with
/// `suffix`, sorted (a shell glob's order).
pub fn glob(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.len() >= prefix.len() + suffix.len() && n.starts_with(prefix) && n.ends_with(suffix)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}
