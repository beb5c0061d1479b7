//! `librpma.map` is the one list of what librpma.so.0 exports (the
//! Makefile links the library with it as the version script). Nothing else checks that the
//! list, the `#[no_mangle]` functions of this crate and the functions
//! include/librpma.h declares agree, so this test does: a function added
//! to one of them and forgotten in another would be exported unversioned,
//! left out of the header, or versioned without a definition.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

include!("../map.rs");

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn map_names() -> Vec<String> {
    let text = fs::read_to_string(crate_dir().join("librpma.map")).unwrap();
    let (node, names) = parse_map(&text);
    assert_eq!(node, "LIBRPMA_1.0");
    names
}

/// `#[no_mangle]` `extern "C"` functions defined in the crate's sources;
/// panics on an exported function that is not `#[no_mangle]` or the reverse,
/// which the map could not describe.
fn source_names() -> Vec<String> {
    let mut files: Vec<_> = fs::read_dir(crate_dir().join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let mut names = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        let mut no_mangle = false;
        for line in text.lines().map(str::trim_start) {
            if line.starts_with("#[no_mangle]") {
                no_mangle = true;
                continue;
            }
            if line.starts_with("///") || line.starts_with("//") || line.starts_with("#[") {
                continue;
            }
            let public = line
                .strip_prefix("pub unsafe extern \"C\" fn ")
                .or_else(|| line.strip_prefix("pub extern \"C\" fn "));
            if let Some(rest) = public {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                assert!(no_mangle, "{}: {name} is not #[no_mangle]", file.display());
                names.push(name);
            } else {
                assert!(!no_mangle, "{}: #[no_mangle] on {line:?}", file.display());
            }
            no_mangle = false;
        }
    }
    names
}

/// The functions include/librpma.h declares: every statement with a
/// parameter list that is not a typedef or a macro.
fn header_names() -> Vec<String> {
    let text = fs::read_to_string(crate_dir().join("../../include/librpma.h")).unwrap();
    let code: String = strip_block_comments(&text)
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut names = Vec::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        // a statement that follows an enum or struct body starts after it
        let statement = statement.rsplit('}').next().unwrap().trim();
        if statement.starts_with("typedef") {
            continue;
        }
        let Some(open) = statement.find('(') else {
            continue;
        };
        let name: String = statement[..open]
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        names.push(name);
    }
    names
}

fn set(names: &[String]) -> BTreeSet<&str> {
    let set: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(set.len(), names.len(), "a name is listed twice: {names:?}");
    set
}

#[test]
fn the_map_lists_the_84_upstream_functions() {
    assert_eq!(set(&map_names()).len(), 84);
}

#[test]
fn the_map_names_exactly_the_exported_functions() {
    let (map, sources) = (map_names(), source_names());
    let (map, sources) = (set(&map), set(&sources));
    assert!(
        map == sources,
        "only in librpma.map: {:?}; only in src/: {:?}",
        map.difference(&sources).collect::<Vec<_>>(),
        sources.difference(&map).collect::<Vec<_>>()
    );
}

#[test]
fn the_map_names_exactly_the_functions_of_the_header() {
    let (map, header) = (map_names(), header_names());
    let (map, header) = (set(&map), set(&header));
    assert!(
        map == header,
        "only in librpma.map: {:?}; only in include/librpma.h: {:?}",
        map.difference(&header).collect::<Vec<_>>(),
        header.difference(&map).collect::<Vec<_>>()
    );
}

#[test]
fn the_map_reader_skips_comments() {
    let (node, names) =
        parse_map("/* a */ N_1 {\n global: /* b; */ rpma_x;\n\trpma_y; local: *; };");
    assert_eq!(
        (node.as_str(), names),
        ("N_1", vec!["rpma_x".to_string(), "rpma_y".to_string()])
    );
}
