//! `bench run`: throughput and latency of our librpma against Debian's C
//! librpma, side by side in one boot of the guest.

use super::build::{build, stack_headers, Tree};
use super::guest::Ctx;
use super::proc::{command, last_line, read, timeout};
use super::servers::{libs, Pin, Servers};
use super::{count, host, rows, Opts};
use std::fs;
use std::process::Stdio;
use std::time::Instant;

pub const HELP: &str = "\
cargo xtask bench run [--rounds R] [--secs S] [--cases REGEX] [--rows REGEX] [--out FILE] [--aa]

Throughput and latency of our librpma against Debian's C librpma, side by
side on SoftRoCE. Builds bench/rpma-bench.c (into $BENCH_BUILD_DIR, default
build/bench), boots the rxe guest once (softroce/rxe-run), which serves each
library from its own server (ours on ports 7471/7472, C on 7481/7482, each
checked in /proc/PID/maps to run on the library asked for) and runs every
case/size/qd R times per library (-t S seconds each; C first on odd
rounds), each client against its own library's server. The RESULT lines
(lib=ours|c, round=N, ending with empty_polls= and wall_s=, the client's
whole run) are saved to FILE (default $BENCH_BUILD_DIR/results.txt) and
summarised by bench/report.py perf:
  case | size | qd | C ops/s | ours ops/s | ours/C | C p50/p99 us | ours p50/p99 us
