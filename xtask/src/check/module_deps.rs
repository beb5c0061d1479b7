//! `check module-deps [SRC_DIR...]` (default: every crate's, the xtask's
//! included): prints the import graph among each crate's top-level
//! modules, one "module dependency" pair per line, and fails when a graph
//! has a cycle (coreutils' tsort finds it and names the modules on it).
//!
//! A module is a file or directory directly under SRC_DIR; a dependency is
//! a `crate::NAME` path outside a comment (doc links do not count: they
//! make no code depend on anything).

use super::{Checks, Usage};
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The source folders checked when none is named.
const CRATES: [&str; 4] = [
    "crates/rpma/src",
    "crates/rpma-sys/src",
    "crates/librpma/src",
    "xtask/src",
];

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let dirs: Vec<PathBuf> = if a.is_empty() {
        CRATES.iter().map(|d| super::repo_root().join(d)).collect()
    } else {
        a.iter().map(PathBuf::from).collect()
    };
    let mut c = Checks::default();
    for src in &dirs {
        println!("# {}", src.display());
        check(src, &mut c);
    }
    Ok(c)
}

/// One crate's graph.
fn check(src: &Path, c: &mut Checks) {
    let mut files = Vec::new();
    if let Err(e) = rust_files(src, Path::new(""), &mut files) {
        c.bad(format!("{}: {e}", src.display()));
        return;
    }
    // every module is a node, even one that imports nothing: "m m"
    let mut pairs = BTreeSet::new();
    for f in &files {
        let first = f.components().next().expect("a file under SRC_DIR");
        let name = first.as_os_str().to_string_lossy();
        let module = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        if module == "lib" {
            continue;
        }
        let text = match fs::read_to_string(src.join(f)) {
            Ok(t) => t,
            Err(e) => {
                c.bad(format!("{}: {e}", src.join(f).display()));
                continue;
            }
        };
        for dep in crate_paths(&text) {
            pairs.insert((module.clone(), dep));
        }
        pairs.insert((module.clone(), module));
    }
    if files.is_empty() {
        c.bad(format!("no .rs file under {}", src.display()));
    }
    for (m, d) in pairs.iter().filter(|(m, d)| m != d) {
        println!("{m} {d}");
    }
    let input: String = pairs.iter().map(|(m, d)| format!("{m} {d}\n")).collect();
    match tsort(&input) {
        Ok(()) => {
            let modules: BTreeSet<&String> = pairs.iter().map(|(m, _)| m).collect();
            eprintln!(
                "{}: no import cycle among {} modules",
                src.display(),
                modules.len()
            );
        }
        Err(e) => c.bad(format!("import cycle in {}:\n{e}", src.display())),
    }
}

/// The .rs files under `dir`, relative to the source folder.
fn rust_files(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in fs::read_dir(base.join(dir))? {
        let e = e?;
        let rel = dir.join(e.file_name());
        if e.file_type()?.is_dir() {
            rust_files(base, &rel, out)?;
        } else if rel.extension().is_some_and(|x| x == "rs") {
            out.push(rel);
        }
    }
    Ok(())
}

/// The NAME of every `crate::NAME` outside a // comment.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    for line in text.lines() {
        let code = line.split_once("//").map_or(line, |(code, _)| code);
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let first_ok = rest.starts_with(|ch: char| ch.is_ascii_lowercase() || ch == '_');
            let len = rest
                .find(|ch: char| !(ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'))
                .unwrap_or(rest.len());
            if first_ok {
                deps.insert(rest[..len].to_string());
            }
        }
    }
    deps
}

/// tsort over the pairs: its complaint when they have a cycle.
fn tsort(pairs: &str) -> Result<(), String> {
    let mut child = Command::new("tsort")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("tsort: {e}"))?;
    let fed = child
        .stdin
        .take()
        .map(|mut i| i.write_all(pairs.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("tsort: {e}"))?;
    if let Some(Err(e)) = fed {
        return Err(format!("tsort: {e}"));
    }
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim_end().to_string())
    }
}
