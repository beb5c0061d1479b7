//! `cargo xtask pkg pool-pin ROOT APT-GET-ARGS...`: `apt-get -y
//! APT-GET-ARGS...` in the chroot ROOT, for an archive whose index names
//! files that its pool does not serve (deb-release runs a cross-build
//! chroot's installs through it, as an mmdebstrap hook).
//!
//! Seen for trixie's ppc64el (2026-11-28 to 2026-12-05): the index names the
//! latest stable updates of libc6, zlib1g, liblzma5, libzstd1 and libllvm22,
//! and the pool answers 404 for their ppc64el files. Before installing, this
//! asks apt which files the install needs and tries each. For each file the
//! pool lacks it finds the newest earlier update that the pool serves
//! (+deb13u4 for +deb13u5, and so on down to the release's own version or a
//! binary rebuild of it) and downloads it, with the same version of every
//! installed package of the same source and version (Multi-Arch: same wants
//! every architecture at one version, and a -dev package wants its library's
//! exact version), into ROOT/var/cache/pool-pin, a flat apt repository that
//! ROOT/etc/apt/preferences.d/pool-pin pins them to. It repeats until every
//! file is served, then installs, allowing the downgrades the pins ask for.
//!
//! Where the pool serves every file it pins nothing: the pin falls away by
//! itself once the archive is mended.

use super::{step, Done, Stop};
use crate::check::stdout_of;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The flat repository, as the chroot sees it.
const REPO: &str = "/var/cache/pool-pin";
/// Rounds of pinning before giving up: each may bring new files to fetch.
const ROUNDS: usize = 5;

fn say(msg: &str) {
    eprintln!("pool-pin: {msg}");
}

/// A command in the chroot, with no debconf questions.
fn in_root(root: &Path) -> Command {
    let mut c = Command::new("chroot");
    c.arg(root).args(["env", "DEBIAN_FRONTEND=noninteractive"]);
    c
}

/// apt-get in the chroot, allowing the downgrades the pins ask for.
fn apt(root: &Path) -> Command {
    let mut c = in_root(root);
    c.args(["apt-get", "-y", "-qq", "--allow-downgrades"]);
    c
}

/// Whether the archive serves a file (curl's HEAD request).
fn served(uri: &str) -> bool {
    Command::new("curl")
        .args(["-fsI", "-o", "/dev/null", uri])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A version as the pool's file names spell it.
fn quote(v: &str) -> String {
    v.replace('+', "%2b").replace('~', "%7e")
}

/// The versions to try for a stable update that the pool lacks, newest
/// first: 1.2-3+deb13u5 gives 1.2-3+deb13u4 ... 1.2-3+deb13u1, then the
/// release's own, a binary rebuild of it (1.2-3+b3 ... 1.2-3+b1) or 1.2-3
/// (the same for ~deb13u5, a package new in a stable update). Nothing for
/// a version that is not a stable update.
fn earlier(v: &str) -> Vec<String> {
    let digits = v.len() - v.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, n) = v.split_at(v.len() - digits);
    // stem must end with [+~]deb[0-9]+u
    let Some(before_u) = stem.strip_suffix('u') else {
        return Vec::new();
    };
    let release = before_u.trim_end_matches(|c: char| c.is_ascii_digit());
    let Ok(n) = n.parse::<u64>() else {
        return Vec::new();
    };
    if release.len() == before_u.len() || !(release.ends_with("+deb") || release.ends_with("~deb"))
    {
        return Vec::new();
    }
    let own = &release[..release.len() - 4];
    let mut out: Vec<String> = (1..n).rev().map(|k| format!("{stem}{k}")).collect();
    out.extend((1..=3).rev().map(|k| format!("{own}+b{k}")));
    out.push(own.to_string());
    out
}

/// The state of one run: the chroot, its repository and its pins.
struct Pool {
    root: PathBuf,
    repo: PathBuf,
    prefs: PathBuf,
    native: String,
}

