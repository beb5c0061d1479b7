//! `cargo xtask pkg piuparts RELEASE DEB-DIR` (`make piuparts`): Debian's
//! piuparts on the librpma0 and librpma-dev of `make deb RELEASE=...`, then
//! deb-compat (a program built against Debian's C librpma across the
//! upgrade to ours and the downgrade back).
//!
//!   install  piuparts -d RELEASE: install both packages, purge them, and
//!            find what is left or broken. On bookworm and trixie, whose
//!            archive has Debian's C librpma0, piuparts also installs that
//!            first and upgrades it to ours.
//!   upgrade  forky and sid only (their archive has no librpma0): piuparts
//!            -d trixie -d RELEASE installs Debian 13's C librpma0 and
//!            librpma-dev (1.3.0-2+b3), upgrades the system to RELEASE,
//!            then installs ours over them.
//!   compat   `pkg deb-compat RELEASE DEB-DIR`
//!
//! The base chroots are mmdebstrap's minbase tarballs of RELEASE (and
//! trixie), made once and kept in RXE_CACHE_ROOT (default
//! ~/.cache/librpma-rs), as piuparts-RELEASE.tar.gz; a day-old one is made
//! again. They hold the rdma-core libraries librpma0 links (libibverbs1,
//! librdmacm1): purging those is not librpma's to test, and on forky and sid
//! it purges the systemd that libibverbs1 takes for its system user, which
//! leaves files behind. Symlinks that the base system leaves broken
//! (/etc/vconsole.conf on sid) are warnings, as piuparts has them by
//! default. piuparts' logs go to DEB-DIR/piuparts-*.log.

use super::{
    cache_root, compat, fresh, index_expired, is_root, step, tail, to_stderr, Done, Stop, RELEASES,
};
use crate::check::glob;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const USAGE: &str = "usage: cargo xtask pkg piuparts bookworm|trixie|forky|sid DEB-DIR
  piuparts on DEB-DIR's librpma0 and librpma-dev (install and purge; on forky
  and sid, the upgrade from trixie's C librpma0), then deb-compat. Root only.";

fn say(msg: &str) {
    eprintln!("piuparts: {msg}");
}

/// The cached minbase tarball of SUITE, made when missing or a day old.
fn base(cache: &Path, suite: &str) -> Result<PathBuf, Stop> {
    let t = cache.join(format!("piuparts-{suite}.tar.gz"));
    if fresh(&t, Duration::from_secs(24 * 3600)) {
        return Ok(t);
    }
    let rdmacm = if suite == "bookworm" {
        "librdmacm1"
    } else {
        "librdmacm1t64"
    };
    let mut mm = Command::new("mmdebstrap");
    mm.args(["--quiet", "--variant=minbase"])
        .arg(format!("--include=libibverbs1,{rdmacm}"));
    if index_expired(suite).is_some() {
        mm.arg(r#"--aptopt=Acquire::Check-Valid-Until "false""#);
    }
    say(&format!("making the {suite} base tarball {}", t.display()));
    let tmp = cache.join(format!("piuparts-{suite}.tar.gz.tmp.tar.gz"));
    step(mm.arg(suite).arg(&tmp).stdout(to_stderr()))?;
    fs::rename(&tmp, &t).map_err(|e| Stop::fail(format!("piuparts: {}: {e}", t.display())))?;
    Ok(t)
}

/// Runs piuparts (its log in LOG): says its PASS lines when it passed,
/// else shows its log's end.
fn piuparts(cmd: &mut Command, log: &Path, what: &str) -> bool {
    let passed = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !passed {
        tail(log, 30);
        return false;
    }
    let text = fs::read(log).unwrap_or_default();
    let pass: String = String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.find("PASS: ").map(|i| format!("{} ", &l[i..])))
        .collect();
    say(&format!("{what}: {pass}"));
    true
}

pub fn run(args: &[&str]) -> Done {
    let [release, debs_arg] = *args else {
        return Err(Stop::usage(USAGE));
    };
    if !RELEASES.contains(&release) {
        return Err(Stop::usage(USAGE));
    }
    let debs = Path::new(debs_arg);
    if !is_root() {
        return Err(Stop::fail("piuparts: needs root"));
    }
    let mut pkgs = glob(debs, "librpma0_", "_amd64.deb");
    pkgs.extend(glob(debs, "librpma-dev_", "_amd64.deb"));
    if pkgs.len() != 2 {
        return Err(Stop::fail(format!(
            "piuparts: no packages in {}: run make deb RELEASE={release}",
            debs.display()
        )));
    }
    let cache = cache_root();
    fs::create_dir_all(&cache)
        .map_err(|e| Stop::fail(format!("piuparts: {}: {e}", cache.display())))?;

    // the archive's own mirror, not what this machine's sources.list names;
    // debconf's scratch directory, which piuparts 1.6 (trixie's, sid's)
    // ignores itself and Debian 12's 1.1.7 does not
    let mut opts = vec![
        "--mirror",
        "http://deb.debian.org/debian main",
        "--ignore=/var/cache/debconf/tmp.ci/",
    ];
    if index_expired(release).is_some() {
        say(&format!(
            "the mirror's {release} index has expired: piuparts --no-check-valid-until"
        ));
        opts.push("--no-check-valid-until");
    }
    for log in glob(debs, "piuparts-", ".log") {
        let _ = fs::remove_file(log);
    }
    let base_release = base(&cache, release)?;
    let log = |name: &str| debs.join(format!("piuparts-{name}.log"));
    let mut failed = String::new();

    // --pedantic-purge-test: files left in /tmp count too
    let names: Vec<String> = pkgs
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    say(&format!(
        "install and purge on {release}: {}",
        names.join(" ")
    ));
    let mut install = Command::new("piuparts");
    install
        .arg("--pedantic-purge-test")
        .args(&opts)
        .args(["-d", release, "-b"])
        .arg(&base_release)
        .arg("-l")
        .arg(log("install"))
        .args(&pkgs);
    if !piuparts(&mut install, &log("install"), "install") {
        failed.push_str(" install");
    }

    if matches!(release, "forky" | "sid") {
        let base_trixie = base(&cache, "trixie")?;
        say(&format!(
            "upgrade: trixie's librpma0 and librpma-dev, the system to {release}, then ours"
        ));
        let mut upgrade = Command::new("piuparts");
        upgrade
            .args(&opts)
            .args(["-d", "trixie", "-d", release, "-b"])
            .arg(&base_trixie)
            .arg("-l")
            .arg(log("upgrade"))
            .args(&pkgs);
        if !piuparts(&mut upgrade, &log("upgrade"), "upgrade") {
            failed.push_str(" upgrade");
        }
    }

    say("compat: a program built against Debian's C librpma-dev, across the upgrade and back");
    if let Err(stop) = compat::run(&[release, debs_arg]) {
        if !stop.msg.is_empty() {
            eprintln!("{}", stop.msg);
        }
        failed.push_str(" compat");
    }

    if !failed.is_empty() {
        return Err(Stop::fail(format!("piuparts: {release}: failed:{failed}")));
    }
    say(&format!("{release}: passed"));
    Ok(())
}
