//! `check package`: the two Rust crates meant for crates.io are ready for
//! it: `cargo publish --dry-run` of both at once packs each and builds it
//! from its tarball (rpma against the packed rpma-sys, through cargo's
//! local registry for crates published together); rpma's tarball has its
//! license, readme and sources; both carry the metadata crates.io and
//! docs.rs read, and versions of their own, not the C library's.

use super::{repo_root, stdout_of, succeeds, Checks, Usage};
use serde_json::Value;
use std::process::Command;

const CRATES: [&str; 2] = ["rpma", "rpma-sys"];
const PACKED: [&str; 5] = [
    "LICENSE",
    "README.md",
    "Cargo.toml",
    "src/lib.rs",
    "src/conn/mod.rs",
];
const FIELDS: [&str; 4] = ["license", "description", "documentation", "readme"];
/// The C library's version, which the crates must not borrow.
const C_ABI_VERSION: &str = "1.3.0";

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    if !a.is_empty() {
        return Err(Usage("check package takes no argument".into()));
    }
    let root = repo_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let cargo = || {
        let mut c = Command::new(&cargo);
        c.current_dir(&root);
        c
    };
    let mut c = Checks::default();
    let publish = [
        "publish",
        "--dry-run",
        "--allow-dirty",
        "--quiet",
        "-p",
        "rpma-sys",
        "-p",
        "rpma",
    ];
    if !succeeds(cargo().args(publish)) {
        c.bad("cargo publish --dry-run -p rpma-sys -p rpma failed");
        return Ok(c);
    }
    match stdout_of(cargo().args(["package", "-p", "rpma", "--allow-dirty", "--list"])) {
        Ok(list) => {
            for f in PACKED {
                c.expect(
                    list.lines().any(|l| l == f),
                    format!("rpma's package lacks {f}"),
                );
            }
        }
        Err(e) => {
            c.bad(e);
            return Ok(c);
        }
    }
    let meta = stdout_of(cargo().args(["metadata", "--no-deps", "--format-version", "1"]))
        .and_then(|m| {
            serde_json::from_str::<Value>(&m).map_err(|e| format!("cargo metadata: {e}"))
        });
    match meta {
        Ok(m) => metadata(&mut c, &m),
        Err(e) => c.bad(e),
    }
    if c.ok() {
        println!("package-check: rpma and rpma-sys are ready to publish");
    }
    Ok(c)
}

/// What crates.io and docs.rs read of each crate is there.
fn metadata(c: &mut Checks, meta: &Value) {
    let packages = meta["packages"].as_array().map_or(&[][..], Vec::as_slice);
    for name in CRATES {
        let Some(p) = packages.iter().find(|p| p["name"] == name) else {
            c.bad(format!("cargo metadata lists no package {name}"));
            continue;
        };
        for field in FIELDS {
            c.expect(truthy(&p[field]), format!("{name}: no {field}"));
        }
        c.expect(
            p["version"] != C_ABI_VERSION,
            format!("{name}: carries the C ABI version {C_ABI_VERSION}"),
        );
        c.expect(
            truthy(&p["metadata"]["docs"]["rs"]),
            format!("{name}: no [package.metadata.docs.rs]"),
        );
    }
}

/// Set to something: not null, false, 0, nor empty.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}
