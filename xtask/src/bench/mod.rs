//! `cargo xtask bench`: our librpma against Debian's C librpma and raw
//! verbs on SoftRoCE. The host side builds the benchmark programs
//! (bench/rpma-bench.c, bench/verbs-bench.c) and boots one guest, in which
//! this same binary runs the contenders (`bench guest ...`, hidden); the
//! guest's lines are kept in a raw file that bench/report.py and
//! bench/limit_report.py read.

mod build;
mod guest;
mod host;
mod instr;
mod limit;
mod perf;
mod perftest;
mod proc;
mod rotate;
mod rows;
mod servers;

use std::process::ExitCode;

pub const USAGE: &str = "\
usage:
  cargo xtask bench limit [--rounds R] [--secs S] [--rows REGEX] [--out FILE] [--plots DIR]
  cargo xtask bench run [--rounds R] [--secs S] [--cases REGEX] [--rows REGEX] [--out FILE] [--aa]
  cargo xtask bench instructions [--n1 N1] [--n2 N2] [--cases REGEX] [--out FILE]
  cargo xtask bench rotate [--cpu] [--out FILE] ROUNDS SECS CASE SIZE QD NAME=PROGRAM[:VAR=VALUE...]...
  cargo xtask bench build
            (cargo xtask bench COMMAND --help: what it measures)";

/// `cargo xtask bench ARGS...`; an error is a message and exit status 2.
pub fn main(args: Vec<String>) -> ExitCode {
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => return usage_error("a bench command"),
    };
    if rest.iter().any(|a| a == "-h" || a == "--help") && cmd != "guest" {
        return help(cmd);
    }
    let outcome = match cmd {
        "limit" => limit::host(rest),
        "run" => perf::host(rest),
        "instructions" => instr::host(rest),
        "rotate" => rotate::host(rest),
        "build" => build::host(),
        "guest" => guest::main(rest),
        _ => return usage_error(&format!("unknown bench command {cmd:?}")),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("bench {cmd}: {e}");
            ExitCode::from(2)
        }
    }
}

fn usage_error(what: &str) -> ExitCode {
    eprintln!("{what}\n{USAGE}");
    ExitCode::from(2)
}

fn help(cmd: &str) -> ExitCode {
    let text = match cmd {
        "limit" => limit::HELP,
        "run" => perf::HELP,
        "instructions" => instr::HELP,
        "rotate" => rotate::HELP,
        "build" => build::HELP,
        _ => return usage_error(&format!("unknown bench command {cmd:?}")),
    };
    println!("{}", text.trim_end());
    ExitCode::SUCCESS
}

/// Options `--NAME VALUE` and flags `--NAME` of a host command, in order;
/// the words without `--` are returned as they come.
pub struct Opts<'a> {
    it: std::slice::Iter<'a, String>,
    pub positional: Vec<String>,
}

impl<'a> Opts<'a> {
    pub fn new(args: &'a [String]) -> Self {
        Opts {
            it: args.iter(),
            positional: Vec::new(),
        }
    }

    /// The next option's name, its positional words kept aside.
    pub fn next(&mut self) -> Option<&'a str> {
        for a in self.it.by_ref() {
            if a.starts_with("--") {
                return Some(a);
            }
            self.positional.push(a.clone());
        }
        None
    }

    pub fn value(&mut self, name: &str) -> Result<String, String> {
        self.it
            .next()
            .cloned()
            .ok_or_else(|| format!("{name} needs a value"))
    }
}

/// A count as the former scripts took it: digits, no sign, at least `min`.
pub fn count(name: &str, v: &str, min: u64) -> Result<u64, String> {
    v.parse::<u64>()
        .ok()
        .filter(|n| *n >= min && v.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("bad {name} {v:?}"))
}
