//! The two rpma-bench servers of a guest run, one on our librpma and one on
//! Debian's, each checked to run on the library asked for; and the CPU
//! pinning every benchmark shares.

use super::proc::{code, command, out_file, read, wait_for, wait_listening};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// `taskset -c CPU` for the servers (1) and the clients (0), or nothing
/// with RPMA_BENCH_PIN=0 or a single CPU: the guest's two vCPUs then do not
/// trade a client and its server back and forth.
pub struct Pin {
    pub server: Vec<String>,
    pub client: Vec<String>,
}

impl Pin {
    pub fn new() -> Self {
        let on = std::env::var("RPMA_BENCH_PIN").unwrap_or_else(|_| "1".into()) == "1"
            && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
        let set = |cpu: &str| {
            if on {
                vec!["taskset".into(), "-c".into(), cpu.into()]
            } else {
                Vec::new()
            }
        };
        Pin {
            server: set("1"),
            client: set("0"),
        }
    }
}

/// One library: its librpma.so.0 (resolved, as /proc/PID/maps names it)
/// and its server's port.
#[derive(Clone)]
pub struct Lib {
    pub name: &'static str,
    pub path: PathBuf,
    pub port: u16,
}

impl Lib {
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("/"))
    }

    /// A command on this library, checked by rpma-bench itself
    /// (BENCH_EXPECT_LIB).
    pub fn env(&self, c: &mut Command) {
        c.env("LD_LIBRARY_PATH", self.dir())
            .env("BENCH_EXPECT_LIB", &self.path);
    }
}

/// Ours (RPMA_BENCH_OURS, default the tree's build/lib) and C
/// (RPMA_BENCH_C, default Debian's), ports 7471 and 7481.
pub fn libs(root: &Path) -> [Lib; 2] {
    let real = |var: &str, default: PathBuf| {
        let p = std::env::var_os(var).map_or(default, PathBuf::from);
        fs::canonicalize(&p).unwrap_or(p)
    };
    [
        Lib {
            name: "ours",
            path: real("RPMA_BENCH_OURS", root.join("build/lib/librpma.so.0")),
            port: 7471,
        },
        Lib {
            name: "c",
            path: real(
                "RPMA_BENCH_C",
                "/usr/lib/x86_64-linux-gnu/librpma.so.0".into(),
            ),
            port: 7481,
        },
    ]
}

pub struct Servers {
    who: &'static str,
    bin: PathBuf,
    ip: String,
    tmp: PathBuf,
    pub libs: [Lib; 2],
    running: Vec<(usize, Child)>,
}

impl Servers {
    /// Starts both servers and waits until they listen; an error when one
    /// does not, or maps another librpma.so.0 than asked (both are stopped).
    pub fn start(
        who: &'static str,
        bin: &Path,
        ip: &str,
        tmp: &Path,
        libs: [Lib; 2],
        pin: &Pin,
        env: &[(&str, String)],
    ) -> Result<Servers, String> {
        let mut s = Servers {
            who,
            bin: bin.to_path_buf(),
            ip: ip.to_string(),
            tmp: tmp.to_path_buf(),
            libs,
            running: Vec::new(),
        };
        for (i, l) in s.libs.iter().enumerate() {
            let (out, err) = out_file(&tmp.join(format!("server.{}", l.name)));
            let mut c = command(&pin.server, &bin.to_string_lossy());
            l.env(&mut c);
            c.envs(env.iter().map(|(k, v)| (*k, v)))
                .args(["server", ip, &l.port.to_string()])
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err);
            let child = c.spawn().map_err(|e| format!("{who}: {e}"))?;
            s.running.push((i, child));
        }
        for k in 0..s.running.len() {
            let (i, pid) = (s.running[k].0, s.running[k].1.id());
            let l = &s.libs[i];
            let log = s.log(l);
            if !wait_listening(&log, 300) {
                println!("{who}: the {} server did not start:", l.name);
                print!("{}", read(&log));
                return Err(format!("the {} server did not start", l.name));
            }
            let maps = read(Path::new(&format!("/proc/{pid}/maps")));
            let mut mapped: Vec<&str> = maps
                .split_whitespace()
                .filter(|w| w.starts_with('/') && w.contains("librpma.so"))
                .collect();
            mapped.sort();
            mapped.dedup();
            let mapped = mapped.join("\n");
            if Path::new(&mapped) != l.path {
                println!(
                    "{who}: the {} server maps '{mapped}', not {}",
                    l.name,
                    l.path.display()
                );
                return Err(format!("the {} server runs another library", l.name));
            }
            println!(
                "{who}: {} server pid {pid} on {mapped}, ports {}/{}",
                l.name,
                l.port,
                l.port + 1
            );
        }
        Ok(s)
    }

    fn log(&self, l: &Lib) -> PathBuf {
        self.tmp.join(format!("server.{}", l.name))
    }

    /// An error when a server has died.
    pub fn check(&mut self) -> Result<(), String> {
        for k in 0..self.running.len() {
            if let Ok(Some(_)) = self.running[k].1.try_wait() {
                let (i, _) = self.running.remove(k);
                let l = &self.libs[i];
                println!("{}: the {} server died:", self.who, l.name);
                print!("{}", read(&self.log(l)));
                return Err(format!("the {} server died", l.name));
            }
        }
        Ok(())
    }

    /// Asks both servers to quit, kills one that does not, and says how each
    /// ended.
    pub fn stop(&mut self) {
        for (i, mut child) in std::mem::take(&mut self.running) {
            let l = &self.libs[i];
            let quit = Command::new("timeout")
                .args(["60".as_ref(), self.bin.as_os_str()])
                .args(["quit", &self.ip, &l.port.to_string()])
                .env("LD_LIBRARY_PATH", l.dir())
                .stdin(Stdio::null())
                .status();
            if !quit.is_ok_and(|s| s.success()) {
                println!("{}: quit of the {} server failed", self.who, l.name);
            }
            if !wait_for(&mut child, 30) {
                println!(
                    "{}: the {} server did not stop; killing it",
                    self.who, l.name
                );
                let _ = child.kill();
            }
            let status = child.wait().map(code).unwrap_or(-1);
            println!("{}: {} server exit status {status}", self.who, l.name);
        }
    }
}

impl Drop for Servers {
    /// A run that ends early (a server died) still stops the other.
    fn drop(&mut self) {
        self.stop();
    }
}
