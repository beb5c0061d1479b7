//! `cargo xtask check deb-install ROOT [DEB-DIR]`: our packages installed
//! for real over Debian's inside a SoftRoCE guest (whose writes vanish at
//! power-off), and back again; tests-c/scripts/deb-install-guest.sh does
//! it in the guest:
//!   1. programs are built against Debian's librpma-dev, as users have them;
//!   2. `dpkg -i` our librpma0 and librpma-dev (DEB-DIR, default
//!      ROOT/build/deb, `make deb`'s; it must be inside ROOT, which the
//!      guest sees);
//!   3. those programs run as server and client on rxe0 with no
//!      LD_LIBRARY_PATH or LD_PRELOAD, and the file the loader initialised
//!      has our package's ELF build-id;
//!   4. a program builds against the installed -dev package with
//!      pkg-config and with CMake find_package(librpma), and runs;
//!   5. `dpkg -i` of Debian's librpma0 and librpma-dev brings the C library
//!      back (its build-id) and the same programs still run.
//!
//! With RXE_STACK=trixie the guest is Debian 13's stack and Debian's
//! packages are Debian 13's (kept by the harness's trixie root), for the
//! packages built in a Debian 13 chroot (`make deb RELEASE=trixie`).

use super::{glob, scratch, stdout_of, succeeds, Checks, Usage};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian's librpma0 and librpma-dev to go back to, as the guest sees them.
fn debian_packages(root: &Path, tmp: &Path, trixie: bool) -> Result<Vec<PathBuf>, String> {
    let names = ["librpma0", "librpma-dev"];
    if trixie {
        // the trixie root's own packages, at their paths in the guest
        let stack = stdout_of(Command::new(root.join("softroce/stack-root")).arg("trixie"))?;
        let archives = Path::new(stack.trim()).join("var/cache/apt/archives");
        return names
            .iter()
            .map(|p| {
                let f = glob(&archives, &format!("{p}_"), ".deb");
                let f = f
                    .first()
                    .ok_or(format!("the trixie root keeps no {p} package"))?;
                Ok(Path::new("/").join(f.strip_prefix(stack.trim()).unwrap_or(f)))
            })
            .collect();
    }
    // the installed version's packages
    let ver = stdout_of(Command::new("dpkg-query").args(["-W", "-f=${Version}", "librpma0"]))
        .map_err(|_| "Debian's librpma0 is not installed".to_string())?;
    let wanted: Vec<String> = names.iter().map(|p| format!("{p}={ver}")).collect();
    stdout_of(
        Command::new("apt-get")
            .args(["download", "-qq"])
            .args(&wanted)
            .current_dir(tmp),
    )
    .map_err(|e| format!("apt-get download {}: {e}", wanted.join(" ")))?;
    Ok(names
        .iter()
        .filter_map(|p| glob(tmp, &format!("{p}_"), ".deb").into_iter().next())
        .collect())
}

pub fn run(args: &[&str]) -> Result<Checks, Usage> {
    let (root, debs) = match args {
        [root] => (*root, None),
        [root, debs] => (*root, Some(*debs)),
        _ => return Err(Usage("expected ROOT [DEB-DIR]".into())),
    };
    let root = Path::new(root)
        .canonicalize()
        .map_err(|e| Usage(format!("{root}: {e}")))?;
    let mut c = Checks::default();
    let debs = debs.map_or_else(|| root.join("build/deb"), PathBuf::from);
    let debs = match debs.canonicalize() {
        Ok(d) if d.starts_with(&root) => d,
        Ok(d) => {
            c.bad(format!(
                "{} is not inside {}, which the guest sees",
                d.display(),
                root.display()
            ));
            return Ok(c);
        }
        Err(e) => {
            c.bad(format!("{}: {e}: run 'make deb' first", debs.display()));
            return Ok(c);
        }
    };
    for p in ["librpma0_", "librpma-dev_"] {
        if glob(&debs, p, "_amd64.deb").is_empty() {
            c.bad(format!(
                "no {p}*_amd64.deb in {}: run 'make deb' first",
                debs.display()
            ));
        }
    }
    if !c.ok() {
        return Ok(c);
    }
    let trixie = std::env::var("RXE_STACK").is_ok_and(|s| s == "trixie");
    // apt-get download's folder must be one the guest sees: /tmp is the host's
    let tmp = scratch("deb-install")?;
    let reference = match debian_packages(&root, tmp.path(), trixie) {
        Ok(r) if r.len() == 2 => r,
        Ok(_) => {
            c.bad("apt-get download gave no packages");
            return Ok(c);
        }
        Err(e) => {
            c.bad(e);
            return Ok(c);
        }
    };
    // Debian 13's kernel takes a flush to persistence (examples/data-path)
    // only into persistent memory: the guest gets an NVDIMM, to which
    // deb-install-guest.sh binds the programs; and a machine as users have
    // it, with every libibverbs provider installed
    let ok = succeeds(
        Command::new(root.join("softroce/rxe-run"))
            .arg(root.join("tests-c/scripts/deb-install-guest.sh"))
            .arg(&root)
            .args(&reference)
            .arg(&debs)
            .env("RXE_PMEM_MB", if trixie { "1024" } else { "0" })
            .env("RXE_ALL_PROVIDERS", "1"),
    );
    c.expect(ok, "the guest's install and runs (above)");
    Ok(c)
}
