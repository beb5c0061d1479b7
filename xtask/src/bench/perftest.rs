//! Raw verbs in the guest: perftest's ib_<case>_bw and ib_<case>_lat over
//! rdma_cm, and bench/verbs-bench.c where perftest has no such test (flush)
//! or fails over rdma_cm on rxe (ib_read_lat). Each prints the RESULT or
//! LAT line of bench limit's raw file, or a FAIL line.

use super::guest::Ctx;
use super::proc::{command, field, out_file, print_tail, read, timeout, wait_cpu};
use super::servers::Pin;
use std::process::{Child, Stdio};
use std::thread::sleep;
use std::time::Duration;

/// perftest's bandwidth port; its latency test takes the next, verbs-bench
/// the one after.
const PORT: u16 = 7491;

pub struct Row<'a> {
    pub round: u64,
    pub case: &'a str,
    pub size: u64,
    pub qd: u64,
    pub secs: u64,
}

fn spawn_server(
    ctx: &Ctx,
    pin: &Pin,
    limit: u64,
    prog: &str,
    args: &[String],
    out: &str,
) -> Option<Child> {
    let (o, e) = out_file(&ctx.tmp.join(out));
    let mut pre = pin.server.clone();
    pre.extend(timeout(limit, false));
    command(&pre, prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(o)
        .stderr(e)
        .spawn()
        .ok()
}

fn client(
    ctx: &Ctx,
    pin: &Pin,
    limit: u64,
    prog: &str,
    args: &[String],
    out: &str,
) -> std::process::Command {
    let (o, e) = out_file(&ctx.tmp.join(out));
    let mut pre = pin.client.clone();
    pre.extend(timeout(limit, false));
    let mut c = command(&pre, prog);
    c.args(args).stdin(Stdio::null()).stdout(o).stderr(e);
    c
}

fn wait(child: Option<Child>) -> i32 {
    child
        .and_then(|mut c| c.wait().ok())
        .map_or(-1, super::proc::code)
}

/// MB/s of OPS operations a second of SIZE bytes, as the report reads it.
pub fn mb_s(ops: f64, size: u64) -> String {
    format!("{:.2}", ops * size as f64 / 1048576.0)
}

/// verbs-bench on both ends: the RESULT line (and at QD 1 the LAT line),
/// or FAIL; with `lat_only`, the LAT line only.
pub fn verbs_bench(ctx: &Ctx, pin: &Pin, r: &Row, lat_only: bool) {
    let native =
        r.case == "flush" && std::env::var("RPMA_BENCH_FLUSH").is_ok_and(|v| v == "visibility");
    let vc = if native { "flush_native" } else { r.case };
    let vbin = ctx.vbin().to_string_lossy().into_owned();
    let port = (PORT + 2).to_string();
    let limit = r.secs + 60;
    let server = spawn_server(
        ctx,
        pin,
        limit,
        &vbin,
        &["server".into(), ctx.ip.clone(), port.clone()],
        "vb.srv",
    );
    super::proc::wait_listening(&ctx.tmp.join("vb.srv"), 50);
    let rc = client(
        ctx,
        pin,
        limit,
        &vbin,
        &[
            "client".into(),
            ctx.ip.clone(),
            port,
            vc.into(),
            r.size.to_string(),
            r.qd.to_string(),
            r.secs.to_string(),
        ],
        "vb.out",
    )
    .status()
    .map_or(-1, super::proc::code);
    let src = wait(server);
    let out = read(&ctx.tmp.join("vb.out"));
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("RESULT ")).collect();
    if rc != 0 || src != 0 || lines.is_empty() {
        println!(
            "FAIL lib=verbs round={} case={} size={} qd={}",
            r.round, r.case, r.size, r.qd
        );
        print_tail(&[&ctx.tmp.join("vb.out"), &ctx.tmp.join("vb.srv")], 5);
        return;
    }
    let line = lines
        .join("\n")
        .replace(&format!(" case={vc} "), &format!(" case={} ", r.case));
    let get = |k| field(&line, k).unwrap_or("");
    if r.qd == 1 {
        println!(
            "LAT lib=verbs round={} case={} size={} p50_us={} p99_us={}",
            r.round,
            r.case,
            r.size,
            get("p50_us"),
            get("p99_us")
        );
    }
    if lat_only {
        return;
    }
    let ops: f64 = get("ops_s").parse().unwrap_or(0.0);
    println!(
        "RESULT lib=verbs round={} {} mb_s={}",
        r.round,
        line.strip_prefix("RESULT ").unwrap_or(&line),
        mb_s(ops, r.size)
    );
}

/// The last line of perftest's output that reports SIZE with at least
/// `min` columns: its result row.
fn result_row(out: &str, size: u64, min: usize) -> Option<Vec<String>> {
    out.lines()
        .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
        .rfind(|w| w.len() >= min && w[0].parse::<f64>().ok() == Some(size as f64))
}

