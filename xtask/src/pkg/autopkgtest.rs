//! `cargo xtask pkg autopkgtest RELEASE [DEB-DIR] [AUTOPKGTEST-OPTION...]`
//! (`make autopkgtest`): debian/tests run by Debian's autopkgtest against
//! the packages of `make deb RELEASE=...`, in a QEMU VM of that release, as
//! debci runs them on its isolation-machine workers.
//!
//! DEB-DIR (default build/deb-RELEASE) holds librpma0 and librpma-dev; the
//! tests come from this tree (its files as deb-release takes them), so an
//! edit of debian/tests needs no new build. The VM image is made by
//! mmdebstrap-autopkgtest-build-qemu (generic kernel, EFI boot) and cached
//! in RXE_CACHE_ROOT (default ~/.cache/librpma-rs)/autopkgtest/RELEASE.img;
//! it is made again when it is older than IMAGE_MAX_DAYS (default 7), and
//! each run upgrades the VM from the archive first (--apt-upgrade). That
//! tool needs mmdebstrap 1.4 and e2fsprogs 1.47.1, newer than Debian 12's:
//! it runs in a Debian 13 chroot cached beside the images (tools-trixie).
//! The run itself (autopkgtest-virt-qemu, this machine's autopkgtest) holds
//! /tmp/librpma-qemu.lock, the one QEMU guest at a time; its log and
//! artifacts go to build/autopkgtest-RELEASE. MIRROR picks another mirror;
//! SHOW_BOOT=1 shows the VM's boot console.

use super::{
    cache_root, copy_tree, env, fresh, index_expired, is_root, logged, rc, step, tail, to_stderr,
    Done, Stop, RELEASES,
};
use crate::check::{glob, TempDir};
use crate::outcome::QEMU_LOCK;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const USAGE: &str =
    "usage: cargo xtask pkg autopkgtest bookworm|trixie|forky|sid [DEB-DIR] [AUTOPKGTEST-OPTION...]
  debian/tests by autopkgtest against DEB-DIR's packages (default
  build/deb-RELEASE) in a QEMU VM of the release. Root only (chroot, mount).";

/// What the image tools' chroot holds: mmdebstrap-autopkgtest-build-qemu
/// and what it calls.
const TOOLS: &str = "--include=mmdebstrap,autopkgtest,dosfstools,e2fsprogs,fdisk,mount,mtools,passwd,uidmap,systemd-boot-efi,binutils,dpkg-dev,uuid-runtime,libarchive13t64";

/// Runs a program ($2...) in the tools chroot ($1) with the host's /dev,
/// /proc and /sys, a private /tmp, and the cache ($0) as /out; PATH is $P.
const IN_TOOLS: &str = r#"set -e; t=$1; shift
    mount --rbind /dev "$t/dev"; mount -t proc proc "$t/proc"; mount --rbind /sys "$t/sys"
    mount -t tmpfs tmp "$t/tmp"; mount --bind "$0" "$t/out"
    chroot "$t" env -i PATH="$P" HOME=/root LANG=C.UTF-8 "$@""#;

/// mmdebstrap with apt's Check-Valid-Until off, first on the tools' PATH
/// when the mirror serves the release's index expired.
const MMDEBSTRAP_EXPIRED: &str = r#"#!/bin/sh
exec /usr/bin/mmdebstrap --aptopt="Acquire::Check-Valid-Until \"false\"" "$@"
"#;

/// KVM on this kind of nested host stops OVMF with an emulation failure (as
/// softroce/rxe-run found for its kernels), and autopkgtest-virt-qemu adds
/// -enable-kvm whenever /dev/kvm exists: its QEMU goes through this
/// wrapper, which drops that option, so the VM runs on TCG. KVM=1 keeps it.
const QEMU_TCG: &str = r#"#!/bin/sh
for a; do shift; [ "$a" = -enable-kvm ] || set -- "$@" "$a"; done
exec qemu-system-x86_64 -accel tcg "$@"
"#;

fn say(msg: &str) {
    eprintln!("autopkgtest: {msg}");
}

fn io(what: &Path) -> impl Fn(std::io::Error) -> Stop + '_ {
    move |e| Stop::fail(format!("autopkgtest: {}: {e}", what.display()))
}

/// Writes an executable script.
fn script(path: &Path, text: &str) -> Done {
    fs::write(path, text)
        .and_then(|()| fs::set_permissions(path, fs::Permissions::from_mode(0o755)))
        .map_err(io(path))
}

/// The Debian 13 chroot that makes the images, made on first use.
fn tools(tools: &Path, mirror: Option<&str>) -> Done {
    let maker = tools.join("usr/bin/mmdebstrap-autopkgtest-build-qemu");
    let executable = fs::metadata(&maker).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    if executable {
        return Ok(());
    }
    say(&format!(
        "making the Debian 13 chroot of the image tools in {} (first use only)",
        tools.display()
    ));
    let tmp = PathBuf::from(format!("{}.tmp", tools.display()));
    for p in [tools, tmp.as_path()] {
        if p.exists() {
            fs::remove_dir_all(p).map_err(io(p))?;
        }
    }
    step(
        Command::new("mmdebstrap")
            .args(["--quiet", "--variant=apt", TOOLS, "trixie"])
            .arg(&tmp)
            .args(mirror)
            .stdout(to_stderr()),
    )?;
    fs::rename(&tmp, tools).map_err(io(tools))
}

