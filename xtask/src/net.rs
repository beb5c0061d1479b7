//! `cargo xtask net BUILD CASE [ARG...]`: one case of the two-host tests,
//! a server and a client on two SoftRoCE guests (softroce/rxe-pair) joined
//! by a virtual network, each program served by the library named for it
//! (tests-c/scripts/run-served-by.sh). `cargo xtask net-figures` runs the
//! cases many times with nothing asserted and sums them up as the tables
//! of RELIABILITY.md.
//!
//! Cases:
//!
//! - `interop EXAMPLE...`: each example's server and client across the two
//!   hosts, in the four pairings of our library and the C library, in one
//!   boot of the pair (net-interop-guest.sh); all must pass.
//! - `poweroff MODE[,MODE...] LIB [BOUND]`: net_client (LIB: ours or ref)
//!   streams writes to net_server (ours) and waits for completions by MODE
//!   (busy, wait, poll, conn-wait); the server's guest is powered off
//!   mid-stream. The client must learn it within BOUND seconds (default
//!   15) and delete everything; with BOUND 0 nothing is asserted and it
//!   waits NET_PAIR_LIMIT seconds (default 60; a measurement: the C
//!   library hangs). With several MODEs a client per MODE streams to a
//!   server of its own, all at once, and one power-off ends them all.
//! - `cut SECONDS MODE LIB [BOUND]`: the same stream, but the server's NIC
//!   leaves the network for SECONDS and comes back. Shorter than the
//!   library's bound, the stream must complete with no error; longer, it
//!   must end as at a power-off (BOUND 0: a measurement).
//! - `clientoff probe|passive LIB [BOUND]`: the client's guest is powered
//!   off mid-stream and the server survives (LIB on both sides: the
//!   client's request sets the retry count of both queue pairs). A server
//!   that probes (a zero-length write every second) must learn it within
//!   BOUND seconds (default 15; 0: 30 s, nothing asserted); a passive one
//!   learns nothing, which is measured, not asserted.
//! - `rnr LIB [SECONDS]`: net_client (LIB) sends once to net_server (ours),
//!   which never posts a receive, and waits SECONDS (default 10); then
//!   deleting everything must not hang. The server answers each try with
//!   a receiver-not-ready NAK naming its timer, 0.64 ms (ours). rxe keeps
//!   its ACK timer running meanwhile, so the send either stays outstanding
//!   or fails with IBV_WC_RETRY_EXC_ERR, both seen with ours (asserted:
//!   one of the two, and a clean end).
//! - `loss PERCENT DELAY-MS LIB [EXAMPLE...]`: both guests lose PERCENT of
//!   their packets and delay each by DELAY-MS (tc netem): net_client's
//!   writes (NET_PAIR_WRITES, default 20000; 0: none) must all complete
//!   within 300 s, and each EXAMPLE (default data-path; "all": every
//!   example; "none": the stream alone), LIB on both sides, must pass, its
//!   data checked by the example; all in one boot of the pair.
//! - `rtu-lost EXAMPLE...`: the server's guest drops every connection
//!   manager RTU that reaches it, so its side of a connection never gets
//!   ESTABLISHED: each EXAMPLE, whose client hangs up once connected, in
//!   the four pairings, must pass, and each server must say the client
//!   closed the connection at once (its first event is CLOSED;
//!   rpma_conn_next_event(3)).
//!
//! Each run prints its RESULT line (tests-c/net/net_client.c).
//! Environment: NET_PAIR_RESULTS, a file each RESULT line is appended to;
//! NET_PAIR_SETUP, a command both guests run before the programs of the
//! poweroff, cut and clientoff cases (a sysctl, say); and rxe-pair's
//! (RXE_STACK, RXE_DEVICE=siw).

use crate::list::sh_quote;
use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const PORT: u32 = 7400;

/// What a case is run with.
struct Pair {
    root: PathBuf,
    build: String,
    ours: String,
    reference: String,
    served: String,
    all: String,
    setup: String,
    results: Option<PathBuf>,
    /// how long an unbounded (BOUND 0) client waits
    limit: u64,
    writes: u64,
}

