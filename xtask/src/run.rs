//! Runs the selected tests: host tests in a pool of workers, each guest
//! stack's tests in one boot of its guest, and reports each as it ends.

use crate::guest;
use crate::list::{Expect, Stack, Test};
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// The paths the placeholders of tests.toml stand for.
pub struct Paths {
    pub root: PathBuf,
    pub out: PathBuf,
}

impl Paths {
    /// `c12`: the folder of Debian 12's C library, for `{c12}` and, on
    /// Debian 13's siw, `{ref}` (guest::c12_lib).
    pub fn expand(&self, cmd: &str, stack: Stack, c12: Option<&Path>) -> String {
        let r = self.root.display().to_string();
        let build = format!("{r}/build/tests-c");
        let c12 = c12.map(|d| d.display().to_string());
        let reference = match (stack, &c12) {
            (Stack::TrixieSiw, Some(dir)) => dir.clone(),
            _ => format!("{build}/reference-lib"),
        };
        // the checks of `cargo xtask check`, run by this very executable so
        // that a test does not wait on cargo's lock
        let xtask = std::env::current_exe()
            .map_or_else(|_| "cargo xtask".to_string(), |p| p.display().to_string());
        cmd.replace("{xtask}", &xtask)
            .replace("{root}", &r)
            .replace("{build}", &build)
            .replace("{lib}", &format!("{r}/build/lib"))
            .replace("{ref}", &reference)
            .replace("{fault}", &format!("{r}/build/fault"))
            .replace("{rust}", &format!("{r}/build/rust"))
            .replace("{c12}", c12.as_deref().unwrap_or("{c12}"))
            .replace("{qemu-lock}", guest::QEMU_LOCK)
    }

    pub fn log(&self, t: &Test) -> PathBuf {
        self.out
            .join(t.stack.name())
            .join(format!("{}.log", t.name))
    }
}

pub struct Outcome {
    pub test: Test,
    pub passed: bool,
    pub secs: f64,
    pub note: String,
}

/// What a test's exit status means, given what is expected of it.
pub fn judge(t: &Test, rc: i32) -> (bool, String) {
    let how = match rc {
        0 => "passed".to_string(),
        124 => format!("timed out after {} s", t.timeout),
        -1 => "did not run".to_string(),
        n => format!("exit {n}"),
    };
    match &t.expect {
        Expect::Pass => (rc == 0, if rc == 0 { String::new() } else { how }),
        Expect::Fails(why) | Expect::Skip(why) if rc != 0 && rc != -1 => {
            (true, format!("known not to work here ({how}): {why}"))
        }
        Expect::Fails(_) | Expect::Skip(_) if rc == 0 => (
            false,
            "passed, but is known not to work here: its entry in tests.toml is stale".into(),
        ),
        _ => (false, how),
    }
}

pub struct Report {
    total: usize,
    done: Mutex<Vec<Outcome>>,
}

impl Report {
    pub fn new(total: usize) -> Self {
        Report {
            total,
            done: Mutex::new(Vec::new()),
        }
    }

    pub fn add(&self, o: Outcome) {
        let mut done = self.done.lock().unwrap();
        let mark = if !o.passed {
            "FAIL"
        } else if matches!(o.test.expect, Expect::Pass) {
            "PASS"
        } else {
            "PASS*"
        };
        let note = if o.note.is_empty() {
            String::new()
        } else {
            format!("  {}", o.note)
        };
        println!(
            "[{:>3}/{}] {mark:<5} {:<12} {} ({:.1} s){note}",
            done.len() + 1,
            self.total,
            o.test.stack,
            o.test.name,
            o.secs
        );
        let _ = std::io::stdout().flush();
        done.push(o);
    }

