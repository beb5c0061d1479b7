//! `bench rotate`: one row of the benchmark with contenders bench limit
//! does not have, a library or raw verbs under another environment, in
//! turn, the order rotating from round to round.

use super::build::{build, is_trixie, stack_headers, Tree};
use super::guest::Ctx;
use super::proc::{command, last_line, out_file, read, tail, wait_listening};
use super::servers::{libs, Pin};
use super::{count, host, Opts};
use crate::procfs::split_stat;
use std::collections::HashMap;
use std::fs;
use std::process::{Command, Stdio};

pub const HELP: &str = "\
cargo xtask bench rotate [--cpu] [--out FILE] ROUNDS SECS CASE SIZE QD CONTENDER...

One row of the benchmark with contenders that bench limit does not have: a
library or raw verbs under another environment. Each CONTENDER is
  NAME=PROGRAM[:VAR=VALUE...]
PROGRAM being verbs (bench/verbs-bench.c), ours or c (rpma-bench on our
librpma or on Debian's), and the VAR=VALUE words the environment of both
its ends. Builds the programs, boots the guest once and runs the
contenders in turn, the order rotating from round to round, pinned as
bench limit pins its runs. Prints per run
  RESULT lib=NAME round=R <the program's own RESULT fields>
and with --cpu (or PROBE_CPU=1) also where each CPU's time went during the
run and which kernel threads ran (rxe defers work to softirq on Linux 6.1,
to a workqueue on 6.12):
  CPU lib=NAME round=R cpu0=user/system/softirq/idle cpu1=... threads=NAME:ms,...
(per cent of the run, from /proc/stat; thread times from /proc/PID/stat).
The RESULT/CPU/FAIL lines go to FILE (default build/bench/rotate.txt), and
bench/report.py rotate compares every contender with the first. For
example
  cargo xtask bench rotate 12 1 write 64 16 ours=ours ours-ack0=ours:RPMA_ACK_TIMEOUT=0 c=c
RXE_STACK=trixie runs on Debian 13's stack, verbs-bench with native flush
and RPMA_BENCH_FLUSH=visibility unless set (C 1.3.0 registers a region for
a flush to persistence only in persistent memory).";

/// NAME, PROGRAM and the environment of a contender.
type Spec<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>);

fn parse_spec(spec: &str) -> Result<Spec<'_>, String> {
    let (name, rest) = spec
        .split_once('=')
        .ok_or_else(|| format!("contender {spec:?} is not NAME=PROGRAM[:VAR=VALUE...]"))?;
    let mut words = rest.split(':');
    let prog = words.next().unwrap_or("");
    if !["verbs", "ours", "c"].contains(&prog) {
        return Err(format!("unknown program '{prog}' in {spec}"));
    }
    let env = words
        .map(|w| {
            w.split_once('=')
                .ok_or_else(|| format!("{w:?} in {spec} is not VAR=VALUE"))
        })
        .collect::<Result<_, _>>()?;
    Ok((name, prog, env))
}

pub fn host(args: &[String]) -> Result<u8, String> {
    let t = Tree::new();
    let mut cpu = std::env::var("PROBE_CPU").is_ok_and(|v| v == "1");
    let mut out = None;
    let mut o = Opts::new(args);
    while let Some(name) = o.next() {
        match name {
            "--cpu" => cpu = true,
            "--out" => out = Some(o.value(name)?),
            _ => return Err(format!("unknown argument {name}")),
        }
    }
    let p = &o.positional;
    if p.len() < 6 {
        return Err(format!(
            "ROUNDS SECS CASE SIZE QD CONTENDER... needed\n{HELP}"
        ));
    }
    count("ROUNDS", &p[0], 1)?;
    count("SECS", &p[1], 1)?;
    count("SIZE", &p[3], 1)?;
    count("QD", &p[4], 1)?;
    for s in &p[5..] {
        parse_spec(s)?;
    }
    fs::create_dir_all(&t.build).map_err(|e| format!("{}: {e}", t.build.display()))?;
    let out = out.map_or_else(|| t.build.join("rotate.txt"), Into::into);
    let mut env = Vec::new();
    if is_trixie() && std::env::var_os("RPMA_BENCH_FLUSH").is_none() {
        env.push(("RPMA_BENCH_FLUSH", "visibility".to_string()));
    }
    build(&t, stack_headers(&t, true)?.as_deref())?;
    let mut guest_args = vec![
        "rotate".to_string(),
        t.bin().to_string_lossy().into_owned(),
        if cpu { "1" } else { "0" }.to_string(),
    ];
    guest_args.extend(p.iter().cloned());
    let log = t.build.join("rotate.log");
    let rc = host::boot(&t, &guest_args, &log, 3600, &env)?;
    host::extract(&log, &["RESULT", "CPU", "FAIL"], &out)?;
    println!();
    println!(
        "raw results: {}; the guest's exit status {rc}",
        out.display()
    );
    let base = p[5].split('=').next().unwrap_or("");
    let report = host::report(&t, "report.py", &["rotate", base, &out.to_string_lossy()]);
    let status = if report != 0 { report } else { rc };
    Ok(status as u8)
}