/// What one boot of the pair printed, both guests' lines, each prefixed
/// "server| " or "client| ".
struct Out {
    text: String,
    ok: bool,
}

impl Out {
    /// The first line of SIDE's command K that starts with `word`, from
    /// `word` on (run-all.sh prefixes each command's lines "K| ").
    fn line(&self, side: &str, k: usize, word: &str) -> Option<String> {
        let prefix = format!("{side}| {k}| ");
        self.text
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .find(|l| l.starts_with(word))
            .map(str::to_string)
    }

    /// Whether SIDE's command K exited 0.
    fn ended(&self, side: &str, k: usize) -> bool {
        let want = format!("{side}| run-all: {k} exit 0");
        self.text.lines().any(|l| l == want)
    }

    fn has(&self, line: &str) -> bool {
        self.text.lines().any(|l| l == line)
    }
}

fn guest_line(cmds: &[String]) -> String {
    cmds.iter().map(|c| format!(" {}", sh_quote(c))).collect()
}

impl Pair {
    fn new(root: &Path, build: &str) -> Pair {
        let multiarch = Command::new("gcc")
            .arg("-dumpmachine")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let scripts = root.join("tests-c/scripts");
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Pair {
            root: root.to_path_buf(),
            build: build.to_string(),
            ours: root.join("build/lib/librpma.so.0").display().to_string(),
            reference: format!("/usr/lib/{multiarch}/librpma.so.0"),
            served: scripts.join("run-served-by.sh").display().to_string(),
            all: scripts.join("run-all.sh").display().to_string(),
            setup: env("NET_PAIR_SETUP")
                .map(|s| s + " && ")
                .unwrap_or_default(),
            results: env("NET_PAIR_RESULTS").map(PathBuf::from),
            limit: env("NET_PAIR_LIMIT")
                .and_then(|v| v.parse().ok())
                .unwrap_or(60),
            writes: env("NET_PAIR_WRITES")
                .and_then(|v| v.parse().ok())
                .unwrap_or(20000),
        }
    }

    fn lib(&self, name: &str) -> Result<&str, String> {
        match name {
            "ours" => Ok(&self.ours),
            "ref" => Ok(&self.reference),
            _ => Err(format!("library {name:?}: ours or ref")),
        }
    }

    /// A program of BUILD served by `lib`.
    fn serve(&self, lib: &str, prog: &str) -> String {
        format!("{} {lib} {}/{prog}", self.served, self.build)
    }

    /// One boot of the pair; `control` runs on the host beside it.
    fn boot(&self, server: &str, client: &str, control: Option<&str>, grace: Option<u64>) -> Out {
        let mut cmd = Command::new("bash");
        cmd.args(["-c", "exec \"$0\" \"$@\" 2>&1"])
            .arg(self.root.join("softroce/rxe-pair"))
            .args([server, client])
            .current_dir(&self.root);
        if let Some(c) = control {
            cmd.env("RXE_PAIR_CONTROL", c);
        }
        if let Some(g) = grace {
            cmd.env("RXE_PAIR_GRACE", g.to_string());
        }
        match cmd.output() {
            Ok(o) => Out {
                text: String::from_utf8_lossy(&o.stdout).into_owned(),
                ok: o.status.success(),
            },
            Err(e) => Out {
                text: format!("softroce/rxe-pair: {e}\n"),
                ok: false,
            },
        }
    }

    fn record(&self, line: &str) {
        if let Some(path) = &self.results {
            let _ = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{line}"));
        }
    }

