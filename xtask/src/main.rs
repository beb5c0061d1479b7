//! `cargo xtask`: the project's test runner over tests.toml.

mod bench;
mod check;
mod demo;
mod fuzz;
mod guest;
mod inside;
mod junit;
mod list;
mod mutants;
mod net;
mod outcome;
mod pkg;
mod procfs;
mod run;
mod text;

use list::{Stack, Test};
use std::path::PathBuf;
use std::process::{Command, ExitCode};

const USAGE: &str = "usage:
  cargo xtask list [FILTER...] [--stack S,...] [--suite NAME] [--lib L] [-v]
  cargo xtask test [FILTER...] [--stack S,...] [--suite NAME] [--lib L] [--no-build] [-j N]
  cargo xtask check NAME [ARGS...]   a host check (elf, header, docs, function-table, install,
                                     module-deps, package, deb, deb-install, arch): `check` alone lists them
  cargo xtask demo                   the library at work (`make demo`)
  cargo xtask pkg NAME [ARGS...]     Debian's package builds and tests: `pkg` alone lists them
  cargo xtask mutants                which device tests catch three planted faults
  cargo xtask fuzz [SECONDS [TARGET...]]
                                     every fuzz target for SECONDS (600) each
  cargo xtask net BUILD-DIR CASE [ARG...]
                                     a two-host case (softroce/rxe-pair): `net` alone lists them
  cargo xtask net-figures BUILD-DIR WHAT RUNS [LIMIT]
                                     RELIABILITY.md's lost-peer tables
  cargo xtask inside suite|diff|sweep ARGS...
                                     what runs inside a guest (the runner starts it):
                                     `inside` alone says more
  cargo xtask bench limit|run|instructions|rotate|build [OPTIONS]
                                     the benchmark on SoftRoCE (BENCHMARKS.md):
                                     `bench COMMAND --help` says what each measures

