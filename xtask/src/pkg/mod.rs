//! `cargo xtask pkg NAME [ARGS...]`: the Debian packages as Debian builds
//! and tests them (`make deb RELEASE=...`, `make piuparts`, `make
//! autopkgtest`, tests.toml's suite "debian"). Each runs Debian's own tools
//! (mmdebstrap, dpkg-buildpackage, lintian, piuparts, autopkgtest) in clean
//! chroots or VMs of a release; they need root (chroot, mount, mknod).
//!
//! What runs inside a chroot stays a short `sh -c` string, as the chroot's
//! tools are all it has.

mod autopkgtest;
mod bare;
mod compat;
mod piuparts;
mod pool_pin;
mod release;

use crate::check::{stdout_of, TempDir};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const USAGE: &str = "usage: cargo xtask pkg NAME [ARGS...]
  deb-release RELEASE OUT-DIR [ARCH]   librpma0 and librpma-dev built as Debian's buildds do
  deb-compat RELEASE DEB-DIR           a program built against Debian's librpma, across ours
  piuparts RELEASE DEB-DIR             piuparts on DEB-DIR's packages, then deb-compat
  autopkgtest RELEASE [DEB-DIR] [AUTOPKGTEST-OPTION...]
                                       debian/tests in a QEMU VM of RELEASE
  bare RELEASE [TARGET]                `make TARGET` (demo) from a fresh clone in a bare root
  pool-pin ROOT APT-GET-ARGS...        apt-get in a chroot whose pool lacks files its index names
RELEASE is bookworm, trixie, forky or sid (bare: bookworm or trixie).";

/// The suites Debian ships librpma0 in, or has it from trixie's (forky, sid).
const RELEASES: [&str; 4] = ["bookworm", "trixie", "forky", "sid"];

pub fn main(tree: &Path, args: &[String]) -> ExitCode {
    let Some((name, args)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = match name.as_str() {
        "deb-release" => release::run(tree, &args),
        "deb-compat" => compat::run(&args),
        "piuparts" => piuparts::run(&args),
        "autopkgtest" => autopkgtest::run(tree, &args),
        "bare" => bare::run(tree, &args),
        "pool-pin" => pool_pin::run(&args),
        _ => Err(Stop::usage(format!(
            "unknown pkg command {name:?}\n{USAGE}"
        ))),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(stop) => {
            if !stop.msg.is_empty() {
                eprintln!("{}", stop.msg);
            }
            ExitCode::from(stop.code)
        }
    }
}

/// Why a command ended early: what to say, and its exit status (2 for a
/// wrong invocation, else what the scripts it replaces exited with).
pub struct Stop {
    code: u8,
    msg: String,
}

impl Stop {
    fn usage(msg: impl Into<String>) -> Self {
        Stop {
            code: 2,
            msg: msg.into(),
        }
    }

    fn fail(msg: impl Into<String>) -> Self {
        Stop {
            code: 1,
            msg: msg.into(),
        }
    }

    /// A step's own status, as `set -e` passed it on.
    fn status(code: i32, msg: impl Into<String>) -> Self {
        Stop {
            code: u8::try_from(code).ok().filter(|&c| c != 0).unwrap_or(1),
            msg: msg.into(),
        }
    }
}

type Done = Result<(), Stop>;

/// The shell's number for how a program ended: its exit code, or 128 and
/// the signal that killed it.
pub(crate) fn code(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Runs a program and gives its status as the shell would ($?): 127 when
/// it cannot be started.
fn rc(cmd: &mut Command) -> i32 {
    match cmd.status() {
        Ok(s) => code(s),
        Err(e) => {
            eprintln!("{}: {e}", cmd.get_program().to_string_lossy());
            127
        }
    }
}

/// Runs a step whose failure ends the whole command with the step's
/// status, as `set -e` did.
fn step(cmd: &mut Command) -> Done {
    match rc(cmd) {
        0 => Ok(()),
        n => Err(Stop::status(
            n,
            format!("{} exited {n}", cmd.get_program().to_string_lossy()),
        )),
    }
}

/// A program's output sent to our standard error, as `>&2` did: the
/// commands' standard output is for what they report.
fn to_stderr() -> Stdio {
    Stdio::from(std::io::stderr())
}

/// A file to take a program's output (`>FILE 2>&1` with `.stderr` of its
/// clone), or the failure to make it.
fn log_file(path: &Path, append: bool) -> Result<fs::File, Stop> {
    fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)
        .map_err(|e| Stop::fail(format!("{}: {e}", path.display())))
}

/// `>LOG 2>&1` for a command.
fn logged<'a>(cmd: &'a mut Command, log: &Path, append: bool) -> Result<&'a mut Command, Stop> {
    let f = log_file(log, append)?;
    let err = f
        .try_clone()
        .map_err(|e| Stop::fail(format!("{}: {e}", log.display())))?;
    Ok(cmd.stdout(f).stderr(err))
}

/// Prints a file's last `n` lines to standard error.
fn tail(path: &Path, n: usize) {
    let text = fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    for l in crate::text::last_lines(&text, n) {
        eprintln!("{l}");
    }
}