    fn interop(&self, examples: &[String]) -> Result<bool, String> {
        let g = self.root.join("tests-c/scripts/net-interop-guest.sh");
        let side = |s: &str| {
            format!(
                "{} {s} {} {PORT} {} {} {}",
                g.display(),
                self.build,
                self.ours,
                self.reference,
                examples.join(" ")
            )
        };
        let out = self.boot(&side("server"), &side("client"), None, None);
        print!("{}", out.text);
        for l in out.text.lines().filter_map(|l| l.strip_prefix("client| ")) {
            if l.starts_with("interop ") {
                println!("{l}");
            }
        }
        Ok(out.ok)
    }

    /// poweroff and cut: `cut` is the seconds the link is down.
    fn lost_server(
        &self,
        modes: &[String],
        cut: Option<u64>,
        lib: &str,
        bound: u64,
    ) -> Result<bool, String> {
        let cl = self.lib(lib)?;
        let control = match cut {
            None => {
                // every client streams, then the server's guest goes
                let mut c = String::new();
                for m in modes {
                    c += &format!("rxe-pair-ctl $RXE_PAIR_CLIENT wait streaming-{m} && ");
                }
                c + "rxe-pair-ctl $RXE_PAIR_SERVER poweroff && echo 'server powered off'"
            }
            // the server learns nothing of a client that gave up while the
            // link was down (nothing reaches it, and it sends nothing): once
            // the client's program has ended (its guest stays up while the
            // server's runs), the server's guest is powered off
            Some(secs) => format!(
                "rxe-pair-ctl $RXE_PAIR_CLIENT wait streaming-{m} && rxe-pair-ctl $RXE_PAIR_SERVER link-off && echo 'link cut' && sleep {secs} && rxe-pair-ctl $RXE_PAIR_SERVER link-on && echo 'link back after {secs} s' && rxe-pair-ctl $RXE_PAIR_CLIENT wait ended 120 && sleep 3 && rxe-pair-ctl $RXE_PAIR_SERVER poweroff",
                m = modes[0]
            ),
        };
        let limit = if bound == 0 { self.limit } else { bound };
        let name = match cut {
            None => "poweroff".to_string(),
            Some(s) => format!("cut {s}"),
        };
        println!(
            "== {name}{} {}, client library {lib}",
            if cut.is_some() { " s" } else { "" },
            modes.join(" ")
        );
        // a server and a client per mode, each pair on a port of its own;
        // the clients stream at once
        let mut srv = Vec::new();
        let mut cli = Vec::new();
        for (k, m) in modes.iter().enumerate() {
            let port = PORT + k as u32;
            srv.push(format!(
                "{} $RPMA_TESTING_IP {port}",
                self.serve(&self.ours, "net_server")
            ));
            cli.push(format!(
                "{} $RXE_PEER_IP {port} {m} /run/rxe-run/streaming-{m} {limit}",
                self.serve(cl, "net_client")
            ));
        }
        // the powered-off server is no news: the client must have its own time
        let out = self.boot(
            &format!("{}{} --ready{}", self.setup, self.all, guest_line(&srv)),
            &format!("{}{}{}", self.setup, self.all, guest_line(&cli)),
            Some(&control),
            Some(limit + 60),
        );
        print!("{}", out.text);
        let mut ok = true;
        for (k, m) in modes.iter().enumerate() {
            let result = out.line("client", k, "RESULT");
            self.record(&format!(
                "{name} lib={lib} {}",
                result.as_deref().unwrap_or("RESULT none")
            ));
            if bound == 0 {
                continue;
            }
            let result = result.unwrap_or_default();
            if !out.ended("client", k) {
                println!("FAIL: {m}: the client did not end cleanly");
                ok = false;
            } else if cut.is_some_and(|s| s < 3) {
                // a break the retransmissions bridge: every write completes
                if result.contains("how=none") {
                    println!("PASS: {result}");
                } else {
                    println!("FAIL: a {} s break was not bridged", cut.unwrap_or(0));
                    ok = false;
                }
            } else if result.contains("how=wc:") || result.contains("how=event:") {
                println!("PASS: {result}");
            } else {
                println!("FAIL: {m}: the lost server went unreported");
                ok = false;
            }
        }
        Ok(ok)
    }