FILTER    a test name's part, or a glob with * (any of them)
--stack   host, bookworm, trixie, bookworm-siw, trixie-siw, rxe, siw, all
          (alone, every suite's tests there)
--suite   check (the default), siw, arch, sweep, debian, bench, all
--lib     ours, ref, rust, fault: the tests that run that library
--no-build  run what is built (cargo xtask test builds what is needed first)
-v        list each test on each stack with its command
-j N      jobs at once (default 2: a guest takes most of one of the two cores)

Logs go to build/xtask/STACK/NAME.log, the JUnit XML to build/xtask/junit.xml.";

struct Args {
    test: bool,
    filters: Vec<String>,
    stacks: Option<Vec<Stack>>,
    suite: Option<String>,
    lib: Option<String>,
    build: bool,
    jobs: usize,
    verbose: bool,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let test = match it.next().as_deref() {
        Some("list") => false,
        Some("test") => true,
        _ => return Err(USAGE.into()),
    };
    let mut a = Args {
        test,
        filters: Vec::new(),
        stacks: None,
        suite: None,
        lib: None,
        build: true,
        jobs: 2,
        verbose: false,
    };
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--stack" => {
                let mut v = Vec::new();
                for s in value()?.split(',') {
                    v.extend(Stack::parse(s)?);
                }
                a.stacks = Some(v);
            }
            "--suite" => a.suite = Some(value()?),
            "--lib" => a.lib = Some(value()?),
            "--no-build" => a.build = false,
            "-v" | "--verbose" => a.verbose = true,
            "-j" => a.jobs = value()?.parse().map_err(|_| format!("-j N\n{USAGE}"))?,
            "-h" | "--help" => return Err(USAGE.into()),
            f if !f.starts_with('-') => a.filters.push(f.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(a)
}

/// A glob (`*` for any run of characters) or, without `*`, a substring.
fn matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return name.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

fn select(all: Vec<Test>, a: &Args) -> Vec<Test> {
    all.into_iter()
        // without --suite, --stack alone selects every suite's tests on those stacks
        .filter(|t| match a.suite.as_deref() {
            Some("all") => true,
            Some(s) => t.suite == s,
            None => a.stacks.is_some() || t.suite == "check",
        })
        .filter(|t| a.stacks.as_ref().is_none_or(|s| s.contains(&t.stack)))
        .filter(|t| a.filters.is_empty() || a.filters.iter().any(|f| matches(f, &t.name)))
        .filter(|t| a.lib.as_deref().is_none_or(|l| t.libs.contains(&l)))
        .collect()
}

/// The sample seed: RPMA_SAMPLE_SEED, else the commit's short hash as a
/// number, so that successive commits sample different parts.
fn seed(root: &std::path::Path) -> u64 {
    if let Some(s) = std::env::var("RPMA_SAMPLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return s;
    }
    Command::new("git")
        .args(["rev-parse", "--short=7", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| u64::from_str_radix(String::from_utf8_lossy(&o.stdout).trim(), 16).ok())
        .unwrap_or(0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tree = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tree = tree.parent().unwrap();
    match args.first().map(String::as_str) {
        Some("check") => return check::main(&args[1..]),
        Some("bench") => return bench::main(args[1..].to_vec()),
        Some("demo") => return demo::main(tree),
        Some("fuzz") => return fuzz::main(tree, &args[1..]),
        Some("inside") => return inside::main(&args[1..]),
        Some("mutants") => return mutants::main(tree),
        Some("net") => return net::main(tree, &args[1..]),
        Some("pkg") => return pkg::main(tree, &args[1..]),
        Some("net-figures") => return net::figures(tree, &args[1..]),
        _ => {}
    }
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let root = tree.to_path_buf();
    let tests = match list::load(&root, seed(&root)) {
        Ok(t) => select(t, &a),
        Err(e) => {
            eprintln!("tests.toml: {e}");
            return ExitCode::from(2);
        }
    };
    if !a.test && a.verbose {
        let paths = outcome::Paths {
            out: root.join("build/xtask"),
            root,
        };
        let lines = tests.iter().map(|t| {
            format!(
                "{} {}: {}",
                t.stack,
                t.name,
                paths.expand(&t.cmd, t.stack, None)
            )
        });
        return emit(lines);
    }
    if !a.test {
        let lines = list_lines(&tests);
        // on stderr, so the listing itself stays one test a line
        eprintln!(
            "{} tests, {} runs (a test runs once on each stack it names)",
            lines.len(),
            tests.len()
        );
        return emit(lines);
    }
    if tests.is_empty() {
        eprintln!("no test matches");
        return ExitCode::from(2);
    }
    // what the selected tests need built (tests.toml's `build`, and the
    // Debian 13 root for a guest of that stack); what only later tests
    // need is built beside the first guest (run::LATER)
    let mut later: Vec<String> = Vec::new();
    if a.build {
        let mut targets: Vec<&str> = Vec::new();
        for t in &tests {
            for target in run::needs(t) {
                if !targets.contains(&target) {
                    targets.push(target);
                }
            }
        }
        if tests
            .iter()
            .any(|t| matches!(t.stack, Stack::Bookworm | Stack::BookwormSiw))
        {
            later = run::LATER
                .iter()
                .filter(|l| targets.contains(l))
                .map(|l| l.to_string())
                .collect();
            targets.retain(|t| !run::LATER.contains(t));
        }
        if !targets.is_empty() {
            eprintln!("xtask: make {}", targets.join(" "));
            let build_start = std::time::Instant::now();
            let ok = Command::new("make")
                .arg("--no-print-directory")
                .args(&targets)
                .current_dir(&root)
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                eprintln!("xtask: the build failed");
                return ExitCode::FAILURE;
            }
            eprintln!(
                "xtask: built in {:.0} s",
                build_start.elapsed().as_secs_f64()
            );
        }
    }
    let paths = outcome::Paths {
        out: root.join("build/xtask"),
        root,
    };
    eprintln!("xtask: {} tests", tests.len());
    if run::run(tests, &paths, a.jobs, later) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// One line per test: its name, the stacks it runs on, its suite when not
/// `check`, and the man page it mirrors.
fn list_lines(tests: &[Test]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for t in tests {
        if !names.contains(&t.name.as_str()) {
            names.push(&t.name);
        }
    }
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut lines = Vec::new();
    for n in names {
        let mine: Vec<&Test> = tests.iter().filter(|t| t.name == n).collect();
        let stacks: Vec<&str> = mine.iter().map(|t| t.stack.name()).collect();
        let suite = if mine[0].suite == "check" {
            String::new()
        } else {
            format!(" [suite {}]", mine[0].suite)
        };
        let page = mine[0]
            .page
            .as_deref()
            .map(|p| format!("  {p}"))
            .unwrap_or_default();
        lines.push(format!("{n:<width$}  {}{suite}{page}", stacks.join(" ")));
    }
    lines
}

/// Prints a listing. A reader that stops early (`| head`) is not an error,
/// so a closed pipe ends the listing quietly instead of panicking in
/// `println!`.
fn emit(lines: impl IntoIterator<Item = String>) -> ExitCode {
    use std::io::{ErrorKind, Write};
    let mut out = std::io::stdout().lock();
    for line in lines {
        match writeln!(out, "{line}") {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("xtask: stdout: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    match out.flush() {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            eprintln!("xtask: stdout: {e}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}