(medians over the rounds; ours/C is the median of the per-round ratios).
The conn case's PHASES lines (the time of each step of a cycle) are saved
too, and summarised by bench/report.py phases.
--cases REGEX (grep -E) selects case names: read write atomic_write flush
pingpong write_imm srq conn mr, and write_wait pingpong_wait (size 8, QD 1
and 16: the client sleeps in rpma_cq_wait); --rows REGEX selects rows by
\"case size qd\" (e.g. 'write 65536 1$'). Defaults: 5 rounds of 1 s (about
15 minutes in the TCG guest).
--aa measures the benchmark's own noise: a copy of our library stands in
for the C one (rows \"C\" are then ours too), so every ratio away from 1.00
is the guest's timing, not a difference between libraries.
Knobs of the guest side (RPMA_* variables reach the guest through rxe-run):
  RPMA_BENCH_OURS, RPMA_BENCH_C   the two librpma.so.0 files
  RPMA_BENCH_WARMUP_MS    warm-up: 100 ops or this many ms (default 250)
  RPMA_BENCH_SERVER_POLL  busy (default) or wait: how the servers wait for
                          completions (see rpma-bench.c)
  RPMA_BENCH_SERVER       ours or c: the clients of both libraries talk to
                          that library's server, so a row compares the
                          clients alone
  RPMA_BENCH_CLIENT       ours or c: both libraries' servers are measured
                          with that library's client, so a row compares
                          the servers alone (the row's \"lib\" is the server's)
  RPMA_BENCH_PIN=0        no CPU pinning (default: servers on CPU 1,
                          clients on CPU 0)
  RXE_ALL_PROVIDERS=1     keep every libibverbs provider (default: rxe-run
                          leaves only rxe's)";

pub fn host(args: &[String]) -> Result<u8, String> {
    let t = Tree::new();
    let (mut rounds, mut secs) = (5, 1);
    let (mut cases, mut regex, mut out, mut aa) = (".".to_string(), ".".to_string(), None, false);
    let mut o = Opts::new(args);
    while let Some(name) = o.next() {
        match name {
            "--rounds" => rounds = count("--rounds", &o.value(name)?, 1)?,
            "--secs" => secs = count("--secs", &o.value(name)?, 1)?,
            "--cases" => cases = o.value(name)?,
            "--rows" => regex = o.value(name)?,
            "--out" => out = Some(o.value(name)?),
            "--aa" => aa = true,
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    if let Some(p) = o.positional.first() {
        return Err(format!("unknown argument {p}"));
    }
    let sel = rows::select(rows::perf(), &cases, rows::case)?;
    let sel = rows::select(sel, &regex, rows::whole)?;
    if sel.is_empty() {
        return Err(format!("no case matches '{cases}' and '{regex}'"));
    }
    fs::create_dir_all(&t.build).map_err(|e| format!("{}: {e}", t.build.display()))?;
    let out = out.map_or_else(|| t.build.join("results.txt"), Into::into);
    build(&t, stack_headers(&t, false)?.as_deref())?;
    let mut env = Vec::new();
    if aa {
        // a file of its own, so each server still maps the path it was given
        let dir = t.build.join("aa");
        let copy = dir.join("librpma.so.0");
        fs::create_dir_all(&dir)
            .and_then(|_| fs::copy(t.root.join("build/lib/librpma.so.0"), &copy))
            .map_err(|e| format!("{}: {e}", copy.display()))?;
        println!(
            "bench run --aa: the C side is a copy of ours, {}",
            copy.display()
        );
        env.push(("RPMA_BENCH_C", copy.to_string_lossy().into_owned()));
    }
    let start = Instant::now();
    let log = t.build.join("run.log");
    let guest_args = [
        "run".to_string(),
        t.bin().to_string_lossy().into_owned(),
        rounds.to_string(),
        secs.to_string(),
        sel.join(","),
    ];
    let rc = host::boot(&t, &guest_args, &log, 3600, &env)?;
    let elapsed = host::secs_since(start);
    // the conn case's PHASES lines too: bench/report.py phases reads them
    let kept = host::extract(&log, &["RESULT", "FAIL", "PHASES"], &out)?;
    let n = |w: &str| kept.iter().filter(|l| l.starts_with(w)).count();
    println!();
    println!(
        "raw results: {} ({} runs, {} failed); the guest ran {elapsed} s (exit status {rc})",
        out.display(),
        n("RESULT "),
        n("FAIL ")
    );
    println!();
    let out = out.to_string_lossy();
    let mut report = host::report(&t, "report.py", &["perf", &out]);
    if report == 0 && n("PHASES ") > 0 {
        println!();
        report = host::report(&t, "report.py", &["phases", &out]);
    }
    let status = if report != 0 { report } else { rc };
    Ok(status as u8)
}

/// The guest side: each row on both libraries in every round, C first on
/// odd rounds and ours first on even ones.
pub fn guest(ctx: &Ctx, rounds: u64, secs: u64, sel: &[String]) -> Result<u8, String> {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let (server_of, client_of) = (var("RPMA_BENCH_SERVER"), var("RPMA_BENCH_CLIENT"));
    let mixed = match (server_of.as_str(), client_of.as_str()) {
        ("", "") => false,
        ("ours" | "c", "") | ("", "ours" | "c") => true,
        _ => {
            println!("guest: RPMA_BENCH_SERVER or RPMA_BENCH_CLIENT (not both) must be ours or c");
            return Ok(2);
        }
    };
    let warmup = std::env::var("RPMA_BENCH_WARMUP_MS").unwrap_or_else(|_| "250".into());
    let poll = std::env::var("RPMA_BENCH_SERVER_POLL").unwrap_or_else(|_| "busy".into());
    let pin = Pin::new();
    let env = [("BENCH_SERVER_POLL", poll)];
    let Ok(mut servers) = Servers::start(
        "guest",
        &ctx.bin,
        &ctx.ip,
        &ctx.tmp,
        libs(&ctx.root),
        &pin,
        &env,
    ) else {
        return Ok(1);
    };
    let all = servers.libs.clone();
    let lib = |name: &str| all.iter().find(|l| l.name == name).unwrap().clone();
    let mut fails = 0;
    for round in 1..=rounds {
        let order = if round % 2 == 1 {
            ["c", "ours"]
        } else {
            ["ours", "c"]
        };
        println!(
            "guest: round {round} of {rounds} ({} cases, {}) at {} s",
            sel.len(),
            order.join(" "),
            ctx.secs()
        );
        for m in sel {
            let w: Vec<&str> = m.split(' ').collect();
            let (c, s, q) = (w[0], w[1], w[2]);
            // CASE_wait: CASE with a client that sleeps in rpma_cq_wait
            let (bc, wait_mode) = match c.strip_suffix("_wait") {
                Some(b) => (b, "wait"),
                None => (c, "busy"),
            };
            for l in order {
                let cl = lib(if client_of.is_empty() { l } else { &client_of });
                let sv = lib(if server_of.is_empty() { l } else { &server_of });
                let (out, err) = (ctx.tmp.join("out"), ctx.tmp.join("err"));
                let t0 = Instant::now();
                let mut pre = timeout(secs + 120, true);
                pre.extend(pin.client.iter().cloned());
                let mut cmd = command(&pre, &ctx.bin.to_string_lossy());
                cl.env(&mut cmd);
                if mixed {
                    cmd.env("BENCH_ALLOW_MIXED", "1");
                }
                let rc = cmd
                    .env("BENCH_WARMUP_MS", &warmup)
                    .env("BENCH_CLIENT_WAIT", wait_mode)
                    .args([
                        "client",
                        &ctx.ip,
                        &sv.port.to_string(),
                        bc,
                        s,
                        q,
                        "-t",
                        &secs.to_string(),
                    ])
                    .stdin(Stdio::null())
                    .stdout(fs::File::create(&out).expect("the client's output file"))
                    .stderr(fs::File::create(&err).expect("the client's error file"))
                    .status()
                    .map_or(-1, super::proc::code);
                let wall = t0.elapsed().as_micros();
                let (text, etext) = (read(&out), read(&err));
                let mut stats = "";
                for x in etext.lines() {
                    if let Some(rest) = x.strip_prefix("STATS ") {
                        stats = rest.split(' ').next().unwrap_or("");
                    } else if let Some(rest) = x.strip_prefix("PHASES ") {
                        println!("PHASES lib={l} round={round} {rest}");
                    }
                }
                match last_line(&text, "RESULT ").filter(|_| rc == 0) {
                    Some(line) => {
                        // the row's own name, so the report keeps busy and
                        // event-driven apart
                        let line =
                            line.replacen(&format!(" case={bc} "), &format!(" case={c} "), 1);
                        println!(
                            "RESULT lib={l} round={round} {} {stats} wall_s={}.{:02}",
                            &line["RESULT ".len()..],
                            wall / 1_000_000,
                            wall % 1_000_000 / 10_000
                        );
                    }
                    None => {
                        fails += 1;
                        println!("FAIL lib={l} round={round} case={c} size={s} qd={q} rc={rc}");
                        for x in crate::text::last_lines(&etext, 5) {
                            println!("  | {x}");
                        }
                    }
                }
                if servers.check().is_err() {
                    return Ok(1);
                }
            }
        }
    }
    servers.stop();
    println!("guest: done in {} s, {fails} failed runs", ctx.secs());
    Ok(u8::from(fails > 0))
}
