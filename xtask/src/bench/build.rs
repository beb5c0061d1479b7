//! The benchmark programs: rpma-bench, linked against build/lib's
//! librpma.so.0 by its SONAME so that which library serves a run is chosen
//! at run time (LD_LIBRARY_PATH), never at link time; and the raw-verbs
//! contender verbs-bench beside it.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const HELP: &str = "\
cargo xtask bench build

Builds bench/rpma-bench.c and bench/verbs-bench.c into $BENCH_BUILD_DIR
(default build/bench), as the other bench commands do before they boot the
guest. VERBS_HEADERS_ROOT=DIR builds verbs-bench against the rdma-core
headers of the root DIR (DIR/usr/include/{infiniband,rdma}) with native
flush; RXE_STACK=trixie takes the Debian 13 root of softroce/stack-root.";

/// The tree and the folder the benchmark builds into.
pub struct Tree {
    pub root: PathBuf,
    pub build: PathBuf,
}

impl Tree {
    pub fn new() -> Tree {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask/ is in the tree")
            .to_path_buf();
        let build = std::env::var_os("BENCH_BUILD_DIR")
            .map_or_else(|| root.join("build/bench"), PathBuf::from);
        Tree { root, build }
    }

    pub fn bin(&self) -> PathBuf {
        self.build.join("rpma-bench")
    }
}

/// The Rust API's client (crates/rpma/benches/rpma_bench.rs) beside
/// rpma-bench: `bin`'s folder, `rpma-bench-rs`.
pub fn rust_bin(bin: &Path) -> PathBuf {
    bin.with_file_name("rpma-bench-rs")
}

/// Builds the Rust API's client as cargo bench builds it (the release
/// profile) and copies it beside rpma-bench.
fn build_rust(t: &Tree) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["bench", "-p", "rpma", "--bench", "rpma_bench", "--no-run"])
        .current_dir(&t.root)
        .output()
        .map_err(|e| format!("cargo bench: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    let exe = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Executable benches/rpma_bench.rs ("))
        .and_then(|l| l.strip_suffix(')'))
        .filter(|_| out.status.success())
        .ok_or_else(|| format!("cargo bench --no-run failed:\n{text}"))?;
    let dst = rust_bin(&t.bin());
    fs::copy(t.root.join(exe), &dst).map_err(|e| format!("{}: {e}", dst.display()))?;
    Ok(())
}

pub fn host() -> Result<u8, String> {
    let t = Tree::new();
    fs::create_dir_all(&t.build).map_err(|e| format!("{}: {e}", t.build.display()))?;
    build(&t, stack_headers(&t, true)?.as_deref())?;
    println!("built {} and verbs-bench beside it", t.bin().display());
    Ok(0)
}

/// Where verbs-bench takes its rdma-core headers: VERBS_HEADERS_ROOT, else
/// with `trixie_root` on RXE_STACK=trixie the Debian 13 root (its rdma-core
/// has native flush), else the host's.
pub fn stack_headers(t: &Tree, trixie_root: bool) -> Result<Option<PathBuf>, String> {
    if let Some(d) = std::env::var_os("VERBS_HEADERS_ROOT").filter(|d| !d.is_empty()) {
        return Ok(Some(d.into()));
    }
    if !trixie_root || !is_trixie() {
        return Ok(None);
    }
    let out = Command::new(t.root.join("softroce/stack-root"))
        .arg("trixie")
        .output()
        .map_err(|e| format!("softroce/stack-root: {e}"))?;
    if !out.status.success() {
        return Err("no Debian 13 root (softroce/stack-root trixie)".into());
    }
    Ok(Some(String::from_utf8_lossy(&out.stdout).trim().into()))
}

pub fn is_trixie() -> bool {
    std::env::var("RXE_STACK").is_ok_and(|s| s == "trixie")
}

fn gcc(args: &[&str]) -> Result<(), String> {
    let ok = Command::new("gcc")
        .args(["-O2", "-g", "-Wall", "-Wextra", "-Werror"])
        .args(args)
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        Err(format!("gcc {} failed", args.join(" ")))
    }
}

pub fn build(t: &Tree, headers: Option<&Path>) -> Result<(), String> {
    // ours, which the link finds and the runs name: a fresh tree has none
    // yet, and the link would take the system's C library instead
    let made = Command::new("make")
        .args(["--no-print-directory", "lib"])
        .current_dir(&t.root)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        return Err("make lib failed".into());
    }
    let bench = t.root.join("bench");
    let (out, src) = (t.bin(), bench.join("rpma-bench.c"));
    gcc(&[
        &format!("-I{}", t.root.join("include").display()),
        &src.to_string_lossy(),
        &format!("-L{}", t.root.join("build/lib").display()),
        "-l:librpma.so.0",
        "-o",
        &out.to_string_lossy(),
    ])?;
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(&out)
        .output()
        .map_err(|e| format!("readelf: {e}"))?;
    if !String::from_utf8_lossy(&dynamic.stdout)
        .lines()
        .any(|l| l.contains("NEEDED") && l.contains("[librpma.so.0]"))
    {
        return Err(format!("{} does not need librpma.so.0", out.display()));
    }
    let mut native: Vec<String> = Vec::new();
    if let Some(h) = headers {
        // only rdma-core's own folders: libc's and the kernel's headers stay the host's
        let inc = t.build.join("verbs-include");
        let _ = fs::remove_dir_all(&inc);
        fs::create_dir_all(&inc).map_err(|e| format!("{}: {e}", inc.display()))?;
        for d in ["infiniband", "rdma"] {
            symlink(h.join("usr/include").join(d), inc.join(d))
                .map_err(|e| format!("{}: {e}", inc.display()))?;
        }
        native = vec![format!("-I{}", inc.display()), "-DHAVE_NATIVE_FLUSH".into()];
    }
    let mut args: Vec<String> = native;
    args.extend([
        bench.join("verbs-bench.c").to_string_lossy().into_owned(),
        "-libverbs".into(),
        "-lrdmacm".into(),
        "-o".into(),
        t.build.join("verbs-bench").to_string_lossy().into_owned(),
    ]);
    gcc(&args.iter().map(String::as_str).collect::<Vec<_>>())?;
    build_rust(t)
}
