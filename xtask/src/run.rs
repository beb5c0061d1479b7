//! Runs the selected tests: host tests in a pool of workers, each guest
//! stack's tests in one boot of its guest, and reports each as it ends.

use crate::guest;
use crate::list::{Stack, Test};
use crate::outcome::{judge, Outcome, Paths, Report, QEMU_LOCK};
use std::collections::BTreeSet;
use std::fs;
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// The guests are the chain a run waits for, and they keep both cores busy
/// while they boot and test: a host test (or build) that runs beside them
/// takes what they leave rather than slowing them down. (A run with the
/// host's tests at the guests' priority: 1850 s, the Debian 12 guest 927 s
/// of it; docs/testing.md has the figures at this priority.)
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
        argv.splice(0..0, ["flock", QEMU_LOCK]);
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
