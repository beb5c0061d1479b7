//! `check docs ROOT OURS.so`: every function the library exports is done on
//! paper too: it has its man page (man/man3/<function>.3, clean under
//! groff's warnings, with the sections a librpma page needs) and a C test
//! program named after it (tests-c/api/ or a folder of tests-c/live/);
//! librpma(7) exists.

use super::{args, stdout_of, Checks, Usage};
use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Stdio};

const SECTIONS: [&str; 6] = [
    "NAME",
    "SYNOPSIS",
    "DESCRIPTION",
    "RETURN VALUE",
    "ERRORS",
    "SEE ALSO",
];

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [root, lib] = args(a, "ROOT OURS.so")?;
    let root = Path::new(root);
    if let Err(e) = Command::new("groff")
        .arg("-v")
        .stdout(Stdio::null())
        .status()
    {
        if e.kind() == ErrorKind::NotFound {
            return Err(Usage("groff is missing (apt install groff-base)".into()));
        }
    }
    let mut c = Checks::default();
    c.expect(
        root.join("man/man7/librpma.7").is_file(),
        "man/man7/librpma.7 is missing",
    );
    let functions = match stdout_of(Command::new("nm").args(["-D", "--defined-only", lib])) {
        Ok(out) => names(&out),
        Err(e) => {
            c.bad(e);
            Vec::new()
        }
    };
    for f in &functions {
        page(&mut c, root, f);
        let api = root.join(format!("tests-c/api/{f}.c")).is_file();
        let live = fs::read_dir(root.join("tests-c/live"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|d| d.path().join(format!("{f}.c")).is_file());
        c.expect(
            api || live,
            format!("{f} has no test program (tests-c/api/{f}.c or tests-c/live/<object>/{f}.c)"),
        );
    }
    c.expect(!functions.is_empty(), format!("no function found in {lib}"));
    if c.ok() {
        println!(
            "{} functions: each has a man page and a test program; librpma(7) exists",
            functions.len()
        );
    }
    Ok(c)
}

/// The rpma_* names of `nm -D --defined-only`, without versions, sorted
/// once each.
fn names(nm: &str) -> Vec<String> {
    let mut v: Vec<String> = nm
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("rpma_"))
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The function's man page: there, quiet under groff -ww, every section.
fn page(c: &mut Checks, root: &Path, f: &str) {
    let path = root.join(format!("man/man3/{f}.3"));
    let Ok(text) = fs::read_to_string(&path) else {
        return c.bad(format!("{f} has no man page"));
    };
    match Command::new("groff")
        .args(["-man", "-ww", "-z"])
        .arg(&path)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => {
            let mut warnings = String::from_utf8_lossy(&o.stdout).into_owned();
            warnings.push_str(&String::from_utf8_lossy(&o.stderr));
            let warnings = warnings.trim_end();
            c.expect(warnings.is_empty(), format!("{f}.3: groff: {warnings}"));
        }
        Err(e) => c.bad(format!("{f}.3: groff: {e}")),
    }
    for section in SECTIONS {
        let has = text.lines().any(|l| {
            l.strip_prefix(".SH ").is_some_and(|h| {
                let h = h.strip_prefix('"').unwrap_or(h);
                h.strip_suffix('"').unwrap_or(h) == section
            })
        });
        c.expect(has, format!("{f}.3 has no {section} section"));
    }
}
