//! `cargo xtask pkg deb-release RELEASE OUT-DIR [ARCH]` (`make deb
//! RELEASE=...`): librpma0 and librpma-dev built the way Debian's build
//! daemons build them: in a clean chroot of one release, with only that
//! release's packages, and with the build step cut off from the network.
//!
//! ARCH (default amd64, the build machine's) cross-builds the packages of
//! another architecture the way Debian cross-builds: `dpkg-buildpackage -a
//! ARCH` in a chroot with that architecture added (multiarch), its
//! crossbuild-essential, and the Build-Depends resolved for it (`apt-get
//! build-dep -a ARCH`): the build machine's rustc and cargo, the target's
//! Rust standard library (libstd-rust-dev, or libstd-rust-web-dev on Debian
//! 12), libibverbs-dev and librdmacm-dev. riscv64 is in Debian 13 and later.
//!
//! The chroot is mmdebstrap's buildd variant of the release (with its
//! -updates and security suites, unless MIRROR names one source; mmdebstrap
//! adds them for bookworm, trixie and forky, and none for sid, which has
//! neither) plus the source's Build-Depends, resolved by `apt-get build-dep`
//! over debian/control: the release's own Rust toolchain and the crates as
//! librust-*-dev packages, whose sources land in /usr/share/cargo/registry.
//! It is built once per release and Build-Depends (about 1-3 min and 250 MB
//! of packages) and cached in RXE_CACHE_ROOT (default
//! ~/.cache/librpma-rs)/deb-RELEASE; every build runs in a fresh copy of
//! it. The source is this tree's files (tracked and untracked, less what
//! git ignores); less debian/, it is also the upstream tarball of the
//! source package. `dpkg-buildpackage -F` (source and binary packages) runs
//! in new network, mount and PID namespaces (`unshare -n`: no interface but
//! a loopback that is down), so cargo can only take crates from the Debian
//! registry (debian/rules). lintian checks the source and binary packages
//! inside the chroot, with the release's own lintian, as a user other than
//! root: --pedantic --display-info --display-experimental --show-overrides,
//! failing on errors and warnings (LINTIAN_FAIL_ON, default error,warning;
//! error on bookworm and trixie). The packages, the source package,
//! .buildinfo, .changes, lintian.txt and the build log go to OUT-DIR.

use super::{
    cache_root, copy_tree, env, index_expired, is_root, lock_file, logged, on_path, rc, sh_word,
    step, tail, to_stderr, Done, Stop, RELEASES,
};
use crate::check::{glob, TempDir};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const USAGE: &str = "usage: cargo xtask pkg deb-release bookworm|trixie|forky|sid OUT-DIR [ARCH]
  librpma0 and librpma-dev built as Debian's build daemons do, in a clean
  offline chroot of the release; ARCH (amd64, arm64, ppc64el; riscv64 from
  trixie on) cross-builds. Root only (chroot, mknod).";

/// Picks the target's Rust standard library that matches the compiler apt
/// installed: apt resolves the compiler's and the standard library's
/// alternatives (the plain and the -web builds) each on its own, and may
/// pair one's compiler with the other's library (seen on Debian 13). Run by
/// the chroot's sh, {arch} being the target.
const MATCH_STD: &str = r#"set -e; c=rustc; dpkg -s rustc-web >/dev/null 2>&1 && c=rustc-web
    v=$(dpkg-query -W -f "\${Version}" $c); s=libstd-rust-dev; [ $c = rustc ] || s=libstd-rust-web-dev
    echo "$s:{arch}=$v""#;

