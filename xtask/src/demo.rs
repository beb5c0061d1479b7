//! `cargo xtask demo` (`make demo`): the freshly built librpma.so.0 at work.
//!   1. its ELF identity beside the C library's;
//!   2. an example built against our header and library;
//!   3. the same binary served by the C library (the same behaviour);
//!   4. examples/connection and examples/data-path over a live SoftRoCE
//!      device (rxe0 in a QEMU guest), in one boot: our server with our
//!      client, then each library on one side and the C library on the other.

use crate::check::stdout_of;
use std::fs;
use std::path::Path;
use std::process::{Command, ExitCode};

/// Shows a program's output as it runs; Err when it failed.
fn show(cmd: &mut Command) -> Result<(), String> {
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{:?}: {s}", cmd.get_program())),
        Err(e) => Err(format!("{:?}: {e}", cmd.get_program())),
    }
}

fn gcc(src: &str, out: &str) -> Result<(), String> {
    show(Command::new("gcc").args([
        "-std=gnu99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Iinclude",
        src,
        "-Lbuild/lib",
        "-lrpma",
        "-o",
        out,
    ]))
}

fn demo(root: &Path) -> Result<(), String> {
    let lib = "build/lib/librpma.so.0";
    let reference = "/usr/lib/x86_64-linux-gnu/librpma.so.0";
    let has_ref = Path::new(reference).exists();
    println!("== {lib}");
    let dynamic = stdout_of(Command::new("readelf").args(["-d", lib]))?;
    for l in dynamic.lines() {
        for tag in ["(SONAME)", "(NEEDED)"] {
            if let (true, Some(a), Some(b)) = (l.contains(tag), l.find('['), l.rfind(']')) {
                println!("   {} {}", tag.trim_matches(['(', ')']), &l[a + 1..b]);
            }
        }
    }
    let syms = stdout_of(Command::new("readelf").args(["--dyn-syms", "-W", lib]))?;
    let n = syms.lines().filter(|l| l.contains("@@LIBRPMA_1.0")).count();
    println!("   {n} functions exported at LIBRPMA_1.0");

    fs::create_dir_all(root.join("build/examples")).map_err(|e| e.to_string())?;
    gcc(
        "examples/config-tour/config-tour.c",
        "build/examples/config-tour",
    )?;
    println!("== examples/config-tour with our library");
    show(Command::new("build/examples/config-tour").env("LD_LIBRARY_PATH", "build/lib"))?;
    if has_ref {
        println!("== the same binary with the C library ({reference})");
        show(
            Command::new("build/examples/config-tour")
                .env("LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu"),
        )?;
    }

    println!("== examples/connection and examples/data-path over SoftRoCE");
    let examples = ["connection", "data-path"];
    for ex in examples {
        for role in ["server", "client"] {
            gcc(
                &format!("examples/{ex}/{role}.c"),
                &format!("build/examples/{ex}-{role}"),
            )?;
        }
    }
    let ours = root.join(lib).display().to_string();
    let pairs: &[(&str, &str)] = if has_ref {
        &[("ours", "ours"), ("ref", "ours"), ("ours", "ref")]
    } else {
        &[("ours", "ours")]
    };
    let path = |l: &str| {
        if l == "ref" {
            reference.to_string()
        } else {
            ours.clone()
        }
    };
    // A Debian 13 machine boots Debian 13's kernel in the guest, whose rxe
    // flushes natively and takes a flush to persistence only into
    // persistent memory (librpma(7)): the guest gets an emulated NVDIMM and
    // the programs take their memory from it, as on a host with PMem.
    let release = fs::read_to_string("/etc/os-release").unwrap_or_default();
    let pmem_mb = if release.lines().any(|l| l == "VERSION_CODENAME=bookworm") {
        0
    } else {
        1024
    };
    let mut script = String::from(
        "set -e\nmem=(); [ -z \"${RXE_PMEM_NODE:-}\" ] || mem=(numactl --membind=\"$RXE_PMEM_NODE\")\n",
    );
    for ex in examples {
        for (s, c) in pairs {
            script += &format!(
                "echo; echo '-- {ex}: server: {s} library, client: {c} library'\n\"${{mem[@]}}\" tests-c/scripts/run-pair.sh {} build/examples/{ex}-server {} build/examples/{ex}-client\n",
                path(s),
                path(c)
            );
        }
    }
    let script_path = "build/examples/demo-pairs.sh";
    fs::write(root.join(script_path), script).map_err(|e| e.to_string())?;
    if pmem_mb > 0 {
        println!(
            "   (Debian 13's kernel: the programs' memory is on an emulated NVDIMM, {pmem_mb} MB)"
        );
    }
    show(
        Command::new("softroce/rxe-run")
            .args(["bash", script_path])
            .env("RXE_PMEM_MB", pmem_mb.to_string()),
    )
}

pub fn main(root: &Path) -> ExitCode {
    if let Err(e) = std::env::set_current_dir(root) {
        eprintln!("demo: {e}");
        return ExitCode::FAILURE;
    }
    match demo(root) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}
