//! `cargo xtask fuzz [SECONDS [TARGET...]]`: builds every fuzz target of
//! fuzz/ (cargo-fuzz) and runs each for SECONDS (default 600), one after
//! the other, then prints per target its executions, its coverage and
//! whether it crashed. tests.toml's fuzz.short runs it for 10 s a target.
//!
//! The targets are built as cargo fuzz builds them (optimised, debug
//! assertions, overflow checks) with AddressSanitizer. A stable toolchain
//! takes cargo fuzz's nightly flags through RUSTC_BOOTSTRAP=1. rustup's
//! toolchains carry the sanitizer runtime in their sysroot; Debian's rustc
//! does not, so there it links compiler-rt's from libclang-rt-NN-dev, NN
//! being the LLVM major version rustc was built with (the two must agree).
//! Without that package it builds with `--sanitizer none`: still guided by
//! coverage, but with no memory checks or leak detection. Its first line
//! says which.
//!
//! Each target reads the committed seeds in fuzz/corpus/TARGET and keeps
//! what it finds in fuzz/target/corpus/TARGET (not committed). A crash, a
//! failed invariant, a leak or a 10 s input writes the input to
//! fuzz/artifacts/TARGET; rerun one with
//! `fuzz/target/HOST/release/TARGET fuzz/artifacts/TARGET/FILE`.

use crate::check::stdout_of;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

const USAGE: &str = "usage: cargo xtask fuzz [SECONDS [TARGET...]]   (default 600 s, every target)";

/// The value of `KEY: value` in `rustc -vV`.
fn rustc_field(vv: &str, key: &str) -> String {
    vv.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|v| v.trim().to_string())
        .unwrap_or_default()
}

