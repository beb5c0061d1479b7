//! Build script: the inline-verb wrappers, and the ELF identity of
//! `librpma.so.0` (soname, version node `LIBRPMA_1.0`, one `.symver` per export).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    compile_wrappers();
    identity(&out);
}

fn compile_wrappers() {
    // The Rust side (src/sys/bindings.rs) is committed; only the C wrappers
    // of the inline verbs are compiled, against the installed headers, so
    // they call whatever the build machine's rdma-core inlines.
    let wrappers = "src/sys/static_wrappers.c";
    println!("cargo:rerun-if-changed={wrappers}");
    println!("cargo:rerun-if-changed=src/sys/wrapper.h");
    cc::Build::new()
        .file(wrappers)
        .include(env::current_dir().expect("cwd"))
        .warnings(false)
        .compile("rpma_static_wrappers");

    // The versioned identity needs both libraries in DT_NEEDED even before a
    // function of theirs is called, exactly as the C library records them.
    println!("cargo:rustc-link-lib=dylib=ibverbs");
    println!("cargo:rustc-link-lib=dylib=rdmacm");
    for arg in [
        "-Wl,--push-state,--no-as-needed",
        "-libverbs",
        "-lrdmacm",
        "-Wl,--pop-state",
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }
}

/// Soname and symbol versions of the cdylib.
///
/// Rust's own linker script already makes every `#[no_mangle]` symbol global
/// and everything else local; rust-lld then refuses to move those symbols to
/// a node named in a second version script (it keeps them unversioned,
/// silently). So the script here only defines the node, and each exported
/// function is bound to it with a `.symver` directive assembled into the
/// library. The list is read from the C-API sources, so a new export cannot
/// forget its version.
fn identity(out: &Path) {
    let map = out.join("librpma.map");
    fs::write(&map, "LIBRPMA_1.0 {\n\tlocal: *;\n};\n").expect("write librpma.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librpma.so.0");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );

    let mut names = Vec::new();
    let capi = Path::new("src/capi");
    println!("cargo:rerun-if-changed={}", capi.display());
    let mut files: Vec<_> = fs::read_dir(capi)
        .expect("src/capi")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for file in files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = fs::read_to_string(&file).expect("read C-API source");
        names.extend(exported_names(&text));
    }
    let asm: String = names
        .iter()
        .map(|n| format!(".symver {n}, {n}@@LIBRPMA_1.0\n"))
        .collect();
    fs::write(out.join("symver.s"), asm).expect("write symver.s");
}

/// Names of `extern "C"` functions defined in a C-API source file.
fn exported_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line
            .strip_prefix("pub unsafe extern \"C\" fn ")
            .or_else(|| line.strip_prefix("pub extern \"C\" fn "))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        assert!(
            name.starts_with("rpma_"),
            "only upstream rpma_* functions may be exported, found {name}"
        );
        names.push(name);
    }
    names
}
