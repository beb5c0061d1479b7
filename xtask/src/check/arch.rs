//! `cargo xtask check arch ROOT RELEASE ARCH`: what a machine without that
//! architecture can prove of a cross-built librpma.so.0 (`make deb
//! ARCH=ARCH RELEASE=RELEASE`, whose output in build/deb-RELEASE-ARCH this
//! checks):
//!
//! - its ELF identity against Debian's librpma0:ARCH of the release (`check
//!   elf`);
//! - the api.* programs (tests-c/api), built with the release's
//!   cross-compiler against our header and run under qemu-user, each
//!   against ours and against Debian's C library of that architecture
//!   (`xtask inside diff`, this executable copied in): both pass, with the
//!   same observations.
//!
//! It runs in a copy of the release's cross-build chroot (the cached one
//! `make deb` made), to which it adds qemu-user-static and Debian's
//! librpma0:ARCH, unpacked into a folder of its own (`apt-get download`;
//! never installed, never linked into anything of ours). /proc, /sys and
//! /dev are the host's, so libibverbs sees what it sees here: no RDMA
//! device. Root only.

use super::{stdout_of, succeeds, Checks, Usage};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command in the chroot `r`, in a mount namespace of its own with the
/// host's /proc, /sys and /dev.
fn in_root(r: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("unshare");
    c.args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(r#"r=$1; shift; for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done; exec chroot "$r" "$@""#)
        .arg("in_root")
        .arg(r)
        .args(args);
    c
}

/// The copy of the chroot, removed without crossing into another file
/// system (a mount left behind would be the host's).
struct Work(PathBuf);

impl Drop for Work {
    fn drop(&mut self) {
        let _ = Command::new("rm")
            .args(["-rf", "--one-file-system"])
            .arg(&self.0)
            .status();
    }
}

const API_RUN: &str = r#"set -u
cd /t/src
status=0 n=0
for src in api/*.c; do
  name=$(basename "$src" .c)
  "$TRIPLET-gcc" -std=gnu99 -Wall -Wextra -Werror -pthread -Icommon -Iinclude \
    "$src" common/rpma_test.c -L/t/ours -lrpma -ldl -o "/t/bin/$name" || { status=1; continue; }
  RUN_DIFF_WRAP="$QEMU" ./xtask inside diff "/t/bin/$name" /t/ours /t/ref || status=1
  n=$((n + 1))
done
echo "api: $n programs run against both libraries"
exit $status"#;

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [tree, release, arch] = super::args(a, "ROOT RELEASE ARCH")?;
    if arch == "amd64" {
        return Err(Usage("ARCH: another architecture than amd64".into()));
    }
    let tree = Path::new(tree);
    let mut c = Checks::default();
    let ours = tree.join(format!("build/deb-{release}-{arch}/librpma.so.0"));
    let cache = std::env::var("RXE_CACHE_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            std::env::var("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|_| {
                    PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache")
                })
                .join("librpma-rs")
        });
    let chroot = cache.join(format!("deb-{release}-{arch}/root"));
    if !ours.is_file() {
        c.bad(format!(
            "no {}: run make deb ARCH={arch} RELEASE={release}",
            ours.display()
        ));
    }
    if !chroot.join("usr").is_dir() {
        c.bad(format!("no cross chroot in {}", chroot.display()));
    }
    if !c.ok() {
        return Ok(c);
    }
    let query = |what: &str| {
        stdout_of(
            Command::new("chroot")
                .arg(&chroot)
                .args(["dpkg-architecture", "-a", arch, what]),
        )
        .map(|s| s.trim().to_string())
    };
    let (triplet, cpu) = match (query("-qDEB_HOST_GNU_TYPE"), query("-qDEB_HOST_GNU_CPU")) {
        (Ok(t), Ok(q)) => (
            t,
            if q == "powerpc64le" {
                "ppc64le".into()
            } else {
                q
            },
        ),
        (Err(e), _) | (_, Err(e)) => {
            c.bad(e);
            return Ok(c);
        }
    };
    let work = Work(std::env::temp_dir().join(format!("arch-check.{}", std::process::id())));
    let r = work.0.join("root");
    if fs::create_dir_all(&work.0).is_err()
        || !succeeds(Command::new("cp").arg("-a").arg(&chroot).arg(&r))
    {
        c.bad(format!("could not copy {}", chroot.display()));
        return Ok(c);
    }
    eprintln!("arch-check: {release} {arch}: qemu-user-static and Debian's librpma0:{arch}");
    let setup = format!(
        "set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null
mkdir -p /t/ref-deb /t/ref /t/ours /t/bin
chown _apt /t/ref-deb
cd /t/ref-deb && apt-get download -qq librpma0:{arch}
dpkg-deb -x librpma0_*.deb x
cp -L x/usr/lib/{triplet}/librpma.so.0 /t/ref/"
    );
    if !succeeds(&mut in_root(&r, &["sh", "-c", &setup])) {
        c.bad("setting up the chroot (above)");
        return Ok(c);
    }
    let t = r.join("t");
    let copied = fs::copy(&ours, t.join("ours/librpma.so.0"))
        .and_then(|_| symlink("librpma.so.0", t.join("ours/librpma.so")))
        .and_then(|()| fs::create_dir_all(t.join("src")));
    if let Err(e) = copied {
        c.bad(format!("copying our library into the chroot: {e}"));
        return Ok(c);
    }
    println!("== elf.identity.{arch} ({release})");
    let (o, rf) = (t.join("ours/librpma.so.0"), t.join("ref/librpma.so.0"));
    match super::elf::run(&[&o.to_string_lossy(), &rf.to_string_lossy()]) {
        Ok(e) => c.expect(e.ok(), "the ELF identity (above)"),
        Err(Usage(m)) => c.bad(m),
    }
    let sources = ["tests-c/api", "tests-c/common", "include"];
    // the chroot is the release's amd64 root, as new as this host's or newer
    let exe = std::env::current_exe().unwrap_or_else(|_| "xtask".into());
    let copied = succeeds(
        Command::new("cp")
            .arg("-a")
            .args(sources.iter().map(|s| tree.join(s)))
            .arg(&exe)
            .arg(t.join("src")),
    );
    c.expect(copied, "copying the api programs into the chroot");
    println!("== api.* under qemu-{cpu}-static ({release} {arch})");
    let ok = succeeds(&mut in_root(
        &r,
        &[
            "env",
            &format!("TRIPLET={triplet}"),
            &format!("QEMU=qemu-{cpu}-static"),
            "bash",
            "-c",
            API_RUN,
        ],
    ));
    c.expect(ok, "the api.* programs under qemu-user (above)");
    eprintln!(
        "arch-check: {release} {arch}: {}",
        if c.ok() { "passed" } else { "FAILED" }
    );
    Ok(c)
}