    pub fn finish(self, paths: &Paths) -> bool {
        const FAILURE_TAIL: usize = 15;
        let done = self.done.into_inner().unwrap();
        let failed: Vec<&Outcome> = done.iter().filter(|o| !o.passed).collect();
        let _ = fs::write(paths.out.join("junit.xml"), crate::junit::xml(&done, paths));
        println!();
        for o in &failed {
            println!(
                "FAIL {} {}: {} (log: {})",
                o.test.stack,
                o.test.name,
                o.note,
                paths.log(&o.test).display()
            );
        }
        if let Some(first) = failed.first() {
            // CI shows only the end of a run's output: the first failure's
            // own last lines go there, so that it can be read without its log
            let log = fs::read_to_string(paths.log(&first.test)).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            println!("\nthe end of {}'s log:", first.test.name);
            for l in &lines[lines.len().saturating_sub(FAILURE_TAIL)..] {
                println!("  | {l}");
            }
            println!();
        }
        println!("JUnit: {}", paths.out.join("junit.xml").display());
        println!(
            "{} passed, {} failed",
            done.len() - failed.len(),
            failed.len()
        );
        failed.is_empty()
    }
}

/// The guests are the chain a run waits for, and they keep both cores busy
/// while they boot and test: a host test (or build) that runs beside them
/// takes what they leave rather than slowing them down. (A run with the
/// host's tests at the guests' priority: 1850 s, the Debian 12 guest 927 s
/// of it; README.md has the figures at this priority.)
const NICE: [&str; 3] = ["nice", "-n", "10"];

/// Runs one host test, its output in its log.
fn run_host(t: &Test, paths: &Paths) -> Outcome {
    let log = paths.log(t);
    let start = Instant::now();
    let cmd = paths.expand(&t.cmd, t.stack, None);
    let limit = t.timeout.to_string();
    let mut argv = vec!["timeout", "-k", "10", &limit, "bash", "-c", &cmd];
    let qemu = t.lock.as_deref() == Some("qemu");
    if qemu {
        // one QEMU guest at a time on this machine, whoever starts it; the
        // wait for it is not the test's time. RPMA_QEMU_LOCKED tells a
        // command that takes the lock itself (`cargo xtask pkg autopkgtest`)
        // that it is held.
        argv.splice(0..0, ["flock", guest::QEMU_LOCK]);
    } else {
        argv.splice(0..0, NICE);
    }
    let rc = match fs::File::create(&log) {
        Ok(f) => {
            let err = f.try_clone();
            let status = err.map_err(|e| e.to_string()).and_then(|err| {
                Command::new(argv[0])
                    .args(&argv[1..])
                    .env("RPMA_QEMU_LOCKED", if qemu { "1" } else { "" })
                    .current_dir(&paths.root)
                    .stdin(Stdio::null())
                    .stdout(f)
                    .stderr(err)
                    .status()
                    .map_err(|e| e.to_string())
            });
            match status {
                Ok(s) => s.code().unwrap_or(128),
                Err(e) => {
                    let _ = fs::write(&log, format!("could not start: {e}\n"));
                    -1
                }
            }
        }
        Err(_) => -1,
    };
    let (passed, note) = judge(t, rc);
    Outcome {
        test: t.clone(),
        passed,
        secs: start.elapsed().as_secs_f64(),
        note,
    }
}

/// Make targets that no test of Debian 12's guests needs: when such a
/// guest runs, they are built beside it rather than before it.
pub const LATER: [&str; 2] = ["trixie-root", "deb"];

/// The make targets a test needs first.
pub fn needs(t: &Test) -> Vec<&str> {
    let root = (t.stack.release() == "trixie" && t.stack != Stack::Host).then_some("trixie-root");
    t.build.iter().map(String::as_str).chain(root).collect()
}

enum Job {
    Host(Test),
    Guest(Stack, Vec<Test>),
    Build(Vec<String>),
}

impl Job {
    fn lock(&self) -> Option<&str> {
        match self {
            Job::Host(t) => t.lock.as_deref(),
            Job::Guest(..) => Some("qemu"),
            Job::Build(_) => None,
        }
    }

    fn needs(&self) -> Vec<&str> {
        match self {
            Job::Host(t) => needs(t),
            Job::Guest(_, ts) => ts.iter().flat_map(needs).collect(),
            Job::Build(_) => Vec::new(),
        }
    }

    fn tests(self) -> Vec<Test> {
        match self {
            Job::Host(t) => vec![t],
            Job::Guest(_, ts) => ts,
            Job::Build(_) => Vec::new(),
        }
    }
}