/// Files in `dir`'s subfolders (one level) whose path relative to the
/// subfolder is `rel`, for the version folders of clang's runtimes.
fn in_subdirs(dir: &Path, rel: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join(rel))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The AddressSanitizer runtime of compiler-rt for LLVM `llvm`, when the
/// sysroot has none.
fn clang_asan(llvm: &str, arch: &str) -> Option<PathBuf> {
    let clang = PathBuf::from(format!("/usr/lib/llvm-{llvm}/lib/clang"));
    let named = in_subdirs(&clang, &format!("lib/linux/libclang_rt.asan-{arch}.a"));
    let by_triple = fs::read_dir(&clang)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|v| {
            fs::read_dir(v.path().join("lib"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .filter(|d| {
            let name = d.file_name().to_string_lossy().into_owned();
            name.starts_with(&format!("{arch}-")) && name.ends_with("-linux-gnu")
        })
        .map(|d| d.path().join("libclang_rt.asan.a"))
        .filter(|p| p.is_file());
    named.into_iter().chain(by_triple).next()
}

/// The lines of a libFuzzer log that the summary takes its figures from.
struct Stats {
    execs: String,
    coverage: String,
    artifact: Option<String>,
}

fn stats(log: &str) -> Stats {
    let execs = log
        .lines()
        .filter_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .next_back()
        .map(|v| v.trim().to_string())
        .or_else(|| {
            log.lines()
                .filter_map(|l| l.strip_prefix('#'))
                .filter_map(|l| l.split_whitespace().next())
                .rfind(|n| n.chars().all(|c| c.is_ascii_digit()))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "0".into());
    // "#N  DONE   cov: C ft: F corp: K/SIZE ..." and the like
    let coverage = log
        .lines()
        .filter(|l| {
            l.starts_with('#')
                && ["DONE", "pulse", "NEW", "REDUCE", "INITED"]
                    .iter()
                    .any(|w| l.split_whitespace().nth(1) == Some(w))
        })
        .filter_map(|l| {
            let at = l.find("cov: ")?;
            let words: Vec<&str> = l[at..].split_whitespace().take(6).collect();
            (words.len() == 6).then(|| words.join(" "))
        })
        .next_back()
        .unwrap_or_else(|| "no coverage line".into());
    let artifact = log
        .lines()
        .filter_map(|l| {
            l.split_once("Test unit written to ")
                .map(|x| x.1.to_string())
        })
        .next_back();
    Stats {
        execs,
        coverage,
        artifact,
    }
}

pub fn main(root: &Path, args: &[String]) -> ExitCode {
    let secs: u64 = match args.first().map(|s| s.parse()) {
        None => 600,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let dir = root.join("fuzz");
    let target_dir = dir.join("target");
    let cargo = |args: &[&str]| {
        let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        c.args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target_dir)
            .env("RUSTC_BOOTSTRAP", "1");
        c
    };
    if stdout_of(&mut cargo(&["fuzz", "--version"])).is_err() {
        eprintln!("cargo-fuzz is missing: cargo install cargo-fuzz (scripts/setup.sh check)");
        return ExitCode::from(2);
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let vv = stdout_of(Command::new(&rustc).arg("-vV")).unwrap_or_default();
    let host = rustc_field(&vv, "host:");
    let arch = host.split('-').next().unwrap_or_default().to_string();
    let sysroot = stdout_of(Command::new(&rustc).args(["--print", "sysroot"])).unwrap_or_default();
    let rustlib = PathBuf::from(sysroot.trim()).join(format!("lib/rustlib/{host}/lib"));
    let has_own = fs::read_dir(&rustlib)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("librustc-") && n.ends_with("_rt.asan.a")
        });
    let mut build = cargo(&["fuzz", "build"]);
    if has_own {
        eprintln!("fuzz: AddressSanitizer on, runtime from rustc's sysroot");
    } else {
        let llvm = rustc_field(&vv, "LLVM version:");
        let llvm = llvm.split('.').next().unwrap_or_default();
        if let Some(rt) = clang_asan(llvm, &arch) {
            eprintln!(
                "fuzz: AddressSanitizer on, runtime from {} (rustc's sysroot has none)",
                rt.display()
            );
            // -Zexternal-clangrt keeps rustc from linking its own (missing)
            // runtime. Linked first, where rustc would put its own: placed
            // last (-Clink-arg), after the libraries, GNU ld 2.40 rejects
            // its TLS relocations (R_X86_64_TLSLD to R_X86_64_TPOFF32).
            let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
            if !flags.is_empty() {
                flags.push(' ');
            }
            flags += &format!(
                "-Zexternal-clangrt -Zpre-link-arg=-Wl,--whole-archive -Zpre-link-arg={} -Zpre-link-arg=-Wl,--no-whole-archive",
                rt.display()
            );
            build.env("RUSTFLAGS", flags);
        } else {
            eprintln!(
                "fuzz: AddressSanitizer off (rustc's sysroot has no runtime and libclang-rt-{llvm}-dev is not installed): no memory checks, no leak detection"
            );
            build.args(["--sanitizer", "none"]);
        }
    }
    if !build.status().is_ok_and(|s| s.success()) {
        return ExitCode::from(2);
    }
    let targets: Vec<String> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        stdout_of(&mut cargo(&["fuzz", "list"]))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let bin = target_dir.join(&host).join("release");
    let logs = target_dir.join("fuzz-logs");
    let mut failed = false;
    let mut summary = Vec::new();
    for t in &targets {
        let work = target_dir.join("corpus").join(t);
        let seeds = dir.join("corpus").join(t);
        let artifacts = dir.join("artifacts").join(t);
        for d in [&work, &seeds, &artifacts, &logs] {
            let _ = fs::create_dir_all(d);
        }
        eprintln!("== {t}: {secs} s");
        let log_path = logs.join(format!("{t}.log"));
        let rc = fs::File::create(&log_path).ok().and_then(|f| {
            let err = f.try_clone().ok()?;
            Command::new(bin.join(t))
                .arg(&work)
                .arg(&seeds)
                .arg(format!("-max_total_time={secs}"))
                .args(["-timeout=10", "-rss_limit_mb=4096", "-print_final_stats=1"])
                .arg(format!("-artifact_prefix={}/", artifacts.display()))
                .current_dir(&dir)
                .stdin(Stdio::null())
                .stdout(f)
                .stderr(err)
                .status()
                .ok()
        });
        let rc = rc.and_then(|s| s.code()).unwrap_or(-1);
        let s = stats(&fs::read_to_string(&log_path).unwrap_or_default());
        let verdict = match (&s.artifact, rc) {
            (None, 0) => "no crash".to_string(),
            (a, _) => {
                failed = true;
                format!(
                    "CRASHED (exit {rc}) input: {}",
                    a.as_deref().unwrap_or("see log")
                )
            }
        };
        summary.push(format!(
            "{t}: {} executions, {}; {verdict}",
            s.execs, s.coverage
        ));
    }
    println!(
        "\nfuzz summary ({secs} s per target; logs in {}):",
        logs.display()
    );
    for line in &summary {
        println!("  {line}");
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
