//! `check elf OURS.so REFERENCE.so`: the ELF identity of a drop-in.
//!
//! The reference's ELF class, byte order, machine and ABI flags (the same
//! architecture and ABI), SONAME librpma.so.0, NEEDED libibverbs.so.1 and
//! librdmacm.so.1, the version node LIBRPMA_1.0, and every defined dynamic
//! symbol an upstream rpma_* function at @@LIBRPMA_1.0 (nothing else
//! leaks), all of upstream's, and abidiff against the C library finds no
//! difference. The reference is the C library of the same architecture
//! (Debian's librpma0:ARCH for a cross-build).

use super::{args, same_or_diff, scratch, stdout_of, syms, Checks, Usage};
use std::path::Path;
use std::process::Command;

const HEADER_FIELDS: [&str; 5] = ["Class", "Data", "Machine", "Flags", "OS/ABI"];

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [ours, reference] = args(a, "OURS.so REFERENCE.so")?;
    let (ours, reference) = (Path::new(ours), Path::new(reference));
    let tmp = scratch("elf")?;
    let mut c = Checks::default();

    match (header(ours), header(reference)) {
        (Ok(o), Ok(r)) if o == r => {
            let machine = o
                .lines()
                .find_map(|l| l.trim_start().strip_prefix("Machine:"))
                .unwrap_or("")
                .trim();
            println!("ELF header as the reference's: {machine}");
        }
        (Ok(o), Ok(r)) => {
            c.bad("ELF header differs from the reference's:");
            same_or_diff(tmp.path(), "reference", &r, "ours", &o);
        }
        (o, r) => {
            for e in [o.err(), r.err()].into_iter().flatten() {
                c.bad(format!("ELF header: {e}"));
            }
        }
    }

    match stdout_of(Command::new("readelf").arg("-d").arg(ours)) {
        Ok(dynamic) => {
            let soname = dynamic
                .lines()
                .find(|l| l.contains("(SONAME)"))
                .and_then(bracketed)
                .unwrap_or("");
            c.expect(
                soname == "librpma.so.0",
                format!("SONAME is '{soname}', expected librpma.so.0"),
            );
            for lib in ["libibverbs.so.1", "librdmacm.so.1"] {
                let needed = dynamic
                    .lines()
                    .any(|l| l.contains("(NEEDED)") && bracketed(l) == Some(lib));
                c.expect(needed, format!("NEEDED {lib} missing"));
            }
        }
        Err(e) => c.bad(e),
    }
    match stdout_of(Command::new("readelf").arg("-V").arg(ours)) {
        Ok(v) => c.expect(
            v.contains("Name: LIBRPMA_1.0"),
            "no version definition LIBRPMA_1.0",
        ),
        Err(e) => c.bad(e),
    }

    exports(&mut c, ours, reference);

    // abidiff (libabigail) of the two shared objects: no function removed or
    // changed. The C library ships without debug information, so this
    // compares the ELF symbols and their versions; `check header` compares
    // the types.
    let out = Command::new("abidiff").arg(reference).arg(ours).output();
    match out {
        Ok(o) if o.status.success() => println!("abidiff: no removed or changed function"),
        Ok(o) => {
            c.bad("abidiff reports differences:");
            println!("{}", String::from_utf8_lossy(&o.stdout).trim_end());
            eprint!("{}", String::from_utf8_lossy(&o.stderr));
        }
        Err(e) => c.bad(format!("abidiff: {e}")),
    }
    Ok(c)
}

/// The lines of `readelf -h` that say the architecture and ABI, their
/// spaces squeezed.
fn header(lib: &Path) -> Result<String, String> {
    let text = stdout_of(Command::new("readelf").arg("-h").arg(lib))?;
    Ok(text
        .lines()
        .filter(|l| {
            HEADER_FIELDS.iter().any(|f| {
                l.trim_start()
                    .strip_prefix(f)
                    .is_some_and(|r| r.starts_with(':'))
            })
        })
        .map(|l| squeeze(l) + "\n")
        .collect())
}

/// `tr -s ' '`: each run of spaces one space.
fn squeeze(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for ch in line.chars() {
        if !(ch == ' ' && out.ends_with(' ')) {
            out.push(ch);
        }
    }
    out
}

/// The text between the last [ and ] of a readelf -d line.
fn bracketed(line: &str) -> Option<&str> {
    let (_, rest) = line.rsplit_once('[')?;
    rest.split_once(']').map(|(name, _)| name)
}

/// Every defined symbol of ours is an upstream function at @@LIBRPMA_1.0
/// (or the version node itself), and every upstream function is there.
fn exports(c: &mut Checks, ours: &Path, reference: &Path) {
    let upstream: Vec<String> = match syms::defined(reference) {
        Ok(s) => {
            let mut v: Vec<String> = s.into_iter().filter(|s| s.starts_with("rpma_")).collect();
            v.sort();
            v
        }
        Err(e) => return c.bad(e),
    };
    if upstream.is_empty() {
        c.bad(format!(
            "{} defines no rpma_* function",
            reference.display()
        ));
    }
    let defined = match syms::defined(ours) {
        Ok(s) => s,
        Err(e) => return c.bad(e),
    };
    let mut exported = 0;
    for sym in &defined {
        // the version definition itself
        if sym == "LIBRPMA_1.0" || sym == "LIBRPMA_1.0@@LIBRPMA_1.0" {
            continue;
        }
        if sym.starts_with("rpma_") && sym.ends_with("@@LIBRPMA_1.0") {
            c.expect(
                upstream.binary_search(sym).is_ok(),
                format!("{sym} is not an upstream librpma symbol"),
            );
            exported += 1;
        } else {
            c.bad(format!(
                "exported symbol '{sym}' is not an upstream rpma_* function at LIBRPMA_1.0"
            ));
        }
    }
    println!(
        "{exported} of {} upstream functions exported, all @@LIBRPMA_1.0",
        upstream.len()
    );
    c.expect(
        exported == upstream.len(),
        "not every upstream function is exported",
    );
}