    fn clientoff(&self, how: &str, lib: &str, bound: u64) -> Result<bool, String> {
        let sl = self.lib(lib)?;
        let (bound, assert) = if bound == 0 {
            (30, false)
        } else {
            (bound, true)
        };
        let probe = if how == "probe" { " probe 1" } else { "" };
        println!("== clientoff: the server {how}s, server library {lib}");
        let control = format!("rxe-pair-ctl $RXE_PAIR_CLIENT wait streaming && rxe-pair-ctl $RXE_PAIR_CLIENT poweroff && echo 'client powered off' && {{ rxe-pair-ctl $RXE_PAIR_SERVER wait ended {bound} || {{ echo 'the server learnt nothing within {bound} s'; rxe-pair-ctl $RXE_PAIR_SERVER poweroff; }}; }}");
        let server = format!(
            "{} $RPMA_TESTING_IP {PORT}{probe}",
            self.serve(sl, "net_server")
        );
        let out = self.boot(
            &format!(
                "{}{} --ready{}",
                self.setup,
                self.all,
                guest_line(&[server])
            ),
            &format!(
                "{}{} $RXE_PEER_IP {PORT} busy /run/rxe-run/streaming 60",
                self.setup,
                self.serve(sl, "net_client")
            ),
            Some(&control),
            None,
        );
        print!("{}", out.text);
        let result = out.line("server", 0, "RESULT");
        self.record(&format!(
            "clientoff {how} lib={lib} {}",
            result.as_deref().unwrap_or("RESULT none")
        ));
        if how != "probe" || !assert {
            return Ok(true);
        }
        let result = result.unwrap_or_default();
        if result.contains("how=wc:") || result.contains("how=event:") {
            println!("PASS: {result}");
            Ok(true)
        } else {
            println!("FAIL: the lost client went unreported");
            Ok(false)
        }
    }

    fn rnr(&self, lib: &str, secs: u64) -> Result<bool, String> {
        let cl = self.lib(lib)?;
        println!("== rnr: a send the server never takes, client library {lib}");
        let server = format!(
            "{} $RPMA_TESTING_IP {PORT}",
            self.serve(&self.ours, "net_server")
        );
        let client = format!(
            "{} $RXE_PEER_IP {PORT} rnr /run/rxe-run/streaming {secs}",
            self.serve(cl, "net_client")
        );
        let out = self.boot(
            &format!("{} --ready{}", self.all, guest_line(&[server])),
            &format!("{}{}", self.all, guest_line(&[client])),
            None,
            None,
        );
        print!("{}", out.text);
        let result = out.line("client", 0, "RESULT");
        self.record(&format!(
            "rnr lib={lib} {}",
            result.as_deref().unwrap_or("RESULT none")
        ));
        if !out.ended("client", 0) {
            println!("FAIL: the client did not end cleanly");
            return Ok(false);
        }
        if lib != "ours" {
            return Ok(true);
        }
        let result = result.unwrap_or_default();
        if result.contains("how=outstanding") || result.contains("how=wc:transport retry") {
            println!("PASS: {result}");
            Ok(true)
        } else {
            println!("FAIL: the send neither stayed outstanding nor ran out of transport retries");
            Ok(false)
        }
    }