/// The VM image of RELEASE, made again when older than IMAGE_MAX_DAYS.
fn image(cache: &Path, tools: &Path, release: &str, mirror: Option<&str>) -> Result<PathBuf, Stop> {
    let image = cache.join(format!("{release}.img"));
    let days: u64 = env("IMAGE_MAX_DAYS").map_or(7, |d| d.parse().unwrap_or(0));
    if fresh(&image, Duration::from_secs(days * 24 * 3600)) {
        return Ok(image);
    }
    say(&format!(
        "making the {release} VM image {}",
        image.display()
    ));
    let start = Instant::now();
    let expired_dir = tools.join("opt/expired");
    for d in [tools.join("out"), expired_dir.clone()] {
        fs::create_dir_all(&d).map_err(io(&d))?;
    }
    // a mirror serving sid's or forky's index past its Valid-Until: the
    // image (and so the VM's apt) is made with Check-Valid-Until off
    let mut path = "/usr/sbin:/usr/bin:/sbin:/bin".to_string();
    let expired = if mirror.is_none() {
        index_expired(release)
    } else {
        None
    };
    if let Some(until) = expired {
        say(&format!(
            "the mirror's {release} index expired on {until}: the image's apt does not check Valid-Until"
        ));
        script(&expired_dir.join("mmdebstrap"), MMDEBSTRAP_EXPIRED)?;
        path = format!("/opt/expired:{path}");
    }
    let log = cache.join(format!("{release}.log"));
    let mut make = Command::new("unshare");
    make.args(["--mount", "--fork", "sh", "-c", IN_TOOLS])
        .arg(cache)
        .arg(tools)
        .args([
            "mmdebstrap-autopkgtest-build-qemu",
            "--boot=efi",
            "--size=20G",
        ])
        .args(mirror.map(|m| format!("--mirror={m}")))
        .arg(release)
        .arg(format!("/out/{release}.img.tmp"))
        .env("P", path);
    if rc(logged(&mut make, &log, false)?) != 0 {
        tail(&log, 30);
        return Err(Stop::fail(format!(
            "autopkgtest: the image failed (log: {})",
            log.display()
        )));
    }
    let tmp = cache.join(format!("{release}.img.tmp"));
    fs::rename(&tmp, &image).map_err(io(&image))?;
    say(&format!(
        "{release} image made in {} s",
        start.elapsed().as_secs()
    ));
    Ok(image)
}

pub fn run(tree: &Path, args: &[&str]) -> Done {
    let Some((&release, mut rest)) = args.split_first().filter(|(r, _)| RELEASES.contains(r))
    else {
        return Err(Stop::usage(USAGE));
    };
    let mut debs = format!("build/deb-{release}");
    if let Some((d, more)) = rest.split_first().filter(|(d, _)| !d.starts_with('-')) {
        debs = d.to_string();
        rest = more;
    }
    // DEB-DIR and build/ are the tree's
    std::env::set_current_dir(tree).map_err(io(tree))?;
    if !is_root() {
        return Err(Stop::fail("autopkgtest: needs root (chroot, mount)"));
    }
    let debs = Path::new(&debs);
    let mut packages = glob(debs, "librpma0_", ".deb");
    packages.extend(glob(debs, "librpma-dev_", ".deb"));
    if packages.len() != 2 {
        return Err(Stop::fail(format!(
            "autopkgtest: no librpma0 and librpma-dev in {}: make deb RELEASE={release}",
            debs.display()
        )));
    }

    let cache = cache_root().join("autopkgtest");
    fs::create_dir_all(&cache).map_err(io(&cache))?;
    let tools_dir = cache.join("tools-trixie");
    let mirror = env("MIRROR");
    tools(&tools_dir, mirror.as_deref())?;
    let image = image(&cache, &tools_dir, release, mirror.as_deref())?;

    let work = TempDir::new("autopkgtest-run").map_err(io(Path::new("a scratch folder")))?;
    let src = work.path().join("src");
    fs::create_dir(&src).map_err(io(&src))?;
    copy_tree(tree, &src)?;
    let out = PathBuf::from(format!("build/autopkgtest-{release}"));
    if out.exists() {
        fs::remove_dir_all(&out).map_err(io(&out))?;
    }
    let names: String = packages
        .iter()
        .map(|p| format!("{} ", p.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    say(&format!(
        "{release}: {names}in a VM (waiting for the QEMU lock)"
    ));
    let start = Instant::now();
    let qemu = work.path().join("qemu-tcg");
    script(&qemu, QEMU_TCG)?;
    let mut vm = vec![
        "--boot=efi".to_string(),
        "--cpus=2".into(),
        "--ram-size=4096".into(),
        "--timeout-reboot=600".into(),
    ];
    if env("SHOW_BOOT").is_some() {
        vm.push("--show-boot".into());
    }
    if env("KVM").is_none() {
        vm.push(format!("--qemu-command={}", qemu.display()));
        vm.push("--qemu-options=-cpu max".into());
    }
    // cargo xtask test holds the lock already (RPMA_QEMU_LOCKED)
    let mut cmd = if env("RPMA_QEMU_LOCKED").is_some() {
        Command::new("autopkgtest")
    } else {
        let mut flock = Command::new("flock");
        flock.args([QEMU_LOCK, "autopkgtest"]);
        flock
    };
    cmd.arg("--output-dir")
        .arg(&out)
        .arg("--apt-upgrade")
        .args(rest)
        .args(&packages)
        .arg(format!("{}/", src.display()))
        .args(["--", "qemu"])
        .args(&vm)
        .arg(&image);
    let rc = rc(&mut cmd);
    say(&format!(
        "{release}: autopkgtest exited {rc} after {} s; log: {}/log, results: {}/summary",
        start.elapsed().as_secs(),
        out.display(),
        out.display()
    ));
    if let Ok(summary) = fs::read_to_string(out.join("summary")) {
        print!("{summary}");
    }
    match rc {
        0 => Ok(()),
        n => Err(Stop::status(n, "")),
    }
}
