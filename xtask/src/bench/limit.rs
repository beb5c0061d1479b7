//! `bench limit`: ours against the physical limit, raw verbs, and against
//! Debian's C librpma, the three in one boot of the guest.

use super::build::{build, is_trixie, stack_headers, Tree};
use super::guest::Ctx;
use super::perftest::{self, mb_s, with_rnr, Row};
use super::proc::{command, field, last_line, print_tail, read, timeout};
use super::servers::{libs, Lib, Pin, Servers};
use super::{count, host, rows, Opts};
use std::fs;
use std::path::Path;
use std::process::Stdio;

pub const HELP: &str = "\
cargo xtask bench limit [--rounds R] [--secs S] [--rows REGEX] [--out FILE] [--plots DIR]

Ours against the physical limit: raw verbs (perftest; bench/verbs-bench.c
where perftest has no such test), Debian's C librpma and ours on the same
SoftRoCE device in one boot, for write, read, send and write+flush, 64 B
to 1 MiB in powers of 4, QD 1 and 16; then of the libraries alone
the atomic write, registration, connection set-up and 1 to 64
connections. The Rust API's client (crates/rpma/benches/rpma_bench.rs,
lib=rust) runs write, read, send, flush and the atomic write against our
library's server. The contenders' order rotates from round to round
(verbs c ours rust, c ours rust verbs, ...).
The RESULT/LAT/FAIL lines go to FILE (default build/bench/limit.txt);
bench/limit_report.py prints the table (ratios to raw verbs and to C) and
writes the plots (PNG, gnuplot) to DIR (default build/bench/plots).
Defaults: 3 rounds of 2 s; --rows REGEX (grep -E) selects rows by
\"case size qd\".
RXE_STACK=trixie runs on Debian 13's stack against its C 1.3.0, with
native flush (RPMA_BENCH_FLUSH=visibility: the guest's RAM cannot take a
flush to persistence) and verbs-bench as raw verbs for write and read
(RPMA_BENCH_VERBS=verbs-bench: perftest's write and read reach less than
the libraries on that stack, so they are no limit); either can be set
otherwise there. RPMA_BENCH_OURS and RPMA_BENCH_C name other librpma.so.0
files; RPMA_BENCH_PIN=0 leaves the processes unpinned (default: servers on
CPU 1, clients on CPU 0).";