    fn examples(&self, names: &[String]) -> Vec<String> {
        match names.first().map(String::as_str) {
            None => vec!["data-path".into()],
            Some("none") => Vec::new(),
            Some("all") => {
                let mut v: Vec<String> = std::fs::read_dir(&self.build)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        Some(
                            n.strip_prefix("example_")?
                                .strip_suffix("_server")?
                                .to_string(),
                        )
                    })
                    .collect();
                v.sort();
                v
            }
            Some(_) => names.to_vec(),
        }
    }

    fn loss(&self, pct: &str, delay: &str, lib: &str, names: &[String]) -> Result<bool, String> {
        let ll = self.lib(lib)?;
        let examples = self.examples(names);
        let netem = format!("tc qdisc add dev eth0 root netem loss {pct}% delay {delay}ms &&");
        // the stream and the examples in one boot of the pair: the server's
        // guest serves them all at once (run-all.sh), each on a port of its
        // own, and the client's guest runs them one after the other
        let mut srv = Vec::new();
        let mut cli = String::from("f=0; ");
        if self.writes != 0 {
            println!("== loss {pct}%, delay {delay} ms each way: the write stream");
            srv.push(format!(
                "{} $RPMA_TESTING_IP {PORT}",
                self.serve(ll, "net_server")
            ));
            cli += &format!(
                "{} $RXE_PEER_IP {PORT} busy /run/rxe-run/streaming 300 {}; r=$?; echo \"stream exit $r\"; [ $r = 0 ] || f=1; ",
                self.serve(ll, "net_client"),
                self.writes
            );
        }
        for (k, ex) in examples.iter().enumerate() {
            println!("== loss {pct}%, delay {delay} ms each way: the {ex} example");
            let port = PORT + k as u32 + 1;
            // its server waits while the stream and the examples before it run
            srv.push(format!(
                "EXAMPLE_WAIT_SCALE=10 {} $RPMA_TESTING_IP {port}",
                self.serve(ll, &format!("example_{ex}_server"))
            ));
            cli += &format!(
                "s=$SECONDS; {} $RXE_PEER_IP {port}; r=$?; echo \"example {ex} exit $r in $((SECONDS - s))s\"; [ $r = 0 ] || f=1; ",
                self.serve(ll, &format!("example_{ex}_client"))
            );
        }
        if srv.is_empty() {
            return Ok(true);
        }
        let out = self.boot(
            &format!("{netem} {} --ready --tail 3{}", self.all, guest_line(&srv)),
            &format!("{netem} {cli}exit $f"),
            None,
            None,
        );
        let mut ok = out.ok;
        if !ok {
            print!("{}", out.text);
        }
        if self.writes != 0 {
            let result = out
                .text
                .lines()
                .find_map(|l| l.strip_prefix("client| RESULT "))
                .map(|r| format!("RESULT {r}"));
            self.record(&format!(
                "loss {pct} {delay} lib={lib} {}",
                result.as_deref().unwrap_or("RESULT none")
            ));
            match result {
                Some(r) if out.has("client| stream exit 0") && r.contains("how=none") => {
                    println!("PASS: {r}")
                }
                r => {
                    println!("FAIL: {}", r.as_deref().unwrap_or("no RESULT line"));
                    ok = false;
                }
            }
        }
        for ex in &examples {
            let head = format!("client| example {ex} exit ");
            let line = out
                .text
                .lines()
                .find(|l| l.starts_with(&head))
                .unwrap_or("");
            let passed = line.contains(" exit 0 in ");
            let secs = line
                .rsplit_once(" in ")
                .map(|x| x.1)
                .filter(|s| s.ends_with('s'))
                .unwrap_or("?");
            let got = if passed { "pass" } else { "FAIL" };
            println!(
                "{ex}: {got} {}",
                line.strip_prefix("client| ").unwrap_or("")
            );
            ok &= passed;
            self.record(&format!(
                "loss-example {pct} {delay} lib={lib} {ex} {got} {secs}"
            ));
        }
        Ok(ok)
    }

    fn rtu_lost(&self, examples: &[String]) -> Result<bool, String> {
        // the RTU is a CM MAD (management class 7, attribute 0x0014) to QP
        // 1: RoCE v2 puts IP(20) UDP(8) BTH(12) DETH(8) before the MAD,
        // whose class is its byte 1 and attribute its bytes 16-17
        let drop = "tc qdisc add dev eth0 ingress && tc filter add dev eth0 parent ffff: protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff match u8 0x07 0xff at 49 match u16 0x0014 0xffff at 64 action drop &&";
        let mut pairings = Vec::new();
        for ex in examples {
            for sl in ["ours", "ref"] {
                for cl in ["ours", "ref"] {
                    pairings.push((ex.as_str(), sl, cl));
                }
            }
        }
        let mut srv = Vec::new();
        let mut cli = String::from("f=0; ");
        for (k, (ex, sl, cl)) in pairings.iter().enumerate() {
            let port = PORT + k as u32 + 1;
            srv.push(format!(
                "{} $RPMA_TESTING_IP {port}",
                self.serve(self.lib(sl)?, &format!("example_{ex}_server"))
            ));
            cli += &format!(
                "{} $RXE_PEER_IP {port}; r=$?; echo \"example {ex} server-{sl} client-{cl} exit $r\"; [ $r = 0 ] || f=1; ",
                self.serve(self.lib(cl)?, &format!("example_{ex}_client"))
            );
        }
        let out = self.boot(
            &format!("{drop} {} --ready{}", self.all, guest_line(&srv)),
            &format!("{cli}exit $f"),
            None,
            None,
        );
        let mut ok = out.ok;
        if !ok {
            print!("{}", out.text);
        }
        for (k, (ex, sl, cl)) in pairings.iter().enumerate() {
            // the server's output, as run-all.sh prints it, is command k's
            let closed = format!("server| {k}| ");
            let passed = out.has(&format!(
                "client| example {ex} server-{sl} client-{cl} exit 0"
            )) && out.text.lines().any(|l| {
                l.strip_prefix(&closed)
                    .is_some_and(|r| r.contains("closed the connection at once"))
            });
            println!(
                "{ex} server-{sl} client-{cl}: {}",
                if passed { "pass" } else { "FAIL" }
            );
            ok &= passed;
        }
        Ok(ok)
    }

    /// One case; Ok(true) when it passed.
    fn run(&self, case: &str, a: &[String]) -> Result<bool, String> {
        let num = |i: usize, default: u64| -> Result<u64, String> {
            a.get(i).map_or(Ok(default), |v| {
                v.parse().map_err(|_| format!("{v:?}: a number"))
            })
        };
        let arg = |i: usize| a.get(i).map(String::as_str).ok_or("too few arguments");
        match case {
            "interop" => self.interop(a),
            "poweroff" => {
                let modes: Vec<String> = arg(0)?.split(',').map(str::to_string).collect();
                self.lost_server(&modes, None, arg(1)?, num(2, 15)?)
            }
            "cut" => self.lost_server(
                &[arg(1)?.to_string()],
                Some(num(0, 0)?),
                arg(2)?,
                num(3, 15)?,
            ),
            "clientoff" => self.clientoff(arg(0)?, arg(1)?, num(2, 15)?),
            "rnr" => self.rnr(arg(0)?, num(1, 10)?),
            "loss" => self.loss(arg(0)?, arg(1)?, arg(2)?, &a[3..]),
            "rtu-lost" => self.rtu_lost(a),
            _ => Err(format!("no case {case:?}")),
        }
    }
}

