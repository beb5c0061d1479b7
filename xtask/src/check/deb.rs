//! `check deb ROOT [DEB-DIR]`: our librpma0/librpma-dev packages (DEB-DIR,
//! by default ROOT/build/deb from `make deb`; `make deb RELEASE=...` writes
//! to build/deb-RELEASE) against Debian's own, package by package:
//!   - every path of Debian 12's and Debian 13's package is in ours (only
//!     Debian 13's binNMU changelog, changelog.Debian.amd64.gz, is not),
//!     and ours adds only the CMake package files and its lintian
//!     overrides;
//!   - the version is an upgrade over both Debian versions and says "+rs";
//!   - Section, Multi-Arch and Architecture are Debian's; librpma-dev
//!     depends on our librpma0 and on what its header and librpma.pc need
//!     (libibverbs-dev, librdmacm-dev), which Debian's forgot; librpma0's
//!     dependencies were computed (libibverbs1, librdmacm1);
//!   - the symbols file lists the 84 functions the library exports, each at
//!     LIBRPMA_1.0, the same lines as Debian's; shlibs names librpma0;
//!   - lintian reports no error.
//!
//! Debian 12's packages are downloaded with apt-get; Debian 13's come from
//! the harness's trixie root (softroce/stack-root trixie keeps its .debs).

use super::{glob, same_or_diff, scratch, stdout_of, succeeds, syms, Checks, Usage};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PACKAGES: [&str; 2] = ["librpma0", "librpma-dev"];
const FUNCTIONS: usize = 84;

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let (root, debs) = match a {
        [root] => (Path::new(*root), Path::new(root).join("build/deb")),
        [root, debs] => (Path::new(*root), PathBuf::from(debs)),
        _ => return Err(Usage("expected ROOT [DEB-DIR]".into())),
    };
    let tmp = scratch("deb")?;
    let w = tmp.path();
    let mut c = Checks::default();
    let ours_of = |pkg: &str| {
        glob(&debs, &format!("{pkg}_"), "_amd64.deb")
            .into_iter()
            .next()
    };
    let (Some(ours_bin), Some(ours_dev)) = (ours_of("librpma0"), ours_of("librpma-dev")) else {
        c.bad(format!(
            "no packages in {}: run 'make deb' first",
            debs.display()
        ));
        return Ok(c);
    };

    let d12 = w.join("d12");
    let downloaded = fs::create_dir(&d12).is_ok()
        && Command::new("apt-get")
            .args(["download", "-qq"])
            .args(PACKAGES)
            .current_dir(&d12)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    c.expect(
        downloaded,
        "apt-get download of Debian 12's packages failed",
    );
    let trixie = stdout_of(Command::new(root.join("softroce/stack-root")).arg("trixie"))
        .map(|t| PathBuf::from(t.trim_end_matches('\n')))
        .unwrap_or_else(|e| {
            c.bad(format!("no trixie root: {e}"));
            PathBuf::new()
        });
    let archives = trixie.join("var/cache/apt/archives");
    let reference = |rel: &str, pkg: &str| {
        let dir = if rel == "d12" { &d12 } else { &archives };
        glob(dir, &format!("{pkg}_"), ".deb").into_iter().next()
    };

    let version = field(&ours_bin, "Version");
    c.expect(
        version.contains("+rs"),
        format!("version {version} does not say +rs"),
    );

    for (pkg, ours) in PACKAGES.into_iter().zip([&ours_bin, &ours_dev]) {
        let ours_paths = paths(&mut c, ours);
        for rel in ["d12", "d13"] {
            let Some(deb) = reference(rel, pkg) else {
                c.bad(format!("no Debian package {rel} {pkg} to compare with"));
                continue;
            };
            let before = c.failures();
            let refv = field(&deb, "Version");
            let newer = Command::new("dpkg")
                .args(["--compare-versions", &version, "gt", &refv])
                .status()
                .is_ok_and(|s| s.success());
            c.expect(
                newer,
                format!("{version} is not an upgrade over {rel}'s {refv}"),
            );
            let mut ref_paths = paths(&mut c, &deb);
            ref_paths.retain(|p| !p.ends_with("/changelog.Debian.amd64.gz"));
            let missing: Vec<&str> = ref_paths
                .difference(&ours_paths)
                .map(String::as_str)
                .collect();
            c.expect(
                missing.is_empty(),
                format!("{pkg} lacks what {rel}'s {refv} has: {}", missing.join(" ")),
            );
            let extra: Vec<&str> = ours_paths
                .difference(&ref_paths)
                .filter(|p| !cmake_package(p) && !lintian_overrides(p, pkg))
                .map(String::as_str)
                .collect();
            c.expect(
                extra.is_empty(),
                format!(
                    "{pkg} has more than {rel}'s {refv}, the CMake files and its lintian overrides: {}",
                    extra.join(" ")
                ),
            );
            for f in ["Section", "Multi-Arch", "Architecture"] {
                c.expect(
                    field(ours, f) == field(&deb, f),
                    format!("{pkg} {f} differs from {rel}'s"),
                );
            }
            if c.failures() == before {
                println!("{pkg}: the same paths as {rel}'s {refv}, plus the CMake package and its lintian overrides");
            }
        }
    }

    depends(&mut c, &ours_bin, &ours_dev, &version);
    symbols(
        &mut c,
        w,
        &ours_bin,
        reference("d12", "librpma0").as_deref(),
    );

    let lintian = Command::new("lintian")
        .args(["--fail-on", "error"])
        .arg(&ours_bin)
        .arg(&ours_dev)
        .output();
    let report = match lintian {
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            if !o.status.success() {
                print!("{text}");
                c.bad("lintian reports errors");
            }
            text
        }
        Err(e) => {
            c.bad(format!("lintian: {e}"));
            String::new()
        }
    };
    if c.ok() {
        let count = |tag: &str| report.lines().filter(|l| l.starts_with(tag)).count();
        println!(
            "deb: {version}; {FUNCTIONS} symbols at LIBRPMA_1.0; shlibs and Depends computed; lintian: {} errors, {} warnings",
            count("E:"),
            count("W:")
        );
    }
    Ok(c)
}

