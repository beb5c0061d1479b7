//! `cargo xtask mutants`: plants three faults in the library, one at a
//! time, and shows which device tests catch each: a wrong wr_id for every
//! connection operation, a dropped check of the flags argument (0
//! accepted), and the immediate data left in host byte order. For each it
//! patches the source, runs the data-path tests and the immediate-data
//! examples on Debian 12's stack (`cargo xtask test`, which rebuilds the
//! library), prints each test's line and restores the source. At the end
//! the library is built from the clean tree again.
//!
//! It needs crates/ without uncommitted changes: the restore is `git
//! checkout -- crates`.

use std::fs;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

const TESTS: [&str; 8] = [
    "live.rpma_write",
    "live.rpma_read",
    "live.rpma_recv",
    "live.rpma_flush",
    "live.rpma_send_with_imm",
    "live.rpma_write_with_imm",
    "example.send-with-imm.server-ours.client-ours",
    "example.write-with-imm.server-ours.client-ours",
];

/// name, file, the text replaced, its replacement
const MUTANTS: [(&str, &str, &str, &str); 3] = [
    (
        "wr_id",
        "crates/librpma/src/conn.rs",
        "\n    op_context as usize as u64\n",
        "\n    (op_context as usize as u64) ^ 8\n",
    ),
    (
        "flags",
        "crates/librpma/src/conn.rs",
        "fn completion(flags: c_int) -> Result<Completion> {\n    match flags {\n        0 => Err(Error::Inval),",
        "fn completion(flags: c_int) -> Result<Completion> {\n    match flags {\n        0 => Ok(Completion::OnError),",
    ),
    (
        "imm",
        "crates/rpma/src/post.rs",
        "self.imm_data = imm.to_be();",
        "self.imm_data = imm;",
    ),
];

fn git(root: &Path, args: &[&str]) -> String {
    Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

pub fn main(root: &Path) -> ExitCode {
    if !git(root, &["status", "--porcelain", "crates"]).is_empty() {
        eprintln!("mutants: crates/ has uncommitted changes; commit or stash them first");
        return ExitCode::from(2);
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| "xtask".into());
    for (name, file, from, to) in MUTANTS {
        println!("=== mutant {name}");
        let path = root.join(file);
        let src = fs::read_to_string(&path).unwrap_or_default();
        if !src.contains(from) {
            println!(
                "  the mutant no longer applies (the source changed): update xtask/src/mutants.rs"
            );
            continue;
        }
        if fs::write(&path, src.replacen(from, to, 1)).is_err() {
            println!("  cannot write {file}");
            continue;
        }
        for l in git(root, &["diff", "-U0", "crates"]).lines() {
            if l.starts_with("- ") || l.starts_with("+ ") {
                println!("{l}");
            }
        }
        let log = root.join(format!("build/mutant-{name}.log"));
        let out = fs::File::create(&log).ok().and_then(|f| {
            let err = f.try_clone().ok()?;
            Command::new(&exe)
                .args(["test", "--stack", "bookworm"])
                .args(TESTS)
                .current_dir(root)
                .stdin(Stdio::null())
                .stdout(f)
                .stderr(err)
                .status()
                .ok()
        });
        if out.is_none() {
            println!("  could not run the tests");
        }
        for l in fs::read_to_string(&log).unwrap_or_default().lines() {
            if l.starts_with('[') && l.contains('/') || l.contains("the build failed") {
                println!("  {l}");
            }
        }
        git(root, &["checkout", "--", "crates"]);
    }
    let rebuilt = Command::new("make")
        .arg("lib")
        .current_dir(root)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    println!(
        "mutants: the library {} from the clean tree again",
        if rebuilt {
            "is built"
        } else {
            "FAILED to build"
        }
    );
    ExitCode::SUCCESS
}