pub fn guest(
    ctx: &Ctx,
    cpu: bool,
    rounds: u64,
    secs: u64,
    row: [&str; 3],
    specs: &[&str],
) -> Result<u8, String> {
    let pin = Pin::new();
    let [ours, c] = libs(&ctx.root);
    let hz = super::proc::clock_ticks();
    println!("{}", read("/proc/sys/kernel/osrelease".as_ref()).trim());
    let mut port = 7600;
    for r in 1..=rounds {
        for i in 0..specs.len() {
            let spec = specs[(i + r as usize - 1) % specs.len()];
            let (name, prog, mut env) = parse_spec(spec)?;
            port += 1;
            let [case, size, qd] = row;
            let p = port.to_string();
            let native = case == "flush"
                && std::env::var("RPMA_BENCH_FLUSH").is_ok_and(|v| v == "visibility");
            // a flush to visibility is verbs-bench's native one, as in bench limit
            let vc = if prog == "verbs" && native {
                "flush_native"
            } else {
                case
            };
            let (lib_dir, lib_path);
            let (bin, server, client): (String, Vec<&str>, Vec<String>) = if prog == "verbs" {
                let v = ctx.vbin().to_string_lossy().into_owned();
                let cl = ["client", &ctx.ip, &p, vc, size, qd, &secs.to_string()]
                    .map(String::from)
                    .to_vec();
                (v, vec!["server", &ctx.ip, &p], cl)
            } else {
                let lib = if prog == "c" { &c } else { &ours };
                (lib_dir, lib_path) = (
                    lib.dir().to_string_lossy().into_owned(),
                    lib.path.to_string_lossy().into_owned(),
                );
                env.push(("LD_LIBRARY_PATH", &lib_dir));
                env.push(("BENCH_EXPECT_LIB", &lib_path));
                let cl = [
                    "client",
                    &ctx.ip,
                    &p,
                    case,
                    size,
                    qd,
                    "-t",
                    &secs.to_string(),
                ]
                .map(String::from)
                .to_vec();
                (
                    ctx.bin.to_string_lossy().into_owned(),
                    vec!["server", &ctx.ip, &p],
                    cl,
                )
            };
            let srv = ctx.tmp.join("rotate.srv");
            let (o, e) = out_file(&srv);
            let mut server_child = command(&pin.server, &bin)
                .args(&server)
                .envs(env.iter().copied())
                .stdin(Stdio::null())
                .stdout(o)
                .stderr(e)
                .spawn()
                .map_err(|e| format!("{bin}: {e}"))?;
            wait_listening(&srv, 100);
            let before = cpu.then(|| (cpu_snap(), thread_snap()));
            let mut cl = command(&pin.client, &bin);
            if prog != "verbs" {
                cl.env("BENCH_WARMUP_MS", "250");
            }
            let text = cl
                .args(&client)
                .envs(env.iter().copied())
                .stdin(Stdio::null())
                .stderr(Stdio::inherit())
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            let after = cpu.then(|| (cpu_snap(), thread_snap()));
            // rpma-bench's server serves until asked to quit; verbs-bench's
            // ends with its client
            if prog != "verbs" {
                let _ = Command::new(&bin)
                    .args(["quit", &ctx.ip, &p])
                    .envs(env.iter().copied())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
            let _ = server_child.wait();
            let Some(line) = last_line(&text, "RESULT ") else {
                println!("FAIL lib={name} round={r}");
                for x in tail(&srv, 5) {
                    println!("{x}");
                }
                continue;
            };
            let line = line.replacen(&format!(" case={vc} "), &format!(" case={case} "), 1);
            println!("RESULT lib={name} round={r} {}", &line["RESULT ".len()..]);
            if let (Some((c0, t0)), Some((c1, t1))) = (before, after) {
                println!(
                    "CPU lib={name} round={r} {}threads={}",
                    cpu_diff(&c0, &c1),
                    thread_diff(&t0, &t1, hz)
                );
            }
        }
    }
    Ok(0)
}

/// The jiffies of CPU 0 and 1: "cpuN user nice system idle iowait irq softirq ...".
fn cpu_snap() -> Vec<(String, Vec<f64>)> {
    read("/proc/stat".as_ref())
        .lines()
        .filter(|l| l.starts_with("cpu0 ") || l.starts_with("cpu1 "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next().unwrap_or("").to_string();
            (name, w.filter_map(|v| v.parse().ok()).collect())
        })
        .collect()
}

/// cpu0=us/sy/si/id cpu1=...: each one's share between two snapshots.
fn cpu_diff(a: &[(String, Vec<f64>)], b: &[(String, Vec<f64>)]) -> String {
    let mut s = String::new();
    for (name, now) in b {
        let was = a.iter().find(|(n, _)| n == name).map(|x| &x.1);
        let d: Vec<f64> = now
            .iter()
            .enumerate()
            .map(|(i, v)| v - was.and_then(|w| w.get(i)).copied().unwrap_or(0.0))
            .collect();
        let t = d.iter().sum::<f64>();
        let t = if t == 0.0 { 1.0 } else { t };
        let pc = |x: f64| format!("{:.0}", 100.0 * x / t);
        let at = |i: usize| d.get(i).copied().unwrap_or(0.0);
        s += &format!(
            "{name}={}/{}/{}/{} ",
            pc(at(0) + at(1)),
            pc(at(2)),
            pc(at(6)),
            pc(at(3))
        );
    }
    s
}

/// The CPU time so far of the kernel threads that do rxe's work: pid to
/// (name, jiffies), in /proc's order of names.
fn thread_snap() -> Vec<(String, String, u64)> {
    let mut dirs: Vec<String> = fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    dirs.sort();
    let mut v = Vec::new();
    for pid in dirs {
        let stat = read(format!("/proc/{pid}/stat").as_ref());
        let Some((comm, fields)) = split_stat(&stat) else {
            continue;
        };
        if !["ksoftirqd/", "kworker/", "rxe"]
            .iter()
            .any(|p| comm.starts_with(p))
        {
            continue;
        }
        // utime and stime, fields 14 and 15, the state being field 3
        let rest: Vec<u64> = fields
            .iter()
            .skip(11)
            .take(2)
            .filter_map(|x| x.parse().ok())
            .collect();
        v.push((pid, comm.to_string(), rest.iter().sum()));
    }
    v
}

/// name:ms,... of the threads that ran between two snapshots, or "none".
fn thread_diff(a: &[(String, String, u64)], b: &[(String, String, u64)], hz: f64) -> String {
    let was: HashMap<&str, u64> = a.iter().map(|(p, _, j)| (p.as_str(), *j)).collect();
    let ran: Vec<String> = b
        .iter()
        .filter_map(|(p, name, j)| {
            let d = j.saturating_sub(*was.get(p.as_str()).unwrap_or(&0));
            (d > 0).then(|| format!("{name}:{}", d as f64 * 1000.0 / hz))
        })
        .collect();
    if ran.is_empty() {
        "none".into()
    } else {
        ran.join(",")
    }
}
