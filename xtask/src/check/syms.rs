//! What a shared object exports, as readelf lists its dynamic symbols.

use super::stdout_of;
use std::path::Path;
use std::process::Command;

fn dyn_syms(lib: &Path) -> Result<String, String> {
    stdout_of(Command::new("readelf").args(["--dyn-syms", "-W"]).arg(lib))
}

/// The NAME@@VERSION of every dynamic symbol `lib` defines for others (not
/// LOCAL, not undefined), in readelf's order.
///
/// GNU ld on arm64 also lists the LOCAL section symbols .init and .data in
/// .dynsym (in the C library as in ours): nothing outside the object sees
/// them. The section index and the name are read as readelf's last two
/// fields, since on ppc64el readelf adds a "[<localentry>: 8]" field to a
/// function's visibility, and an import line ends in its version index,
/// " (3)".
pub fn defined(lib: &Path) -> Result<Vec<String>, String> {
    Ok(dyn_syms(lib)?
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = strip_version_index(line).split_whitespace().collect();
            let numbered = f.first().is_some_and(|n| {
                n.strip_suffix(':')
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            });
            (numbered && f.len() >= 8 && f[4] != "LOCAL" && f[f.len() - 2] != "UND")
                .then(|| f[f.len() - 1].to_string())
        })
        .collect())
}

/// `line` without a trailing " (N)".
fn strip_version_index(line: &str) -> &str {
    line.strip_suffix(')')
        .and_then(|l| l.rsplit_once(" ("))
        .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(line, |(l, _)| l)
}

/// The rpma_* functions `lib` defines at @@LIBRPMA_1.0, sorted: readelf's
/// seventh field (the section) not UND, the eighth the name.
pub fn functions(lib: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = dyn_syms(lib)?
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.get(6) == Some(&"UND") {
                return None;
            }
            let name = f.get(7)?.strip_suffix("@@LIBRPMA_1.0")?;
            name.starts_with("rpma_").then(|| name.to_string())
        })
        .collect();
    names.sort();
    Ok(names)
}