/// A control field of a package ("" when it has none).
fn field(deb: &Path, name: &str) -> String {
    let out = Command::new("dpkg-deb")
        .arg("-f")
        .arg(deb)
        .arg(name)
        .output();
    out.map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
        .unwrap_or_default()
}

/// The paths a package holds, without a trailing /.
fn paths(c: &mut Checks, deb: &Path) -> BTreeSet<String> {
    match stdout_of(Command::new("dpkg-deb").arg("-c").arg(deb)) {
        Ok(list) => list
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .map(|p| p.strip_suffix('/').unwrap_or(p).to_string())
            .collect(),
        Err(e) => {
            c.bad(e);
            BTreeSet::new()
        }
    }
}

/// The CMake package's folders and files (lib/cmake/librpma/...).
fn cmake_package(path: &str) -> bool {
    [
        "/cmake",
        "/cmake/librpma",
        "/cmake/librpma/librpma-config.cmake",
        "/cmake/librpma/librpma-config-version.cmake",
    ]
    .iter()
    .any(|end| path.ends_with(end))
}

/// The package's lintian overrides (debian/*.lintian-overrides) and their
/// folders.
fn lintian_overrides(path: &str, pkg: &str) -> bool {
    let dir = "./usr/share/lintian";
    path == dir || path == format!("{dir}/overrides") || path == format!("{dir}/overrides/{pkg}")
}

/// librpma-dev's Depends as written; librpma0's as computed.
fn depends(c: &mut Checks, bin: &Path, dev: &Path, version: &str) {
    let dev_depends = field(dev, "Depends");
    c.expect(
        dev_depends == format!("librpma0 (= {version}), libibverbs-dev, librdmacm-dev"),
        format!("librpma-dev Depends: {dev_depends}"),
    );
    let bin_depends = field(bin, "Depends");
    // librdmacm1t64 is Debian 13's name (the 64-bit time_t transition)
    for need in [
        &["libc6"][..],
        &["libibverbs1"],
        &["librdmacm1", "librdmacm1t64"],
    ] {
        c.expect(
            need.iter().any(|n| has_word(&bin_depends, n)),
            format!(
                "librpma0 Depends lacks {}: {bin_depends}",
                need.join(" or ")
            ),
        );
    }
}