/// Whether we run as root, which chroot, mount and mmdebstrap's root mode
/// need.
fn is_root() -> bool {
    stdout_of(Command::new("id").arg("-u")).is_ok_and(|u| u.trim() == "0")
}

/// An environment variable's value, when set and not empty (the shell's
/// `${VAR:-default}`).
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Where the chroots, tarballs and images are kept between runs:
/// RXE_CACHE_ROOT, by default ~/.cache/librpma-rs (as softroce/ keeps its).
fn cache_root() -> PathBuf {
    if let Some(r) = env("RXE_CACHE_ROOT") {
        return PathBuf::from(r);
    }
    env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env("HOME").unwrap_or_default()).join(".cache"))
        .join("librpma-rs")
}

/// An exclusive lock on the file `path` (made if missing), held until the
/// returned file is dropped. flock(1) takes it on an open file description
/// that this process keeps (through the child's standard input): std has
/// no file lock before Rust 1.89, and the xtask builds with 1.85.
fn lock_file(path: &Path) -> Result<fs::File, Stop> {
    let fail = |e: std::io::Error| Stop::fail(format!("{}: {e}", path.display()));
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(fail)?;
    let status = Command::new("flock")
        .args(["-x", "0"])
        .stdin(file.try_clone().map_err(fail)?)
        .status()
        .map_err(|e| Stop::fail(format!("flock: {e}")))?;
    if !status.success() {
        return Err(Stop::fail(format!("flock {} failed", path.display())));
    }
    Ok(file)
}

/// Whether `program` is on PATH (`command -v`).
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Whether `path` was modified less than `age` ago (`find -mmin -N`,
/// `-mtime -N`): a cached tarball or image that is still good.
fn fresh(path: &Path, age: Duration) -> bool {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|e| e < age))
}

/// A word for a `sh -c` line (an mmdebstrap hook): `s` in single quotes.
fn sh_word(s: &Path) -> String {
    format!("'{}'", s.display().to_string().replace('\'', r"'\''"))
}

/// The files of this tree as a source package takes them (tracked and
/// untracked, less what git ignores, less tracked files deleted but not
/// yet committed) copied to `dest`.
fn copy_tree(tree: &Path, dest: &Path) -> Done {
    let list = Command::new("git")
        .args(["ls-files", "-z", "-co", "--exclude-standard"])
        .current_dir(tree)
        .output()
        .map_err(|e| Stop::fail(format!("git: {e}")))?;
    if !list.status.success() {
        return Err(Stop::status(code(list.status), "git ls-files failed"));
    }
    // git lists a tracked file deleted from the work tree, which tar
    // cannot find
    let mut files = Vec::new();
    for f in list.stdout.split(|&b| b == 0).filter(|f| !f.is_empty()) {
        if tree.join(OsStr::from_bytes(f)).symlink_metadata().is_ok() {
            files.extend_from_slice(f);
            files.push(0);
        }
    }
    let cannot = |e: std::io::Error| Stop::fail(format!("tar: {e}"));
    let mut pack = Command::new("tar")
        .args(["-c", "--null", "-T", "-"])
        .current_dir(tree)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(cannot)?;
    let packed = pack.stdout.take().expect("piped");
    let mut unpack = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dest)
        .stdin(packed)
        .spawn()
        .map_err(cannot)?;
    // the list is written while the second tar reads, so neither pipe fills
    let wrote = std::io::Write::write_all(&mut pack.stdin.take().expect("piped"), &files);
    let packed_ok = pack.wait().map_err(cannot)?.success();
    let unpacked_ok = unpack.wait().map_err(cannot)?.success();
    if wrote.is_err() || !packed_ok || !unpacked_ok {
        return Err(Stop::fail(format!(
            "copying the tree to {} failed",
            dest.display()
        )));
    }
    Ok(())
}

/// Whether the mirror serves SUITE's index past its Valid-Until: that date
/// if so, None if not or when the index cannot be had.
///
/// forky's and sid's Release files expire a week after they are made, and
/// the archive remakes them daily; a mirror that has stopped syncing serves
/// expired ones, which apt refuses unless Check-Valid-Until is off. A stable
/// release's Release file has no Valid-Until.
fn index_expired(suite: &str) -> Option<String> {
    let tmp = TempDir::new("index-expired").ok()?;
    let file = tmp.path().join("InRelease");
    let got = Command::new("/usr/lib/apt/apt-helper")
        .arg("download-file")
        .arg(format!(
            "http://deb.debian.org/debian/dists/{suite}/InRelease"
        ))
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !got {
        return None;
    }
    let text = String::from_utf8_lossy(&fs::read(&file).ok()?).into_owned();
    let until = text
        .lines()
        .find_map(|l| l.strip_prefix("Valid-Until: "))?
        .to_string();
    // date(1) reads the RFC 2822 date as apt writes it
    let secs: u64 = stdout_of(Command::new("date").args(["-u", "-d", &until, "+%s"]))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    (secs < now).then_some(until)
}
