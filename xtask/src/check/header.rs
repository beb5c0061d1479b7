//! `check header OURS.h REFERENCE.h OURS.so`: our include/librpma.h against
//! upstream's (Debian's librpma-dev):
//!  1. it compiles alone with gcc -std=c99 -pedantic and with g++, warnings
//!     as errors;
//!  2. it defines the same RPMA_* / LIBRPMA_H macros with the same values;
//!  3. every enum, the rpma_log_function typedef, struct
//!     rpma_conn_private_data and the prototype of every function OURS.so
//!     exports are ABI-identical (abidiff of a probe object built once
//!     against each header).

use super::{args, same_or_diff, scratch, stdout_of, succeeds, syms, Checks, TempDir, Usage};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

const ENUMS: [&str; 5] = [
    "rpma_util_ibv_context_type",
    "rpma_conn_event",
    "rpma_flush_type",
    "rpma_log_level",
    "rpma_log_threshold",
];

const SIDES: [&str; 2] = ["ref", "ours"];

pub fn run(a: &[&str]) -> Result<Checks, Usage> {
    let [ours_h, ref_h, ours_so] = args(a, "OURS.h REFERENCE.h OURS.so")?;
    let tmp = scratch("header")?;
    let w = tmp.path();
    let mut c = Checks::default();
    for (side, header) in [("ours", ours_h), ("ref", ref_h)] {
        let copied = fs::create_dir(w.join(side))
            .and_then(|()| fs::copy(header, w.join(side).join("librpma.h")));
        if let Err(e) = copied {
            return Err(Usage(format!("{header}: {e}")));
        }
    }
    let use_c = "#include <librpma.h>\nint main(void) { return 0; }\n";
    let written =
        fs::write(w.join("use.c"), use_c).and_then(|()| fs::write(w.join("use.cpp"), use_c));
    written.map_err(|e| Usage(format!("{}: {e}", w.display())))?;

    // 1. strict compilation
    let ours_inc = format!("-I{}", w.join("ours").display());
    c.expect(
        succeeds(
            Command::new("gcc")
                .args([
                    "-std=c99",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-pedantic",
                    &ours_inc,
                    "-c",
                ])
                .arg(w.join("use.c"))
                .arg("-o")
                .arg(w.join("c.o")),
        ),
        "header does not compile with gcc -std=c99 -pedantic",
    );
    c.expect(
        succeeds(
            Command::new("g++")
                .args(["-Wall", "-Wextra", "-Werror", &ours_inc, "-c"])
                .arg(w.join("use.cpp"))
                .arg("-o")
                .arg(w.join("cxx.o")),
        ),
        "header does not compile with g++",
    );

    // 2. macro names and values
    let mut names = Vec::new();
    for side in SIDES {
        match macros(w, side) {
            Ok(m) => names.push(m),
            Err(e) => {
                c.bad(format!("the {side} header's macros: {e}"));
                names.push(Vec::new());
            }
        }
    }
    let text = |v: &[String]| v.iter().map(|m| format!("{m}\n")).collect::<String>();
    let (ref_names, ours_names) = (text(&names[0]), text(&names[1]));
    c.expect(
        same_or_diff(tmp.path(), "upstream", &ref_names, "ours", &ours_names),
        "macro names differ",
    );
    let mut values = Vec::new();
    for side in SIDES {
        match macro_values(w, side, &names[0]) {
            Ok(v) => values.push(v),
            Err(e) => c.bad(format!(
                "cannot evaluate the macros of the {side} header: {e}"
            )),
        }
    }
    // (when a side could not say its values, that failure says enough)
    if let [upstream, ours] = &values[..] {
        c.expect(
            same_or_diff(tmp.path(), "upstream", upstream, "ours", ours),
            "macro values differ",
        );
    }

    // 3. types and prototypes, compared as ABI by libabigail
    let functions = match syms::functions(Path::new(ours_so)) {
        Ok(f) => f,
        Err(e) => {
            c.bad(e);
            Vec::new()
        }
    };
    c.expect(
        !functions.is_empty(),
        format!("{ours_so} exports no rpma_* function at LIBRPMA_1.0"),
    );
    probe(&mut c, &tmp, &functions);

    if c.ok() {
        println!(
            "header: {} macros, {} enums, the log typedef, private data and {} prototypes agree with upstream",
            names[0].len(),
            ENUMS.len(),
            functions.len()
        );
    }
    Ok(c)
}