const USAGE: &str = "usage: cargo xtask net BUILD-DIR CASE [ARG...]   (xtask/src/net.rs)
cases: interop EXAMPLE... | poweroff MODE[,MODE...] LIB [BOUND] | cut SECONDS MODE LIB [BOUND]
       clientoff probe|passive LIB [BOUND] | rnr LIB [SECONDS]
       loss PERCENT DELAY-MS LIB [EXAMPLE...|all|none] | rtu-lost EXAMPLE...";

fn exit(r: Result<bool, String>, usage: &str) -> ExitCode {
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e}\n{usage}");
            ExitCode::from(2)
        }
    }
}

pub fn main(root: &Path, args: &[String]) -> ExitCode {
    if args.len() < 2 {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    exit(Pair::new(root, &args[0]).run(&args[1], &args[2..]), USAGE)
}

/// One table row of RESULT lines: what was learnt, the time to learn it
/// (min / median / max), the longest teardown and the runs that learnt
/// nothing within the limit.
fn row(label: &str, lib: &str, lines: &[&str]) -> String {
    let field = |l: &str, key: &str| -> Option<String> {
        let rest = &l[l.find(key)? + key.len()..];
        Some(rest.split(' ').next().unwrap_or("").to_string())
    };
    let (mut hangs, mut bridged) = (0, 0);
    let mut learnt = BTreeSet::new();
    let mut detect: Vec<f64> = Vec::new();
    let mut teardown: Option<f64> = None;
    for l in lines {
        if ["RESULT none", "how=hang", "how=outstanding"]
            .iter()
            .any(|w| l.contains(w))
        {
            hangs += 1;
            continue;
        }
        if l.contains("how=none") {
            bridged += 1;
            continue;
        }
        if let Some(at) = l.find("how=") {
            let how = &l[at + 4..];
            learnt.insert(how[..how.find(" detect_s=").unwrap_or(how.len())].to_string());
        }
        detect.push(
            field(l, "detect_s=")
                .and_then(|d| d.parse().ok())
                .unwrap_or(0.0),
        );
        if let Some(t) = field(l, "teardown_s=").and_then(|t| t.parse::<f64>().ok()) {
            teardown = Some(teardown.map_or(t, |m: f64| m.max(t)));
        }
    }
    let mut what: Vec<String> = learnt.into_iter().collect();
    if bridged > 0 {
        what.push("nothing: bridged".into());
    }
    if hangs > 0 {
        what.push("nothing".into());
    }
    detect.sort_by(f64::total_cmp);
    let k = detect.len();
    let fig = if k == 0 {
        "-".to_string()
    } else {
        let median = if k % 2 == 1 {
            detect[k / 2]
        } else {
            (detect[k / 2 - 1] + detect[k / 2]) / 2.0
        };
        format!("{:.2} / {median:.2} / {:.2}", detect[0], detect[k - 1])
    };
    let td = match teardown {
        Some(t) if k > 0 => format!("{t:.3}"),
        _ => "-".into(),
    };
    let libname = if lib == "ref" { "C 1.2.0" } else { "ours" };
    format!(
        "| {label} | {libname} | {} | {} | {fig} | {td} | {hangs} |",
        lines.len(),
        what.join(", ")
    )
}

const FIGURES_USAGE: &str = "usage: cargo xtask net-figures BUILD-DIR WHAT RUNS [LIMIT]
  the lost-peer figures of RELIABILITY.md: each case RUNS times per library,
  nothing asserted, summed up as a markdown table (hangs: nothing learnt in
  LIMIT seconds, default 30). WHAT:
  poweroff  the server's guest powered off mid-stream, each way of waiting
  others    a 1 s and a 10 s cut of the server's link, the client's guest
            powered off under a probing server, a send never received
  loss      the write stream (RUNS writes) under each loss and delay, each
            library on both sides: writes per second
NET_FIGURES_RESULTS: a file that keeps the RESULT lines";

/// `cargo xtask net-figures BUILD-DIR WHAT RUNS [LIMIT]`
pub fn figures(root: &Path, args: &[String]) -> ExitCode {
    let (Some(build), Some(what), Some(Ok(runs))) = (
        args.first(),
        args.get(1),
        args.get(2).map(|r| r.parse::<u64>()),
    ) else {
        eprintln!("{FIGURES_USAGE}");
        return ExitCode::from(2);
    };
    let limit: u64 = args.get(3).and_then(|l| l.parse().ok()).unwrap_or(30);
    let results = std::env::var("NET_FIGURES_RESULTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            std::env::temp_dir().join(format!("net-figures.{}", std::process::id()))
        });
    // each case a run of `cargo xtask net` of its own, its output dropped:
    // a measurement, whose verdict is in the RESULT lines
    let measure = |times: u64, case: &str, writes: Option<u64>| {
        for _ in 0..times {
            let exe = std::env::current_exe().unwrap_or_else(|_| "xtask".into());
            let mut c = Command::new(exe);
            c.args(["net", build])
                .args(case.split(' '))
                .current_dir(root)
                .env("NET_PAIR_RESULTS", &results)
                .env("NET_PAIR_LIMIT", limit.to_string())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            if let Some(w) = writes {
                c.env("NET_PAIR_WRITES", w.to_string());
            }
            let _ = c.status();
        }
    };
    let header = |first: &str| {
        println!("| {first} | library | runs | learnt | detect s (min / median / max) | teardown s (max) | hangs (no news in {limit} s) |");
        println!("|---|---|---|---|---|---|---|");
    };
    let libs = ["ours", "ref"];
    let mut rows: Vec<(String, &str, String)> = Vec::new();
    match what.as_str() {
        "poweroff" => {
            let modes = ["busy", "wait", "poll", "conn-wait"];
            for lib in libs {
                for m in modes {
                    measure(runs, &format!("poweroff {m} {lib} 0"), None);
                }
            }
            header("waiting by");
            for lib in libs {
                for m in modes {
                    rows.push((
                        m.into(),
                        lib,
                        format!("poweroff lib={lib} RESULT mode={m} "),
                    ));
                }
            }
        }
        "others" => {
            for lib in libs {
                measure(runs, &format!("cut 1 busy {lib} 0"), None);
                measure(runs, &format!("cut 10 busy {lib} 0"), None);
                measure(runs, &format!("clientoff probe {lib} 0"), None);
                measure(runs, &format!("rnr {lib} {limit}"), None);
            }
            header("case");
            for lib in libs {
                for (label, prefix) in [
                    ("server's link cut for 1 s", format!("cut 1 lib={lib} ")),
                    ("server's link cut for 10 s", format!("cut 10 lib={lib} ")),
                    (
                        "client powered off, server probing",
                        format!("clientoff probe lib={lib} "),
                    ),
                    ("send, no receive posted", format!("rnr lib={lib} ")),
                ] {
                    rows.push((label.into(), lib, prefix));
                }
            }
        }
        "loss" => {
            // RUNS is the number of writes of the one run per cell
            let configs = [(0, 0), (1, 0), (5, 0), (0, 1), (0, 5), (1, 1), (5, 5)];
            for lib in libs {
                for (p, d) in configs {
                    measure(1, &format!("loss {p} {d} {lib} none"), Some(runs));
                }
            }
            let text = std::fs::read_to_string(&results).unwrap_or_default();
            let rate = |p: u32, d: u32, lib: &str| -> Option<f64> {
                let head = format!("loss {p} {d} lib={lib} RESULT");
                text.lines()
                    .filter(|l| l.starts_with(&head) && l.contains("how=none "))
                    .find_map(|l| {
                        let r = &l[l.find("writes_per_s=")? + 13..];
                        r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
                    })
            };
            let frac = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => format!("{:.2}", a / b),
                _ => "-".into(),
            };
            let show = |r: Option<f64>| r.map_or("failed".into(), |r| format!("{r}"));
            let (o0, r0) = (rate(0, 0, "ours"), rate(0, 0, "ref"));
            println!("| loss each way | delay each way | ours writes/s | of its clean link | C 1.2.0 writes/s | of its clean link |");
            println!("|---|---|---|---|---|---|");
            for (p, d) in configs {
                let (o, r) = (rate(p, d, "ours"), rate(p, d, "ref"));
                println!(
                    "| {p} % | {d} ms | {} | {} | {} | {} |",
                    show(o),
                    frac(o, o0),
                    show(r),
                    frac(r, r0)
                );
            }
        }
        _ => {
            eprintln!("{FIGURES_USAGE}");
            return ExitCode::from(2);
        }
    }
    let text = std::fs::read_to_string(&results).unwrap_or_default();
    for (label, lib, prefix) in &rows {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(prefix.as_str()))
            .collect();
        println!("{}", row(label, lib, &lines));
    }
    if std::env::var_os("NET_FIGURES_RESULTS").is_none() {
        let _ = std::fs::remove_file(&results);
    }
    ExitCode::SUCCESS
}