/// `word` in `text` between non-word characters (grep's \b...\b).
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |ch: char| ch.is_alphanumeric() || ch == '_';
    text.match_indices(word)
        .any(|(i, _)| !text[..i].ends_with(is_word) && !text[i + word.len()..].starts_with(is_word))
}

/// The symbols file lists what the packaged library exports, the same lines
/// as Debian 12's; shlibs names librpma0.
fn symbols(c: &mut Checks, w: &Path, bin: &Path, ref_bin: Option<&Path>) {
    let (ctl, ref_ctl, x) = (w.join("ctl"), w.join("ref-ctl"), w.join("x"));
    let dpkg_deb = |op: &str, deb: &Path, to: &Path| {
        succeeds(Command::new("dpkg-deb").arg(op).arg(deb).arg(to))
    };
    c.expect(
        dpkg_deb("-e", bin, &ctl),
        format!("dpkg-deb -e {} failed", bin.display()),
    );
    c.expect(
        dpkg_deb("-x", bin, &x),
        format!("dpkg-deb -x {} failed", bin.display()),
    );
    let ref_unpacked = ref_bin.is_some_and(|r| dpkg_deb("-e", r, &ref_ctl));
    c.expect(
        ref_unpacked,
        "cannot unpack the control files of Debian 12's librpma0",
    );

    // (the node's own name is also a defined symbol, as in the C library)
    let lib = glob(&x.join("usr/lib"), "", "")
        .into_iter()
        .map(|d| d.join("librpma.so.0"))
        .find(|l| l.exists());
    let mut exported: Vec<String> = match lib.map(|l| syms::defined(&l)) {
        Some(Ok(s)) => s
            .iter()
            .filter_map(|s| s.strip_suffix("@@LIBRPMA_1.0"))
            .filter(|s| s.starts_with("rpma_"))
            .map(str::to_string)
            .collect(),
        Some(Err(e)) => {
            c.bad(e);
            Vec::new()
        }
        None => {
            c.bad("the package holds no usr/lib/*/librpma.so.0");
            Vec::new()
        }
    };
    exported.sort();
    let ours = fs::read_to_string(ctl.join("symbols")).unwrap_or_default();
    let mut listed: Vec<String> = ours.lines().filter_map(listed_function).collect();
    listed.sort();
    c.expect(
        listed.len() == FUNCTIONS,
        format!(
            "the symbols file lists {} functions, not {FUNCTIONS}",
            listed.len()
        ),
    );
    if exported != listed {
        let only = |a: &[String], b: &[String], what: &str| {
            let v: Vec<&str> = a
                .iter()
                .filter(|s| !b.contains(s))
                .map(String::as_str)
                .collect();
            (!v.is_empty()).then(|| format!("{what}: {}", v.join(" ")))
        };
        let differ: Vec<String> = [
            only(&exported, &listed, "exported, not listed"),
            only(&listed, &exported, "listed, not exported"),
        ]
        .into_iter()
        .flatten()
        .collect();
        c.bad(format!(
            "the symbols file and the packaged library's exports differ ({})",
            differ.join("; ")
        ));
    }
    let theirs = fs::read_to_string(ref_ctl.join("symbols")).unwrap_or_default();
    let symbol_lines = |s: &str| -> String {
        s.lines()
            .filter(|l| l.starts_with(' '))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    c.expect(
        same_or_diff(
            w,
            "ours",
            &symbol_lines(&ours),
            "Debian 12's",
            &symbol_lines(&theirs),
        ),
        "the symbols lines differ from Debian 12's",
    );
    let shlibs = fs::read_to_string(ctl.join("shlibs")).unwrap_or_default();
    c.expect(
        shlibs.lines().any(|l| l.starts_with("librpma 0 librpma0 ")),
        format!("shlibs: {}", shlibs.trim_end()),
    );
}

/// NAME of a symbols-file line " NAME@LIBRPMA_1.0 1.0" naming an rpma_*
/// function.
fn listed_function(line: &str) -> Option<String> {
    let name = line.strip_prefix(' ')?.strip_suffix("@LIBRPMA_1.0 1.0")?;
    let well_formed = name.starts_with("rpma_")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    well_formed.then(|| name.to_string())
}