/// Runs `make TARGETS` as a job, its output in build/xtask/host/make.log.
fn run_make(targets: &[String], paths: &Paths) -> bool {
    let log = paths.out.join("host/make.log");
    let start = Instant::now();
    let ok = fs::File::create(&log).is_ok_and(|f| {
        f.try_clone().is_ok_and(|err| {
            Command::new(NICE[0])
                .args(&NICE[1..])
                .args(["make", "--no-print-directory"])
                .args(targets)
                .current_dir(&paths.root)
                .stdin(Stdio::null())
                .stdout(f)
                .stderr(err)
                .status()
                .is_ok_and(|s| s.success())
        })
    });
    println!(
        "xtask: make {} beside the first guest: {} in {:.0} s (log: {})",
        targets.join(" "),
        if ok { "built" } else { "FAILED" },
        start.elapsed().as_secs_f64(),
        log.display()
    );
    ok
}

/// The queue of jobs: what is left, the locks held, the make targets not
/// built yet, and whether building them failed.
struct Queue {
    jobs: Vec<Job>,
    held: BTreeSet<String>,
    unbuilt: BTreeSet<String>,
    build_failed: bool,
}

/// Runs `tests` with `workers` jobs at once, `later` built beside the first
/// guest (LATER); true when all passed.
pub fn run(tests: Vec<Test>, paths: &Paths, workers: usize, later: Vec<String>) -> bool {
    for st in Stack::ALL {
        fs::create_dir_all(paths.out.join(st.name())).expect("the runner's output folder");
    }
    let report = Report::new(tests.len());
    // the guests are the longest chain: they start first, the host's tests beside them
    let mut jobs: Vec<Job> = Vec::new();
    let stacks: BTreeSet<Stack> = tests
        .iter()
        .map(|t| t.stack)
        .filter(|s| *s != Stack::Host)
        .collect();
    for st in stacks {
        jobs.push(Job::Guest(
            st,
            tests.iter().filter(|t| t.stack == st).cloned().collect(),
        ));
    }
    if !later.is_empty() {
        jobs.push(Job::Build(later.clone()));
    }
    let (qemu, rest): (Vec<Test>, Vec<Test>) = tests
        .into_iter()
        .filter(|t| t.stack == Stack::Host)
        .partition(|t| t.lock.as_deref() == Some("qemu"));
    jobs.extend(qemu.into_iter().map(Job::Host));
    jobs.extend(rest.into_iter().map(Job::Host));
    let queue = Mutex::new(Queue {
        jobs,
        held: BTreeSet::new(),
        unbuilt: later.into_iter().collect(),
        build_failed: false,
    });
    let wake = Condvar::new();
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| loop {
                let job = {
                    let mut q = queue.lock().unwrap();
                    loop {
                        if q.jobs.is_empty() {
                            return;
                        }
                        let Queue {
                            jobs,
                            held,
                            unbuilt,
                            ..
                        } = &mut *q;
                        if let Some(i) = jobs.iter().position(|j| {
                            j.lock().is_none_or(|l| !held.contains(l))
                                && j.needs().iter().all(|n| !unbuilt.contains(*n))
                        }) {
                            let job = jobs.remove(i);
                            if let Some(l) = job.lock() {
                                held.insert(l.to_string());
                            }
                            break job;
                        }
                        q = wake.wait(q).unwrap();
                    }
                };
                let lock = job.lock().map(str::to_string);
                let unbuilt = queue.lock().unwrap().build_failed
                    && job.needs().iter().any(|n| LATER.contains(n));
                match job {
                    _ if unbuilt => {
                        for test in job.tests() {
                            report.add(Outcome {
                                test,
                                passed: false,
                                secs: 0.0,
                                note: "did not run: its build failed (build/xtask/host/make.log)"
                                    .into(),
                            });
                        }
                    }
                    Job::Host(t) => report.add(run_host(&t, paths)),
                    Job::Guest(st, ts) => guest::run(st, &ts, paths, &report),
                    Job::Build(targets) => {
                        let ok = run_make(&targets, paths);
                        let mut q = queue.lock().unwrap();
                        q.unbuilt.clear();
                        q.build_failed = !ok;
                    }
                }
                if let Some(l) = lock {
                    queue.lock().unwrap().held.remove(&l);
                }
                wake.notify_all();
            });
        }
    });
    report.finish(paths)
}
