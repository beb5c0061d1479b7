//! One C test program run twice, served once by our librpma.so.0 and once
//! by the reference (Debian's C librpma), each chosen by LD_LIBRARY_PATH
//! and asserted by the program itself (RPMA_TEST_EXPECT_LIB). Both runs
//! must pass and print the same observations (stdout).
//!
//! The environment carries what tests.toml knows of the stack:
//! - RUN_DIFF_REF_FAILS (the reason): the reference is known to fail here.
//!   It must still fail (so the entry cannot go stale) and gets a minute
//!   (it may wait for a server that failed); ours must pass; the
//!   observations are not compared.
//! - RUN_DIFF_BOTH_FAIL (the reason): the transport or kernel cannot do
//!   what the test asserts. Both runs must fail the same checks (the FAIL
//!   and got lines) with the same observations.
//! - RUN_DIFF_OURS_ENV: VAR=VALUE words for our run only.
//! - RUN_DIFF_WRAP: a program that runs the binary (qemu-user for another
//!   architecture's, `cargo xtask check arch`).

use super::env;
use crate::check::TempDir;
use crate::pkg::code as status_code;
use std::path::Path;
use std::process::{Command, Stdio};

struct Side {
    rc: i32,
    out: String,
    err: String,
}

impl Side {
    fn figures(&self, tag: &str) {
        for l in self.err.lines().filter(|l| l.starts_with("FIGURE ")) {
            println!("  [{tag}] {l}");
        }
    }

    /// The checks that failed, without what differs by nature (the path
    /// of the library).
    fn fails(&self) -> Vec<&str> {
        self.err
            .lines()
            .filter(|l| {
                l.starts_with("FAIL ") || (l.starts_with(' ') && l.trim_start().starts_with("got "))
            })
            .collect()
    }

    fn summary(&self) -> &str {
        self.out.lines().last().unwrap_or("")
    }
}

fn launch(bin: &str, dir: &str, extra: &[(String, String)], bound: bool) -> Side {
    let wrap = env("RUN_DIFF_WRAP");
    let mut argv: Vec<&str> = Vec::new();
    if bound {
        argv.extend(["timeout", "-k", "5", "60"]);
    }
    argv.extend(wrap.as_deref());
    argv.push(bin);
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .envs(extra.iter().map(|(k, v)| (k, v)))
        .env("LD_LIBRARY_PATH", dir)
        .env("RPMA_TEST_EXPECT_LIB", format!("{dir}/librpma.so.0"))
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => Side {
            rc: status_code(o.status),
            out: String::from_utf8_lossy(&o.stdout).into_owned(),
            err: String::from_utf8_lossy(&o.stderr).into_owned(),
        },
        Err(e) => Side {
            rc: 127,
            out: String::new(),
            err: format!("{}: {e}\n", argv[0]),
        },
    }
}

/// `diff -u` of two texts, for a reader to see where they part.
fn show_diff(a: &str, b: &str) {
    let Ok(tmp) = TempDir::new("diff") else {
        return;
    };
    let dir = tmp.path();
    let written =
        std::fs::write(dir.join("ours"), a).and_then(|()| std::fs::write(dir.join("ref"), b));
    if written.is_ok() {
        let _ = Command::new("diff")
            .args(["-u", "--label", "ours", "--label", "C librpma"])
            .arg(dir.join("ours"))
            .arg(dir.join("ref"))
            .status();
    }
}

pub fn run(bin: &str, ours: &str, reference: &str) -> u8 {
    let name = Path::new(bin)
        .file_name()
        .map_or(bin.into(), |n| n.to_string_lossy());
    let ref_fails = env("RUN_DIFF_REF_FAILS");
    let both_fail = env("RUN_DIFF_BOTH_FAIL");
    let ours_env: Vec<(String, String)> = env("RUN_DIFF_OURS_ENV")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut ok = true;
    let o = launch(bin, ours, &ours_env, false);
    let r = launch(bin, reference, &[], ref_fails.is_some());
    for (tag, side) in [("ours", &o), ("ref", &r)] {
        if let (Some(why), "ref") = (&ref_fails, tag) {
            println!(
                "{name} [ref] exit {}, {}; known to fail here: {why}",
                side.rc,
                side.summary()
            );
            side.figures(tag);
            if side.rc == 0 {
                println!("{name}: the reference passed: its entry in the known outcomes is stale");
                ok = false;
            }
            continue;
        }
        let served = side
            .err
            .lines()
            .find_map(|l| l.strip_prefix("librpma under test: "))
            .unwrap_or("");
        println!(
            "{name} [{tag}: {served}] exit {}, {}",
            side.rc,
            side.summary()
        );
        side.figures(tag);
        if both_fail.is_some() {
            if side.rc == 0 {
                println!("{name} [{tag}] passed, but is known to fail on this transport: the entry is stale");
                ok = false;
            }
        } else if side.rc != 0 {
            ok = false;
            for l in side.err.lines() {
                println!("  | {l}");
            }
        }
    }
    if let Some(why) = &both_fail {
        println!("{name}: known to fail on this transport with both libraries: {why}");
        let (of, rf) = (o.fails(), r.fails());
        if of == rf {
            for l in of {
                println!("  | both: {l}");
            }
        } else {
            println!("{name}: the two libraries fail different checks");
            show_diff(&(of.join("\n") + "\n"), &(rf.join("\n") + "\n"));
            ok = false;
        }
    }
    if ref_fails.is_none() && o.out != r.out {
        println!("{name}: observations differ between our library and the C library:");
        show_diff(&o.out, &r.out);
        ok = false;
    }
    u8::from(!ok)
}
