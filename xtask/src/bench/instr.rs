//! `bench instructions`: instructions per operation executed inside
//! librpma.so.0 itself, C against ours, under callgrind in the guest.

use super::build::{build, stack_headers, Tree};
use super::guest::Ctx;
use super::proc::{command, field, read, timeout};
use super::servers::{libs, Pin, Servers};
use super::{count, host, rows, Opts};
use std::fs;
use std::process::{Command, Stdio};
use std::time::Instant;

pub const HELP: &str = "\
cargo xtask bench instructions [--n1 N1] [--n2 N2] [--cases REGEX] [--out FILE]

Instructions per operation executed inside librpma.so.0 itself (not
libibverbs, the rxe provider, libc or the kernel), C against ours. Builds
bench/rpma-bench.c, boots the rxe guest once and runs there two servers
without valgrind, then for each case (QD 1) and each library the client
under valgrind --tool=callgrind twice, with -n N1 and -n N2 (default 200
and 1200; the conn case 20 and 120), and reports
  (librpma self Ir at N2 - the same at N1) / (N2 - N1)
from bench/callgrind_self.py (which is first checked against
callgrind_annotate on one output file). The INSTR/INSTRFN lines go to FILE
(default $BENCH_BUILD_DIR/instructions.txt, BENCH_BUILD_DIR default
build/bench) and bench/report.py instr prints the table.
RPMA_BENCH_KEEP_CG=1 RXE_KEEP=1 keeps the callgrind output files, in the
folder rxe-run names at its start (\"exchange folder: DIR\", then DIR/cg).

Busy polling makes the number of empty rpma_cq_get_wc calls per op depend
on timing (pingpong, srq): the table therefore also gives the figures
without librpma's rpma_cq_get_wc path and the cost of one rpma_cq_get_wc
call, which do not. Cases (REGEX, grep -E on the name): read write
atomic_write flush pingpong write_imm srq conn mr poll (\"poll\" = one
rpma_cq_get_wc on an idle CQ), srq_recv (one rpma_srq_recv on an SRQ, no
server), and write_wait, pingpong_wait: write and pingpong with an
event-driven client (BENCH_CLIENT_WAIT=wait), for which the report also
gives rpma_cq_wait's inclusive cost per call (libibverbs and the provider
included: the event's acknowledgement is there), and next_event: one
rpma_conn_next_event on a non-blocking fd with no event, whose inclusive
cost (the failed read, the error's log line through syslog) the report
gives too. The full run takes 15-18 minutes in the TCG guest (80 valgrind
runs of 6-16 s each).";

pub fn host(args: &[String]) -> Result<u8, String> {
    let t = Tree::new();
    let (mut n1, mut n2, mut cases, mut out) = (200, 1200, ".".to_string(), None);
    let mut o = Opts::new(args);
    while let Some(name) = o.next() {
        match name {
            "--n1" => n1 = count("--n1", &o.value(name)?, 0)?,
            "--n2" => n2 = count("--n2", &o.value(name)?, 0)?,
            "--cases" => cases = o.value(name)?,
            "--out" => out = Some(o.value(name)?),
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    if let Some(p) = o.positional.first() {
        return Err(format!("unknown argument {p}"));
    }
    if n1 < 10 || n2 <= n1 {
        return Err("need 10 <= N1 < N2".into());
    }
    let sel = rows::select(rows::instr(), &cases, rows::case)?;
    if sel.is_empty() {
        return Err(format!("no case matches '{cases}'"));
    }
    fs::create_dir_all(&t.build).map_err(|e| format!("{}: {e}", t.build.display()))?;
    let out = out.map_or_else(|| t.build.join("instructions.txt"), Into::into);
    build(&t, stack_headers(&t, false)?.as_deref())?;
    let start = Instant::now();
    let log = t.build.join("instructions.log");
    let guest_args = [
        "instr".to_string(),
        t.bin().to_string_lossy().into_owned(),
        n1.to_string(),
        n2.to_string(),
        sel.join(","),
    ];
    let rc = host::boot(&t, &guest_args, &log, 5400, &[])?;
    host::extract(&log, &["INSTR", "INSTRFN", "CHECK"], &out)?;
    println!();
    println!(
        "raw: {}; the guest ran {} s (exit status {rc})",
        out.display(),
        host::secs_since(start)
    );
    println!();
    let report = host::report(&t, "report.py", &["instr", &out.to_string_lossy()]);
    let status = if report != 0 { report } else { rc };
    Ok(status as u8)
}

/// `python3 bench/callgrind_self.py ARGS...`, its output captured.
fn callgrind_self(ctx: &Ctx, args: &[&str]) -> String {
    Command::new("/usr/bin/python3")
        .arg(ctx.root.join("bench/callgrind_self.py"))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The guest side: servers without valgrind; each case's client on C and
/// on ours under callgrind at -n N1 and N2.
pub fn guest(ctx: &Ctx, n1: u64, n2: u64, sel: &[String]) -> Result<u8, String> {
    // servers on CPU 1, clients on CPU 0 (and, from rxe-run, only the rxe
    // provider: fewer objects for valgrind to read at each start)
    let pin = Pin::new();
    let Ok(mut servers) = Servers::start(
        "guest",
        &ctx.bin,
        &ctx.ip,
        &ctx.tmp,
        libs(&ctx.root),
        &pin,
        &[],
    ) else {
        return Ok(1);
    };
    let all = servers.libs.clone();
    let (mut checked, mut fails) = (false, 0);
    for cs in sel {
        let (c, s) = cs.split_once(' ').unwrap_or((cs, "8"));
        let (bc, wait) = match c.strip_suffix("_wait") {
            Some(b) => (b, true),
            None => (c, false),
        };
        let (a, b) = if c == "conn" {
            (n1 / 10, n2 / 10)
        } else {
            (n1, n2)
        };
        for l in ["c", "ours"] {
            let lib = all.iter().find(|x| x.name == l).unwrap();
            let mut ok = true;
            let file = |n: u64, ext: &str| ctx.tmp.join(format!("{l}.{c}.{s}.{n}.{ext}"));
            for n in [a, b] {
                let (cg, out, err) = (file(n, "cg"), file(n, "out"), file(n, "err"));
                let t0 = Instant::now();
                let mut pre = timeout(1800, true);
                pre.extend(pin.client.iter().cloned());
                pre.extend(["valgrind".into(), "--tool=callgrind".into()]);
                pre.push(format!("--callgrind-out-file={}", cg.display()));
                let mut cmd = command(&pre, &ctx.bin.to_string_lossy());
                if wait {
                    cmd.env("BENCH_CLIENT_WAIT", "wait");
                }
                lib.env(&mut cmd);
                let rc = cmd
                    .env("BENCH_TIMEOUT", "600")
                    .args([
                        "client",
                        &ctx.ip,
                        &lib.port.to_string(),
                        bc,
                        s,
                        "1",
                        "-n",
                        &n.to_string(),
                    ])
                    .stdin(Stdio::null())
                    .stdout(fs::File::create(&out).expect("the client's output file"))
                    .stderr(fs::File::create(&err).expect("the client's error file"))
                    .status()
                    .map_or(-1, super::proc::code);
                let (otext, etext) = (read(&out), read(&err));
                let said: String = otext
                    .lines()
                    .chain(etext.lines())
                    .filter(|x| x.starts_with("RESULT") || x.starts_with("STATS"))
                    .map(|x| format!("{x} "))
                    .collect();
                println!(
                    "guest: {l} {c} {s} -n {n}: exit {rc} in {} s: {said}",
                    t0.elapsed().as_secs()
                );
                if rc != 0 || !otext.lines().any(|x| x.starts_with("RESULT")) {
                    ok = false;
                    fails += 1;
                    for x in crate::text::last_lines(&etext, 5) {
                        println!("  | {x}");
                    }
                }
            }
            if !ok {
                continue;
            }
            if !checked {
                let check = callgrind_self(ctx, &["check", &file(b, "cg").to_string_lossy()]);
                let lines: Vec<&str> = check
                    .lines()
                    .filter(|x| !x.starts_with("CHECK DIFF"))
                    .collect();
                for x in &lines[lines.len().saturating_sub(4)..] {
                    println!("{x}");
                }
                checked = true;
            }
            let empty = |n: u64| -> f64 {
                read(&file(n, "err"))
                    .lines()
                    .filter_map(|x| x.strip_prefix("STATS "))
                    .filter_map(|x| field(x, "empty_polls")?.parse().ok())
                    .next_back()
                    .unwrap_or(0.0)
            };
            let ep = format!("{:.2}", (empty(b) - empty(a)) / (b - a) as f64);
            print!(
                "{}",
                callgrind_self(
                    ctx,
                    &[
                        "diff",
                        &file(a, "cg").to_string_lossy(),
                        &a.to_string(),
                        &file(b, "cg").to_string_lossy(),
                        &b.to_string(),
                        &format!("lib={l}"),
                        &format!("case={c}"),
                        &format!("size={s}"),
                        &format!("n1={a}"),
                        &format!("n2={b}"),
                        &format!("empty_per_op={ep}"),
                    ],
                )
            );
        }
    }
    servers.stop();
    println!("guest: done in {} s, {fails} failed runs", ctx.secs());
    // RPMA_BENCH_KEEP_CG=1 keeps the callgrind files, for callgrind_annotate
    // line by line: the guest's writes vanish with it, except in the
    // exchange folder (/run/rxe-run), which RXE_KEEP=1 keeps on the host
    if std::env::var_os("RPMA_BENCH_KEEP_CG").is_some_and(|v| !v.is_empty()) {
        let keep = std::path::Path::new("/run/rxe-run/cg");
        let _ = fs::create_dir_all(keep);
        for e in fs::read_dir(&ctx.tmp).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "cg") {
                let _ = fs::copy(e.path(), keep.join(e.file_name()));
            }
        }
    }
    Ok(u8::from(fails > 0))
}
