//! tests.toml, read and expanded: one `Test` per test and stack.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::Path;

/// Where a test runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stack {
    Host,
    Bookworm,
    Trixie,
    BookwormSiw,
    TrixieSiw,
}

impl Stack {
    pub const ALL: [Stack; 5] = [
        Stack::Host,
        Stack::Bookworm,
        Stack::Trixie,
        Stack::BookwormSiw,
        Stack::TrixieSiw,
    ];
    const GUESTS: [Stack; 4] = [
        Stack::Bookworm,
        Stack::Trixie,
        Stack::BookwormSiw,
        Stack::TrixieSiw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stack::Host => "host",
            Stack::Bookworm => "bookworm",
            Stack::Trixie => "trixie",
            Stack::BookwormSiw => "bookworm-siw",
            Stack::TrixieSiw => "trixie-siw",
        }
    }

    pub fn parse(s: &str) -> Result<Vec<Stack>, String> {
        match s {
            "all" => Ok(Stack::ALL.to_vec()),
            "siw" => Ok(vec![Stack::BookwormSiw, Stack::TrixieSiw]),
            "rxe" => Ok(vec![Stack::Bookworm, Stack::Trixie]),
            _ => Stack::ALL
                .into_iter()
                .find(|st| st.name() == s)
                .map(|st| vec![st])
                .ok_or_else(|| format!("unknown stack {s:?} (host, bookworm, trixie, bookworm-siw, trixie-siw, rxe, siw, all)")),
        }
    }

    pub fn is_siw(self) -> bool {
        matches!(self, Stack::BookwormSiw | Stack::TrixieSiw)
    }

    /// The Debian release of a guest's userland and kernel.
    pub fn release(self) -> &'static str {
        match self {
            Stack::Trixie | Stack::TrixieSiw => "trixie",
            _ => "bookworm",
        }
    }
}

impl fmt::Display for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a test is expected to do on its stack, where that is not "passes".
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Pass,
    /// it must fail (a pass means the entry is stale)
    Fails(String),
    /// its subject is what this transport cannot do: probed briefly, it must not pass
    Skip(String),
}

