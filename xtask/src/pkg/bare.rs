//! `cargo xtask pkg bare RELEASE [TARGET]`: the README's first command on a
//! bare Debian machine: a fresh clone and `make demo`, with no step before
//! it. tests.toml's debian.*.bare run it.
//!
//! mmdebstrap makes a minbase root of the release with git and make and
//! nothing else. This repository's committed HEAD is cloned into it (from
//! this tree, bound read-only at /src), and `make TARGET` (default demo)
//! runs there as root, chrooted, with /proc, /sys and /dev of the machine
//! and its network (Debian's archive and crates.io). So setup.sh installs
//! everything, Debian's own Rust toolchain included, exactly as a new
//! user's first `make demo` does. Nothing is cached between runs; the root
//! is removed at the end. The whole output goes to build/bare-RELEASE.log.
//! Root only (mmdebstrap's root mode, chroot).

use super::{is_root, logged, on_path, rc, step, tail, Done, Stop};
use crate::check::{glob, TempDir};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask pkg bare bookworm|trixie [TARGET]
  a fresh clone and `make TARGET` (default demo) as root in a minbase root
  of the release with git and make only. Root only (mmdebstrap, chroot).";

/// In new mount and PID namespaces: the machine's /proc, /sys and /dev and
/// this tree (read-only, /src) in the root, then, chrooted with a clean
/// environment, the clone, `make TARGET` and which cargo built it.
const IN_ROOT: &str = r#"
  set -e
  root=$1 repo=$2 target=$3
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --bind -o ro "$repo" "$root/src"
  exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/sh -c "git clone -q /src /root/librpma-rs && cd /root/librpma-rs && git log -1 --format=%h && make $target && echo \"toolchain: \$(command -v cargo) \$(cargo --version)\""
"#;

fn say(msg: &str) {
    eprintln!("bare-test: {msg}");
}

fn io(what: &Path) -> impl Fn(std::io::Error) -> Stop + '_ {
    move |e| Stop::fail(format!("bare-test: {}: {e}", what.display()))
}

pub fn run(tree: &Path, args: &[&str]) -> Done {
    let (release, target) = match args {
        [r] => (*r, "demo"),
        [r, t] => (*r, if t.is_empty() { "demo" } else { *t }),
        _ => return Err(Stop::usage(USAGE)),
    };
    if !matches!(release, "bookworm" | "trixie") {
        return Err(Stop::usage(USAGE));
    }
    if !is_root() {
        return Err(Stop::fail("bare-test: needs root (mmdebstrap, chroot)"));
    }
    if !on_path("mmdebstrap") {
        step(Command::new(tree.join("scripts/setup.sh")).arg("deb-release"))?;
    }
    let build = tree.join("build");
    fs::create_dir_all(&build).map_err(io(&build))?;
    let log = build.join(format!("bare-{release}.log"));
    let work =
        TempDir::new(&format!("bare-{release}")).map_err(io(Path::new("a scratch folder")))?;
    let root = work.path().join("root");

    let start = Instant::now();
    say(&format!("{release}: a minbase root with git and make"));
    // No mirror argument: mmdebstrap then uses the release with its -updates
    // and security suites, as Debian's installer sets a new system up.
    let mut mm = Command::new("mmdebstrap");
    mm.args([
        "--quiet",
        "--variant=minbase",
        "--include=git,make",
        release,
    ])
    .arg(&root);
    if rc(logged(&mut mm, &log, false)?) != 0 {
        tail(&log, 20);
        return Err(Stop::fail("bare-test: mmdebstrap failed"));
    }
    let resolv = root.join("etc/resolv.conf");
    fs::copy("/etc/resolv.conf", &resolv).map_err(io(&resolv))?;
    // The machine's own certificate authorities (a TLS proxy's, say) are part
    // of its network, not of a new system: ca-certificates, once setup.sh
    // installs it, takes them from here, and cargo can then reach crates.io.
    let cas = glob(Path::new("/usr/local/share/ca-certificates"), "", ".crt");
    if !cas.is_empty() {
        let dest = root.join("usr/local/share/ca-certificates");
        fs::create_dir_all(&dest).map_err(io(&dest))?;
        for ca in cas {
            let name = ca.file_name().unwrap_or_default();
            fs::copy(&ca, dest.join(name)).map_err(io(&ca))?;
        }
    }
    let src = root.join("src");
    fs::create_dir_all(&src).map_err(io(&src))?;

    say(&format!(
        "{release}: git clone, then 'make {target}' as root (log: {})",
        log.display()
    ));
    let mut make = Command::new("unshare");
    make.args([
        "--mount",
        "--pid",
        "--fork",
        "/bin/sh",
        "-c",
        IN_ROOT,
        "bare-test",
    ])
    .arg(&root)
    .arg(tree)
    .arg(target);
    let rc = rc(logged(&mut make, &log, true)?);
    let secs = start.elapsed().as_secs();
    if rc != 0 {
        tail(&log, 30);
        return Err(Stop::fail(format!(
            "bare-test: {release}: 'make {target}' FAILED (exit {rc}) after {secs} s; log: {}",
            log.display()
        )));
    }
    let text = fs::read(&log).unwrap_or_default();
    let toolchain: Vec<String> = String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.strip_prefix("toolchain: ").map(String::from))
        .collect();
    say(&format!(
        "{release}: 'make {target}' passed from a bare root in {secs} s ({})",
        toolchain.join("\n")
    ));
    Ok(())
}