/// The build, in the offline chroot: the upstream tarball (the tree less
/// debian/, for lintian's source checks), dpkg-buildpackage, then lintian
/// as nobody.
const BUILD: &str = r#"
    set -e
    echo "network interfaces: $(sed -n "s/^ *\([a-z0-9]*\):.*/\1/p" /proc/net/dev | tr "\n" " ")"
    cd /build
    upstream=$(dpkg-parsechangelog -l rpma-rs/debian/changelog -S Version | sed "s/-[^-]*\$//")
    tar --sort=name --owner=0 --group=0 --numeric-owner --exclude=rpma-rs/debian \
      -cJf "rpma-rs_$upstream.orig.tar.xz" rpma-rs
    cd rpma-rs
    DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" dpkg-buildpackage $BUILD_ARCH -F -us -uc
    cd /build
    echo "lintian $(dpkg-query -W -f "\${Version}" lintian): --fail-on $FAIL_ON"
    rc=0
    runuser -u nobody -- lintian --fail-on "$FAIL_ON" --display-info --pedantic \
      --display-experimental --show-overrides ./*.changes >lintian.txt 2>&1 || rc=$?
    cat lintian.txt
    exit $rc
  "#;

/// What a build leaves in /build that OUT-DIR keeps (and loses before a
/// new build): the packages, the source package and their records.
const OUTPUTS: [&str; 6] = [".deb", ".ddeb", ".changes", ".buildinfo", ".dsc", ".tar.*"];

fn say(msg: &str) {
    eprintln!("deb-release: {msg}");
}

/// Whether a file name is one of OUTPUTS (as the shell's `*.deb`, ...,
/// `*.tar.*` match it).
fn is_output(name: &str) -> bool {
    !name.starts_with('.')
        && OUTPUTS.iter().any(|o| match o.strip_suffix('*') {
            Some(infix) => name.contains(infix),
            None => name.ends_with(o),
        })
}

/// The chroot is made again when this changes: the release, the
/// architecture and debian/control's Build-Depends, on one line with runs
/// of spaces squeezed (as the stamps of earlier builds have it).
fn stamp(release: &str, arch: &str, control: &str) -> String {
    let mut lines = control
        .lines()
        .skip_while(|l| !l.starts_with("Build-Depends:"));
    let first = lines.next().into_iter();
    let rest = lines.take_while(|l| l.starts_with([' ', '#']));
    let mut deps = String::new();
    for c in first.chain(rest).flat_map(|l| l.chars().chain([' '])) {
        if !(c == ' ' && deps.ends_with(' ')) {
            deps.push(c);
        }
    }
    format!("{release} {arch} {deps}")
}

/// The cached chroot, made when missing or when its stamp differs.
/// `expired`: the mirror serves the release's index past its Valid-Until.
fn chroot(
    cache: &Path,
    release: &str,
    arch: &str,
    build_arch: &str,
    expired: bool,
) -> Result<PathBuf, Stop> {
    let root = cache.join("root");
    let stamp_file = cache.join("stamp");
    let control = fs::read_to_string("debian/control")
        .map_err(|e| Stop::fail(format!("deb-release: debian/control: {e}")))?;
    let stamp = stamp(release, arch, &control);
    let kept = fs::read_to_string(&stamp_file).is_ok_and(|s| s.trim_end_matches('\n') == stamp);
    if kept && root.join("usr").is_dir() {
        return Ok(root);
    }
    if !on_path("mmdebstrap") {
        say("installing mmdebstrap");
        step(
            Command::new("apt-get")
                .args([
                    "install",
                    "-y",
                    "-qq",
                    "--no-install-recommends",
                    "mmdebstrap",
                ])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null()),
        )?;
    }
    say(&format!(
        "building the clean {release} chroot in {} (first use only)",
        root.display()
    ));
    let tmp = cache.join("root.tmp");
    let made = fs::create_dir_all(cache).and_then(|()| {
        for p in [&root, &tmp] {
            if p.exists() {
                fs::remove_dir_all(p)?;
            }
        }
        match fs::remove_file(&stamp_file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    });
    made.map_err(|e| Stop::fail(format!("deb-release: {}: {e}", cache.display())))?;

    let mut mm = Command::new("mmdebstrap");
    mm.args(["--quiet", "--variant=buildd", "--include=lintian"]);
    // A cross-build chroot installs through pool-pin: where the index names
    // files of ARCH that the pool lacks (trixie's ppc64el, seen 2026-11-28
    // to 2026-12-05), it pins those packages to the newest earlier updates
    // the pool serves. A chroot made with a pin is not kept, so the next
    // build looks at the archive again and the pin falls away once it is
    // mended.
    let xtask = std::env::current_exe()
        .map_err(|e| Stop::fail(format!("deb-release: this program's path: {e}")))?;
    let pool_pin = format!(r#"{} pkg pool-pin "$1""#, sh_word(&xtask));
    let install = if arch == "amd64" {
        r#"chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq"#.to_string()
    } else {
        mm.arg(format!("--architectures=amd64,{arch}"))
            .arg(format!("--include=crossbuild-essential-{arch}"));
        pool_pin.clone()
    };
    if expired {
        mm.arg(r#"--aptopt=Acquire::Check-Valid-Until "false""#);
    }
    mm.arg(r#"--customize-hook=mkdir -p "$1/tmp/deps""#)
        .arg("--customize-hook=copy-in debian /tmp/deps")
        .arg(format!(
            "--customize-hook={install} build-dep {build_arch} /tmp/deps >/dev/null"
        ))
        .arg(r#"--customize-hook=rm -rf "$1/tmp/deps""#);
    if arch != "amd64" {
        let std = MATCH_STD.replace("{arch}", arch);
        mm.arg(format!(
            r#"--customize-hook={pool_pin} install "$(chroot "$1" sh -c '{std}')""#
        ));
    }
    mm.arg(release)
        .arg(&tmp)
        .args(env("MIRROR"))
        .stdout(to_stderr());
    step(&mut mm)?;
    fs::rename(&tmp, &root)
        .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", root.display())))?;
    if root.join("etc/apt/preferences.d/pool-pin").exists() {
        say("the chroot holds pinned packages (pkg pool-pin): it is made again next time");
    } else {
        fs::write(&stamp_file, format!("{stamp}\n"))
            .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", stamp_file.display())))?;
    }
    Ok(root)
}

/// Copies `from`'s files whose names `keep` accepts into `to`.
fn copy_files(from: &Path, to: &Path, keep: impl Fn(&str) -> bool) -> Done {
    for f in glob(from, "", "") {
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
        if f.is_file() && name.as_deref().is_some_and(&keep) {
            fs::copy(&f, to.join(name.unwrap_or_default()))
                .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", f.display())))?;
        }
    }
    Ok(())
}

pub fn run(tree: &Path, args: &[&str]) -> Done {
    let arg = |i: usize| args.get(i).copied().filter(|a| !a.is_empty());
    let (release, out, arch) = (arg(0), arg(1), arg(2).unwrap_or("amd64"));
    let Some(release) = release.filter(|r| RELEASES.contains(r) && args.len() <= 3) else {
        return Err(Stop::usage(USAGE));
    };
    let riscv = release != "bookworm";
    if !(["amd64", "arm64", "ppc64el"].contains(&arch) || (arch == "riscv64" && riscv)) {
        return Err(Stop::usage(format!(
            "deb-release: no {arch} in {release}'s librpma0 architectures"
        )));
    }
    let Some(out) = out else {
        return Err(Stop::usage(USAGE));
    };
    if !is_root() {
        return Err(Stop::fail("deb-release: needs root (chroot)"));
    }
    // OUT-DIR, debian/ and the hooks' paths are the tree's
    std::env::set_current_dir(tree)
        .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", tree.display())))?;
    let out = Path::new(out);
    let suffix = if arch == "amd64" {
        release.to_string()
    } else {
        format!("{release}-{arch}")
    };
    let build_arch = if arch == "amd64" {
        String::new()
    } else {
        format!("-a {arch}")
    };
    // A mirror that has stopped syncing serves forky's and sid's indexes
    // past their Valid-Until: the chroot is then made with apt's
    // Check-Valid-Until off, and the log says so.
    let expired = if env("MIRROR").is_none() {
        index_expired(release)
    } else {
        None
    };
    if let Some(until) = &expired {
        say(&format!(
            "the mirror's {release} index expired on {until}: apt's Check-Valid-Until is off in the chroot"
        ));
    }
    let caches = cache_root();
    let cache = caches.join(format!("deb-{suffix}"));
    // Two builds of one release at once (the debian suite's install and
    // piuparts tests, say) would make its chroot together, or copy it while
    // the other makes it again: one at a time, until the copy is made.
    fs::create_dir_all(&caches)
        .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", caches.display())))?;
    let lock = lock_file(&cache.with_extension("lock"))?;
    let root = chroot(&cache, release, arch, &build_arch, expired.is_some())?;

    let work = TempDir::new(&format!("deb-{suffix}"))
        .map_err(|e| Stop::fail(format!("deb-release: a scratch folder: {e}")))?;
    let work_root = work.path().join("root");
    step(Command::new("cp").arg("-a").arg(&root).arg(&work_root))?;
    drop(lock);
    let src = work_root.join("build/rpma-rs");
    fs::create_dir_all(&src).map_err(|e| Stop::fail(format!("deb-release: {e}")))?;
    copy_tree(tree, &src)?;

    // bookworm's and trixie's lintian predate Standards-Version 4.7.4: they
    // warn newer-standards-version, and ask for the source Priority that
    // 4.7.3 made redundant. There only errors fail; lintian.txt has the
    // warnings.
    let fail_on = env("LINTIAN_FAIL_ON").unwrap_or_else(|| {
        let old = ["bookworm", "trixie"].contains(&release);
        (if old { "error" } else { "error,warning" }).to_string()
    });
    let dpkg = format!("dpkg-buildpackage -F {build_arch}");
    say(&format!(
        "{release} {arch}: {} with no network",
        dpkg.trim_end()
    ));
    let log = work.path().join("build.log");
    let mut build = Command::new("unshare");
    build
        .args(["--net", "--mount", "--pid", "--fork"])
        .arg(format!("--mount-proc={}", work_root.join("proc").display()))
        .arg("chroot")
        .arg(&work_root)
        .arg("env")
        .arg(format!("BUILD_ARCH={build_arch}"))
        .arg(format!("FAIL_ON={fail_on}"))
        .args(["/bin/sh", "-c", BUILD]);
    let rc = rc(logged(&mut build, &log, false)?);

    let built = work_root.join("build");
    let cleared = fs::create_dir_all(out).and_then(|()| {
        for f in glob(out, "", "") {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            if is_output(&name) || name == "lintian.txt" {
                fs::remove_file(&f)?;
            }
        }
        fs::copy(&log, out.join("build.log")).map(drop)
    });
    cleared.map_err(|e| Stop::fail(format!("deb-release: {}: {e}", out.display())))?;
    // lintian's findings; the packages too when only lintian failed
    if built.join("lintian.txt").is_file() {
        copy_files(&built, out, |n| n == "lintian.txt" || is_output(n))?;
    }
    let out_log = out.join("build.log");
    if rc != 0 {
        tail(&out_log, 40);
        return Err(Stop::fail(format!(
            "deb-release: {release} {arch}: the build or lintian failed (log: {}, lintian: {})",
            out_log.display(),
            out.join("lintian.txt").display()
        )));
    }
    let text = fs::read(&out_log).unwrap_or_default();
    for l in String::from_utf8_lossy(&text).lines() {
        if l.starts_with("network interfaces") || l.starts_with("dpkg-deb: building") {
            eprintln!("{l}");
        }
    }
    // the library as built, before dh_strip: what `make ARCH=...` hands out
    let lib = src.join("debian/build/lib/librpma.so.0");
    fs::copy(&lib, out.join("librpma.so.0"))
        .map_err(|e| Stop::fail(format!("deb-release: {}: {e}", lib.display())))?;
    say(&format!("{release} {arch}: packages in {}", out.display()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::stamp;

    #[test]
    fn stamp_is_one_line() {
        let control =
            "Source: x\nBuild-Depends: a,\n  b  (>= 1),\n# why\n c\nStandards-Version: 4\n";
        assert_eq!(
            stamp("sid", "amd64", control),
            "sid amd64 Build-Depends: a, b (>= 1), # why c "
        );
    }
}