/// One test on one stack, ready to run.
#[derive(Clone, Debug)]
pub struct Test {
    pub name: String,
    pub stack: Stack,
    pub suite: String,
    /// a shell command, run from the tree's root
    pub cmd: String,
    pub timeout: u64,
    /// the guest's slow lane: one at a time (valgrind, fault sweeps)
    pub slow: bool,
    /// its memory in RAM even where the guest has persistent memory
    pub ram: bool,
    pub lock: Option<String>,
    pub expect: Expect,
    /// the libraries it runs: "ours", "ref", "rust", "fault"
    pub libs: Vec<&'static str>,
    pub page: Option<String>,
    /// the make targets it needs built first
    pub build: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    test: Vec<Plain>,
    #[serde(default, rename = "fault-sweep")]
    fault_sweep: Vec<FaultSweep>,
    sweep: Option<Sweep>,
    #[serde(default, rename = "rust-example")]
    rust_example: Vec<RustExample>,
    examples: ExampleDefaults,
    #[serde(default)]
    example: Vec<Example>,
    api: Api,
    #[serde(default)]
    live: Vec<Live>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Plain {
    name: String,
    run: String,
    on: Option<Vec<String>>,
    suite: Option<String>,
    timeout: Option<u64>,
    lock: Option<String>,
    page: Option<String>,
    build: Option<Vec<String>>,
    /// in a guest with persistent memory, run in RAM (the test binds its
    /// memory itself)
    #[serde(default)]
    ram: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultSweep {
    pair: String,
    side: String,
    stride: Option<u64>,
    last: Option<u64>,
}

/// The whole fault-injection sweep: every example pair and variant, each
/// side, every point (suite "sweep").
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Sweep {
    valgrind_every: u32,
    max_points: u32,
    timeout: u64,
    /// arguments of the pairs that run smaller, by pair
    args: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RustExample {
    name: String,
    interop: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ExampleDefaults {
    pairings: Vec<String>,
    debian_built: Vec<String>,
    valgrind: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Example {
    name: String,
    pairings: Option<Vec<String>>,
    debian_built: Option<Vec<String>>,
    valgrind: Option<Vec<String>>,
    #[serde(default)]
    known: Vec<Known>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Api {
    tests: Vec<ApiTest>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiTest {
    name: String,
    page: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Live {
    /// DIR/NAME: tests-c/live/DIR/NAME.c
    name: String,
    page: Option<String>,
    #[serde(default)]
    helgrind: bool,
    #[serde(default)]
    emulated: bool,
    #[serde(default)]
    ram: bool,
    env: Option<String>,
    wrap: Option<String>,
    #[serde(default)]
    known: Vec<Known>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Known {
    on: Vec<String>,
    expect: String,
    /// which run of a live test: "" (the differential one), emulated, helgrind, ram
    #[serde(default)]
    run: String,
    env: Option<String>,
    why: String,
}

/// Quotes a word for the shell.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn stacks(names: &[String], what: &str) -> Result<Vec<Stack>, String> {
    let mut out = Vec::new();
    for n in names {
        out.extend(Stack::parse(n).map_err(|e| format!("{what}: {e}"))?);
    }
    Ok(out)
}

/// Applies a `known` entry to a command: the environment that `xtask inside diff`
/// reads, or the expectation the runner checks.
fn apply_known(
    k: &Known,
    cmd: &mut String,
    expect: &mut Expect,
    timeout: &mut u64,
) -> Result<(), String> {
    match k.expect.as_str() {
        "ref-fails" => {
            let ours = k
                .env
                .as_deref()
                .map(|e| format!(" RUN_DIFF_OURS_ENV={}", sh_quote(e)))
                .unwrap_or_default();
            *cmd = format!("env RUN_DIFF_REF_FAILS={}{ours} {cmd}", sh_quote(&k.why));
        }
        "both-fail" => *cmd = format!("env RUN_DIFF_BOTH_FAIL={} {cmd}", sh_quote(&k.why)),
        "env" => {
            let env = k.env.as_deref().ok_or("expect = \"env\" needs env")?;
            *cmd = format!("env {env} {cmd}");
        }
        "fails" => *expect = Expect::Fails(k.why.clone()),
        "skip" => {
            *expect = Expect::Skip(k.why.clone());
            *timeout = 30;
        }
        other => return Err(format!("unknown expect {other:?}")),
    }
    Ok(())
}

struct Expander<'a> {
    root: &'a Path,
    seed: u64,
    out: Vec<Test>,
}

impl Expander<'_> {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        name: String,
        stacks: &[Stack],
        cmd: &str,
        libs: &[&'static str],
        page: Option<&str>,
        known: &[&Known],
        run: &str,
    ) -> Result<(), String> {
        for &stack in stacks {
            let mut t = Test {
                name: name.clone(),
                stack,
                suite: if stack.is_siw() { "siw" } else { "check" }.into(),
                cmd: cmd.to_string(),
                timeout: if stack == Stack::Host {
                    300
                } else if stack.is_siw() {
                    120
                } else {
                    180
                },
                slow: false,
                ram: false,
                lock: None,
                expect: Expect::Pass,
                libs: libs.to_vec(),
                page: page.map(str::to_string),
                build: vec!["tests-c-build".to_string()],
            };
            for k in known.iter().filter(|k| k.run == run) {
                if stacks_of(k)?.contains(&stack) {
                    apply_known(k, &mut t.cmd, &mut t.expect, &mut t.timeout)
                        .map_err(|e| format!("{name}: {e}"))?;
                }
            }
            self.out.push(t);
        }
        Ok(())
    }

    fn plain(&mut self, p: &Plain) -> Result<(), String> {
        let on = match &p.on {
            Some(on) => stacks(on, &p.name)?,
            None => vec![Stack::Host],
        };
        let start = self.out.len();
        let libs: &[&str] = if p.run.contains("{ref}") {
            &["ours", "ref"]
        } else {
            &["ours"]
        };
        self.add(
            p.name.clone(),
            &on,
            &p.run,
            libs,
            p.page.as_deref(),
            &[],
            "",
        )?;
        for t in &mut self.out[start..] {
            if let Some(s) = &p.suite {
                t.suite = s.clone();
            }
            if let Some(n) = p.timeout {
                t.timeout = n;
            }
            t.lock = p.lock.clone();
            t.ram = p.ram;
            if let Some(b) = &p.build {
                t.build = b.clone();
            }
        }
        Ok(())
    }

    fn live(&mut self, l: &Live) -> Result<(), String> {
        let (dir, stem) = l
            .name
            .split_once('/')
            .ok_or_else(|| format!("live {}: name is DIR/NAME", l.name))?;
        if !self
            .root
            .join(format!("tests-c/live/{dir}/{stem}.c"))
            .is_file()
        {
            return Err(format!("live {}: no tests-c/live/{dir}/{stem}.c", l.name));
        }
        let bin = format!("{{build}}/live_{stem}");
        let known: Vec<&Known> = l.known.iter().collect();
        let page = l.page.as_deref();
        let mut diff = format!("{{xtask}} inside diff {bin} {{lib}} {{ref}}");
        if let Some(w) = &l.wrap {
            diff = format!("{w} {diff}");
        }
        if let Some(e) = &l.env {
            diff = format!("env {e} {diff}");
        }
        let name = format!("live.{stem}");
        self.add(
            name.clone(),
            &Stack::GUESTS,
            &diff,
            &["ours", "ref"],
            page,
            &known,
            "",
        )?;
        let ours = "env LD_LIBRARY_PATH={lib} RPMA_TEST_EXPECT_LIB={lib}/librpma.so.0";
        if l.helgrind {
            let cmd = format!("{ours} RPMA_THREADS_ROUNDS=20 valgrind -q --tool=helgrind --error-exitcode=99 --suppressions=tests-c/valgrind/helgrind.supp {bin}");
            self.add(
                format!("{name}.helgrind"),
                &[Stack::Bookworm],
                &cmd,
                &["ours"],
                page,
                &known,
                "helgrind",
            )?;
        }
        if l.emulated {
            let cmd = format!("{ours} RPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0 {bin}");
            self.add(
                format!("{name}.emulated"),
                &Stack::GUESTS,
                &cmd,
                &["ours"],
                page,
                &known,
                "emulated",
            )?;
        }
        if l.ram {
            let start = self.out.len();
            self.add(
                format!("ram.{name}"),
                &[Stack::Trixie],
                &diff,
                &["ours", "ref"],
                page,
                &known,
                "ram",
            )?;
            self.out[start].ram = true;
        }
        Ok(())
    }

    fn example(
        &mut self,
        e: &Example,
        d: &ExampleDefaults,
        valgrind_count: &mut u64,
    ) -> Result<(), String> {
        let dir = self.root.join("examples").join(&e.name);
        if !dir.join("server.c").is_file() || !dir.join("client.c").is_file() {
            return Err(format!(
                "example {}: no examples/{}/server.c and client.c",
                e.name, e.name
            ));
        }
        let mut runs = vec![(e.name.clone(), String::new())];
        if let Ok(text) = fs::read_to_string(dir.join("variants")) {
            for line in text
                .lines()
                .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
            {
                let (v, args) = line.split_once(' ').unwrap_or((line, ""));
                runs.push((format!("{}-{v}", e.name), format!(" {}", args.trim())));
            }
        }
        let pairings = stacks(e.pairings.as_ref().unwrap_or(&d.pairings), &e.name)?;
        let debian = stacks(e.debian_built.as_ref().unwrap_or(&d.debian_built), &e.name)?;
        let valgrind = stacks(e.valgrind.as_ref().unwrap_or(&d.valgrind), &e.name)?;
        let known: Vec<&Known> = e.known.iter().collect();
        let bin = |role: &str| format!("{{build}}/example_{}_{role}", e.name);
        let lib = |l: &str| {
            if l == "ours" {
                "{lib}/librpma.so.0"
            } else {
                "{ref}/librpma.so.0"
            }
        };
        for (run, args) in &runs {
            for s in ["ours", "ref"] {
                for c in ["ours", "ref"] {
                    let cmd = format!(
                        "tests-c/scripts/run-pair.sh {} {} {} {}{args}",
                        lib(s),
                        bin("server"),
                        lib(c),
                        bin("client")
                    );
                    let libs: &[&str] = if s == c {
                        &[if s == "ours" { "ours" } else { "ref" }]
                    } else {
                        &["ours", "ref"]
                    };
                    self.add(
                        format!("example.{run}.server-{s}.client-{c}"),
                        &pairings,
                        &cmd,
                        libs,
                        None,
                        &known,
                        "",
                    )?;
                }
            }
            // memcheck doubles a side's cost in the guest: each run checks
            // one side, and the commit's seed swaps the halves
            *valgrind_count += 1;
            let side = ["server", "client"][((self.seed + *valgrind_count) % 2) as usize];
            let ours_pair = |env: String, suffix: &str| {
                let (s, c, l) = (bin("server"), bin("client"), lib("ours"));
                format!(
                    "env {env} tests-c/scripts/run-pair.sh {l} {s}{suffix} {l} {c}{suffix}{args}"
                )
            };
            let valgrind_env = format!("RUN_PAIR_TIMEOUT=150 RUN_PAIR_VALGRIND=tests-c/valgrind/rdma-core.supp RUN_PAIR_VALGRIND_SIDE={side}");
            let ours_only = [
                (
                    "debian-built",
                    &debian,
                    ours_pair("RUN_PAIR_PRELOAD=client".into(), "_debian"),
                    false,
                ),
                ("valgrind", &valgrind, ours_pair(valgrind_env, ""), true),
            ];
            for (how, stacks, cmd, slow) in ours_only {
                let start = self.out.len();
                self.add(
                    format!("example.{run}.{how}"),
                    stacks,
                    &cmd,
                    &["ours"],
                    None,
                    &known,
                    "",
                )?;
                self.out[start..].iter_mut().for_each(|t| t.slow = slow);
            }
        }
        Ok(())
    }

    fn rust_example(&mut self, r: &RustExample) -> Result<(), String> {
        let bin = format!("{{rust}}/examples/{}", r.name);
        let rxe = [Stack::Bookworm, Stack::Trixie];
        let pair = "tests-c/scripts/run-pair.sh";
        self.add(
            format!("rust-example.{}", r.name),
            &rxe,
            &format!("{pair} rust {bin} rust {bin}"),
            &["rust"],
            None,
            &[],
            "",
        )?;
        if let Some(c) = &r.interop {
            let reference = "{ref}/librpma.so.0";
            let runs = [
                (
                    "server-ref.client-rust",
                    format!("{reference} {{build}}/example_{c}_server rust {bin}"),
                ),
                (
                    "server-rust.client-ref",
                    format!("rust {bin} {reference} {{build}}/example_{c}_client"),
                ),
            ];
            for (how, sides) in runs {
                let name = format!("rust-example.{}.{how}", r.name);
                self.add(
                    name,
                    &rxe,
                    &format!("{pair} {sides}"),
                    &["ref", "rust"],
                    None,
                    &[],
                    "",
                )?;
            }
        }
        Ok(())
    }

    /// The sweep's tests: `sweep.PAIR.SIDE[.VARIANT]`, the pairs that
    /// loop (those with `args`) last, so the short ones report first.
    fn sweep(&mut self, root: &Path, sw: &Sweep) -> Result<(), String> {
        let mut pairs: Vec<String> = fs::read_dir(root.join("examples"))
            .map_err(|e| format!("examples: {e}"))?
            .flatten()
            .filter(|e| e.path().join("server.c").is_file() && e.path().join("client.c").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        pairs.sort_by_key(|p| (sw.args.contains_key(p), p.clone()));
        for pair in &pairs {
            let size = sw.args.get(pair).map_or("", String::as_str);
            // a `variants` file: "NAME ARG..." a line
            let variants = fs::read_to_string(root.join("examples").join(pair).join("variants"))
                .unwrap_or_default();
            let mut runs = vec![(String::new(), String::new())];
            for line in variants
                .lines()
                .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
            {
                let (name, args) = line.split_once(' ').unwrap_or((line, ""));
                runs.push((format!(".{name}"), args.trim().to_string()));
            }
            for side in ["server", "client"] {
                for (suffix, args) in &runs {
                    let cmd = sweep_cmd(
                        &format!(
                            "FAULT_MAX_POINTS={} FAULT_VALGRIND_EVERY={}",
                            sw.max_points, sw.valgrind_every
                        ),
                        &format!("{pair} {side} {args} {size}"),
                    );
                    self.add_sweep(format!("sweep.{pair}.{side}{suffix}"), &cmd, |t| {
                        t.suite = "sweep".into();
                        t.timeout = sw.timeout;
                    })?;
                }
            }
        }
        Ok(())
    }

    fn fault_sweep(&mut self, f: &FaultSweep) -> Result<(), String> {
        // a stride's sample starts at a call that moves with the commit, so
        // successive commits cover the calls one run skips
        let points = match f.stride {
            Some(stride) => {
                let first = 1 + self.seed % stride;
                let last = f.last.unwrap_or(400);
                let pts: String = (first..=last)
                    .step_by(stride as usize)
                    .map(|p| format!("{p},"))
                    .collect();
                format!("FAULT_POINTS={pts} ")
            }
            None => String::new(),
        };
        let cmd = sweep_cmd(
            &format!("{points}FAULT_VALGRIND_EVERY=15"),
            &format!("{} {}", f.pair, f.side),
        );
        self.add_sweep(format!("fault.{}.{}", f.pair, f.side), &cmd, |t| {
            t.slow = true;
            t.timeout = 900;
        })
    }

    /// A fault-injection sweep on Debian 12's guest, `adjust` applied to it.
    fn add_sweep(
        &mut self,
        name: String,
        cmd: &str,
        adjust: impl Fn(&mut Test),
    ) -> Result<(), String> {
        let start = self.out.len();
        self.add(name, &[Stack::Bookworm], cmd, &["fault"], None, &[], "")?;
        self.out[start..].iter_mut().for_each(adjust);
        Ok(())
    }
}

/// `xtask inside sweep` with `args`, its settings `env` (the
/// points and the valgrind stride) before those every sweep shares.
fn sweep_cmd(env: &str, args: &str) -> String {
    format!(
        "env {env} FAULT_LIB={{fault}}/librpma.so.0 PLAIN_LIB={{lib}}/librpma.so.0 BIN_DIR={{build}} FAULT_TIMEOUT=60 FAULT_SUPP=tests-c/valgrind/rdma-core.supp {{xtask}} inside sweep {}",
        args.trim_end()
    )
}

fn stacks_of(k: &Known) -> Result<Vec<Stack>, String> {
    stacks(&k.on, "known")
}

/// Every source file under `dir` (relative to root) with extension .c, as
/// paths relative to `dir` without the extension.
fn sources(root: &Path, dir: &str, depth: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Ok(entries) = fs::read_dir(root.join(dir)) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() && depth > 0 && name != "include" {
            for s in sources(root, &format!("{dir}/{name}"), depth - 1) {
                out.insert(format!("{name}/{s}"));
            }
        } else if let Some(stem) = name.strip_suffix(".c") {
            out.insert(stem.to_string());
        }
    }
    out
}

/// Reads ROOT/tests.toml and expands it; `seed` moves the sampled parts.
pub fn load(root: &Path, seed: u64) -> Result<Vec<Test>, String> {
    let path = root.join("tests.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut x = Expander {
        root,
        seed,
        out: Vec::new(),
    };
    // a source file without an entry would be a test nobody runs
    let registered: BTreeSet<String> = file.api.tests.iter().map(|a| a.name.clone()).collect();
    if let Some(s) = sources(root, "tests-c/api", 0)
        .difference(&registered)
        .next()
    {
        return Err(format!(
            "tests-c/api/{s}.c has no entry in tests.toml's [api]"
        ));
    }
    let registered: BTreeSet<String> = file.live.iter().map(|l| l.name.clone()).collect();
    if let Some(s) = sources(root, "tests-c/live", 1)
        .difference(&registered)
        .next()
    {
        return Err(format!(
            "tests-c/live/{s}.c has no [[live]] entry in tests.toml"
        ));
    }
    for e in fs::read_dir(root.join("examples"))
        .map_err(|e| format!("examples: {e}"))?
        .flatten()
    {
        let n = e.file_name().to_string_lossy().into_owned();
        if e.path().join("server.c").is_file() && !file.example.iter().any(|x| x.name == n) {
            return Err(format!(
                "examples/{n} has no [[example]] entry in tests.toml"
            ));
        }
    }
    for p in &file.test {
        x.plain(p)?;
    }
    for a in &file.api.tests {
        if !root.join(format!("tests-c/api/{}.c", a.name)).is_file() {
            return Err(format!("api {}: no tests-c/api/{}.c", a.name, a.name));
        }
        let cmd = format!("{{xtask}} inside diff {{build}}/{} {{lib}} {{ref}}", a.name);
        x.add(
            format!("api.{}", a.name),
            &[Stack::Host],
            &cmd,
            &["ours", "ref"],
            Some(&a.page),
            &[],
            "",
        )?;
    }
    for l in &file.live {
        x.live(l)?;
    }
    let mut count = 0;
    for e in &file.example {
        x.example(e, &file.examples, &mut count)?;
    }
    for r in &file.rust_example {
        x.rust_example(r)?;
    }
    for f in &file.fault_sweep {
        x.fault_sweep(f)?;
    }
    if let Some(sw) = &file.sweep {
        x.sweep(root, sw)?;
    }
    let mut seen = BTreeSet::new();
    for t in &x.out {
        if !seen.insert((t.name.as_str(), t.stack)) {
            return Err(format!("{} on {} is registered twice", t.name, t.stack));
        }
    }
    Ok(x.out)
}
