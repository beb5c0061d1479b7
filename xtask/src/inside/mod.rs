//! `xtask inside ...`: what runs inside a SoftRoCE guest (softroce/rxe-run)
//! or a cross chroot, started by the runner through this same executable:
//! a process per test instead of a shell script's dozens, which the
//! emulated guests pay for at about 50 ms each.
//!
//! - `suite MANIFEST`: a guest's share of `cargo xtask test`, in two lanes;
//! - `diff BIN OURS-DIR REF-DIR`: one C test program against both libraries;
//! - `sweep PAIR SIDE [ARG...]`: the fault-injection sweep of an example pair.

mod diff;
mod suite;
mod sweep;

use std::process::ExitCode;

const USAGE: &str = "usage (inside a guest; the runner starts these):
  xtask inside suite MANIFEST             a guest's tests, NAME LIMIT FLAGS COMMAND a line
  xtask inside diff BIN OURS-DIR REF-DIR  a C test program against ours and the reference
  xtask inside sweep PAIR SIDE [ARG...]   the fault-injection sweep of an example pair";

pub fn main(args: &[String]) -> ExitCode {
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let code = match (args.first().map(String::as_str), rest.as_slice()) {
        (Some("suite"), [manifest]) => suite::run(manifest),
        (Some("diff"), [bin, ours, reference]) => diff::run(bin, ours, reference),
        (Some("sweep"), [pair, side, more @ ..]) => sweep::run(pair, side, more),
        _ => {
            eprintln!("{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}

/// An environment variable's value, when set and not empty.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