/// The RPMA_* and LIBRPMA_H macros a side's header defines, sorted.
fn macros(w: &Path, side: &str) -> Result<Vec<String>, String> {
    let defs = stdout_of(
        Command::new("gcc")
            .args(["-dM", "-E"])
            .arg(format!("-I{}", w.join(side).display()))
            .arg(w.join("use.c")),
    )?;
    let mut names: Vec<String> = defs
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            (f.next() == Some("#define")).then_some(())?;
            let name = f.next()?;
            (name.starts_with("RPMA_") || name == "LIBRPMA_H").then(|| name.to_string())
        })
        .collect();
    names.sort();
    Ok(names)
}

/// What a program built against a side's header prints of each macro of
/// upstream's.
fn macro_values(w: &Path, side: &str, names: &[String]) -> Result<String, String> {
    let mut src = String::from("#include <librpma.h>\n#include <stdio.h>\nint main(void) {\n");
    for m in names {
        if m == "RPMA_LOG_USE_DEFAULT_FUNCTION" {
            let _ = writeln!(
                src,
                "  printf(\"{m} is NULL: %d\\n\", (void *)({m}) == (void *)0);"
            );
        } else {
            let _ = writeln!(src, "  printf(\"{m} = %lld\\n\", (long long)({m}));");
        }
    }
    src.push_str("  return 0; }\n");
    let source = w.join("values.c");
    fs::write(&source, src).map_err(|e| e.to_string())?;
    let exe = w.join(format!("values.{side}"));
    let built = succeeds(
        Command::new("gcc")
            .args(["-Wall", "-Werror"])
            .arg(format!("-I{}", w.join(side).display()))
            .arg(&source)
            .arg("-o")
            .arg(&exe),
    );
    if !built {
        return Err("gcc failed".into());
    }
    stdout_of(&mut Command::new(&exe))
}

/// Builds a probe object against each header and has abidiff compare them.
fn probe(c: &mut Checks, tmp: &TempDir, functions: &[String]) {
    let w = tmp.path();
    let mut src = String::from("#include <librpma.h>\n");
    for e in ENUMS {
        let _ = writeln!(src, "enum {e} probe_enum_{e};");
    }
    src.push_str("rpma_log_function *probe_log_function;\n");
    src.push_str("struct rpma_conn_private_data probe_private_data;\n");
    for f in functions {
        let _ = writeln!(src, "__typeof__(&{f}) probe_{f};");
    }
    if let Err(e) = fs::write(w.join("probe.c"), src) {
        return c.bad(format!("probe.c: {e}"));
    }
    for side in SIDES {
        c.expect(
            succeeds(
                Command::new("gcc")
                    .args(["-g", "-shared", "-fPIC", "-fcommon"])
                    .arg(format!("-I{}", w.join(side).display()))
                    .arg(w.join("probe.c"))
                    .arg("-o")
                    .arg(w.join(format!("probe.{side}.so"))),
            ),
            format!("probe does not compile against the {side} header"),
        );
    }
    let out = Command::new("abidiff")
        .arg(w.join("probe.ref.so"))
        .arg(w.join("probe.ours.so"))
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            print!("{}", String::from_utf8_lossy(&o.stdout));
            eprint!("{}", String::from_utf8_lossy(&o.stderr));
            c.bad("abidiff finds ABI differences between the headers");
        }
        Err(e) => c.bad(format!("abidiff: {e}")),
    }
}