impl Pool {
    /// Downloads PKG VERSION ARCH from DIR into the repository and pins it.
    fn fetch(&self, dir: &str, pkg: &str, ver: &str, arch: &str) -> Done {
        let file = self.repo.join(format!("{pkg}_{ver}_{arch}.deb"));
        if file.is_file() {
            return Ok(());
        }
        let got = Command::new("curl")
            .arg("-fsS")
            .arg("-o")
            .arg(&file)
            .arg(format!("{dir}/{pkg}_{}_{arch}.deb", quote(ver)))
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !got {
            return Err(Stop::fail(format!(
                "pool-pin: no {pkg}_{ver}_{arch}.deb in the pool"
            )));
        }
        let full = field(&file, "Version");
        let epoch = match full.split_once(':') {
            Some((e, _)) if e.bytes().all(|b| b.is_ascii_digit()) => format!("{e}:"),
            _ => String::new(),
        };
        // the build architecture's packages go by their plain names
        let name = if arch == self.native || arch == "all" {
            pkg.to_string()
        } else {
            format!("{pkg}:{arch}")
        };
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.prefs)
            .and_then(|mut f| {
                write!(
                    f,
                    "Package: {name}\nPin: version {epoch}{ver}\nPin-Priority: 1001\n\n"
                )
            })
            .map_err(|e| Stop::fail(format!("pool-pin: {}: {e}", self.prefs.display())))
    }

    /// The installed packages built from SOURCE at VERSION (less any
    /// epoch): their names and architectures.
    fn siblings(&self, source: &str, version: &str) -> Result<Vec<(String, String)>, Stop> {
        let list = stdout_of(in_root(&self.root).args([
            "dpkg-query",
            "-W",
            "-f",
            "${source:Package} ${Package} ${Architecture} ${Version}\n",
        ]))
        .map_err(|e| Stop::fail(format!("pool-pin: {e}")))?;
        Ok(list
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let [src, pkg, arch, ver] = f[..] else {
                    return None;
                };
                let ver = match ver.split_once(':') {
                    Some((e, v)) if e.bytes().all(|b| b.is_ascii_digit()) => v,
                    _ => ver,
                };
                (src == source && ver == version).then(|| (pkg.to_string(), arch.to_string()))
            })
            .collect())
    }

    /// Pins the newest earlier update the pool serves for one missing file,
    /// and the same version of its installed siblings.
    fn pin(&self, uri: &str) -> Done {
        let (dir, name) = uri.rsplit_once('/').unwrap_or(("", uri));
        let name = name.strip_suffix(".deb").unwrap_or(name);
        let name = name
            .replace("%2b", "+")
            .replace("%7e", "~")
            .replace("%3a", ":");
        let mut parts = name.splitn(3, '_');
        let (pkg, ver, arch) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        // an earlier update may be in the security archive's pool or the main
        // one's; the release's own version is in the main one's
        let main_pool = dir.replacen("debian-security/pool/updates", "debian/pool", 1);
        let found = earlier(ver).into_iter().find_map(|v| {
            [dir, main_pool.as_str()]
                .into_iter()
                .find(|d| served(&format!("{d}/{pkg}_{}_{arch}.deb", quote(&v))))
                .map(|d| (v, d))
        });
        let Some((found, dir)) = found else {
            return Err(Stop::fail(format!(
                "pool-pin: the pool serves no earlier update of {pkg} {ver} for {arch}"
            )));
        };
        say(&format!(
            "{pkg}:{arch} {ver} is not in the pool: pinning {found}"
        ));
        self.fetch(dir, pkg, &found, arch)?;
        let source = field(
            &self.repo.join(format!("{pkg}_{found}_{arch}.deb")),
            "Source",
        );
        let source = source
            .split(' ')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(pkg);
        for (spkg, sarch) in self.siblings(source, ver)? {
            self.fetch(dir, &spkg, &found, &sarch)?;
        }
        Ok(())
    }

    /// Makes the repository's index and has the chroot's apt read it.
    fn publish(&self) -> Done {
        let index = fs::File::create(self.repo.join("Packages"))
            .map_err(|e| Stop::fail(format!("pool-pin: {e}")))?;
        step(
            Command::new("dpkg-scanpackages")
                .args(["--multiversion", ".", "/dev/null"])
                .current_dir(&self.repo)
                .stdout(index)
                .stderr(Stdio::null()),
        )?;
        let list = self.root.join("etc/apt/sources.list.d/pool-pin.list");
        fs::write(&list, format!("deb [trusted=yes] file:{REPO} ./\n"))
            .map_err(|e| Stop::fail(format!("pool-pin: {}: {e}", list.display())))?;
        step(in_root(&self.root).args(["apt-get", "update", "-qq"]))
    }
}

/// A control field of a .deb (dpkg-deb -f), empty when it has none.
fn field(deb: &Path, name: &str) -> String {
    stdout_of(Command::new("dpkg-deb").arg("-f").arg(deb).arg(name))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

pub fn run(args: &[&str]) -> Done {
    let Some((root, apt_args)) = args.split_first() else {
        return Err(Stop::usage(
            "usage: cargo xtask pkg pool-pin ROOT APT-GET-ARGS...",
        ));
    };
    let root = PathBuf::from(root);
    let native = stdout_of(in_root(&root).args(["dpkg", "--print-architecture"]))
        .map_err(|e| Stop::fail(format!("pool-pin: {e}")))?;
    let pool = Pool {
        repo: root.join(REPO.trim_start_matches('/')),
        prefs: root.join("etc/apt/preferences.d/pool-pin"),
        native: native.trim().to_string(),
        root,
    };
    for round in 1..=ROUNDS {
        let uris = stdout_of(apt(&pool.root).arg("--print-uris").args(apt_args)).map_err(|e| {
            Stop::fail(format!(
                "{e}\npool-pin: apt-get {}: no plan",
                apt_args.join(" ")
            ))
        })?;
        // (file: URIs are this repository's own)
        let missing: Vec<String> = uris
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(|u| u.replace('\'', ""))
            .filter(|u| !u.is_empty() && !u.starts_with("file:"))
            .filter(|u| !served(u))
            .collect();
        if missing.is_empty() {
            break;
        }
        if round == ROUNDS {
            return Err(Stop::fail(format!(
                "pool-pin: still missing: {}",
                missing.join(" ")
            )));
        }
        fs::create_dir_all(&pool.repo)
            .map_err(|e| Stop::fail(format!("pool-pin: {}: {e}", pool.repo.display())))?;
        for uri in &missing {
            pool.pin(uri)?;
        }
        pool.publish()?;
    }
    step(apt(&pool.root).args(apt_args).stdout(Stdio::null()))
}

#[cfg(test)]
mod tests {
    use super::earlier;

    #[test]
    fn earlier_updates() {
        assert_eq!(
            earlier("2.41-12+deb13u3"),
            [
                "2.41-12+deb13u2",
                "2.41-12+deb13u1",
                "2.41-12+b3",
                "2.41-12+b2",
                "2.41-12+b1",
                "2.41-12"
            ]
        );
        assert_eq!(
            earlier("1.0~deb13u1"),
            ["1.0+b3", "1.0+b2", "1.0+b1", "1.0"]
        );
        assert!(earlier("2.41-12").is_empty());
        assert!(earlier("1.2+debu5").is_empty());
    }
}