pub fn host(args: &[String]) -> Result<u8, String> {
    let t = Tree::new();
    let (mut rounds, mut secs, mut regex) = (3, 2, ".".to_string());
    let (mut out, mut plots) = (None, None);
    let mut o = Opts::new(args);
    while let Some(name) = o.next() {
        match name {
            "--rounds" => rounds = count("--rounds", &o.value(name)?, 1)?,
            "--secs" => secs = count("--secs", &o.value(name)?, 1)?,
            "--rows" => regex = o.value(name)?,
            "--out" => out = Some(o.value(name)?),
            "--plots" => plots = Some(o.value(name)?),
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    if let Some(p) = o.positional.first() {
        return Err(format!("unknown argument {p}"));
    }
    let sel = rows::select(rows::limit(), &regex, rows::whole)?;
    if sel.is_empty() {
        return Err(format!("no row matches '{regex}'"));
    }
    host::setup(&t, "bench")?;
    fs::create_dir_all(&t.build).map_err(|e| format!("{}: {e}", t.build.display()))?;
    let out = out.map_or_else(|| t.build.join("limit.txt"), Into::into);
    let plots = plots.map_or_else(|| t.build.join("plots"), Into::into);
    // on Debian 13's stack verbs-bench gets rdma-core 56's headers and
    // native flush, and is raw verbs for write and read too
    let mut env = Vec::new();
    if is_trixie() {
        for (k, v) in [
            ("RPMA_BENCH_FLUSH", "visibility"),
            ("RPMA_BENCH_VERBS", "verbs-bench"),
        ] {
            if std::env::var_os(k).is_none() {
                env.push((k, v.to_string()));
            }
        }
    }
    build(&t, stack_headers(&t, true)?.as_deref())?;
    let log = t.build.join("limit.log");
    let guest_args = [
        "limit".to_string(),
        t.bin().to_string_lossy().into_owned(),
        rounds.to_string(),
        secs.to_string(),
        sel.join(","),
    ];
    let rc = host::boot(&t, &guest_args, &log, 7200, &env)?;
    host::extract(&log, &["RESULT", "LAT", "FAIL"], &out)?;
    println!();
    println!(
        "raw results: {}; the guest's exit status {rc}",
        out.display()
    );
    let report = host::report(
        &t,
        "limit_report.py",
        &[&out.to_string_lossy(), "--plots", &plots.to_string_lossy()],
    );
    let status = if report != 0 { report } else { rc };
    Ok(status as u8)
}

/// The guest side: every selected row in every round, each contender in
/// the round's order.
pub fn guest(ctx: &Ctx, rounds: u64, secs: u64, sel: &[String]) -> Result<u8, String> {
    if !std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("ib_write_bw").exists()))
    {
        println!("limit-guest: perftest is not installed in the guest");
        return Ok(2);
    }
    let pin = Pin::new();
    let hz = super::proc::clock_ticks();
    let mut servers = match Servers::start(
        "limit-guest",
        &ctx.bin,
        &ctx.ip,
        &ctx.tmp,
        libs(&ctx.root),
        &pin,
        &[],
    ) {
        Ok(s) => s,
        Err(_) => return Ok(1),
    };
    let verbs_bench_rw = std::env::var("RPMA_BENCH_VERBS").is_ok_and(|v| v == "verbs-bench");
    // the Rust API's client joins when it was built (bench build)
    let rust = super::build::rust_bin(&ctx.bin);
    let ours_port = servers.libs.iter().find(|x| x.name == "ours").unwrap().port;
    let mut contenders = vec!["verbs", "c", "ours"];
    if rust.exists() {
        contenders.push("rust");
    }
    for round in 1..=rounds {
        // each round starts one contender later than the one before
        let mut order = contenders.clone();
        order.rotate_left(((round - 1) as usize) % contenders.len());
        println!(
            "limit-guest: round {round} of {rounds} ({} rows, {}) at {} s",
            sel.len(),
            order.join(" "),
            ctx.secs()
        );
        for m in sel {
            let w: Vec<&str> = m.split(' ').collect();
            let (size, qd) = (w[1].parse().unwrap_or(0), w[2].parse().unwrap_or(0));
            let r = Row {
                round,
                case: w[0],
                size,
                qd,
                secs,
            };
            for &l in &order {
                let lib_only = ["mr", "conn", "atomic_write"].contains(&r.case)
                    || r.case.starts_with("scale_");
                if l == "rust" {
                    // against our library's server; the cases it has
                    if RUST_CASES.contains(&r.case) {
                        run_client(ctx, &pin, "rust", &rust, None, ours_port, &r);
                    }
                } else if l != "verbs" {
                    let lib = servers.libs.iter().find(|x| x.name == l).unwrap().clone();
                    run_client(ctx, &pin, lib.name, &ctx.bin, Some(&lib), lib.port, &r);
                } else if lib_only {
                } else if r.case == "flush"
                    || (verbs_bench_rw && ["write", "read"].contains(&r.case))
                {
                    perftest::verbs_bench(ctx, &pin, &r, false);
                } else {
                    perftest::bw(ctx, &pin, &r, hz);
                    // ib_read_lat fails over rdma_cm on rxe ("Failed to
                    // handle RDMA CM event: Operation not supported", then
                    // a segfault): verbs-bench measures the read's latency
                    if r.qd == 1 && r.case == "read" {
                        perftest::verbs_bench(ctx, &pin, &r, true);
                    } else if r.qd == 1 {
                        perftest::lat(ctx, &pin, &r);
                    }
                }
            }
            if servers.check().is_err() {
                return Ok(1);
            }
        }
    }
    servers.stop();
    println!("limit-guest: done in {} s", ctx.secs());
    Ok(0)
}

/// The cases the Rust API's client has (crates/rpma/benches/rpma_bench.rs).
const RUST_CASES: [&str; 6] = ["read", "write", "atomic_write", "flush", "send", "pingpong"];

/// A client, `name` in the results: rpma-bench on a library (`lib`, whose
/// server it talks to) or the Rust API's client (no library: it talks to
/// our library's server at `port`).
fn run_client(ctx: &Ctx, pin: &Pin, name: &str, bin: &Path, lib: Option<&Lib>, port: u16, r: &Row) {
    let rnr0 = perftest::rnr_naks();
    let (out, err) = (ctx.tmp.join("out"), ctx.tmp.join("err"));
    let mut pre = timeout(r.secs + 120, true);
    pre.extend(pin.client.iter().cloned());
    let mut c = command(&pre, &bin.to_string_lossy());
    if let Some(lib) = lib {
        lib.env(&mut c);
    }
    let status = c
        .env("BENCH_WARMUP_MS", "250")
        .args(["client", &ctx.ip, &port.to_string(), r.case])
        .args([
            r.size.to_string(),
            r.qd.to_string(),
            "-t".into(),
            r.secs.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out).expect("the client's output file"))
        .stderr(fs::File::create(&err).expect("the client's error file"))
        .status();
    let rc = status.map_or(-1, super::proc::code);
    let text = read(&out);
    let Some(line) = last_line(&text, "RESULT ").filter(|_| rc == 0) else {
        println!(
            "FAIL lib={name} round={} case={} size={} qd={} rc={rc}",
            r.round, r.case, r.size, r.qd
        );
        print_tail(&[&err], 5);
        return;
    };
    let ops: f64 = field(line, "ops_s")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let line = format!(
        "RESULT lib={name} round={} {} mb_s={}",
        r.round,
        &line["RESULT ".len()..],
        mb_s(ops, r.size)
    );
    println!("{}", with_rnr(line, rnr0));
}
