//! The data path takes no lock and allocates nothing, by construction.
//!
//! The live test `scenario_hot_path` counts what the library calls at run
//! time (malloc and friends, pthread locks, futex syscalls). An uncontended
//! Rust lock makes none of those calls, so this test rules locks out at the
//! source: no lock type anywhere in the library outside unit tests. The
//! modules the data path runs through (post.rs builds and posts every work
//! request, the native flush and atomic write too; conn/ops.rs holds the
//! operations, conn/flush.rs the flush) must not name an allocating type
//! either.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // bindgen's output describes C's types (pthread_mutex_t among
            // them); it holds no code of ours.
            && !path.to_string_lossy().contains("rpma-sys/src/bindings.rs")
            && !path.to_string_lossy().contains("rpma-sys/src/layout.rs")
        {
            out.push(path);
        }
    }
}

/// The text of a source file up to its unit-test module.
fn library_code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

fn offending_lines(code: &str, words: &[&str]) -> Vec<String> {
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| words.iter().any(|w| l.contains(w)))
        .map(str::to_string)
        .collect()
}

#[test]
fn no_lock_in_the_library() {
    // the core, its C face and the bindings below them
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["rpma", "librpma", "rpma-sys"] {
        sources(&crates.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 30, "the source trees were not found");
    let locks = [
        "Mutex",
        "RwLock",
        "Condvar",
        "Barrier",
        "pthread_mutex",
        "pthread_rwlock",
    ];
    for f in files {
        let bad = offending_lines(&library_code(&f), &locks);
        assert!(bad.is_empty(), "{}: {:?}", f.display(), bad);
    }
}

#[test]
fn no_allocation_in_the_data_path_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allocating = [
        "Box",
        "Vec",
        "String",
        "format!",
        "to_string",
        "to_vec",
        "to_owned",
        "collect",
        "Rc<",
        "Arc<",
        "try_box",
        "copy_bytes",
    ];
    for f in ["post.rs", "conn/ops.rs", "conn/flush.rs"] {
        let bad = offending_lines(&library_code(&root.join(f)), &allocating);
        assert!(bad.is_empty(), "{f}: {bad:?}");
    }
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    let code = "let m = Mutex::new(0);\n// Mutex in a comment\nlet v: Vec<u8> = Vec::new();";
    assert_eq!(offending_lines(code, &["Mutex"]).len(), 1);
    assert_eq!(offending_lines(code, &["Vec"]).len(), 1);
}
