//! `check function-table ROOT OURS.so REFERENCE.so`: docs/functions.md's "Status"
//! section is exactly the table of upstream's functions and their status in
//! our library, made now from the two binaries; `--print OURS.so
//! REFERENCE.so` prints that table.

use super::{args, same_or_diff, scratch, syms, Checks, Usage};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Functions that come with the data-path work; the rest of the missing
/// ones come with peers, memory regions and connections.
const DATA_PATH: [&str; 16] = [
    "rpma_read",
    "rpma_write",
    "rpma_write_with_imm",
    "rpma_atomic_write",
    "rpma_flush",
    "rpma_send",
    "rpma_send_with_imm",
    "rpma_recv",
    "rpma_cq_get_wc",
    "rpma_cq_wait",
    "rpma_cq_get_fd",
    "rpma_conn_wait",
    "rpma_srq_new",
    "rpma_srq_delete",
    "rpma_srq_get_rcq",
    "rpma_srq_recv",
];

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    if a.first() == Some(&"--print") {
        let [ours, reference] = args(&a[1..], "--print OURS.so REFERENCE.so")?;
        let mut c = Checks::default();
        match table(ours, reference) {
            Ok(t) => print!("{t}"),
            Err(e) => c.bad(e),
        }
        return Ok(c);
    }
    let [root, ours, reference] = args(a, "ROOT OURS.so REFERENCE.so")?;
    let tmp = scratch("functions")?;
    let mut c = Checks::default();
    let page = Path::new(root).join("docs/functions.md");
    let section = match fs::read_to_string(&page) {
        Ok(text) => status_section(&text),
        Err(e) => {
            c.bad(format!("{}: {e}", page.display()));
            String::new()
        }
    };
    let now = table(ours, reference).unwrap_or_else(|e| {
        c.bad(e);
        String::new()
    });
    let regenerate = format!("cargo xtask check function-table --print {ours} {reference}");
    if same_or_diff(tmp.path(), "docs/functions.md", &section, &regenerate, &now) {
        println!("docs/functions.md matches the library");
    } else {
        c.bad(format!(
            "docs/functions.md is stale: regenerate it with `{regenerate}`"
        ));
    }
    Ok(c)
}

/// What follows the line "## Status" and the line after it, to the end.
fn status_section(page: &str) -> String {
    page.split_inclusive('\n')
        .skip_while(|l| l.trim_end_matches('\n') != "## Status")
        .skip(2)
        .collect()
}

/// The count of upstream's functions we export, then a row per function.
fn table(ours: &str, reference: &str) -> Result<String, String> {
    let exported = syms::functions(Path::new(ours))?;
    let upstream = syms::functions(Path::new(reference))?;
    let mut rows = String::new();
    let mut done = 0;
    for f in &upstream {
        let status = if exported.binary_search(f).is_ok() {
            done += 1;
            "implemented"
        } else if DATA_PATH.contains(&f.as_str()) {
            "not yet (data path)"
        } else {
            "not yet (peers, regions, connections)"
        };
        let _ = writeln!(rows, "| `{f}` | {status} |");
    }
    Ok(format!(
        "{done} of {} functions implemented.\n\n| function | status |\n|---|---|\n{rows}",
        upstream.len()
    ))
}