/// perftest's ib_<case>_bw on both ends: the RESULT line, or FAIL.
pub fn bw(ctx: &Ctx, pin: &Pin, r: &Row, hz: f64) {
    let rnr0 = rnr_naks();
    let prog = format!("ib_{}_bw", r.case);
    let args: Vec<String> = [
        "-R",
        "-F",
        "-s",
        &r.size.to_string(),
        "-t",
        &r.qd.to_string(),
        "-Q",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "-D".into(),
        r.secs.to_string(),
        "-p".into(),
        PORT.to_string(),
    ])
    .collect();
    let limit = r.secs + 60;
    let server = spawn_server(ctx, pin, limit, &prog, &args, "verbs.srv");
    sleep(Duration::from_millis(500));
    let mut cargs = args.clone();
    cargs.push(ctx.ip.clone());
    let (rc, cpu) = match client(ctx, pin, limit, &prog, &cargs, "verbs.out").spawn() {
        Ok(mut c) => {
            let (s, cpu) = wait_cpu(&mut c, hz);
            (super::proc::code(s), cpu)
        }
        Err(_) => (127, None),
    };
    let src = wait(server);
    let out = read(&ctx.tmp.join("verbs.out"));
    let row = result_row(&out, r.size, 5);
    let Some(w) = row.filter(|_| rc == 0 && src == 0) else {
        println!(
            "FAIL lib=verbs round={} case={} size={} qd={}",
            r.round, r.case, r.size, r.qd
        );
        print_tail(&[&ctx.tmp.join("verbs.out"), &ctx.tmp.join("verbs.srv")], 5);
        return;
    };
    // bytes iterations peak average msg_rate; in duration mode the
    // iterations are the measured operations
    let num = |i: usize| w[i].parse::<f64>().unwrap_or(0.0);
    let (iters, mbs, mpps) = (num(1), num(3), num(4));
    let cpu = cpu.unwrap_or(0.0);
    let line = format!(
        "RESULT lib=verbs round={} case={} size={} qd={} ops_s={:.1} mb_s={:.2} cpu_us_op={:.3}",
        r.round,
        r.case,
        r.size,
        r.qd,
        mpps * 1e6,
        mbs,
        if iters > 0.0 { cpu / iters } else { 0.0 }
    );
    println!("{}", with_rnr(line, rnr0));
}

/// perftest's latency at QD 1: t_typical (the median) and the 99th
/// percentile, half a ping-pong's round trip as perftest reports it.
pub fn lat(ctx: &Ctx, pin: &Pin, r: &Row) {
    let n = if r.size >= 262144 { 200 } else { 1000 };
    let prog = format!("ib_{}_lat", r.case);
    let args: Vec<String> = [
        "-R",
        "-F",
        "-s",
        &r.size.to_string(),
        "-n",
        &n.to_string(),
        "-p",
        &(PORT + 1).to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let server = spawn_server(ctx, pin, 120, &prog, &args, "lat.srv");
    sleep(Duration::from_millis(500));
    let mut cargs = args.clone();
    cargs.push(ctx.ip.clone());
    let rc = client(ctx, pin, 120, &prog, &cargs, "lat.out")
        .status()
        .map_or(-1, super::proc::code);
    wait(server);
    let out = read(&ctx.tmp.join("lat.out"));
    // bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
    let Some(w) = result_row(&out, r.size, 8).filter(|_| rc == 0) else {
        println!(
            "FAIL lib=verbs-lat round={} case={} size={}",
            r.round, r.case, r.size
        );
        print_tail(&[&ctx.tmp.join("lat.out")], 5);
        return;
    };
    println!(
        "LAT lib=verbs round={} case={} size={} p50_us={} p99_us={}",
        r.round, r.case, r.size, w[4], w[7]
    );
}

/// The receiver-not-ready NAKs the device has received so far (none where
/// it counts none, as siw): a send that meets no posted receive waits for
/// the responder's RNR timer.
pub fn rnr_naks() -> Option<i64> {
    let dev = std::env::var("RPMA_TESTING_DEVICE").unwrap_or_else(|_| "rxe0".into());
    std::fs::read_to_string(format!(
        "/sys/class/infiniband/{dev}/ports/1/hw_counters/rcvd_rnr_err"
    ))
    .ok()?
    .trim()
    .parse()
    .ok()
}

/// LINE with rnr_naks=N appended, N the NAKs since BEFORE.
pub fn with_rnr(line: String, before: Option<i64>) -> String {
    match (before, rnr_naks()) {
        (Some(b), Some(now)) => format!("{line} rnr_naks={}", now - b),
        _ => line,
    }
}
